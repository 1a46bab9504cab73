"""Resource caps, checked before work starts so hostile input cannot hang or exhaust us.

Each cap is named in the error it raises and listed in docs/limits.md's "Safety and limits".
The sizes are chosen so that refusing is instant and anything accepted is parsed and
laid out as a graph in about a second on a small machine; they sit well above what a
hand-written program needs (a 10,000-statement chain fits).
"""

from __future__ import annotations

from .errors import LimitError

MAX_PROGRAM_CHARS = 500_000  # program text, checked before Python's parser sees it
MAX_STATEMENTS = 20_000  # statements in one program, counted before parsing
MAX_NESTING = 200  # brackets inside brackets, as deep as Python's own parser allows
MAX_DEPTH = 1_000  # operators nested in one expression (a 1,000-term chain a+b+...)
MAX_NODES = 50_000  # operations in one program / nodes in its graph
MAX_ELEMENTS = 100_000_000  # elements of one tensor (800 MB as float64)
MAX_GRAPH_ELEMENTS = 500_000_000  # elements of all tensors in one graph together
MAX_PASSES = 10_000  # backward passes (--passes, or --gradient given K times)
MAX_PASS_ELEMENTS = 2_000_000_000  # passes x graph elements: the work (and kept history) of a run
SYMBOLIC_NODES = 1_000  # past this, symbolic forms are skipped (numbers are unaffected)
MAX_VALUE_CHARS = 50_000_000  # text of one VALUE (a JSON array on the command line, stdin or a text @FILE)
MAX_FILE_BYTES = 1_000_000_000  # a .npy/.npz @FILE, checked with stat before it is opened (1e8 float64 fit)
MAX_HESSIAN_BYTES = 800_000_000  # one Hessian's result (n leaf elements: n*n*8 bytes in float64)
MAX_INDEX_LITERAL = 1_000_000  # integers written in one subscript's lists and range()s
MAX_DIMS = 32  # dimensions of one tensor (NumPy's own limit is 64, some of its kernels' 32)
MAX_CHECK_ELEMENTS = 1_000  # leaf elements `check` perturbs: two forward passes and a symbolic value each
# `check` (up to four forward passes a leaf element), `jacobian` and `hessian` (a backward pass a row)
# repeat passes over one graph: ~35 ns an element and ~10-20 us a node each pass on a small busy
# machine, so these keep anything accepted to a few seconds.
MAX_DERIVATIVE_PASS_ELEMENTS = 100_000_000  # passes x graph elements of check, jacobian, hessian
MAX_DERIVATIVE_PASS_NODES = 100_000  # passes x graph nodes of check, and of rows that cannot batch
# multiply-adds of one convolution: small tensors can ask for a lot (a 300x300 kernel over a
# 1000x1000 image is 4.4e10); this one runs in a second or two, its backward in a few
MAX_OP_MULTIPLY_ADDS = 2_000_000_000


class Script:
    """`gradcli run`'s one cap: a script is Python's, with no caps on it (as python has none);
    what --format json keeps of its backward calls is bounded (docs/limits.md)."""

    MAX_RECORDED_BACKWARD_CALLS = 1_000  # backward calls kept whole for --format json (then the line only)


def count_text(value: int) -> str:
    """A count as people read it: 10,000,000,000, or 1.0e+300 when digits stop helping."""
    return f"{value:,}" if value < 10**18 else f"{float(value):.1e}"


def check(value: int, cap: int, what: str, name: str, hint: str | None = None) -> None:
    """Raise LimitError naming the cap when value exceeds it."""
    if value > cap:
        raise LimitError(f"{what} ({count_text(value)}) exceeds the limit {name}={cap:,}", hint=hint)


def check_pass_work(passes: int, graph_elements: int, graph_nodes: int = 0) -> None:
    """Refuse `--passes 10000` on a big graph before the first pass: each pass touches
    every element and visits every node (~17 µs each), and each pass's grads are kept to
    show accumulation. A single pass of the largest program is always allowed."""
    check(passes, MAX_PASSES, "number of passes", "MAX_PASSES")
    if passes > 1:
        check(
            passes * graph_nodes,
            MAX_DERIVATIVE_PASS_NODES,
            f"{passes:,} passes over a graph of {graph_nodes:,} nodes",
            "MAX_DERIVATIVE_PASS_NODES",
            hint="use fewer passes or a shorter program",
        )
    check(
        passes * graph_elements,
        MAX_PASS_ELEMENTS,
        f"{passes:,} passes over a graph of {graph_elements:,} elements",
        "MAX_PASS_ELEMENTS",
        hint="use fewer passes or smaller tensors",
    )


def table() -> dict[str, int]:
    """Every cap by name, for documentation and tests."""
    caps = {name: value for name, value in globals().items() if name.startswith("MAX_")}
    scripts = {"MAX_RECORDED_BACKWARD_CALLS": Script.MAX_RECORDED_BACKWARD_CALLS}
    assert not caps.keys() & scripts.keys(), "a script cap shares a name with a program cap"
    return {**caps, **scripts}
