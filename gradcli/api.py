"""The Python API: grad() -> a frozen GradResult. No I/O here; the CLI is a layer over this."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from . import allocator, blocked, diagnostics, limits
from .autograd import NO_GRAD, PassesStopped, forward, run_passes, seed_for
from .errors import (
    CLI_WORDS,
    AutogradError,
    GradcliError,
    ShapeError,
    ValueInputError,
    input_example,
    input_label,
    option,
)
from .graph import CONST, LEAF, OP, Graph, InputSpec, build_graph
from .ops import TORCH_SPELLINGS
from .parse import parse_program

# The result types live in results.py (render/ and the script tracer read them there);
# `from gradcli.api import GradResult` keeps working.
from .results import GradResult, HessianResult, JacobianResult, NodeResult, PassResult, ProductResult
from .values import literal_dtype, to_array

if TYPE_CHECKING:
    from .runner import ScriptRun

DTYPES = {"float64": np.float64, "float32": np.float32}

allocator.reuse_freed_memory()


def _gradients(
    gradient: Any, gradients: Sequence[Any] | None, passes: int | None, dtype: np.dtype
) -> list[np.ndarray | None]:
    """PyTorch's `gradient` for each pass: none (scalar output), one reused, or one per pass."""
    if gradient is not None and gradients is not None:
        raise GradcliError("give either gradient (one value) or gradients (one per pass), not both")
    given = list(gradients) if gradients is not None else [] if gradient is None else [gradient]
    arrays = [to_array(v, dtype, "gradient") for v in given]
    count = passes if passes is not None else max(1, len(arrays))
    if count < 1:
        raise GradcliError(f"passes must be at least 1, not {count}")
    limits.check(count, limits.MAX_PASSES, "number of passes", "MAX_PASSES")
    if len(arrays) > 1 and len(arrays) != count:
        raise GradcliError(
            f"{len(arrays)} gradients were given for {count} passes",
            hint="give one --gradient for every pass, or a single one to reuse"
            if CLI_WORDS.get()
            else "give gradients= one per pass, or a single gradient= to reuse",
        )
    if len(arrays) <= 1:
        return (arrays or [None]) * count
    return arrays


def _check_names(program_inputs: Sequence[str], at: Mapping, const: Mapping) -> None:
    both = sorted(set(at) & set(const))
    if both:
        raise ValueInputError(
            f"'{both[0]}' is given both as {option('at')} and as {option('const')}; give it once"
        )
    for kind, given in (("at", at), ("const", const)):
        unused = [n for n in given if n not in program_inputs]
        if unused:
            inputs = ", ".join(program_inputs) or "none"
            raise ValueInputError(
                f"{input_label(kind, unused[0])}: the program has no input named '{unused[0]}' "
                f"(its inputs: {inputs})"
            )
    missing = [n for n in program_inputs if n not in at and n not in const]
    if missing:
        listed = ", ".join(missing)
        example = " ".join(input_example(n, "VALUE") for n in missing)
        called = [n for n in missing if n in TORCH_SPELLINGS]
        if called:  # `sin` alone: a function's name used as a variable
            example = f"'{called[0]}' is a function; call it, as in {called[0]}(x); or give {example}"
        else:
            example = f"give {example}"
        raise ValueInputError(f"no value for {listed}", hint=example)


@dataclass(frozen=True)
class _Prepared:
    """A parsed program, its graph and its input arrays: the common start of every command."""

    graph: Graph
    arrays: dict[str, np.ndarray]
    dtype: np.dtype
    numeric: bool


def _prepare(expression: str, at: Mapping | None, const: Mapping | None, dtype: str) -> _Prepared:
    if dtype not in DTYPES:
        raise GradcliError(f"dtype must be float64 or float32, not {dtype!r}")
    np_dtype = np.dtype(DTYPES[dtype])
    at, const = dict(at or {}), dict(const or {})
    program = parse_program(expression, names={*at, *const})  # an input named e hides Euler's e
    numeric = bool(at or const)
    arrays: dict[str, np.ndarray] = {}
    if numeric:
        _check_names(program.inputs, at, const)
        arrays = {n: to_array(v, np_dtype, input_label("at", n)) for n, v in at.items()}
        # A const keeps torch's dtype for its literal (int64 [2, 0, 1], bool [true]) on its
        # node; the engine computes with it in the program's float dtype.
        typed = {n: to_array(v, np_dtype, input_label("const", n), keep=True) for n, v in const.items()}
        arrays.update({n: a.astype(np_dtype, copy=False) for n, a in typed.items()})
        specs = {
            n: InputSpec(LEAF if n in at else CONST, a.shape, literal_dtype(typed.get(n, a)), a)
            for n, a in arrays.items()
        }
    else:
        specs = {n: InputSpec(LEAF, ()) for n in program.inputs}
    try:
        graph = build_graph(program, specs)
    except ShapeError as exc:
        if numeric:
            raise
        raise ShapeError(
            exc.message,
            hint="with no values every name is a scalar; give tensor shapes, e.g. "
            + input_example("W", "zeros(2,2)" if CLI_WORDS.get() else "np.zeros((2, 2))"),
        ) from None
    return _Prepared(graph, arrays, np_dtype, numeric)


