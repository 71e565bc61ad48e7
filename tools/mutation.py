"""`make mutation`: mutmut (pinned in tools/mutation-requirements.txt) mutates the rule modules and
runs tests/unit alone against each mutant, then prints every module's score (docs/testing.md).

mutmut names a mutant after its file's path from where it runs, and the tests import the layer as
``alleycat``: so it runs in a staging folder, .mutation/, holding the layer's package as
src/alleycat (mutmut drops ``src.``), tests/ (its conftest and unit/ only), pytest.ini and
pyproject.toml (whose [tool.mutmut] says what to mutate). mutmut copies these into
.mutation/mutants/ and puts mutants/src first on sys.path, so the tests import the mutated layer.
Every run starts afresh: mutmut would keep the verdict of a mutant whose function did not change,
however the tests did.
"""

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGE = ROOT / ".mutation"
LAYER = ROOT / "layers" / "alleycat" / "python" / "alleycat"
PARALLEL = 2
# What mutmut puts in mutants/ itself (the mutated layer, the tests and their settings).
OWN = {"src", "tests", "pytest.ini", "pyproject.toml", "mutants", "node_modules"}

# Exit codes of a mutant's test run, as mutmut 3.8 records them (mutmut/stats.py): detected is killed.
KILLED = {1, 3, 24, -24, 36, 152, 255, -9, -11, 37}
SURVIVED = {0}
NO_TESTS = {5, 33}

# Mutants no test can kill: the code behaves the same (docs/testing.md, "Equivalent mutants").
EQUIVALENT_FILE = ROOT / "tools" / "mutation-equivalents.txt"


def stage() -> None:
    def replace(source: Path, target: Path) -> None:
        # Copy only what changed: mutmut re-mutates a file whose copy is newer than its mutants.
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, target)

    for stale in (STAGE / "src", STAGE / "tests", STAGE / "mutants"):
        shutil.rmtree(stale, ignore_errors=True)
    replace(LAYER, STAGE / "src" / "alleycat")
    replace(ROOT / "tests" / "conftest.py", STAGE / "tests" / "conftest.py")
    replace(ROOT / "tests" / "unit", STAGE / "tests" / "unit")
    replace(ROOT / "pyproject.toml", STAGE / "pyproject.toml")
    replace(ROOT / "pytest.ini", STAGE / "pytest.ini")
    # Tests that read the repository's other files (docs, tools, functions) find them from their
    # own folder's parent, mutants/: links to the originals, beside what mutmut copies there.
    (STAGE / "mutants").mkdir(exist_ok=True)
    for entry in ROOT.iterdir():
        link = STAGE / "mutants" / entry.name
        if entry.name not in OWN and not entry.name.startswith(".") and not link.is_symlink():
            link.symlink_to(entry)


def equivalents() -> set[str]:
    if not EQUIVALENT_FILE.exists():
        return set()
    lines = EQUIVALENT_FILE.read_text().splitlines()
    return {line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()}


def scores(equivalent: set[str]) -> list[tuple[str, Counter[str], list[str]]]:
    """Per mutated module: how many mutants were killed, survived, had no test, are equivalent;
    and the names of those not killed (``mutmut show NAME`` in .mutation/ shows one)."""
    rows = []
    for meta in sorted((STAGE / "mutants" / "src").rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if not codes:
            continue
        module = meta.relative_to(STAGE / "mutants" / "src").as_posix().removesuffix(".py.meta").replace("/", ".")
        count: Counter[str] = Counter()
        not_killed = []
        for name, code in codes.items():
            if name in equivalent:
                count["equivalent"] += 1
                continue
            outcome = "killed" if code in KILLED else "survived" if code in SURVIVED else "no tests" if code in NO_TESTS else "other"
            count[outcome] += 1
            if outcome != "killed":
                not_killed.append(f"{outcome}: {name}")
        rows.append((module, count, not_killed))
    return rows


def main() -> int:
    started = time.monotonic()
    stage()
    mutmut = Path(sys.executable).parent / "mutmut"
    run = subprocess.run([str(mutmut), "run", "--max-children", str(PARALLEL)], cwd=STAGE,
                         stdout=subprocess.DEVNULL if "-q" in sys.argv else None)
    if run.returncode != 0:
        print(f"mutmut run failed ({run.returncode})", file=sys.stderr)
        return run.returncode
    equivalent = equivalents()
    rows = scores(equivalent)
    # score: killed of the mutants that are not equivalent; raw: killed of every mutant mutmut made
    print(f"\n{'module':34} {'killed':>7} {'of':>4} {'score':>7} {'equivalent':>10} {'raw':>7}")
    failing = []
    for module, count, _ in rows:
        total = count["killed"] + count["survived"] + count["no tests"] + count["other"]
        score = 100 * count["killed"] / total if total else 100.0
        raw = 100 * count["killed"] / (total + count["equivalent"]) if total else 100.0
        print(f"{module:34} {count['killed']:7} {total:4} {score:6.1f}% {count['equivalent']:10} {raw:6.1f}%")
        if score < 90:
            failing.append(module)
    print(f"\n{time.monotonic() - started:.0f} s")
    if "-v" in sys.argv:
        for _, _, not_killed in rows:
            print(*not_killed, sep="\n")
    if failing:
        print("below 90 %:", ", ".join(failing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
