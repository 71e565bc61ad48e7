"""A one-line progress bar on stderr, redrawn at most ten times a second."""

from __future__ import annotations

import sys
import time

WIDTH = 30
REDRAW_SECONDS = 0.1


class ProgressBar:
    def __init__(self, stream=None, enabled: bool = True, after_race=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.after_race = after_race  # () -> str: a note for the line printed when a race ends
        self._drawn = 0.0

    def show(self, label: str, done: int, total: int, totals) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self._drawn < REDRAW_SECONDS and done < total):
            return
        self._drawn = now
        filled = WIDTH * done // total
        self.stream.write(f"\r{label} [{'#' * filled}{'.' * (WIDTH - filled)}] {done}/{total} s"
                          f"  accepted {totals.accepted}  duplicates {totals.duplicates}"
                          f"  rejected {totals.rejected}  late {totals.late_ticks} ")
        self.stream.flush()

    def announce(self, label: str, starts_at: str, seconds: float) -> None:
        """A race made ahead of its start: upcoming until then, a person may join it."""
        if self.enabled:
            self.stream.write(f"\n{label} starts at {starts_at} (in {seconds:.0f} s): open to join until then\n")
            self.stream.flush()

    def done(self, label: str, totals) -> None:
        if self.enabled:
            note = f": {self.after_race()}" if self.after_race else ""
            self.stream.write(f"\n{label} finished, late ticks so far {totals.late_ticks}{note}\n")
            self.stream.flush()
