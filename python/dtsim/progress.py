"""How a call shows its progress: `progress=` of dtsim.run, sweep, scale and plan.

The simulation sends a line as it goes ("iteration 40/100 ( 40%), simulated 0.012000 s"; a sweep's
"3/8 points done, 2 running; last: workers=4"; a scaling study's lines led by "weak: " or "strong: "; a plan's
"16 devices: 90/182 candidates screened (49%), ...", then its sweeps' lines led by "16-devices: ").
"""

from __future__ import annotations

import sys
import time
from typing import Callable, Union

Progress = Union[bool, None, Callable[[str], object]]

# A call that ends sooner draws nothing: short runs (most of a notebook's) stay quiet.
QUIET_FOR_S = 1.0


class ProgressLine:
    """One line on sys.stderr, redrawn in place (a terminal or a notebook's output), ended when the call ends.
    With `after` > 0 nothing is drawn until the call has run that long (wall-clock time, which decides only
    when to draw)."""

    def __init__(self, after: float):
        self._start = time.monotonic()
        self._after = after
        self._width = 0

    def __call__(self, line: str) -> None:
        if time.monotonic() - self._start < self._after:
            return
        sys.stderr.write("\r" + line.ljust(self._width))
        sys.stderr.flush()
        self._width = max(self._width, len(line))

    def close(self) -> None:
        if self._width:
            sys.stderr.write("\n")
            sys.stderr.flush()


class _Calls:
    """A caller's function, given every line."""

    def __init__(self, function: Callable[[str], object]):
        self._function = function

    def __call__(self, line: str) -> None:
        self._function(line)

    def close(self) -> None:
        pass


def receiver(progress: Progress):
    """What the simulation's lines go to: None (the default) draws a line once a call has run for a second,
    True from the start, False nowhere; a function is called with each line."""
    if progress is False:
        return None
    if progress is None:
        return ProgressLine(QUIET_FOR_S)
    if progress is True:
        return ProgressLine(0.0)
    if callable(progress):
        return _Calls(progress)
    raise TypeError(f"progress must be True, False, None or a function of one line of text, not {progress!r}")
