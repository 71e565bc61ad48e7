"""Cold start of every synthesized function, as Lambda's python3.13 runs it, against a bare boto3 client.

``cdk synth`` builds the assembly (``cdk.out``) as for a deploy: each function's folder and both
layers, compiled for python3.13. Each cold start is a fresh python3.13 (``bench/lambda_child.py``)
whose import path holds only what Lambda's would: the function's asset folder, the layers'
``python/`` folders, and a stand-in for the runtime's own packages (boto3 and its dependencies,
compiled for 3.13 too). The baseline, ``boto3_request``, is the same interpreter with only that
runtime folder: it imports boto3, creates the DynamoDB client and makes a first request, since a
function's first request pays botocore's first-call costs (the operation's model, endpoint rules,
signing, parsing) and a baseline without one would compare unlike things. The client alone
(``boto3``) is reported too, and ``botocore_request``: the same with botocore's own client, as
the functions make theirs (without importing boto3). Every function is also run from a copy of
its folders without bytecode: what a synth with ``ALLEYCAT_ALLOW_NO_BYTECODE=1`` would ship.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from importlib import import_module
from pathlib import Path

from alleycat import entities as e
from alleycat import classes, keys, racers, races

from . import assets, env
from .progress import say

CHILD = Path(__file__).with_name("lambda_child.py")
HANDLER_MARK = "lambda_child: importing the handler"  # bench/lambda_child.py's, which imports nothing of ours
# What Lambda's python runtime ships besides the standard library (/var/runtime): boto3 and its closure.
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six", "urllib3")
SOURCE_ONLY = " (no bytecode)"  # suffix of a function run from its folders without .pyc
RACE_ID = "01JD5Z6Q8X0000000000000000"  # the race the events/ files name
CLASS_ID, RACER_ID = "hill-climb", "racer-1"


def seed_event_fixtures(dynamo: env.Dynamo, table: str) -> dict:
    """The class, racer and race the events/ files name, so every first request finds its data; returns a stream event."""
    dynamo.create(table)
    dynamo.use(table)
    classes.put(e.Class(CLASS_ID, "Hill climb"))
    racers.put(e.Racer(RACER_ID, "Racer One"))
    race = races.create(e.Race(RACE_ID, CLASS_ID, "Hill climb", "2026-11-22T10:00:00Z", 300))
    races.join(race, e.Racer(RACER_ID, "Racer One"))
    env.invoke("post_telemetry", env.event("post_telemetry"))
    return {"Records": _stream_records(dynamo, table)}


def _stream_records(dynamo: env.Dynamo, table: str) -> list[dict]:
    from local.streams import StreamTail

    return StreamTail.of_table(dynamo.server, table).read()[:1000]


def python313():
    """``stacks/python313.py``, loaded by path: ``stacks`` itself imports the CDK."""
    spec = importlib.util.spec_from_file_location("alleycat_python313", env.ROOT / "stacks" / "python313.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def synthesize() -> Path:
    """``cdk synth`` into ``cdk.out``, as ``make synth`` does (a synth with nothing changed reuses its bundles)."""
    subprocess.run([str(env.ROOT / "node_modules" / ".bin" / "cdk"), "synth", "--quiet", "--no-notices"],
                   cwd=env.ROOT, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "CDK_DISABLE_CLI_TELEMETRY": "true"})
    return env.ROOT / "cdk.out"


def compile_folder(python: str, folder: Path) -> None:
    subprocess.run([python, "-I", "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
                    str(folder)], check=True, stdout=subprocess.DEVNULL)


def runtime_folder(folder: Path, python: str) -> Path:
    """Stands in for /var/runtime: the venv's boto3 and its dependencies (their files linked, not
    copied), compiled for python3.13 in this folder, so the baseline loads bytecode as the functions do."""
    folder.mkdir()
    for name in RUNTIME_PACKAGES:
        source = Path(import_module(name).__file__)
        if source.name == "__init__.py":
            shutil.copytree(source.parent, folder / source.parent.name, copy_function=os.symlink,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (folder / source.name).symlink_to(source)
    compile_folder(python, folder)
    return folder


def without_bytecode(folder: Path, into: Path) -> Path:
    """A copy of an asset folder with no ``.pyc``: what synth ships when it may not compile."""
    if not into.exists():
        shutil.copytree(folder, into, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return into


# Lambda's python3.13 as it starts: no site-packages, not the script's folder, no bytecode written
# (its folders are read-only); the import path is PYTHONPATH's (child_environment).
CHILD_FLAGS = ["-s", "-S", "-P", "-B"]


def child_environment(spec: Path) -> dict[str, str]:
    """This process's environment without its ``PYTHON*`` variables, and the spec's ``path`` as
    ``PYTHONPATH``: the import path, set as Lambda's runtime sets it."""
    return {**{name: value for name, value in os.environ.items() if not name.startswith("PYTHON")},
            "PYTHONPATH": os.pathsep.join(json.loads(spec.read_text())["path"])}


