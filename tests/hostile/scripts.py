"""Hostile `gradcli run` scripts, as Cases of tests/hostile/cases.py (same contract).

Each script comes on stdin (`gradcli run -`) and must end quickly with exit 1, exactly one
`error:` line containing every fragment, nothing on stdout (so none of them prints before
its attack), no file created (CANARY is the path of a file that must never appear) and
no traceback. tests/test_run_hostile.py runs the table and checks that every cap of
limits.Script that refuses work is hit by one of these.
"""

from __future__ import annotations

from hostile.cases import CANARY, INPUT, Case


def script(id: str, text: str, *expect: str) -> Case:
    return Case(id, ("run", "-"), INPUT, expect, stdin=text.encode())


IMPORTED = "only torch, torch.nn, torch.nn.functional, torch.autograd, torch.func, torch.optim, torch.utils.data, math, random, functools and numpy can be imported"
DUNDER = "names starting with '__' are not allowed"
NOT_SUPPORTED = "is not supported by gradcli run"

# Code or files reached from a script: refused before the first statement runs, or at
# the call, never executed.
INJECTION = [
    script("run-import-os", f"import os\nos.system('touch {CANARY}')\n", "import of 'os' refused", IMPORTED),
    script("run-import-subprocess", "import subprocess\nsubprocess.run(['ls'])\n", "'subprocess'"),
    script("run-from-os-import", f"from os import system\nsystem('touch {CANARY}')\n", "'os'"),
    script("run-import-importlib", "import importlib\n", "'importlib'"),
    script("run-import-torch-utils", "import torch.utils\n", "'torch.utils'"),
    script("run-dunder-import", f"__import__('os').system('touch {CANARY}')\n", DUNDER),
    script("run-class-walk", "print(().__class__.__bases__[0].__subclasses__())\n", DUNDER),
    script("run-tensor-class", "import torch\nx = torch.ones(2)\nprint(x.__class__.__mro__)\n", DUNDER),
    script("run-module-file", "import torch\nprint(torch.__file__)\n", DUNDER),
    script("run-function-self", "import math\nprint(math.sqrt.__self__)\n", DUNDER),
    script(
        "run-traceback",
        "try:\n    1 / 0\nexcept Exception as e:\n    print(e.__traceback__)\n",
        DUNDER,
    ),
    script("run-open", f"open('{CANARY}', 'w').write('x')\n", "'open'"),
    script("run-eval", f"eval(\"__import__('os').system('touch {CANARY}')\")\n", "'eval'"),
    script("run-exec", f"exec(\"open('{CANARY}', 'w')\")\n", "'exec'"),
    script("run-compile", "compile('1', 'f', 'eval')\n", "'compile'"),
    script("run-getattr", "import torch\ngetattr(torch, 'save')\n", "'getattr'"),
    script("run-globals", "print(globals())\n", "'globals'"),
    # type(x) gives a printable name, never a class: no class creation, nothing to call
    script("run-type-new-class", "X = type('X', (), {})\nprint(X)\n", "type() takes one value here"),
    script("run-type-call", "import torch\nprint(type(torch.ones(1))(3))\n", "not callable"),
    script("run-breakpoint", "breakpoint()\n", "'breakpoint'"),
    script(
        "run-torch-save",
        f"import torch\ntorch.save(torch.ones(1), '{CANARY}')\n",
        "'torch.save'",
        NOT_SUPPORTED,
    ),
    script("run-torch-load", f"import torch\ntorch.load('{CANARY}')\n", "'torch.load'"),
    script("run-torch-from-file", f"import torch\ntorch.from_file('{CANARY}')\n", "'torch.from_file'"),
    script("run-torch-hub", "import torch\ntorch.hub.load('a/b', 'c')\n", "'torch.hub'"),
    script("run-torch-ops", "import torch\ntorch.ops.aten.add\n", "'torch.ops'"),
    script("run-numpy-save", f"import numpy as np\nnp.save('{CANARY}', 1)\n", "'numpy.save'"),
    script("run-numpy-fromfile", "import numpy as np\nnp.fromfile('/etc/passwd')\n", "'numpy.fromfile'"),
    script(
        "run-ndarray-tofile",
        f"import torch\na = torch.ones(2).numpy()\na.tofile('{CANARY}')\n",
        "numpy.ndarray.tofile is not supported by gradcli run",
    ),
    script("run-format-attribute", "print('{0.__class__}'.format(1))\n", "format fields"),
    # a lambda is a def of one expression: plain arguments only, and the call-depth cap holds
    script("run-lambda-varargs", "f = lambda **a: a\n", "only plain functions"),
    script("run-varargs-bomb", "def f(*a):\n    return a\nf(*range(10**9))\n", "MAX_SEQUENCE="),
    script("run-lambda-recursion", "f = lambda n: f(n + 1)\nf(0)\n", "MAX_CALL_DEPTH"),
    script("run-lambda-dunder", "f = lambda: ().__class__.__base__\nf()\n", DUNDER),
    # classes: one base, no metaclass or decorators, protocol methods only, caps on both
    script("run-class-metaclass", "class A(metaclass=type):\n    pass\n", "no decorators or keywords"),
    script("run-class-two-bases", "class A:\n    pass\nclass B(A, A):\n    pass\n", "one base class"),
    script("run-class-decorator", "import torch\n@torch.no_grad()\nclass A:\n    pass\n", "no decorators"),
    script("run-class-getattribute", "class A:\n    def __getattribute__(self, n):\n        return 1\n", DUNDER),
    script("run-class-dict", "class A:\n    pass\nprint(A().__dict__)\n", DUNDER),
    script("run-class-set-class", "class A:\n    def __init__(self):\n        self.__class__ = int\nA()\n", DUNDER),
    script("run-class-init-globals", "class A:\n    pass\nprint(A.__init__.__globals__)\n", DUNDER),
    script("run-class-nested", "class A:\n    class B:\n        pass\n", "a class body holds"),
    script("run-class-body-loop", "class A:\n    for i in range(3):\n        pass\n", "a class body holds"),
    script("run-class-base-int", "class A(int):\n    pass\n", "a base must be a class"),
    script("run-class-base-layer", "import torch.nn as nn\nclass A(nn.Linear):\n    pass\n", "deriving from Linear"),
    script("run-class-repr-recursion", "class A:\n    def __repr__(self):\n        return repr(self)\nprint(A())\n", "MAX_CALL_DEPTH"),
    script("run-class-endless-getitem", "class A:\n    def __getitem__(self, i):\n        return i\nlist(A())\n", "MAX_LOOP"),
    script(
        "run-class-instances",
        "class A:\n    pass\nfor i in range(1000):\n    for j in range(101):\n        A()\n",
        "MAX_INSTANCES=100,000",
    ),
    script(
        "run-module-children",
        "import torch.nn as nn\nm = nn.ModuleList([nn.Identity() for i in range(10001)])\n",
        "MAX_ATTRIBUTES=10,000",
    ),
    script("run-while", "while True:\n    pass\n", "MAX_LOOP"),
    # a generator runs through at the call: an endless one meets the loop cap there
    script("run-endless-generator", "def g():\n    while True:\n        yield 1\nfor v in g():\n    pass\n", "MAX_LOOP"),
    script("run-yield-expression", "def g():\n    x = yield 1\n", "yield is supported as a statement"),
    script("run-while-else", "while False:\n    pass\nelse:\n    pass\n", "else/finally"),
    script("run-other-decorator", "import math\n@math.sqrt\ndef f():\n    pass\n", "decorators"),
    script("run-percent-star-width", 'print("%*d" % (10**9, 1))\n', "'*' width"),
    script("run-percent-wide", 'print("%999999999d" % 1)\n', "over 999"),
    script("run-global", "def f():\n    global x\n    x = 1\n", "global"),
    script("run-del", "x = 1\ndel x\n", "del"),
    script("run-raise", "raise SystemExit\n", "raise"),
    script("run-async", "async def f():\n    pass\n", "async"),
    script("run-yield-from", "def f():\n    yield from [1]\n", "yield"),
    script("run-walrus", "print(y := 1)\n", "':='"),
    script("run-dict-unpack", "d = {'a': 1}\ne = {**d}\n", "dict unpacking"),
    script("run-keyword-unpack", "d = {'sep': 1}\nprint(1, **d)\n", "keyword unpacking"),
    script("run-dict-dunder", "d = {'a': 1}\nprint(d.__class__.__subclasses__())\n", DUNDER),
    # __name__ and __class__ (type(x)) are the dunders a script may read, never write or walk from
    # a forbidden builtin shadowed somewhere is still unavailable where it is not shadowed
    script("run-shadowed-open", "def f(open):\n    return open\nopen('/etc/passwd')\n", "'open' is not available"),
    script("run-shadowed-eval", "eval = 1\ndef g():\n    return 2\nprint(g())\ndel eval\n", "del"),
    script("run-replace-growth", "s = 'a' * 1000000\nt = s.replace('a', 'a' * 1000)\n", "MAX_SEQUENCE"),
    script("run-center-growth", "s = 'a'.center(10 ** 12)\n", "MAX_SEQUENCE"),
    script("run-name-write", "def f():\n    return 1\nf.__name__ = 'g'\n", DUNDER),
    script("run-name-walk", "print(type(1).__name__.__class__.__bases__)\n", DUNDER),
    script("run-name-bare", "print(__name__)\n", DUNDER),
    script("run-name-of-tensor", "import torch\nprint(torch.ones(1).__name__)\n", "AttributeError"),
    script("run-syntax", "x = = 1\n", "SyntaxError"),
    script("run-nul", "x = 1\x00\n", "NUL"),
]

