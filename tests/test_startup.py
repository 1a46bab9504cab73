"""Start-up: each command imports only what it needs (issue 5, "Speed").

Every module a run imports costs start-up time, and some cost a lot: sympy ~0.3 s,
numpy.random ~15 ms. These tests run the command line in a fresh interpreter and list
the modules it loaded, so a top-level import that creeps back in fails here.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from gradcli import limits

# Needed only on rarer paths: symbolic output, rand()/randn() VALUEs, "did you mean" hints,
# --debug tracebacks, Graphviz, rich tables, and the commands that were not run.
RARE = (
    "sympy",
    "numpy.random",
    "difflib",
    "traceback",
    "subprocess",
    "shutil",
    "rich",
    "gradcli.symbolic",
    "gradcli.commands.graph",
    "gradcli.commands.higher",
    "gradcli.commands.ops",
    "gradcli.batch",
)

_PROBE = """
import runpy, sys
sys.argv = ["gradcli", *sys.argv[1:]]
try:
    runpy.run_module("gradcli", run_name="__main__")
except SystemExit as exit:
    code = exit.code
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""


def loaded_modules(*args: str, stdin: str | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run `gradcli ARGS` in a fresh interpreter; its result and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], input=stdin, capture_output=True, text=True, check=False
    )
    marker = done.stderr.rindex("\nMODULES ")
    return done, set(done.stderr[marker + len("\nMODULES ") :].split())


def _dependency_modules() -> set[str]:
    """What importing numpy and click loads by itself (numpy 1.x imports numpy.random, say)."""
    code = "import sys, click, numpy; print(' '.join(sys.modules))"
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split())


@pytest.mark.parametrize(
    "args",
    [
        ("grad", "(2*x)**3", "--at", "x=2", "--format", "json", "--no-symbolic"),
        # Plain output at a point is NAME<TAB>GRAD only, so it computes no symbolic forms.
        ("grad", "(2*x)**3", "--at", "x=2", "--format", "plain"),
        ("grad", "y = matmul(W, v) + b; sum(y**2)", "--at", "W=ones(2,2)", "--at", "v=[1,2]")
        + ("--at", "b=zeros(2)", "--format", "plain"),
    ],
    ids=["json-no-symbolic", "plain", "constructors"],
)
def test_a_numeric_run_imports_nothing_it_does_not_use(args):
    done, modules = loaded_modules(*args)
    assert done.returncode == 0, done.stderr
    assert sorted((modules - _dependency_modules()) & set(RARE)) == []


def test_rare_paths_still_import_what_they_need():
    done, modules = loaded_modules(
        "grad", "sum(x*y)", "--at", "x=rand(2)", "--at", "y=randn(2)", "--format", "plain"
    )
    assert done.returncode == 0, done.stderr
    assert "numpy.random" in modules
    done, modules = loaded_modules("grad", "sine(x)", "--at", "x=1")
    assert done.returncode == 1 and "did you mean sin?" in done.stderr
    done, modules = loaded_modules("grad", "(2*x)**3", "--at", "x=2", "--format", "json")
    assert done.returncode == 0 and '"grad_symbolic": "24*x**2"' in done.stdout
    assert "sympy" in modules


def test_a_big_program_gets_symbolic_json_without_sympy():
    # Past SYMBOLIC_NODES, per-node adjoints are written from the registry's text templates.
    program = "\n".join(
        ["t0 = x"] + [f"t{i} = sin(t{i - 1}) + 0.5*x" for i in range(1, limits.SYMBOLIC_NODES)]
    )
    done, modules = loaded_modules("grad", "-", "--at", "x=0.3", "--format", "json", stdin=program)
    assert done.returncode == 0, done.stderr
    assert '*cos(t1)", "adjoint_local"' in done.stdout  # t1's adjoint, in its consumer's
    assert "sympy" not in modules