def _require_point(prepared: _Prepared, command: str) -> None:
    if not prepared.numeric:
        raise ValueInputError(
            f"{command} needs a point", hint=f"give every input a value with {option('at')}"
        )


def _at_point(
    expression: str, at: Mapping | None, const: Mapping | None, dtype: str, command: str
) -> tuple[_Prepared, list[np.ndarray]]:
    """Prepare a program that must have a point and an input requiring grad; run its forward pass."""
    prepared = _prepare(expression, at, const, dtype)
    _require_point(prepared, command)
    graph = prepared.graph
    if not graph.nodes[graph.output].requires_grad:
        raise AutogradError(
            NO_GRAD, hint=f"give at least one input that the output depends on with {option('at')}"
        )
    return prepared, forward(graph, prepared.arrays, prepared.dtype)


def grad(
    expression: str,
    at: Mapping[str, Any] | None = None,
    const: Mapping[str, Any] | None = None,
    gradient: Any = None,
    dtype: str = "float64",
    *,
    gradients: Sequence[Any] | None = None,
    symbolic: bool = True,
    passes: int | None = None,
    retain_graph: bool = False,
    zero_grad: bool = False,
    order: int = 1,
    nodes: bool = True,
    symbolic_cache: SymbolicCache | None = None,
    edges: bool = False,
) -> GradResult:
    """Gradients of a program's output with respect to its `at` inputs, as PyTorch's backward().

    With neither `at` nor `const`, every free name is a scalar leaf and only the symbolic
    gradient is computed. `gradient` is the upstream gradient (PyTorch's `gradient`), reused
    for every pass; `gradients` gives one per pass instead. `order` N > 1 makes each scalar
    leaf's grad the pure N-th derivative, as differentiating x.grad with create_graph=True.
    `nodes=False` keeps only the inputs, the output and the grads (intermediate values and
    adjoints are None), as PyTorch frees its graph: big elementwise programs then run in
    cache-sized blocks on every core, in a fraction of the memory. `symbolic_cache` maps
    a program's key to its symbolic forms as text; a hit skips sympy (the CLI keeps one on disk).
    `edges=True` keeps each pass's adjoints and what every edge carried, and the graph, for
    `--explain` to narrate the engine's own pass.
    """
    prepared = _prepare(expression, at, const, dtype)
    graph, np_dtype = prepared.graph, prepared.dtype
    if order < 1:
        raise GradcliError(f"order must be at least 1, not {order}")
    if order > 1 and (gradient is not None or gradients or (passes or 1) > 1):
        raise GradcliError(
            f"{option('order')} cannot be combined with {option('gradient')} or {option('passes')}"
        )
    upstream = _gradients(gradient, gradients, passes, np_dtype) if prepared.numeric else []
    if prepared.numeric:
        limits.check_pass_work(len(upstream), graph.elements, len(graph.nodes))
    text = None
    warnings: list[str] = []
    if symbolic or not prepared.numeric:
        text = _symbolic_text(graph, symbolic_cache)
    values = adjoints = None
    stopped: GradcliError | None = None
    pass_results: list[PassResult] = []
    grads: dict[str, np.ndarray | None] = {leaf.name: None for leaf in graph.leaves}
    derivatives: dict[str, tuple[np.ndarray, ...]] = {}
    derivative_kinds: dict[str, str] = {}
    one_pass = prepared.numeric and not nodes and order == 1 and len(upstream) == 1 and not edges
    blocks = blocked.plan(graph) if one_pass else None
    fast = _run_blocked(graph, blocks, prepared, upstream[0]) if blocks is not None else None
    if fast is not None:
        value, grads, seed = fast
        values = [prepared.arrays.get(node.name) for node in graph.nodes]
        values[graph.output] = value
        pass_results = [PassResult(1, seed, grads)]
    elif prepared.numeric:
        values = forward(graph, prepared.arrays, np_dtype)
        try:
            records = run_passes(graph, values, upstream, np_dtype, retain_graph, zero_grad, edges)
        except PassesStopped as stop:  # pass k failed: passes 1..k-1 finished, as in PyTorch
            records, stopped = stop.records, stop.error
        pass_results = [
            PassResult(
                r.index, r.gradient, r.grads, None if r.adjoints is None else tuple(r.adjoints), r.edges
            )
            if edges
            else PassResult(r.index, r.gradient, r.grads)
            for r in records
        ]
        grads = records[-1].grads
        adjoints = records[-1].adjoints
        # Look for where nan/inf started only when the user can see one (off the hot path).
        if not diagnostics.all_finite([values[graph.output], *grads.values()]):
            warnings += diagnostics.forward_warnings(graph, values)
            warnings += diagnostics.backward_warnings(graph, values, adjoints)
        if order > 1:
            derivatives, derivative_kinds = _higher_orders(graph, prepared.arrays, order, np_dtype)
            grads = {name: (ds[-1] if ds else grads[name]) for name, ds in derivatives.items()}
        if not nodes:  # what PyTorch keeps after backward(): inputs, the output and .grad
            values = [
                v if n.kind != OP or n.index == graph.output else None for n, v in zip(graph.nodes, values)
            ]
            adjoints = None
    grad_symbolic = text.leaf_grads if text else {leaf.name: None for leaf in graph.leaves}
    readable = _readable_of(text, graph)
    if order > 1:
        from .symbolic import simplest, to_text

        forms = (
            _symbolic_order(graph, prepared.arrays, order, np_dtype)
            if text is not None and len(graph.nodes) <= limits.SYMBOLIC_NODES
            else {leaf.name: None for leaf in graph.leaves}
        )
        grad_symbolic = {name: to_text(form) for name, form in forms.items()}
        # sympy's d/dx of an elementwise gradient form is right only where the numbers are
        # elementwise derivatives; Hessian row sums have no such form
        grad_symbolic = {
            name: None if derivative_kinds.get(name) == "hessian_row_sums" else form
            for name, form in grad_symbolic.items()
        }
        readable = {  # the N-th derivative in PyTorch's words, sympy's shortest form
            name: None
            if grad_symbolic[name] is None or forms[name] is None
            else (f"{name}.grad = {simplest(forms[name])}",)
            for name in grad_symbolic
        }
    result = GradResult(
        expression=expression,
        dtype=str(np_dtype),
        nodes=_node_results(graph, values, adjoints, text, upstream=bool(gradient is not None or gradients)),
        output_index=graph.output,
        passes=tuple(pass_results),
        grads=grads,
        grad_symbolic=grad_symbolic,
        grad_readable=readable,
        order=order,
        derivatives=derivatives,
        derivative_kinds=derivative_kinds,
        warnings=tuple(warnings),
        graph=graph if edges else None,
    )
    if stopped is not None:
        stopped.partial = result  # the CLI shows the finished passes, then the error
        raise stopped
    return result


