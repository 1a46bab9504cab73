"""gradcli's speed targets, each measured side by side with its baseline in one run.

    python bench/run.py            # all four, a few repetitions each
    python bench/run.py --quick    # a smoke run: 1M elements, 10,000 points, 1,000 statements

Prints medians and ratios (gradcli / baseline); never asserts: these machines are
shared and noisy, so targets are read off the table, not enforced by unit tests.
Baselines: python importing sympy+numpy, a torch script, PyTorch eager on the same
array, a plain JSON-lines loop (the I/O floor), a per-point torch loop. torch is
optional (pip install torch==2.13.0); its rows are skipped when it is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
GRADCLI = [PYTHON, "-m", "gradcli"]
HAVE_TORCH = subprocess.run([PYTHON, "-c", "import torch"], capture_output=True).returncode == 0


def timed(
    command: list[str], stdin: str | None = None, repeat: int = 5, cache: str = ""
) -> tuple[float, int]:
    """Median wall time and peak RSS (KiB) of a command over `repeat` runs.

    gradcli's symbolic cache is off (cold runs) unless `cache` names its folder.
    """
    times, peaks = [], []
    env = {**os.environ, "GRADCLI_CACHE_DIR": cache}
    for _ in range(repeat):
        wrapped = [PYTHON, "-c", _RSS_WRAPPER, *command]
        start = time.perf_counter()
        done = subprocess.run(wrapped, input=stdin, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
        peaks.append(int(done.stderr.strip().splitlines()[-1]))
    return statistics.median(times), max(peaks)


# Runs the command as a child and prints the child's peak RSS (KiB) on stderr.
_RSS_WRAPPER = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdin=sys.stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
sys.stderr.write(done.stderr.decode(errors="replace"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(done.returncode)
"""

rows: list[tuple[str, str, float, str, float, str]] = []


def report(target: str, ours: str, ours_s: float, baseline: str, base_s: float, goal: str) -> None:
    rows.append((target, ours, ours_s, baseline, base_s, goal))
    print(
        f"  {ours}: {ours_s:.3f}  vs  {baseline}: {base_s:.3f}  ->  ratio {ours_s / base_s:.2f} ({goal})",
        flush=True,
    )


def startup(repeat: int) -> None:
    print("1. start-up", flush=True)
    command = [*GRADCLI, "grad", "(2*x)**3", "--at", "x=2", "--format", "json"]
    cold, _ = timed(command, repeat=repeat)
    with tempfile.TemporaryDirectory() as folder:
        timed(command, repeat=1, cache=folder)  # the first run fills the symbolic cache
        warm, _ = timed(command, repeat=repeat, cache=folder)
    floor, _ = timed([PYTHON, "-c", "import sympy, numpy"], repeat=repeat)
    report("start-up", "gradcli json, cache cold", cold, "import sympy, numpy", floor, "target <= 1.3")
    report("start-up", "gradcli json, cache warm", warm, "import sympy, numpy", floor, "target <= 1.3")
    bare, _ = timed([*command, "--no-symbolic"], repeat=repeat)
    report("start-up", "gradcli --no-symbolic", bare, "import sympy, numpy", floor, "informative")
    if HAVE_TORCH:
        script = "import torch; x=torch.tensor(2.0, requires_grad=True); ((2*x)**3).backward(); print(x.grad.item())"
        torch_s, _ = timed([PYTHON, "-c", script], repeat=repeat)
        report("start-up", "gradcli json, cache cold", cold, "torch script", torch_s, "target <= 1/3")
        report("start-up", "gradcli json, cache warm", warm, "torch script", torch_s, "target <= 1/3")


_TENSOR_OURS = """
import sys, time, numpy as np
from gradcli import grad
n = int(sys.argv[1]); x = np.random.default_rng(0).random(n)
times = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    r = grad("sum(sin(x)*exp(x) + x**3)", at={"x": x}, symbolic=False, nodes=sys.argv[4] == "nodes")
    times.append(time.perf_counter() - start)
np.save(sys.argv[3], r.grads["x"])
print(sorted(times)[len(times) // 2])
"""
_TENSOR_TORCH = """
import sys, time, numpy as np, torch
torch.set_num_threads(2)
n = int(sys.argv[1]); x = np.random.default_rng(0).random(n)
times = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    t = torch.from_numpy(x).requires_grad_(True)
    (torch.sin(t) * torch.exp(t) + t**3).sum().backward()
    times.append(time.perf_counter() - start)
np.save(sys.argv[3], t.grad.numpy())
print(sorted(times)[len(times) // 2])
"""


