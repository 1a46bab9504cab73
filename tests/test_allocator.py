"""glibc's malloc keeps freed big buffers once the API loads (gradcli/allocator.py), unless
GRADCLI_MALLOC=system; the results are the same bits either way."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_PROBE = """
import json, numpy as np
from gradcli import grad, allocator
x = np.linspace(-3, 3, 200_000).reshape(20_000, 10)
y = np.arange(20_000) % 10
r = grad("F.cross_entropy(x, y)", at={"x": x}, const={"y": y}, symbolic=False, nodes=False)
print(json.dumps({"tuned": allocator._tuned, "grad": r.grads["x"].tobytes().hex()[:4000], "value": float(r.value)}))
"""


def _probe(setting: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "GRADCLI_MALLOC"}
    if setting is not None:
        env["GRADCLI_MALLOC"] = setting
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")
def test_the_api_tunes_malloc_and_system_leaves_it_alone_with_the_same_bits():
    tuned, system = _probe(None), _probe("system")
    assert tuned["tuned"] is True
    assert system["tuned"] is False
    assert tuned["grad"] == system["grad"]
    assert tuned["value"] == system["value"]