def _run_blocked(
    graph: Graph, blocks: blocked.BlockPlan, prepared: _Prepared, gradient: np.ndarray | None
) -> tuple[np.ndarray, dict[str, np.ndarray | None], np.ndarray] | None:
    """One pass in blocks: (output value, grads, seed), or None to run node by node instead.

    Node by node is also the way when a nan or inf shows up: it can say where it began.
    """
    if not graph.nodes[graph.output].requires_grad:
        return None  # node by node raises PyTorch's error
    seed = seed_for(graph, gradient, prepared.dtype)
    value, grads = blocked.run(graph, blocks, prepared.arrays, seed, prepared.dtype)
    if not diagnostics.all_finite([value, *grads.values()]):
        return None
    return value, grads, seed


def _higher_orders(
    graph: Graph, arrays, order: int, dtype: np.dtype
) -> tuple[dict[str, tuple[np.ndarray, ...]], dict[str, str]]:
    from .higher import derivatives

    found, kinds = {}, {}
    for leaf in graph.leaves:
        values, kinds[leaf.name] = derivatives(graph, arrays, leaf.name, order, dtype)
        found[leaf.name] = tuple(values)
    return found, kinds


def _symbolic_order(graph: Graph, arrays, order: int, dtype: np.dtype) -> dict[str, Any]:
    """Each leaf's N-th derivative as a sympy formula: the rules' gradient graph, read (higher.py)."""
    from .autograd import forward
    from .higher import symbolic_derivatives

    # without a point, the rules run on a tape of formulas (no numbers): the same graph
    values = forward(graph, arrays, dtype) if all(leaf.name in arrays for leaf in graph.leaves) else None
    found = {
        leaf.name: symbolic_derivatives(graph, values, [leaf] * (order - 1), [leaf], dtype)
        for leaf in graph.leaves
    }
    return {name: forms[name] for name, forms in found.items()}


