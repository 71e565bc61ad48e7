"""Cold start of every synthesized function as Lambda's python3.13 runs it (``lambda_child.py``: only the
function's asset folder, its layers' ``python/`` and a stand-in for the runtime's boto3 on the import path),
and from copies of its folders without bytecode, against a bare boto3 client and its first request."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from importlib import import_module
from pathlib import Path

from alleycat.storage import classes, racers, races
from alleycat.storage import entities as e
from local.streams import StreamTail

from . import env
from .env import say

CHILD = Path(__file__).with_name("lambda_child.py")
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six", "urllib3")  # /var/runtime
BASELINES = ["boto3_request", "boto3", "botocore_request"]
SOURCE_ONLY = " (no bytecode)"  # suffix of a function run from its folders without .pyc
# Lambda's python3.13 as it starts: no site-packages, not the script's folder, no bytecode written.
CHILD_FLAGS = ["-s", "-S", "-P", "-B"]
RACE_ID, CLASS_ID, RACER_ID = "01JD5Z6Q8X0000000000000000", "hill-climb", "racer-1"  # what the events/ files name


def seed_event_fixtures(dynamo: env.Dynamo, table: str) -> None:
    """The class, racer and race the events/ files name, so every first request finds its data."""
    dynamo.create(table)
    classes.put(e.Class(CLASS_ID, "Hill climb"))
    racers.put(e.Racer(RACER_ID, "Racer One"))
    race = races.create(e.Race(RACE_ID, CLASS_ID, "Hill climb", "2026-11-22T10:00:00Z", 300))
    races.join(race, e.Racer(RACER_ID, "Racer One"))
    env.invoke("post_telemetry", env.event("post_telemetry"))


def runtime_folder(folder: Path, python: str) -> Path:
    """Stands in for /var/runtime: the venv's boto3 and its dependencies, linked, compiled for python3.13."""
    folder.mkdir()
    for name in RUNTIME_PACKAGES:
        module_file = import_module(name).__file__
        assert module_file is not None  # a package or module on disk, none of them namespace packages
        source = Path(module_file)
        if source.name == "__init__.py":
            shutil.copytree(source.parent, folder / source.parent.name, copy_function=os.symlink,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (folder / source.name).symlink_to(source)
    subprocess.run([python, "-I", "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
                    str(folder)], check=True, stdout=subprocess.DEVNULL)
    return folder


def import_path(template: dict, function: str, copy_to: Path | None = None) -> list[Path]:
    """A function's import path in ``cdk.out`` (``/var/task``, layers' ``python/``); copied without .pyc to ``copy_to``."""
    resources = template["Resources"]
    properties = resources[env.logical_id(function)]["Properties"]
    codes = [properties["Code"], *(resources[layer["Ref"]]["Properties"]["Content"] for layer in properties["Layers"])]
    folders = [env.ROOT / "cdk.out" / f"asset.{code['S3Key'].removesuffix('.zip')}" for code in codes]
    if copy_to:
        for n, folder in enumerate(folders):
            if not (copy_to / folder.name).exists():
                shutil.copytree(folder, copy_to / folder.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            folders[n] = copy_to / folder.name
    return [folders[0], *(folder / "python" for folder in folders[1:])]


def _child(python: str, spec: Path) -> dict:
    """``lambda_child.py``, the spec's ``path`` its ``PYTHONPATH``, as Lambda's runtime sets its import path."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
    environment["PYTHONPATH"] = os.pathsep.join(json.loads(spec.read_text())["path"])
    done = subprocess.run([python, *CHILD_FLAGS, str(CHILD), str(spec)], cwd=spec.parent, env=environment,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"cold start of {spec.stem} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _specs(folder: Path, template: dict, runtime: Path, stream_event: dict) -> dict[str, Path]:
    """Each child's spec: the baselines, every function from the assembly and from copies without bytecode."""
    query = {"operation": "query", "request": {  # the kind of request most functions make first
        "TableName": "bench-events", "KeyConditionExpression": "PK = :pk", "Limit": 2,
        "ExpressionAttributeValues": {":pk": {"S": f"RACE#{RACE_ID}"}}}}
    specs = {}
    for name in BASELINES + env.functions() + [f + SOURCE_ONLY for f in env.functions()]:
        function = name.removesuffix(SOURCE_ONLY)
        request = folder / f"{function}.request.json"
        payload = query if function in BASELINES else stream_event if function == "stream_processor" else \
            json.loads((env.ROOT / "events" / f"{function}.json").read_text())
        request.write_text(json.dumps(payload))
        path = [] if function in BASELINES else \
            import_path(template, function, folder / "source" if name.endswith(SOURCE_ONLY) else None)
        specs[name] = folder / f"{name}.json"
        specs[name].write_text(json.dumps({"function": function, "request": None if name == "boto3" else str(request),
                                           "path": [str(p) for p in path + [runtime]]}))
    return specs


def measure(dynamo: env.Dynamo, runs: int, functions: tuple[str, ...] = ()) -> dict:
    """Median cold starts (``vs_boto3``: CPU time against the baseline's), in rounds, the baseline first in each
    (a machine getting busier shifts both sides alike); ``finish_race``, which closes the race the other
    events name, in rounds of its own; the interpreter's version. ``functions``: only those, in the baseline's rounds."""
    python = subprocess.run([sys.executable, str(env.ROOT / "stacks" / "python313.py")], capture_output=True,
                            text=True, check=True).stdout.strip()  # the one synth compiles for, found as make finds it
    say(f"cold starts: cdk synth (the assets as deployed, compiled for python3.13 by {python})")
    template = env.template(synthesize=True)
    seed_event_fixtures(dynamo, "bench-events")
    stream_event = {"Records": StreamTail.of_table(dynamo.server, "bench-events").read()[:1000]}
    samples: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        specs = _specs(Path(tmp), template, runtime_folder(Path(tmp) / "var-runtime", python), stream_event)
        with_source = lambda names: [n for name in names for n in (name, name + SOURCE_ONLY)]
        others = [f for f in functions or env.functions() if f != "finish_race"]
        groups = ((BASELINES + with_source(others), "boto3_request"),
                  (["boto3_request"] + with_source(["finish_race"]), "finish rounds"))
        for group, baseline in groups[:1] if functions else groups:
            for _ in range(runs):
                for name in group:
                    samples.setdefault(baseline if name == "boto3_request" else name, []).append(_child(python, specs[name]))
    results = {name: _summary(taken) for name, taken in samples.items()}
    finish_rounds = results.pop("finish rounds", None)
    for name, figures in results.items():
        reference = finish_rounds if finish_rounds and name.startswith("finish_race") else results["boto3_request"]
        figures["vs_boto3"] = figures["total_cpu_ms"] / reference["total_cpu_ms"]
        figures["vs_boto3_wall"] = figures["total_ms"] / reference["total_ms"]
    cold = {name: {**figures, **({"no_bytecode": results[name + SOURCE_ONLY]} if name + SOURCE_ONLY in results else {})}
            for name, figures in results.items() if not name.endswith(SOURCE_ONLY)}
    for name, figures in cold.items():
        say(f"cold start {name:24s} median CPU {figures['total_cpu_ms']:6.1f} ms = {figures['vs_boto3']:.2f}× the "
            f"client and its first request; wall {figures['total_ms']:.1f} ms = {figures['vs_boto3_wall']:.2f}×"
            + (f"; without bytecode {figures['no_bytecode']['vs_boto3']:.2f}×" if "no_bytecode" in figures else ""))
    return {"cold_start": cold, "cold_start_python": samples["boto3"][0]["python"]}


def _summary(samples: list[dict]) -> dict:
    total = [s["import_ms"] + s["first_ms"] for s in samples]
    median = lambda key: statistics.median(s[key] for s in samples)
    return {"import_ms": median("import_ms"), "first_request_ms": median("first_ms"),
            "import_cpu_ms": median("import_cpu_ms"), "first_request_cpu_ms": median("first_cpu_ms"),
            "total_ms": statistics.median(total), "min_ms": min(total), "max_ms": max(total),
            "total_cpu_ms": statistics.median(s["import_cpu_ms"] + s["first_cpu_ms"] for s in samples),
            "status": sorted({str(s["status"]) for s in samples}), "runs": len(samples),
            "peak_rss_mb": statistics.median(s["peak_rss_mb"] for s in samples)}
