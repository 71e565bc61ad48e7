"""`make bench`: performance figures of the real code (docs/performance.md)."""