def _output_node(prepared: _Prepared, values: list[np.ndarray]) -> NodeResult:
    return _node_results(prepared.graph, values, None, None)[prepared.graph.output]


def jacobian(
    expression: str,
    at: Mapping[str, Any] | None = None,
    const: Mapping[str, Any] | None = None,
    dtype: str = "float64",
) -> JacobianResult:
    """The Jacobian of the output with respect to every `at` input, as torch.autograd.functional.jacobian."""
    from .higher import jacobian as compute

    prepared, values = _at_point(expression, at, const, dtype, "the Jacobian")
    graph = prepared.graph
    return JacobianResult(
        expression,
        str(prepared.dtype),
        _output_node(prepared, values),
        compute(graph, values, prepared.dtype),
    )


def hessian(
    expression: str,
    at: Mapping[str, Any] | None = None,
    const: Mapping[str, Any] | None = None,
    dtype: str = "float64",
    *,
    symbolic: bool = True,
) -> HessianResult:
    """The Hessian of a scalar output for every pair of `at` inputs, as torch.autograd.functional.hessian."""
    from .higher import hessian as compute

    prepared, values = _at_point(expression, at, const, dtype, "the Hessian")
    graph = prepared.graph
    blocks = compute(graph, prepared.arrays, prepared.dtype)
    pairs: dict[str, dict[str, str | None]] = {}
    readable: dict[str, dict[str, str | None]] = {}
    if symbolic and len(graph.nodes) <= limits.SYMBOLIC_NODES:
        from .higher import symbolic_derivatives
        from .symbolic import simplest, to_text

        scalar = [leaf for leaf in graph.leaves if leaf.shape == ()]
        forms = {a.name: symbolic_derivatives(graph, values, [a], scalar, prepared.dtype) for a in scalar}
        pairs = {a: {b: to_text(form) for b, form in row.items()} for a, row in forms.items()}
        readable = {
            a: {b: None if f is None else simplest(f) for b, f in row.items()} for a, row in forms.items()
        }
    output = _output_node(prepared, values)
    return HessianResult(expression, str(prepared.dtype), output, blocks, pairs, readable)


def _symbolic(graph: Graph):
    """sympy node by node; past SYMBOLIC_NODES, named per-node adjoints as text (linear time)."""
    from . import symbolic

    if len(graph.nodes) > limits.SYMBOLIC_NODES:
        return symbolic.build_named(graph)
    return symbolic.build(graph)


class SymbolicCache(Protocol):
    """Where symbolic text is kept between runs: any str -> str mapping will do."""

    def get(self, key: str) -> str | None: ...

    def __setitem__(self, key: str, value: str) -> None: ...


@dataclass(frozen=True)
class SymbolicText:
    """Every node's form and adjoint and every leaf's gradient, as sympy-parsable text."""

    forms: list[str | None]  # None for inputs
    adjoints: list[str | None]
    leaf_grads: dict[str, str | None]
    readable: dict[str, list[str] | None]  # per leaf: `x.grad = ...` and the names it uses

    def to_json(self) -> str:
        return json.dumps([self.forms, self.adjoints, self.leaf_grads, self.readable])

    @classmethod
    def from_json(cls, text: str, graph: Graph) -> SymbolicText | None:
        """The cached text if it fits this graph; None for anything else (a miss)."""
        try:
            forms, adjoints, leaf_grads, readable = json.loads(text)
        except (ValueError, TypeError, RecursionError):
            return None
        size, names = len(graph.nodes), [leaf.name for leaf in graph.leaves]
        if not all(isinstance(x, list) for x in (forms, adjoints)) or not isinstance(leaf_grads, dict):
            return None
        if not isinstance(readable, dict) or list(readable) != names:
            return None
        if len(forms) != size or len(adjoints) != size or list(leaf_grads) != names:
            return None
        if not all(isinstance(found, list) or found is None for found in readable.values()):
            return None
        lines = [line for found in readable.values() if found is not None for line in found]
        texts = [*forms, *adjoints, *leaf_grads.values(), *lines]
        if not all(t is None or (isinstance(t, str) and t.isprintable()) for t in texts):
            return None  # sympy prints no control characters: this text was not ours
        return cls(forms, adjoints, leaf_grads, readable)


