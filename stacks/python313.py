"""Finds a CPython 3.13, Lambda's python3.13 runtime, on the build host (standard library only).

``cdk synth`` compiles every asset with it (``stacks/bytecode.py``), ``make`` builds the venv
on it and the tests and ``make bench`` run the synthesized functions on it. Looked for in
this order; the first that runs and says it is CPython 3.13 wins:

1. ``$ALLEYCAT_PYTHON313``: a path to the interpreter (if set, it must be one: nothing else is tried);
2. the interpreter running this code, if it is 3.13 (the venv, once ``make`` built it on 3.13);
3. ``python3.13`` on ``PATH`` (Debian 13's ``python3.13``, a python.org or uv install, a pyenv
   shim whose version is selected);
4. pyenv's 3.13 builds: ``$PYENV_ROOT/versions/3.13.*`` (``~/.pyenv`` by default), newest first,
   whichever version pyenv has selected.

``python3 stacks/python313.py`` prints the path found (what ``make`` uses), or exits 1 with
how to get one.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
import sys

VERSION = (3, 13)
VARIABLE = "ALLEYCAT_PYTHON313"
ALLOW_NONE = "ALLEYCAT_ALLOW_NO_BYTECODE"  # "1": synth ships source only when no 3.13 is found
# The free-threaded build (3.13t) is not Lambda's: it reports "nogil" and is passed over.
PROBE = ("import sys; print(sys.implementation.name if getattr(sys, '_is_gil_enabled', lambda: True)() else 'nogil', "
         "*sys.version_info[:2], sys.executable)")
HOW_TO_GET_ONE = (
    "Lambda's runtime is CPython 3.13 and `cdk synth` compiles every function and layer with one, "
    "so cold starts load bytecode instead of compiling source. None was found "
    f"(${VARIABLE}, the running interpreter, python3.13 on PATH, pyenv's 3.13 builds). Get one with "
    "`pyenv install 3.13`, `uv python install 3.13`, Debian 13's `apt-get install python3.13` or a "
    f"python.org build, or point {VARIABLE} at one. To synthesize without bytecode anyway, set "
    f"{ALLOW_NONE}=1 (every cold start then compiles what it imports: see docs/cold-start.md).")


class NotFound(RuntimeError):
    """No CPython 3.13 on this host (the message says how to get one)."""


def _probe(candidate: str) -> str | None:
    """The interpreter's real path if ``candidate`` runs and is CPython 3.13, else None."""
    try:
        done = subprocess.run([candidate, "-I", "-c", PROBE], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    fields = done.stdout.split(maxsplit=3) if done.returncode == 0 else []
    if len(fields) == 4 and fields[0] == "cpython" and (int(fields[1]), int(fields[2])) == VERSION:
        return fields[3].strip()
    return None


def _runs_as_lambda() -> bool:
    """Whether this interpreter is itself a CPython 3.13 with the GIL (as Lambda's)."""
    return (sys.implementation.name == "cpython" and sys.version_info[:2] == VERSION
            and getattr(sys, "_is_gil_enabled", lambda: True)())


def _pyenv_builds() -> list[str]:
    """pyenv's 3.13 builds, newest first (a final release before its release candidates)."""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    builds = []
    for path in glob.glob(os.path.join(root, "versions", "3.13.*", "bin", "python3.13")):
        version = re.fullmatch(r"3\.13\.(\d+)(.*)", os.path.basename(os.path.dirname(os.path.dirname(path))))
        if version:
            builds.append(((int(version.group(1)), version.group(2) == ""), path))
    return [path for _, path in sorted(builds, reverse=True)]


def candidates() -> list[tuple[str, str]]:
    """(where it came from, path) in the documented order."""
    if os.environ.get(VARIABLE):
        return [(f"${VARIABLE}", os.environ[VARIABLE])]
    found = []
    if _runs_as_lambda():
        found.append(("the running interpreter", sys.executable))
    on_path = shutil.which(f"python{VERSION[0]}.{VERSION[1]}")
    if on_path:
        found.append(("python3.13 on PATH", on_path))
    found += [("pyenv", path) for path in _pyenv_builds()]
    return found


@functools.cache
def find() -> str:
    """The path of a CPython 3.13 on this host; raises ``NotFound`` (with how to get one) if none."""
    if os.environ.get(VARIABLE):
        path = _probe(os.environ[VARIABLE])
        if path is None:
            raise NotFound(f"${VARIABLE}={os.environ[VARIABLE]} is not a CPython 3.13 interpreter that runs.")
        return path
    for _, candidate in candidates():
        path = sys.executable if candidate == sys.executable and _runs_as_lambda() else _probe(candidate)
        if path:
            return path
    raise NotFound(HOW_TO_GET_ONE)


def find_or_none() -> str | None:
    try:
        return find()
    except NotFound:
        return None


if __name__ == "__main__":
    try:
        print(find())
    except NotFound as missing:
        print(missing, file=sys.stderr)
        sys.exit(1)
