"""Run scripts under torch as `python script.py` (or `python -c SOURCE`) would, paying torch's
import once per test session instead of once per script.

A server process imports torch, then forks a child for each script: the child starts from a
fresh-looking interpreter with torch already loaded (no draws from the generator, no warnings
shown yet, the script's own directory as its working directory), runs the script as
`__main__` with stdout and stderr in files, prints an uncaught exception's traceback as Python
does and exits 1. The comparisons (stdout byte for byte, the error's last line and the script's
line number) see what a fresh `python` gives. About 3 s of torch import per script was most of
the suite's time.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_SERVER = r"""
import json, os, runpy, signal, sys, tempfile, time, traceback
import torch  # noqa: F401  (the point: imported once, before any fork)

requests, replies = sys.stdin, sys.stdout
for line in requests:
    job = json.loads(line)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        replies.flush()
        pid = os.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            code = 0
            try:
                if job["cwd"]:
                    os.chdir(job["cwd"])
                if job["path"]:
                    sys.argv = [job["path"]]
                    sys.path[0] = os.path.dirname(job["path"])
                    runpy.run_path(job["path"], run_name="__main__")
                else:
                    sys.argv = ["-c"]
                    exec(compile(job["source"], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            except BaseException as exc:
                # Python's own traceback starts at the script's frame: drop the server's and runpy's
                tb = exc.__traceback__.tb_next
                while job["path"] and tb is not None and tb.tb_frame.f_code.co_filename != job["path"]:
                    tb = tb.tb_next
                traceback.print_exception(type(exc), exc, tb)
                code = 1
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
        deadline = time.monotonic() + job["timeout"]
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                code = None
                break
            time.sleep(0.002)
        out.seek(0)
        err.seek(0)
        reply = {"stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace"), "returncode": code}
    replies.write(json.dumps(reply) + "\n")
    replies.flush()
"""

_servers: dict[str | None, subprocess.Popen] = {}


def _start(hash_seed: str | None = None) -> subprocess.Popen:
    """The server (one per PYTHONHASHSEED asked for: a script that iterates a set of strings
    prints the same order only where both sides hash alike)."""
    server = _servers.get(hash_seed)
    if server is None or server.poll() is not None:
        env = None if hash_seed is None else {**os.environ, "PYTHONHASHSEED": hash_seed}
        server = subprocess.Popen(
            [sys.executable, "-c", _SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=env,
        )
        atexit.register(server.kill)
        _servers[hash_seed] = server
    return server


def run_under_torch(
    source: str | None = None, *, path: Path | None = None, timeout: float = 120, hash_seed: str | None = None
) -> subprocess.CompletedProcess:
    """What `python -c source` (or `python path`, in path's directory) prints under torch."""
    pytest.importorskip("torch")
    server = _start(hash_seed)
    job = {
        "source": source,
        "path": str(path) if path else None,
        "cwd": str(path.parent) if path else None,
        "timeout": timeout,
    }
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(job) + "\n")
    server.stdin.flush()
    reply = json.loads(server.stdout.readline())
    if reply["returncode"] is None:
        raise subprocess.TimeoutExpired(str(path or "-c"), timeout)
    args = [sys.executable, str(path)] if path else [sys.executable, "-c", source]
    return subprocess.CompletedProcess(args, reply["returncode"], reply["stdout"], reply["stderr"])