def symbolic_key(graph: Graph) -> str:
    """What a program's symbolic text depends on: its source and its inputs' kinds and shapes."""
    inputs = [[n.name, n.kind, list(n.shape)] for n in graph.nodes if n.kind != OP]
    return json.dumps([SYMBOLIC_FORMAT, graph.program.source, inputs])


# Bumped when the symbolic text changes shape, so a cache a former gradcli filled is a miss
# (2: adjoints read off the VJP rules' tape of formulas; 3: the readable leaf formulas)
SYMBOLIC_FORMAT = 3


def _symbolic_text(graph: Graph, cache: SymbolicCache | None) -> SymbolicText:
    key = symbolic_key(graph) if cache is not None else ""
    if cache is not None:
        cached = cache.get(key)
        hit = SymbolicText.from_json(cached, graph) if isinstance(cached, str) else None
        if hit is not None:
            return hit
    text = _as_text(graph, _symbolic(graph))
    if cache is not None:
        cache[key] = text.to_json()
    return text


def _as_text(graph: Graph, sym) -> SymbolicText:
    from .symbolic import to_text

    forms = [None if f is None else to_text(f) for f in sym.forms]
    adjoints = [to_text(a) for a in sym.adjoints]
    return SymbolicText(
        forms,
        adjoints,
        {name: to_text(e) for name, e in sym.leaf_grads.items()},
        _readable(graph, sym),
    )


def _readable_of(text: SymbolicText | None, graph: Graph) -> dict[str, tuple[str, ...] | None]:
    """The readable formulas of the first-order gradient, as cached."""
    if text is None:
        return {leaf.name: None for leaf in graph.leaves}
    return {name: None if lines is None else tuple(lines) for name, lines in text.readable.items()}


def _readable(graph: Graph, sym) -> dict[str, list[str] | None]:
    """Each leaf's formula as a person writes it (readable.py), sympy's shorter forms where
    the program is small enough for sympy node by node."""
    from .readable import leaf_formulas, simpler
    from .symbolic import SymbolicResult

    found = leaf_formulas(graph)
    result: dict[str, list[str] | None] = {}
    for leaf in graph.leaves:
        lines = found.get(leaf.name)
        if isinstance(sym, SymbolicResult):
            lines = simpler(graph, lines, sym.forms, sym.adjoints)
        result[leaf.name] = None if lines is None else list(lines)
    return result


def _node_results(
    graph: Graph, values, adjoints, text: SymbolicText | None, upstream: bool = False
) -> tuple[NodeResult, ...]:
    written = steps = None
    if text is not None:  # the steps are symbolic output too: --no-symbolic skips them
        from .formula_text import chain_steps
        from .local_steps import written_forms

        written = written_forms(graph)
        if len(graph.nodes) > limits.SYMBOLIC_NODES:  # build_named's adjoints are these steps
            steps = list(text.adjoints)
            steps[graph.output] = "gradient" if upstream else "1"
        else:
            steps = chain_steps(graph, "gradient" if upstream else "1")
    results = []
    for node in graph.nodes:
        symbolic_form = adjoint_form = None
        if text is not None:
            form = text.forms[node.index]
            symbolic_form = node.name if form is None else form
            adjoint_form = text.adjoints[node.index]
        results.append(
            NodeResult(
                name=node.name,
                kind=node.kind,
                op=node.op.name if node.op else None,
                grad_fn=node.grad_fn,
                inputs=tuple(graph.nodes[i].name for i in node.inputs()),
                shape=node.shape,
                requires_grad=node.requires_grad,
                value=None if values is None else values[node.index],
                adjoint=None if adjoints is None else adjoints[node.index],
                symbolic=symbolic_form,
                adjoint_symbolic=adjoint_form,
                written=None if written is None else written[node.index],
                adjoint_local=None if steps is None else steps[node.index],
            )
        )
    return tuple(results)