def _child(python: str, spec: Path) -> dict:
    done = subprocess.run([python, *CHILD_FLAGS, str(CHILD), str(spec)], cwd=spec.parent,
                          env=child_environment(spec), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"cold start of {spec.stem} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def baseline_request(table: str) -> dict:
    """The bare client's first request: the kind most functions make first, a Query of one race's partition."""
    race = {"raceId": RACE_ID}
    return {"operation": "query", "request": {
        "TableName": table, "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)", "Limit": 2,
        "ExpressionAttributeValues": {":pk": {"S": keys.RACE.pk.build(race)}, ":prefix": {"S": keys.RACE.sk.prefix()}}}}


def _inputs(folder: Path, stream_event: dict, table: str) -> dict[str, Path]:
    """Each child's request file: the function's events/ request, the baseline's DynamoDB request."""
    paths = {}
    for name in ["boto3_request"] + env.functions():
        paths[name] = folder / f"{name}.request.json"
        if name == "boto3_request":
            payload = baseline_request(table)
        elif name == "stream_processor":
            payload = stream_event
        else:
            payload = json.loads((env.EVENTS / f"{name}.json").read_text())
        paths[name].write_text(json.dumps(payload))
    return paths


def _specs(folder: Path, outdir: Path, runtime: Path, requests: dict[str, Path]) -> dict[str, Path]:
    """Each child's spec file (``bench/lambda_child.py``): the baselines, every function from the
    assembly, and every function from copies of its folders without bytecode."""
    template = assets.read_template(outdir, assets.STACK)
    specs = {}

    def write(name: str, path: list[Path], request: Path | None) -> None:
        specs[name] = folder / f"{name}.json"
        specs[name].write_text(json.dumps({"function": name.removesuffix(SOURCE_ONLY), "request": request and str(request),
                                           "path": [str(p) for p in path + [runtime]]}))

    write("boto3", [], None)
    write("boto3_request", [], requests["boto3_request"])
    write("botocore_request", [], requests["boto3_request"])
    for name in env.functions():
        folders = assets.function_folders(outdir, template, assets.logical_id(name))
        write(name, folders.import_path, requests[name])
        source = assets.FunctionFolders(without_bytecode(folders.code, folder / "source" / folders.code.name),
                                        [without_bytecode(layer, folder / "source" / layer.name) for layer in folders.layers])
        write(name + SOURCE_ONLY, source.import_path, requests[name])
    return specs


def measure(dynamo: env.Dynamo, runs: int) -> dict:
    """Median cold start of the baselines and every function on python3.13 (``cold_start``; each function's
    ``no_bytecode`` from its folders without .pyc), ``-X importtime`` of one handler (``import_time``) and
    the interpreter's version. ``vs_boto3`` is CPU time against the client plus its first request
    (``vs_boto3_wall`` the same in wall time, DynamoDB Local's response time included).

    Runs go in rounds, the baseline first in each: a machine getting busier or quieter shifts the baseline and
    the functions alike. ``finish_race`` closes the race the other events name, so its rounds come last, and it
    is compared with the baseline of its own rounds (the ``boto3_request`` row is the first rounds' baseline).
    """
    python = python313().find()
    say(f"cold starts: cdk synth (the assets as deployed, compiled for python3.13 by {python})")
    outdir = synthesize()
    stream_event = seed_event_fixtures(dynamo, "bench-events")
    samples: dict[str, list[dict]] = {}
    finish_baseline: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runtime = runtime_folder(folder / "var-runtime", python)
        specs = _specs(folder, outdir, runtime, _inputs(folder, stream_event, "bench-events"))
        others = [f for f in env.functions() if f != "finish_race"]
        with_source = lambda names: [n for name in names for n in (name, name + SOURCE_ONLY)]  # noqa: E731
        baselines = ["boto3_request", "boto3", "botocore_request"]
        for group, baseline_samples in ((baselines + with_source(others), samples.setdefault("boto3_request", [])),
                                        (["boto3_request"] + with_source(["finish_race"]), finish_baseline)):
            for _ in range(runs):
                for name in group:
                    taken = _child(python, specs[name])
                    (baseline_samples if name == "boto3_request" else samples.setdefault(name, [])).append(taken)
        top = import_time(python, specs["get_race_leaderboard"])
    version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                             text=True, check=True).stdout.strip()
    results = {name: _summary(taken) for name, taken in samples.items()}
    functions = [f for f in results if not f.startswith(("boto3", "botocore")) and not f.endswith(SOURCE_ONLY)]
    finish_rounds = _summary(finish_baseline)
    for name, figures in results.items():
        baseline = finish_rounds if name.startswith("finish_race") else results["boto3_request"]
        figures["vs_boto3"] = figures["total_cpu_ms"] / baseline["total_cpu_ms"]
        figures["vs_boto3_wall"] = figures["total_ms"] / baseline["total_ms"]
    for name in ["boto3", "boto3_request", "botocore_request"] + functions:
        figures = results[name]
        source = results.get(name + SOURCE_ONLY)
        say(f"cold start {name:24s} median CPU {figures['total_cpu_ms']:6.1f} ms (import {figures['import_cpu_ms']:.1f} "
            f"+ first request {figures['first_request_cpu_ms']:.1f}) = {figures['vs_boto3']:.2f}× the client and its "
            f"first request; wall {figures['total_ms']:.1f} ms = {figures['vs_boto3_wall']:.2f}×"
            + (f"; without bytecode {source['vs_boto3']:.2f}×" if source else ""))
    return {"cold_start": {name: {**results[name], **({"no_bytecode": results[name + SOURCE_ONLY]}
                                                      if name + SOURCE_ONLY in results else {})}
                           for name in ["boto3", "boto3_request", "botocore_request"] + functions},
            "import_time": top, "cold_start_python": version}