# Work that would hang the machine or take its memory: refused at the cap, in about a
# second at most, each naming its cap.
RESOURCE = [
    script("run-steps", "for i in range(100000):\n    for j in range(100000):\n        pass\n", "MAX_STEPS="),
    script("run-loop", "for i in range(10**9):\n    pass\n", "MAX_LOOP=100,000"),
    script("run-recursion", "def f(n):\n    return f(n + 1)\nf(0)\n", "MAX_CALL_DEPTH=50"),
    script(
        "run-mutual-recursion",
        "def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(0)\n",
        "MAX_CALL_DEPTH=",
    ),
    script("run-deep-expression", "x = " + "-(" * 150 + "1" + ")" * 150 + "\n", "MAX_EXPR_DEPTH=100"),
    script("run-long-sum", "x = " + "+".join(["1"] * 5000) + "\n", "MAX_EXPR_DEPTH=100"),
    script("run-longer-sum", "x = " + "+".join(["1"] * 200000) + "\n", "cannot be parsed"),
    script(
        "run-output",
        "s = 'x' * 1000000\nprint(s, s, s, s, s, s, s, s, s, s, s)\n",
        "MAX_OUTPUT_CHARS=10,000,000",
    ),
    script("run-string", "s = 'a' * 10**10\n", "MAX_SEQUENCE=1,000,000"),
    script("run-starred-range", "print(*range(10**9))\n", "MAX_SEQUENCE="),
    script("run-doubling-list", "x = [1]\nfor i in range(100):\n    x = x + x\n", "MAX_SEQUENCE="),
    script(
        "run-comprehension-bomb",
        "x = [0 for i in range(100000) for j in range(100000)]\n",
        "MAX_STEPS=",
    ),
    script("run-power", "x = 10 ** 10 ** 10\n", "MAX_INT_BITS=10,000"),
    script("run-power-loop", "x = 3\nfor i in range(40):\n    x = x * x\n", "MAX_INT_BITS="),
    script(
        "run-tensor-loop",
        "import torch\nx = torch.ones(10**7)\nfor i in range(100000):\n    y = x * 2\n",
        "MAX_SCRIPT_WORK=",
    ),
    script(
        "run-conv-loop",
        "import torch\nimport torch.nn.functional as F\nx = torch.ones(1, 64, 64, 64)\nw = torch.ones(64, 64, 3, 3)\n"
        "for i in range(100000):\n    y = F.conv2d(x, w)\n",
        "MAX_SCRIPT_WORK=",
    ),
    script(
        "run-big-matmul", "import torch\na = torch.ones(2000, 20000)\nb = a @ a.t()\n", "MAX_SCRIPT_WORK="
    ),
    script(
        "run-backward-loop",
        "import torch\nx = torch.ones(10**6, requires_grad=True)\ny = (x * x).sum()\n"
        "for i in range(100000):\n    y.backward(retain_graph=True)\n",
        "MAX_SCRIPT_WORK=",
    ),
    script("run-zeros-1e10", "import torch\nx = torch.zeros(10**10)\n", "MAX_ELEMENTS"),
    # Work Python would do item by item, refused before it starts (issue 24)
    script("run-round-digits", "x = round(12345, -10**9) + round(1, 10**9)\nx = round(3, 'a')\n", "TypeError"),
    script("run-max-range", "print(max(range(10**12)))\n", "MAX_SEQUENCE=", "range of 1,000,000,000,000"),
    script("run-in-range", "print(1.5 in range(10**12))\n", "MAX_SEQUENCE="),
    script(
        "run-compare-nested",
        "a = list(range(10**5))\nb = [a] * 10**5\nc = [list(a)] * 10**5\nprint(b == c)\n",
        "MAX_SEQUENCE=",
    ),
    script("run-sort-nested", "a = list(range(10**5))\nb = [a] * 10**5\nb.sort()\n", "MAX_SEQUENCE="),
    script("run-str-doubled", "a = [1]\nfor i in range(60):\n    a = [a, a]\nprint(len(str(a)))\n", "MAX_SEQUENCE="),
    script("run-deep-list", "a = []\nfor i in range(100000):\n    a = [a]\nprint(a == a)\n", "MAX_VALUE_NESTING=100"),
    script(
        "run-deep-tensor-data",
        "import torch\na = [1.0]\nfor i in range(5000):\n    a = [a]\nx = torch.tensor(a)\n",
        "MAX_VALUE_NESTING=100",
    ),
    script(
        "run-tiny-backward-loop",
        "import torch\nx = torch.ones(1, requires_grad=True)\nfor i in range(100000):\n"
        "    y = (x * 2).sum()\n    y.backward()\n",
        "MAX_SCRIPT_WORK=",
    ),
    script(
        "run-long-chain-retained",
        "import torch\nx = torch.ones(1, requires_grad=True)\ny = x\nfor i in range(5000):\n    y = y * 1.0\n"
        "for i in range(100000):\n    y.backward(retain_graph=True)\n",
        "MAX_SCRIPT_WORK=",
    ),
    script(
        "run-topk-ties-loop",
        "import torch\nx = torch.zeros(10**6)\nfor i in range(1000):\n    v, j = x.topk(1000)\n",
        "MAX_SCRIPT_WORK=",
    ),
    script("run-tolist-1e8", "import torch\nxs = torch.zeros(10**8).tolist()\n", "MAX_SEQUENCE="),
    script(
        "run-tolist-loop",
        "import torch\nx = torch.zeros(10**6)\nfor i in range(1000):\n    xs = x.tolist()\n",
        "MAX_SCRIPT_WORK=",
    ),
    script(
        "run-numpy-broadcast",
        "import torch\na = torch.zeros(30000, 1).numpy() + torch.zeros(1, 30000).numpy()\n",
        "MAX_ELEMENTS=",
    ),
    script("run-join-big", "s = 'x' * 10**6\nt = ''.join([s] * 1000)\n", "MAX_SEQUENCE="),
    script("run-format-big", "s = 'x' * 10**6\nt = ('{}' * 1000).format(*([s] * 1000))\n", "MAX_SEQUENCE="),
    script("run-fstring-big", "s = 'x' * 10**6\nt = f'{s}{s}{s}{s}'\n", "MAX_SEQUENCE="),
    script("run-str-of-strings", "a = ['x' * 999999] * 999999\nprint(len(str(a)))\n", "MAX_SEQUENCE="),
    script(
        "run-numpy-int-repeat",
        "import torch\nn = torch.tensor([10**9]).numpy().sum()\nxs = [0] * n\n",
        "MAX_SEQUENCE=",
    ),
    script("run-slice-from-range", "a = [1, 2]\na[0:1] = range(10**9)\n", "MAX_SEQUENCE="),
    script(
        "run-one-statement-memory",
        "import torch\ny = [torch.zeros(10**8) + 1, torch.zeros(10**8) + 2, torch.zeros(10**8) + 3]\n",
        "MAX_SCRIPT_BYTES=",
    ),
    script(
        "run-broadcast-1e10",
        "import torch\nx = torch.ones(100000, 1) * torch.ones(1, 100000)\n",
        "10,000,000,000",
        "MAX_ELEMENTS=",
    ),
    script(
        "run-hook-recursion",
        "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
        "def h(g):\n    y.backward(retain_graph=True)\n    return g\n"
        "x.register_hook(h)\ny.backward(retain_graph=True)\n",
        "MAX_CALL_DEPTH=",
    ),
]

