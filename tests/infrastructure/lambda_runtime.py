"""What Lambda's python runtime does for one invocation, run as ``python3.13 -s -S -P -B lambda_runtime.py``
with ``PYTHONPATH`` (``import_path``) its only ``PYTHON*`` variable (``environment``).

Reads ``{"task_root", "layers", "runtime", "handler", "event", "function", "result"}`` as JSON
on stdin.
The import path is Lambda's, set as Lambda's runtime sets it, by ``PYTHONPATH``: the function's
code (``/var/task``), each layer's ``python/`` folder (``/opt/python``), the runtime's own packages
(``/var/runtime``: boto3), then the standard library; ``-s -S -P`` keeps everything else out (no
site-packages, not this file's folder), and ``-B`` writes no bytecode, as Lambda's folders are
read-only.
Writes ``{"response", "cold_start", "outside", "loaded_from", "python", "compiled", "bytecode"}`` to
the ``result`` file (stdout is the function's log): the handler's answer, the modules loaded by
importing the handler (its cold start, before any call), any module imported from
somewhere else than those folders, the folder each top-level package came from, the
interpreter's version, every source file of the function's code or layers that the import
system had to compile (no ``.pyc`` it accepts), and the ``.pyc`` of each module loaded from them.
"""

import json
import os
import sys
import uuid


def import_path(spec: dict) -> list[str]:
    """The folders Lambda's runtime puts before the standard library, in its order."""
    return [spec["task_root"], *(f"{layer}/python" for layer in spec["layers"]), spec["runtime"]]


def environment(variables: dict, spec: dict) -> dict:
    """The child's environment: the function's variables, no ``PYTHON*`` but ``PYTHONPATH``."""
    return {**{name: value for name, value in variables.items() if not name.startswith("PYTHON")},
            "PYTHONPATH": os.pathsep.join(import_path(spec))}


class LambdaContext:
    def __init__(self, function: str):
        self.function_name = function
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = 256
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function}"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function}"
        self.log_stream_name = "$LATEST"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 10_000


def watch_source_compiles() -> list[str]:
    """Records the path of every module the import system compiles from source: it calls
    ``SourceLoader.source_to_code`` only when no ``.pyc`` it accepts is found."""
    import importlib._bootstrap_external as bootstrap  # the import system's own loaders (frozen)

    compiled = []
    original = bootstrap.SourceLoader.source_to_code

    def source_to_code(self, data, path, *args, **kwargs):
        compiled.append(path)
        return original(self, data, path, *args, **kwargs)

    bootstrap.SourceLoader.source_to_code = source_to_code
    return compiled


def main() -> None:
    compiled = watch_source_compiles()
    spec = json.load(sys.stdin)
    roots = import_path(spec)
    if sys.path[:len(roots)] != roots:
        raise SystemExit(f"the import path is not Lambda's: {sys.path} (PYTHONPATH={os.environ.get('PYTHONPATH')!r})")
    stdlib = sys.path[len(roots):]
    module_name, function_name = spec["handler"].rsplit(".", 1)
    module = __import__(module_name)
    cold_start = sorted(sys.modules)
    response = getattr(module, function_name)(spec["event"], LambdaContext(spec["function"]))
    allowed = tuple(roots + [path for path in stdlib if path])
    files = {name: loaded.__file__ for name, loaded in list(sys.modules.items())
             if name not in ("__main__", "__mp_main__") and getattr(loaded, "__file__", None)}
    outside = sorted(name for name, file in files.items() if not file.startswith(allowed))
    loaded_from = {name: root for name, file in files.items() if "." not in name
                   for root in roots if file.startswith(root + "/")}
    assets = tuple(root + "/" for root in roots[:-1])  # the function's code and its layers
    bytecode = {name: getattr(sys.modules[name], "__cached__", None) for name, file in files.items()
                if file.startswith(assets)}
    with open(spec["result"], "w") as result:
        json.dump({"response": response, "cold_start": cold_start, "outside": outside, "loaded_from": loaded_from,
                   "python": list(sys.version_info[:2]),
                   "compiled": [path for path in compiled if path.startswith(assets)], "bytecode": bytecode},
                  result, default=str)


if __name__ == "__main__":
    main()