def _summary(samples: list[dict]) -> dict:
    total = [s["import_ms"] + s["first_ms"] for s in samples]
    median = {name: statistics.median(s[name] for s in samples) for name in ("import_ms", "first_ms", "import_cpu_ms", "first_cpu_ms")}
    return {"import_ms": median["import_ms"], "first_request_ms": median["first_ms"],
            "import_cpu_ms": median["import_cpu_ms"], "first_request_cpu_ms": median["first_cpu_ms"],
            "total_ms": statistics.median(total), "min_ms": min(total), "max_ms": max(total),
            "total_cpu_ms": statistics.median(s["import_cpu_ms"] + s["first_cpu_ms"] for s in samples),
            "status": sorted({str(s["status"]) for s in samples}), "runs": len(samples)}


def import_time(python: str, spec: Path, top: int = 15, runs: int = 5) -> list[dict]:
    """The most expensive imports (cumulative) of one handler, from ``python3.13 -X importtime``: only
    what the handler's import loads (not the runtime's own imports), each figure the median of ``runs``."""
    import_only = spec.with_name(spec.stem + ".import.json")
    import_only.write_text(json.dumps({**json.loads(spec.read_text()), "request": None}))
    taken: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for _ in range(runs):
        done = subprocess.run([python, "-X", "importtime", *CHILD_FLAGS, str(CHILD), str(import_only)],
                              cwd=spec.parent, env=child_environment(import_only), capture_output=True, text=True,
                              check=True)
        handler = done.stderr.split(HANDLER_MARK, 1)[-1]
        for line in handler.splitlines():
            match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", line)
            if match:
                key = (match.group(4), len(match.group(3)) // 2)
                taken.setdefault(key, []).append((int(match.group(1)) / 1000, int(match.group(2)) / 1000))
    rows = [{"module": module, "depth": depth, "self_ms": statistics.median(s for s, _ in times),
             "cumulative_ms": statistics.median(c for _, c in times)} for (module, depth), times in taken.items()]
    first_party = [r for r in rows if r["module"].startswith("alleycat") or r["module"] in ("boto3", "botocore")]
    chosen = sorted(rows, key=lambda r: -r["cumulative_ms"])[:top]
    extra = [r for r in sorted(first_party, key=lambda r: -r["cumulative_ms"]) if r not in chosen][:5]
    return chosen + extra