def _run_python(code: str, *args: str, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Run a measuring script; it prints its median time, then its own peak RSS (KiB)."""
    footer = "\nimport resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    done = subprocess.run(
        [PYTHON, "-c", code + footer, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    seconds, peak = done.stdout.strip().splitlines()[-2:]
    return float(seconds), int(peak)


def tensors(size: int, repeat: int) -> None:
    print(f"2. tensors: sum(sin(x)*exp(x) + x**3), {size:,} float64 elements", flush=True)
    if not HAVE_TORCH:
        print("  (torch not installed: skipped)")
        return
    import numpy as np

    with tempfile.TemporaryDirectory() as folder:
        # nodes=False keeps what PyTorch keeps after backward() (inputs, output, .grad), so
        # the program runs in cache-sized blocks; nodes=True also keeps every intermediate.
        ours, _ = _run_python(_TENSOR_OURS, str(size), str(repeat), f"{folder}/ours.npy", "grads")
        theirs, _ = _run_python(_TENSOR_TORCH, str(size), str(repeat), f"{folder}/torch.npy")
        every, _ = _run_python(_TENSOR_OURS, str(size), str(repeat), f"{folder}/every.npy", "nodes")
        # torch's allocator maps each result fresh and, where transparent huge pages are
        # "madvise" (cat /sys/kernel/mm/transparent_hugepage/enabled), faults it in 4 KiB at a
        # time; with this flag (or THP "always") it takes 2 MiB pages and its time is mostly
        # arithmetic. gradcli reuses its freed memory either way (gradcli/allocator.py).
        huge, _ = _run_python(
            _TENSOR_TORCH, str(size), str(repeat), f"{folder}/huge.npy", env={"THP_MEM_ALLOC_ENABLE": "1"}
        )
        # Peak memory of one run per process (repeated runs would count two results alive at once).
        _, ours_rss = _run_python(_TENSOR_OURS, str(size), "1", f"{folder}/ours.npy", "grads")
        _, their_rss = _run_python(_TENSOR_TORCH, str(size), "1", f"{folder}/torch.npy")
        _, every_rss = _run_python(_TENSOR_OURS, str(size), "1", f"{folder}/every.npy", "nodes")
        theirs_grad = np.load(f"{folder}/torch.npy")
        error = float(np.max(np.abs(np.load(f"{folder}/ours.npy") - theirs_grad)))
        every_error = float(np.max(np.abs(np.load(f"{folder}/every.npy") - theirs_grad)))
    torch_rss = their_rss / 1024
    report("tensors", "API nodes=False", ours, "torch eager (2 threads)", theirs, "target <= 1.0, aim 0.7")
    report(
        "tensors", "API nodes=False peak RSS MiB", ours_rss / 1024, "torch MiB", torch_rss, "target <= 1.0"
    )
    report("tensors", "API nodes=True", every, "torch eager (2 threads)", theirs, "informative")
    report("tensors", "API nodes=True peak RSS MiB", every_rss / 1024, "torch MiB", torch_rss, "informative")
    report("tensors", "API nodes=False", ours, "torch eager, huge pages", huge, "informative")
    report("tensors", "API nodes=True", every, "torch eager, huge pages", huge, "informative")
    print(f"  max |gradcli - torch| = {error:.3g} nodes=False, {every_error:.3g} nodes=True (target 1e-12)")


_IO_FLOOR = """
import json, sys
out = sys.stdout
for line in sys.stdin:
    p = json.loads(line)
    out.write(json.dumps({"point": p, "value": 0.0, "grads": {k: 0.0 for k in p}}, separators=(",", ":")) + "\\n")
"""
_TORCH_LOOP = """
import json, sys, torch
out = sys.stdout
for line in sys.stdin:
    p = json.loads(line)
    t = {k: torch.tensor(float(v), dtype=torch.float64, requires_grad=True) for k, v in p.items()}
    y = t["x"] * t["y"] + torch.sin(t["z"]) * t["x"] ** 2
    y.backward()
    out.write(json.dumps({"point": p, "value": y.item(), "grads": {k: v.grad.item() for k, v in t.items()}}) + "\\n")
"""


# Issue 13's vocabulary on 1e6-element inputs: (gradcli program, torch function), each fed
# x (rows x 10 logits, float64) and y (rows class indices / a random permutation-like index).
_VOCABULARY = {
    "indexing x[idx]": ("(x[idx] * w).sum()", "(x[idx] * w).sum()"),
    "softmax": ("(F.softmax(x, dim=1) * w).sum()", "(F.softmax(x, dim=1) * w).sum()"),
    "cross_entropy": ("F.cross_entropy(x, y)", "F.cross_entropy(x, y)"),
}
_VOCAB_SCRIPT = """
import sys, time, numpy as np
rows = int(sys.argv[1]) // 10; side = sys.argv[4]
rng = np.random.default_rng(0)
x = rng.standard_normal((rows, 10)); y = rng.integers(0, 10, rows)  # int64, as torch takes class indices
idx = rng.integers(0, rows, rows); w = rng.standard_normal((rows, 10))
if side == "torch":
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(2)
times = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    if side == "torch":
        t = torch.from_numpy(x).requires_grad_(True)
        scope = {"x": t, "y": torch.from_numpy(y).long(), "idx": torch.from_numpy(idx).long(),
                 "w": torch.from_numpy(w if sys.argv[5] != "indexing x[idx]" else w), "F": F}
        out = eval(sys.argv[3], scope)
        out.backward()
        grad = t.grad.numpy()
    else:
        from gradcli import grad as gradcli_grad
        import re
        used = {k: v for k, v in {"y": y, "idx": idx, "w": w}.items() if re.search(rf"\\b{k}\\b", sys.argv[3])}
        r = gradcli_grad(sys.argv[3], at={"x": x}, const=used, symbolic=False, nodes=False)
        grad = r.grads["x"]
    times.append(time.perf_counter() - start)
np.save(sys.argv[6], grad)
print(sorted(times)[len(times) // 2])
"""


def vocabulary(size: int, repeat: int) -> None:
    print(f"5. vocabulary: indexing, softmax, cross_entropy on {size:,} float64 elements", flush=True)
    if not HAVE_TORCH:
        print("  (torch not installed: skipped)")
        return
    import numpy as np

    with tempfile.TemporaryDirectory() as folder:
        for label, (ours_program, torch_program) in _VOCABULARY.items():
            args = (str(size), str(repeat))
            ours, _ = _run_python(_VOCAB_SCRIPT, *args, ours_program, "gradcli", label, f"{folder}/o.npy")
            theirs, _ = _run_python(_VOCAB_SCRIPT, *args, torch_program, "torch", label, f"{folder}/t.npy")
            error = float(np.max(np.abs(np.load(f"{folder}/o.npy") - np.load(f"{folder}/t.npy"))))
            report("vocabulary", f"{label}, API", ours, "torch eager (2 threads)", theirs, "target <= 2.0")
            print(f"  {label}: max |gradcli - torch| = {error:.3g} (target 1e-12)")


# One process, both tools warm: gradcli's API against torch.autograd.functional (vectorize=True).
_HIGHER_SCRIPT = r"""
import json, sys, time
import numpy as np, torch
from gradcli import api
torch.set_num_threads(2)
kind, program, n, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(0)
x = rng.uniform(0.5, 1.5, n)
A = rng.uniform(-1, 1, (n, n))
const = {"A": A} if "A" in program else {}
tx, tA = torch.tensor(x), torch.tensor(A)
f = {
    "sum(sin(x)*x**2)": lambda v: (v.sin() * v**2).sum(),
    "sum(tanh(A@x)**2)": lambda v: (torch.tanh(tA @ v) ** 2).sum(),
    "sin(x)*x": lambda v: v.sin() * v,
    "tanh(A@x)": lambda v: torch.tanh(tA @ v),
}[program]
ours_call = (lambda: api.hessian(program, at={"x": x}, const=const, symbolic=False).hessian["x"]["x"]) \
    if kind == "hessian" else (lambda: api.jacobian(program, at={"x": x}, const=const).jacobian["x"])
theirs_call = (lambda: torch.autograd.functional.hessian(f, tx, vectorize=True)) \
    if kind == "hessian" else (lambda: torch.autograd.functional.jacobian(f, tx, vectorize=True))
def best(call):
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter(); result = call(); times.append(time.perf_counter() - start)
    return min(times), result
ours_s, ours = best(ours_call)
theirs_s, theirs = best(theirs_call)
print(json.dumps({"ours": ours_s, "torch": theirs_s, "error": float(np.max(np.abs(ours - theirs.numpy())))}))
"""


def higher(repeat: int) -> None:
    print("6. hessian and jacobian (Python API, one process, both warm, float64)", flush=True)
    if not HAVE_TORCH:
        print("  (torch not installed: skipped)")
        return
    cases = [
        ("hessian", "sum(sin(x)*x**2)"),
        ("hessian", "sum(tanh(A@x)**2)"),
        ("jacobian", "sin(x)*x"),
        ("jacobian", "tanh(A@x)"),
    ]
    for kind, program in cases:
        for n in (50, 200, 1000):
            done = subprocess.run(
                [PYTHON, "-c", _HIGHER_SCRIPT, kind, program, str(n), str(repeat)],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0 and "exceeds the limit" in done.stderr:  # a cap, as a user meets it
                print(f"  {kind} {program}, n={n}: refused by a cap ({done.stderr.strip().splitlines()[-1]})")
                continue
            if done.returncode != 0:
                raise SystemExit(f"failed: {kind} {program} n={n}\n{done.stderr[-2000:]}")
            found = json.loads(done.stdout)
            report(
                "higher orders",
                f"{kind} {program}, n={n}",
                found["ours"],
                "torch.autograd.functional, vectorize=True",
                found["torch"],
                "target <= 1.0",
            )
            print(f"  max |gradcli - torch| = {found['error']:.3g} (target 1e-10)")


def many_points(count: int, repeat: int) -> None:
    print(f"3. many points: {count:,} JSON lines, 3 variables", flush=True)
    import random

    rng = random.Random(0)
    lines = "".join(
        json.dumps({"x": rng.uniform(-2, 2), "y": rng.uniform(-2, 2), "z": rng.uniform(-2, 2)}) + "\n"
        for _ in range(count)
    )
    program = "x*y + sin(z)*x**2"
    ours, ours_rss = timed(
        [*GRADCLI, "grad", program, "--batch", "-", "--no-symbolic"], stdin=lines, repeat=repeat
    )
    elementwise = ours
    floor, _ = timed([PYTHON, "-c", _IO_FLOOR], stdin=lines, repeat=repeat)
    report("many points", "gradcli --batch", ours, "I/O floor (JSON-lines loop)", floor, "target <= 3")
    double = lines + lines
    _, double_rss = timed(
        [*GRADCLI, "grad", program, "--batch", "-", "--no-symbolic"], stdin=double, repeat=1
    )
    print(
        f"  peak RSS {ours_rss / 1024:.0f} MiB for {count:,} points, {double_rss / 1024:.0f} MiB for {2 * count:,}"
    )
    # A program that is not elementwise, over tensor points: the batched interpretation.
    tensor_lines = "".join(
        json.dumps({"x": [rng.uniform(-2, 2) for _ in range(3)], "y": rng.uniform(-2, 2)}) + "\n"
        for _ in range(count)
    )
    mixing = "sum(x**2*y) + max(x*0) + mean(x)"
    mixed, _ = timed(
        [*GRADCLI, "grad", mixing, "--batch", "-", "--no-symbolic"], stdin=tensor_lines, repeat=repeat
    )
    floor, _ = timed([PYTHON, "-c", _IO_FLOOR], stdin=tensor_lines, repeat=repeat)
    report("many points", f"gradcli --batch {mixing}, 3-vectors", mixed, "I/O floor", floor, "target <= 3")
    if HAVE_TORCH:
        subset = "".join(lines.splitlines(keepends=True)[: max(1, count // 20)])
        torch_s, _ = timed([PYTHON, "-c", _TORCH_LOOP], stdin=subset, repeat=1)
        report(
            "many points",
            "gradcli --batch",
            elementwise,
            "per-point torch loop (1 run on 1/20 of the points, x20)",
            torch_s * 20,
            "target <= 1/20",
        )


def depth(statements: int, repeat: int) -> None:
    print(f"4. depth: a {statements:,}-statement program", flush=True)
    program = "\n".join(["t0 = x"] + [f"t{i} = sin(t{i - 1}) + 0.5*x" for i in range(1, statements + 1)])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "deep.txt")
        path.write_text(program)
        # JSON, so the symbolic output (per-node adjoints) is really written.
        command = [*GRADCLI, "grad", "-", "--at", "x=0.3", "--format", "json"]
        ours, _ = timed(command, stdin=program, repeat=repeat)
        bare, _ = timed([*command, "--no-symbolic"], stdin=program, repeat=repeat)
        if HAVE_TORCH:
            script = (
                "import torch\nx = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)\nt = x\n"
                f"for _ in range({statements}):\n    t = torch.sin(t) + 0.5*x\nt.backward()\nprint(x.grad.item())\n"
            )
            torch_s, _ = timed([PYTHON, "-c", script], repeat=repeat)
            report("depth", "gradcli json (symbolic on)", ours, "torch script", torch_s, "target <= 1.0")
            report("depth", "gradcli --no-symbolic", bare, "torch script", torch_s, "informative")
            document = json.loads(
                subprocess.run(command, input=program, capture_output=True, text=True).stdout
            )
            theirs = float(subprocess.run([PYTHON, "-c", script], capture_output=True, text=True).stdout)
            error = abs(document["leaves"]["x"]["grad"] - theirs)
            print(
                f"  |gradcli - torch| = {error:.3g} (target 1e-9); adjoint of t1: {document['nodes'][3]['adjoint_symbolic']}"
            )


# A tutorial script as issue 15 sizes it: tens of statements, then 100 SGD steps of a small
# two-layer network on a small batch (every value written out: run refuses random tensors).
_TUTORIAL_SCRIPT = """\
import torch
import torch.nn.functional as F

X = torch.tensor([[0.5, 1.0, -0.5], [1.5, -0.5, 0.25], [-1.0, 0.5, 2.0], [0.0, -1.5, 1.0],
                  [2.0, 0.5, -1.0], [-0.5, -0.5, 0.5], [1.0, 1.0, 1.0], [-1.5, 2.0, 0.0]])
y = torch.tensor([[1.0], [0.0], [1.0], [0.0], [1.0], [0.0], [1.0], [0.0]])
W1 = torch.tensor([[0.1, -0.2, 0.3, 0.05], [0.2, 0.1, -0.1, 0.3], [-0.3, 0.2, 0.1, -0.2]], requires_grad=True)
b1 = torch.zeros(4, requires_grad=True)
W2 = torch.tensor([[0.5], [-0.4], [0.3], [0.2]], requires_grad=True)
b2 = torch.zeros(1, requires_grad=True)
print(X.shape, y.shape, W1.shape, W2.shape)
h = torch.tanh(X @ W1 + b1)
print(h)
out = torch.sigmoid(h @ W2 + b2)
print(out.grad_fn.name(), out.requires_grad, out.is_leaf)
loss = F.binary_cross_entropy(out, y)
print(f"initial loss {loss.item():.4f}")
loss.backward()
print(W1.grad, b1.grad, W2.grad, b2.grad, sep="\\n")
for p in [W1, b1, W2, b2]:
    p.grad = None
lr = 0.5
for step in range(100):
    h = torch.tanh(X @ W1 + b1)
    out = torch.sigmoid(h @ W2 + b2)
    loss = F.binary_cross_entropy(out, y)
    loss.backward()
    with torch.no_grad():
        W1 -= lr * W1.grad
        b1 -= lr * b1.grad
        W2 -= lr * W2.grad
        b2 -= lr * b2.grad
    W1.grad.zero_()
    b1.grad.zero_()
    W2.grad.zero_()
    b2.grad.zero_()
    if step % 20 == 0:
        print(f"step {step}: loss {loss.item():.4f}")
print(out.detach().round(decimals=3).squeeze(1).tolist())
print(W2)
"""


def script(repeat: int) -> None:
    print("7. run: a tutorial script (tens of statements, a 100-step SGD loop)", flush=True)
    if not HAVE_TORCH:
        print("  (torch not installed: skipped)")
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "tutorial.py")
        path.write_text(_TUTORIAL_SCRIPT)
        ours_out = subprocess.run([*GRADCLI, "run", str(path)], capture_output=True, text=True)
        theirs_out = subprocess.run([PYTHON, str(path)], capture_output=True, text=True)
        if ours_out.returncode != 0 or ours_out.stdout != theirs_out.stdout:
            raise SystemExit(f"gradcli run differs from torch:\n{ours_out.stderr[-2000:]}")
        ours, _ = timed([*GRADCLI, "run", str(path)], repeat=repeat)
        theirs, _ = timed([PYTHON, str(path)], repeat=repeat)
        report("run", "gradcli run tutorial.py", ours, "python tutorial.py (torch)", theirs, "target <= 0.33")
        print("  stdout byte-identical to torch's")


_OPS = """
import sys, time
if sys.argv[1] == "torch":
    import torch
else:
    import gradcli.torch as torch
torch.set_num_threads(1)
w = torch.ones(3, requires_grad=True)
x = torch.ones(3)
times = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    for _ in range(2000):
        y = w * 2
        z = y.sin()
        u = x + x
        v = torch.tanh(z)
    times.append((time.perf_counter() - start) / 8000)
print(sorted(times)[len(times) // 2])
"""


def ops(repeat: int) -> None:
    print("9. run: recording one small op (w * 2, y.sin(), x + x, torch.tanh(z) on 3 elements)", flush=True)
    ours, _ = _run_python(_OPS, "gradcli", str(repeat))
    print(f"  gradcli.torch: {ours * 1e6:.1f} µs an op (target <= 20 µs)")
    if not HAVE_TORCH:
        print("  (torch not installed: no baseline)")
        return
    theirs, _ = _run_python(_OPS, "torch", str(repeat))
    print(f"  torch: {theirs * 1e6:.1f} µs an op")
    # in µs (the table's "s" columns hold µs on this row: seconds would round to 0.000)
    report("op (µs)", "gradcli.torch, one small op", ours * 1e6, "torch, one small op", theirs * 1e6, "<= 20 µs")


def training(repeat: int) -> None:
    print("8. run: training loops as tutorials write them (bench/training/*.py)", flush=True)
    if not HAVE_TORCH:
        print("  (torch not installed: skipped)")
        return
    for path in sorted(Path(__file__).parent.joinpath("training").glob("*.py")):
        ours_out = subprocess.run([*GRADCLI, "run", str(path)], capture_output=True, text=True)
        theirs_out = subprocess.run([PYTHON, str(path)], capture_output=True, text=True)
        if ours_out.returncode != 0 or ours_out.stdout != theirs_out.stdout:
            raise SystemExit(f"gradcli run {path.name} differs from torch:\n{ours_out.stderr[-2000:]}")
        ours, _ = timed([*GRADCLI, "run", str(path)], repeat=repeat)
        theirs, _ = timed([PYTHON, str(path)], repeat=repeat)
        report("training", f"gradcli run {path.name}", ours, "python (torch)", theirs, "target <= 0.5")
    print("  stdout byte-identical to torch's")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="1M elements, 10,000 points, 1,000 statements, 3 repetitions (a smoke run)",
    )
    parser.add_argument(
        "--only",
        choices=["startup", "tensors", "points", "depth", "vocabulary", "higher", "script", "training", "ops"],
        help="run one target",
    )
    args = parser.parse_args()
    repeat = 3 if args.quick else 5
    # `pip install .` compiles every module; an editable install under PYTHONDONTWRITEBYTECODE
    # never does, and each run would then measure compiling gradcli as well.
    import compileall

    import gradcli

    compileall.compile_dir(Path(gradcli.__file__).parent, quiet=1)
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    everything = {"startup", "tensors", "points", "depth", "vocabulary", "higher", "script", "training", "ops"}
    chosen = {args.only} if args.only else everything
    if "startup" in chosen:
        startup(repeat)
    if "tensors" in chosen:
        tensors(1_000_000 if args.quick else 10_000_000, repeat)
    if "points" in chosen:
        many_points(10_000 if args.quick else 100_000, 3)
    if "depth" in chosen:
        depth(1_000 if args.quick else 10_000, 3)
    if "vocabulary" in chosen:
        vocabulary(100_000 if args.quick else 1_000_000, repeat)
    if "higher" in chosen:
        higher(repeat)
    if "script" in chosen:
        script(repeat)
    if "training" in chosen:
        training(3)
    if "ops" in chosen:
        ops(repeat)
    print("\n| target | gradcli | s | baseline | s | ratio | goal |\n|---|---|---|---|---|---|---|")
    for target, ours, ours_s, baseline, base_s, goal in rows:
        print(
            f"| {target} | {ours} | {ours_s:.3f} | {baseline} | {base_s:.3f} | {ours_s / base_s:.2f} | {goal} |"
        )


if __name__ == "__main__":
    main()
