"""Frontend modules run in Node for the tests: copied into a folder of their own as one package of
ES modules (so their imports of each other resolve), then driven by a script that prints one JSON
value."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FRONTEND = ROOT / "frontend" / "src"
NODE_PATH = subprocess.run([str(ROOT / "tools" / "node-path"), "--path"], capture_output=True, text=True).stdout.strip()
NODE = shutil.which("node", path=NODE_PATH or None)

NO_NODE = "no Node: `make test` installs one (`make node`; tools/node-path says which it chose)"


def package(folder: Path, sources) -> Path:
    """``folder`` holding ``sources`` (paths) as one package of ES modules."""
    (folder / "package.json").write_text('{"type": "module"}')
    for source in sources:
        (folder / source.name).write_text(source.read_text())
    return folder


def imported(folder: Path, **modules: str) -> str:
    """``const <name> = await import(<folder/file>)`` for each ``name=file``."""
    return "\n".join(f"const {name} = await import({json.dumps((folder / file).as_uri())});"
                     for name, file in modules.items())


def run(*lines: str):
    """The JSON value the script made of ``lines`` prints."""
    assert NODE is not None, NO_NODE
    done = subprocess.run([NODE, "--input-type=module", "-e", "\n".join(lines)], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def printed(body: str, replacer: str = "") -> str:
    """A line that prints the JSON of what the async function ``body`` returns (null for nothing)."""
    return f"console.log(JSON.stringify(await (async () => {{ {body} }})() ?? null{', ' + replacer if replacer else ''}));"


def over(folder: Path, **modules: str):
    """``js(body)`` -> the JSON value the async function ``body`` returns, with each ``name=file`` of
    frontend/src imported as ``name`` (copied into ``folder`` first)."""
    imports = imported(package(folder, [FRONTEND / file for file in modules.values()]), **modules)
    return lambda body: run(imports, printed(body))