def run(
    path: str,
    argv: Sequence[str] = (),
    *,
    source: str | None = None,
    capture: bool = True,
    record: bool = True,
    traceback: bool = False,
) -> ScriptRun:
    """Run a PyTorch script on CPython as `python path *argv` runs it, its `torch` gradcli's own.

    `source` runs that text instead of reading `path` (give path "-" for a script without a
    file). The result holds what the script printed (`.stdout`, when `capture`; else it is
    written to sys.stdout as the script prints), torch's warnings (`.warnings`), one record
    per backward call (`.backward_calls`; `record=False` keeps none, for long training runs),
    the error line `line N: RuntimeError: ...` of an uncaught exception (`.error`; Python's traceback of the script's frames with
    `traceback=True`) and the exit code (`.exit_code`, `sys.exit(n)`'s n). It is no sandbox,
    as python is none; sys.modules, sys.path, sys.argv and the cwd are restored afterwards."""
    from .runner import run_script

    return run_script(
        path, list(argv), source=source, capture=capture, record=record, show_traceback=traceback
    )


def _vectors(prepared: _Prepared, v: Mapping[str, Any], what: str) -> dict[str, np.ndarray]:
    """One array per leaf, each of its leaf's shape, as torch.autograd.functional checks v."""
    leaves = {leaf.name: leaf for leaf in prepared.graph.leaves}
    unknown = [n for n in v if n not in leaves]
    if unknown:
        raise ValueInputError(
            f"{input_label('v', unknown[0])}: the program has no input named {unknown[0]!r} "
            f"that requires grad (its leaves: {', '.join(leaves)})"
        )
    vectors = {}
    for name, leaf in leaves.items():
        if name not in v:
            raise ValueInputError(f"{what} needs a vector for every input: give {input_label('v', name)}")
        array = to_array(v[name], prepared.dtype, input_label("v", name))
        if array.shape != leaf.shape:
            raise ValueInputError(
                f"{input_label('v', name)} has shape {list(array.shape)}, but {name} has shape {list(leaf.shape)}",
                hint="v must have the shape of the input it goes with",
            )
        vectors[name] = array
    return vectors


def vjp(
    expression: str,
    at: Mapping[str, Any],
    v: Any = None,
    const: Mapping[str, Any] | None = None,
    dtype: str = "float64",
) -> ProductResult:
    """v^T J for every `at` input, as torch.autograd.functional.vjp(f, inputs, v): v has the
    output's shape (it may be left out for a one-element output)."""
    from .higher import vjp as compute

    prepared, values = _at_point(expression, at, const, dtype, "vjp")
    shape = prepared.graph.nodes[prepared.graph.output].shape
    label = option("v")
    if v is None and math.prod(shape) != 1:
        raise ValueInputError(
            "The vector v can only be None if the user-provided function returns a single Tensor "
            "with a single element.",
            hint=f"give {label} with the output's shape {list(shape)}",
        )
    if v is not None:
        v = to_array(v, prepared.dtype, label)
        if v.shape != shape:
            raise ValueInputError(
                f"{label} has shape {list(v.shape)}, but the output has shape {list(shape)}",
                hint="v must have the output's shape",
            )
    seed = seed_for(prepared.graph, v, prepared.dtype)
    product = compute(prepared.graph, values, seed, prepared.dtype)
    return ProductResult("vjp", expression, str(prepared.dtype), _output_node(prepared, values), product)


def jvp(
    expression: str,
    at: Mapping[str, Any],
    v: Mapping[str, Any],
    const: Mapping[str, Any] | None = None,
    dtype: str = "float64",
) -> ProductResult:
    """J v, output-shaped, as torch.autograd.functional.jvp(f, inputs, v): v gives one tangent
    per `at` input, of its shape."""
    from .higher import jvp as compute

    prepared, values = _at_point(expression, at, const, dtype, "jvp")
    vectors = _vectors(prepared, v, "jvp")
    product = compute(prepared.graph, values, vectors, prepared.dtype)
    return ProductResult("jvp", expression, str(prepared.dtype), _output_node(prepared, values), product)


def hvp(
    expression: str,
    at: Mapping[str, Any],
    v: Mapping[str, Any],
    const: Mapping[str, Any] | None = None,
    dtype: str = "float64",
) -> ProductResult:
    """H v for every `at` input, as torch.autograd.functional.hvp(f, inputs, v), without
    forming H: one create_graph backward and one backward through it."""
    from .higher import hvp as compute

    prepared, values = _at_point(expression, at, const, dtype, "hvp")
    vectors = _vectors(prepared, v, "hvp")
    product = compute(prepared.graph, values, vectors, prepared.dtype)
    return ProductResult("hvp", expression, str(prepared.dtype), _output_node(prepared, values), product)
