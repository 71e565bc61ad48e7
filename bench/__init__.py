"""`make bench`: performance figures of the real code (docs/performance.md)."""

from local import handlers as _handlers  # noqa: F401 - puts the layer on sys.path, as in Lambda