# NumPy in a script: every array is weighed before NumPy makes it, strings are never data,
# and NumPy's file and object doors are not in the namespace.
NP = "import numpy as np\n"
NUMPY = [
    script("run-np-zeros-1e10", NP + "a = np.zeros(10**10)\n", "10,000,000,000", "MAX_ELEMENTS="),
    script("run-np-arange-tiny-step", NP + "a = np.arange(0, 1, 1e-12)\n", "MAX_ELEMENTS="),
    script("run-np-linspace-1e10", NP + "a = np.linspace(0, 1, 10**10)\n", "MAX_ELEMENTS="),
    script("run-np-eye-1e6", NP + "a = np.eye(10**6)\n", "MAX_ELEMENTS="),
    script("run-np-randn-1e10", NP + "a = np.random.randn(10**5, 10**5)\n", "MAX_ELEMENTS="),
    script("run-np-rand-100-dims", NP + "a = np.random.rand(*[2] * 100)\n", "MAX_ELEMENTS="),
    script("run-np-tile", NP + "a = np.tile(np.ones(10), 10**9)\n", "MAX_ELEMENTS="),
    script("run-np-repeat", NP + "a = np.ones(10).repeat(10**9)\n", "MAX_ELEMENTS="),
    script("run-np-outer", NP + "a = np.outer(np.ones(10**6), np.ones(10**6))\n", "MAX_ELEMENTS="),
    script(
        "run-np-meshgrid",
        NP + "a = np.meshgrid(np.ones(10**4), np.ones(10**4), np.ones(10**4))\n",
        "MAX_ELEMENTS=",
    ),
    script("run-np-matmul-chain", NP + "a = np.ones((5000, 5000))\nb = a @ a\n", "MAX_SCRIPT_WORK="),
    script("run-np-dot-big", NP + "a = np.ones((3000, 3000))\nb = np.dot(a, a)\n", "MAX_SCRIPT_WORK="),
    script("run-np-inv-big", NP + "a = np.ones((2000, 3000))\nb = np.linalg.pinv(a)\n", "MAX_SCRIPT_WORK="),
    script(
        "run-np-choice-population",
        NP + "a = np.random.choice(10**12, 3, replace=False)\n",
        "MAX_SCRIPT_WORK=",
    ),
    script("run-np-permutation", NP + "a = np.random.permutation(10**10)\n", "MAX_ELEMENTS="),
    script("run-np-diff-passes", NP + "a = np.diff(np.ones(3), n=10**9)\n", "MAX_SCRIPT_WORK="),
    script(
        "run-np-fancy-index",
        NP + "a = np.ones((1000, 1000))[np.zeros(10**6, dtype=np.int64)]\n",
        "MAX_ELEMENTS=",
    ),
    script("run-np-tolist", NP + "a = np.ones(10**7).tolist()\n", "MAX_SEQUENCE="),
    script("run-np-range", NP + "a = np.array(range(10**9))\n", "MAX_SEQUENCE="),
    script("run-np-string-fill", NP + "a = np.full((10**7,), 'x' * 1000)\n", "not a NumPy dtype of numbers"),
    script(
        "run-np-string-dtype", NP + "a = np.zeros(10**7, dtype='U1000')\n", "not a NumPy dtype of numbers"
    ),
    script(
        "run-np-astype-string", NP + "a = np.zeros(10**7).astype('U1000')\n", "not a NumPy dtype of numbers"
    ),
    script("run-np-object-dtype", NP + "a = np.zeros(3, dtype=object)\n", "'object'"),
    script("run-np-load", NP + f"a = np.load('{CANARY}')\n", "'numpy.load'", NOT_SUPPORTED),
    script("run-np-save", NP + f"np.save('{CANARY}', np.ones(3))\n", "'numpy.save'", NOT_SUPPORTED),
    script("run-np-fromfile", NP + f"a = np.fromfile('{CANARY}')\n", "'numpy.fromfile'", NOT_SUPPORTED),
    script("run-np-dunder", NP + "a = np.ones(3).__array_interface__\n", DUNDER),
    script("run-np-ctypes", NP + "a = np.ones(3).ctypes\n", NOT_SUPPORTED),
    script(
        "run-np-loop",
        NP + "a = np.ones((1000, 1000))\nfor i in range(100000):\n    b = a * 2\n",
        "MAX_SCRIPT_WORK=",
    ),
]

# Caps that no hostile script of this table hits, and where each is tested instead:
# MAX_SCRIPT_BYTES needs gigabytes (tests/test_run_limits.py lowers it);
# MAX_RECORDED_BACKWARD_CALLS refuses nothing (it stops --format json keeping graphs;
# tests/test_run_trace.py lowers it).
SCRIPT_CAPS_TESTED_ELSEWHERE = {"MAX_SCRIPT_BYTES", "MAX_RECORDED_BACKWARD_CALLS"}

SCRIPT_CASES: list[Case] = INJECTION + RESOURCE + NUMPY
