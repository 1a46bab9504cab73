"""What one `run` may take from the machine: resident memory (MAX_SCRIPT_BYTES) and a thread whose stack
holds every script within the caps, so gradcli's own caps bind before Python's recursion limit."""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from .. import limits
from . import runtime
from .runtime import ScriptError


class Memory:
    """MAX_SCRIPT_BYTES: how much the process may grow while a script runs.

    Each cap on one tensor or list still lets a loop keep thousands of them
    (`xs.append(torch.zeros(10**8))`); the resident size (Linux /proc/self/statm) is read
    every 16 statements and after each million tensor elements made, and past the cap the
    script ends with one error line before the machine runs out of memory."""

    def __init__(self, line: Any = lambda: 0) -> None:
        self.fd: int | None = None
        self.start = 0
        self.checked = 0
        self.line = line  # the statement running, for the error

    def __enter__(self) -> Memory:
        try:
            self.fd = os.open("/proc/self/statm", os.O_RDONLY)
            self.start = self.resident()
        except OSError:  # not Linux: the per-tensor and per-list caps still hold
            self.fd = None
        self.checked = runtime.allocated()
        runtime.MEMORY_CHECK[0] = self.check_before
        return self

    def __exit__(self, *exc: object) -> None:
        runtime.MEMORY_CHECK[0] = lambda nbytes: None
        if self.fd is not None:
            os.close(self.fd)

    def resident(self) -> int:
        assert self.fd is not None
        return int(os.pread(self.fd, 64, 0).split()[1]) * _PAGE

    def check(self, line: int, adding: int = 0) -> None:
        self.checked = runtime.allocated()
        if self.fd is None:
            return
        grown = self.resident() - self.start + adding
        if grown > limits.Script.MAX_SCRIPT_BYTES:
            raise ScriptError(
                f"line {line}: the script holds more than MAX_SCRIPT_BYTES={limits.Script.MAX_SCRIPT_BYTES:,} "
                "bytes of tensors and lists"
            )

    def check_before(self, nbytes: int) -> None:
        """Before an array of nbytes is made: within one statement as between statements."""
        self.check(self.line(), nbytes)


# Python frames one script may need: MAX_CALL_DEPTH calls, each up to MAX_EXPR_DEPTH operators
# deep and ~MAX_VALUE_NESTING containers deep, at a few interpreter frames a level. The caps
# are gradcli's, so Python's limit must sit above them: the run gets a thread with a stack
# big enough for this many frames (pages are touched only as deep as a script goes).
_FRAMES = 30_000
_STACK_BYTES = 768 * 1024 * 1024


def with_deep_stack(run: Any) -> Any:
    """run() in a thread whose stack and recursion limit hold every script within the caps;
    its exception, if any, is raised here."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, run()))
        except BaseException as exc:  # handed to the caller's thread as it was
            outcome.append((False, exc))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _FRAMES))
    try:
        previous = threading.stack_size(_STACK_BYTES)
        try:
            worker = threading.Thread(target=target, name="gradcli-run", daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous)  # only this thread gets the big stack, not pools it starts
        worker.join()
    finally:
        sys.setrecursionlimit(limit)
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
