"""torch.func in `run`: grad, grad_and_value, vjp, jacrev, jacfwd and hessian over the script's
functions (and torch's callables), as torch 2.13's functorch computes them.

functorch runs the function at a new level on wrapped inputs and unwraps the results, so a
result carries a graph only through what the script's own graph already tracked (a parameter
the function closes over, an input that requires grad). Here one graph serves every level:
each input is a fresh leaf that requires grad (or a view of an input that already requires
grad, so the gradient flows on to it), every backward of the transform is a create_graph one,
and a result is detached when its graph reaches none of the leaves outside this transform. A
nested transform sees its outer transform's leaves as tracked inputs, so grad(grad(f)),
jacrev(jacrev(f)) and hessian = jacfwd(jacrev(f)) differentiate through each other. jacfwd's
tangents come from the double-backward trick (v -> d(J^T g)/dg . v), which multiplies and sums
as forward mode does (so its zero signs are forward mode's, not the transposed ones). Where
forward mode multiplies a zero tangent that the double backward never reaches (a hessian entry
across a matmul's rows: torch's hessian(loss)(W) of `((x @ W.T + b) ** 2).mean()`), an entry that
is exactly zero can print as 0. where torch prints -0.; the values are equal.

vmap (and torch.func's other entries) is refused: it needs batching rules per op.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .autograd_api import python_arguments
from .classes import CLASS_OBJECTS
from .runtime import ScriptError, ScriptRuntimeError, Tensor, source_position
from .values import Function

TRANSFORMS = ("grad", "grad_and_value", "vjp", "jacrev", "jacfwd", "hessian", "vmap")

# name -> (parameters, how many may be positional, how many are required, defaults by name)
_SIGNATURES: dict[str, tuple[tuple[str, ...], int, int, dict]] = {
    "grad": (("func", "argnums", "has_aux"), 3, 1, {"argnums": 0, "has_aux": False}),
    "grad_and_value": (("func", "argnums", "has_aux"), 3, 1, {"argnums": 0, "has_aux": False}),
    "jacrev": (
        ("func", "argnums", "has_aux", "chunk_size"),
        2,
        1,
        {"argnums": 0, "has_aux": False, "chunk_size": None},
    ),
    "jacfwd": (
        ("func", "argnums", "has_aux", "randomness"),
        3,
        1,
        {"argnums": 0, "has_aux": False, "randomness": "error"},
    ),
    "hessian": (("func", "argnums"), 2, 1, {"argnums": 0}),
}


def _one_hot(tensors: list[Tensor], numels: list[int], k: int) -> list[Tensor]:
    """Tensors shaped like `tensors`, zero but for element k of them all, counted flat across
    them in order: a Jacobian row's seeds (jacrev) or a column's tangents (jacfwd)."""
    parts, start = [], 0
    for t, n in zip(tensors, numels):
        part = np.zeros(n, t.value.dtype)
        if start <= k < start + n:
            part[k - start] = 1
        parts.append(Tensor(part.reshape(t.shape), dtype=t.dtype))
        start += n
    return parts


def refuse(name: str, node: ast.AST) -> ScriptError:
    return ScriptError(
        f"{source_position(node)}: torch.func.{name} is not supported by gradcli run (it has "
        + ", ".join(TRANSFORMS)
        + ")"
    )


def _function_node(func: Any) -> ast.FunctionDef:
    """What the transformed function prints as: functools.wraps gives it the wrapped one's name."""
    made = ast.parse("def wrapper_fn(): pass").body[0]
    assert isinstance(made, ast.FunctionDef)
    # a torch function's name, or a Python function's (a script run on CPython hands over its own)
    made.name = getattr(func, "name", None) or getattr(func, "__name__", "wrapper_fn")
    return made


@dataclass
class Transformed:
    """torch.func.grad(f) and the like, or the vjp_fn torch.func.vjp returns: a function value
    that FuncAPI.transformed_call runs."""

    node: ast.FunctionDef  # what it prints as
    kind: str = ""
    func: Any = None
    options: dict = field(default_factory=dict)


class FuncAPI:
    """Mixed into Interpreter ahead of PythonSubset: torch.func's calls and the functions they make."""

    func_levels: tuple[_Level, ...] = ()  # the transforms whose function is running, innermost last

    def shown(self, value: Any, path: set[int]) -> str:
        if isinstance(value, Tensor) and any(level.holds(value) for level in self.func_levels):
            raise ScriptError(
                f"line {self.line}: printing a tensor a torch.func transform is tracking is not supported by "  # type: ignore[attr-defined]
                "gradcli run (torch shows its functorch wrapper, GradTrackingTensor(lvl=..., value=...))"
            )
        if isinstance(value, Function) and value.module == "torch.func":
            return f"<function {value.name} at {hex(id(value))}>"
        if isinstance(value, Transformed):
            return f"<function {value.node.name} at {hex(id(value))}>"
        return super().shown(value, path)  # type: ignore[misc]

    def dispatch(self, func: Any, args: list, kwargs: dict, node: ast.AST) -> Any:
        if isinstance(func, Function) and func.module == "torch.func":
            return self.func_transform(func.name, args, kwargs, node)
        if isinstance(func, Transformed):
            return self.transformed_call(func, args, kwargs, node)
        return super().dispatch(func, args, kwargs, node)  # type: ignore[misc]

    # -- making the functions -----------------------------------------------------------

    def func_transform(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if name == "vmap":  # vmap.py
            return self.make_vmap(args, kwargs, node)  # type: ignore[attr-defined]
        if name == "vjp":
            if not args:
                raise ScriptRuntimeError("vjp() missing 1 required positional argument: 'func'", "TypeError")
            unknown = [k for k in kwargs if k != "has_aux"]
            if unknown:
                raise ScriptRuntimeError(
                    f"vjp() got an unexpected keyword argument '{unknown[0]}'", "TypeError"
                )
            return self.func_vjp(args[0], tuple(args[1:]), kwargs.get("has_aux", False), node)
        params, positional, required, defaults = _SIGNATURES[name]
        rest = tuple(defaults[p] for p in params[required:])
        options = dict(zip(params, python_arguments(name, params, required, rest, args, kwargs, positional)))
        func = options.pop("func")
        if name == "jacrev":
            size = options["chunk_size"]
            if not (size is None or size > 0):
                raise ScriptRuntimeError("jacrev: `chunk_size` should be greater than 0.", "ValueError")
        if name == "hessian":  # jacfwd(jacrev(func, argnums), argnums)
            plain = _options({**options, "has_aux": False, "chunk_size": None})
            inner = Transformed(_function_node(func), kind="jacrev", func=func, options=plain)
            return Transformed(_function_node(func), kind="jacfwd", func=inner, options=plain)
        return Transformed(_function_node(func), kind=name, func=func, options=_options(options))

    # -- running them -------------------------------------------------------------------

    def transformed_call(self, t: Transformed, args: list, kwargs: dict, node: ast.AST) -> Any:
        if t.kind == "vjp_fn":
            return self.vjp_fn_call(t, args, kwargs, node)
        if t.kind == "vmap":
            return self.vmap_call(t, args, kwargs, node)  # type: ignore[attr-defined]
        if t.kind in ("grad", "grad_and_value"):
            grads, value, aux = self.grad_and_value(t, args, kwargs, node)
            if t.kind == "grad":
                return (grads, aux) if t.options["has_aux"] else grads
            return (grads, (value, aux)) if t.options["has_aux"] else (grads, value)
        if kwargs:
            raise ScriptRuntimeError(
                f"wrapper_fn() got an unexpected keyword argument '{next(iter(kwargs))}'", "TypeError"
            )
        if t.kind == "jacrev":
            return self.jacrev(t, tuple(args), node)
        return self.jacfwd(t, tuple(args), node)

    def invoke(self, func: Any, args: list, kwargs: dict, node: ast.AST) -> Any:
        if isinstance(func, Transformed):
            return self.transformed_call(func, args, kwargs, node)
        if isinstance(func, CLASS_OBJECTS):
            return self.call_object(func, args, kwargs, node)  # type: ignore[attr-defined]
        return self.dispatch(func, args, kwargs, node)

    def enter(self, level: _Level, args: tuple, argnums: Any) -> tuple[tuple, Any]:
        """The call's arguments with the differentiated ones wrapped at `level` (all if argnums is None)."""
        self.grad_enabled = True
        self.func_levels = (*self.func_levels, level)
        if argnums is None:
            wrapped = _tree_map(level.wrap, args)
            return wrapped, wrapped
        wrapped = _tree_map(level.wrap, _slice_argnums(args, argnums, as_tuple=False))
        return _replace_args(args, wrapped, argnums), wrapped

    def grad_and_value(self, t: Transformed, args: list, kwargs: dict, node: ast.AST) -> tuple:
        argnums, has_aux = t.options["argnums"], self.truth(t.options["has_aux"])  # type: ignore[attr-defined]
        outer, levels = self.grad_enabled, self.func_levels  # type: ignore[attr-defined]
        try:
            level = _Level(self, outer, node)
            new_args, wrapped = self.enter(level, tuple(args), argnums)
            output = self.invoke(t.func, list(new_args), kwargs, node)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise ScriptRuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) "
                        "if has_aux is True"
                    )
                output, aux = output
            if not isinstance(output, Tensor):
                raise ScriptRuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"<class '{self.class_name(output)}'>"  # type: ignore[attr-defined]
                )
            if output.value.ndim != 0:
                raise ScriptRuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.value.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            flat, spec = _flatten(wrapped)
            grads = level.grad((output,), flat, None, node)
            return (
                level.unwrap(_unflatten(list(grads), spec)),
                level.unwrap(output),
                level.unwrap(aux),
            )
        finally:
            self.grad_enabled, self.func_levels = outer, levels

    def func_vjp(self, func: Any, primals: tuple, has_aux: Any, node: ast.AST, argnums: Any = None) -> tuple:
        outer, levels = self.grad_enabled, self.func_levels  # type: ignore[attr-defined]
        has_aux = self.truth(has_aux)  # type: ignore[attr-defined]
        try:
            level = _Level(self, outer, node)
            new_args, diff = self.enter(level, primals, argnums)
            out = self.invoke(func, list(new_args), {}, node)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise ScriptRuntimeError(
                        "vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux "
                        "is True"
                    )
                out, aux = out
                aux = level.unwrap(aux)
            flat_out, out_spec = _flatten(out)
            if (len(flat_out) == 1 and flat_out[0] is None) or not flat_out:
                shown = "[None]" if flat_out else "[]"
                raise ScriptRuntimeError(
                    f"vjp(f, *primals): Expected f to be a function that has non-empty output (got output = "
                    f"{shown})"
                )
            for o in flat_out:
                if not isinstance(o, Tensor):
                    raise ScriptRuntimeError(
                        "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type "
                        f"<class '{self.class_name(o)}'>"  # type: ignore[attr-defined]
                    )
            for o in flat_out:
                if o.dtype not in ("float16", "bfloat16", "float32", "float64"):
                    raise ScriptRuntimeError(
                        "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
                        f"with dtype torch.{o.dtype}"
                    )
            flat_diff, diff_spec = _flatten(diff)
            results = level.unwrap(out)
        finally:
            self.grad_enabled, self.func_levels = outer, levels
        fn = Transformed(
            _function_node(Function("", "wrapper")),
            kind="vjp_fn",
            options={
                "level": level,
                "outputs": flat_out,
                "spec": out_spec,
                "inputs": flat_diff,
                "diff": diff_spec,
            },
        )
        return (results, fn, aux) if has_aux else (results, fn)

    def vjp_fn_call(self, t: Transformed, args: list, kwargs: dict, node: ast.AST) -> Any:
        from .autograd_api import python_arguments

        names = ("cotangents", "retain_graph", "create_graph")
        given = dict(
            zip(
                names,
                python_arguments("_vjp_with_argnums.<locals>.wrapper", names, 1, (True, None), args, kwargs),
            )
        )
        retain = self.truth(given["retain_graph"])  # type: ignore[attr-defined]
        create = given["create_graph"]
        create = self.grad_enabled if create is None else self.truth(create)  # type: ignore[attr-defined]
        o = t.options
        flat_ct, spec = _flatten(given["cotangents"])
        if spec != o["spec"]:
            raise ScriptRuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to "
                f"the function. cotangents: {_pprint(spec)}, primal output: {_pprint(o['spec'])}"
            )
        level: _Level = o["level"]
        level.outer = self.grad_enabled  # type: ignore[attr-defined]
        grads = level.grad(tuple(o["outputs"]), o["inputs"], flat_ct, node, retain=retain, create=create)
        return level.unwrap(_unflatten(list(grads), o["diff"]))

    def jacrev(self, t: Transformed, args: tuple, node: ast.AST) -> Any:
        argnums, has_aux = t.options["argnums"], t.options["has_aux"]
        outer = self.grad_enabled  # type: ignore[attr-defined]
        made = self.func_vjp(t.func, args, has_aux, node, argnums=argnums)
        vjp_fn = made[1]
        level: _Level = vjp_fn.options["level"]
        flat_out = vjp_fn.options["outputs"]
        numels = [o.value.size for o in flat_out]
        primals = _slice_argnums(args, argnums)
        flat_primals, primals_spec = _flatten(primals)
        total = sum(numels)
        previous = self.grad_enabled  # type: ignore[attr-defined]
        try:
            self.grad_enabled = True
            per_input: list[list[Tensor]] = [[] for _ in flat_primals]
            for r in range(total):
                seeds = _one_hot(flat_out, numels, r)
                row = level.grad(
                    tuple(flat_out), vjp_fn.options["inputs"], seeds, node, retain=True, create=True
                )
                for k, g in enumerate(row):
                    per_input[k].append(g)
            blocks = []
            for rows, primal in zip(per_input, flat_primals):
                if not rows:  # no output elements: empty blocks of the right shapes
                    blocks.append([_zeros(o.shape + primal.shape, primal) for o in flat_out])
                    continue
                stacked = self.torch_call("stack", [rows], {"dim": 0}, node)
                parts = self.tensor_method(stacked, "split", [numels], {"dim": 0}, node)  # type: ignore[attr-defined]
                blocks.append(
                    [
                        self.tensor_method(p, "view", [tuple(o.shape) + tuple(primal.shape)], {}, node)  # type: ignore[attr-defined]
                        for p, o in zip(parts, flat_out)
                    ]
                )
        finally:
            self.grad_enabled = previous
        level.outer = outer
        per_output = [_unflatten([b[k] for b in blocks], primals_spec) for k in range(len(flat_out))]
        if isinstance(argnums, int):
            per_output = [p[0] for p in per_output]
        result = level.unwrap(_unflatten(per_output, vjp_fn.options["spec"]))
        return (result, made[2]) if has_aux else result

    def jacfwd(self, t: Transformed, args: tuple, node: ast.AST) -> Any:
        argnums, has_aux = t.options["argnums"], self.truth(t.options["has_aux"])  # type: ignore[attr-defined]
        outer, levels = self.grad_enabled, self.func_levels  # type: ignore[attr-defined]
        try:
            level = _Level(self, outer, node)
            new_args, wrapped = self.enter(level, args, argnums)
            flat_primals, primals_spec = _flatten((wrapped,) if isinstance(argnums, int) else wrapped)
            out = self.invoke(t.func, list(new_args), {}, node)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise ScriptRuntimeError(
                        "jvp(f, primals, tangents): output of function f should be a tuple: (output, aux) if "
                        "has_aux is True"
                    )
                out, aux = out
            flat_out, out_spec = _flatten(out)
            for o in flat_out:
                if not isinstance(o, Tensor):
                    raise ScriptRuntimeError(
                        "jvp(f, primals, tangents): expected f(*primals) to return only tensors, got unsupported "
                        f"type <class '{self.class_name(o)}'>"  # type: ignore[attr-defined]
                    )
            numels = [p.value.size for p in flat_primals]
            total = sum(numels)
            zeros = [
                Tensor(np.zeros(o.shape, o.value.dtype), dtype=o.dtype, requires_grad=True) for o in flat_out
            ]
            back = level.grad(
                tuple(flat_out), flat_primals, zeros, node, retain=True, create=True, fill=False
            )
            columns: list[list[Tensor]] = [[] for _ in flat_out]
            for c in range(total):
                tangents = _one_hot(flat_primals, numels, c)
                kept = [(b, v) for b, v in zip(back, tangents) if b is not None]
                jv = level.grad(
                    tuple(b for b, _ in kept), zeros, [v for _, v in kept], node, retain=True, create=True
                )
                for k, g in enumerate(jv):
                    columns[k].append(g)
            per_output = []
            for cols, o in zip(columns, flat_out):
                if not cols:  # no input elements
                    per_output.append(
                        _unflatten([_zeros(o.shape + p.shape, o) for p in flat_primals], primals_spec)
                    )
                    continue
                stacked = self.torch_call("stack", [cols], {"dim": 0}, node)
                moved = self.tensor_method(stacked, "movedim", [0, -1], {}, node)  # type: ignore[attr-defined]
                parts = self.tensor_method(moved, "split", [numels], {"dim": -1}, node)  # type: ignore[attr-defined]
                ins = [
                    self.tensor_method(part, "view", [tuple(o.shape) + tuple(p.shape)], {}, node)  # type: ignore[attr-defined]
                    for part, p in zip(parts, flat_primals)
                ]
                per_output.append(_unflatten(ins, primals_spec))
            if isinstance(argnums, int):
                per_output = [p[0] for p in per_output]
            self.grad_enabled = outer
            result = level.unwrap(_unflatten(per_output, out_spec))
            return (result, level.unwrap(aux)) if has_aux else result
        finally:
            self.grad_enabled, self.func_levels = outer, levels

    def torch_call(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        return super().dispatch(Function("torch", name), args, kwargs, node)  # type: ignore[misc]


def _zeros(shape: tuple, like: Tensor) -> Tensor:
    return Tensor(np.zeros(shape, like.value.dtype), dtype=like.dtype)


def _options(options: dict) -> dict:
    argnums = options.get("argnums", 0)
    if isinstance(argnums, list):
        argnums = tuple(argnums)
    return {**options, "argnums": argnums}


class _Level:
    """One application of a transform: the leaves it made, and how its results leave it."""

    def __init__(self, interp: Any, outer: bool, node: ast.AST) -> None:
        self.i, self.outer, self.node = interp, outer, node
        self.fresh: set[int] = set()  # the leaves it made
        self.made: set[int] = set()  # the views it made of tracked inputs, and their nodes

    def wrap(self, x: Any) -> Tensor:
        if not isinstance(x, Tensor):
            raise ScriptRuntimeError(
                f"Thing passed to transform API must be Tensor, got <class '{self.i.class_name(x)}'>",
                "ValueError",
            )
        if x.requires_grad and self.outer:  # tracked outside: a view, so the gradient flows on to x
            view = self.i.tensor_method(x, "view", [tuple(x.shape)], {}, self.node)
            self.made.update((id(view), id(view.grad_fn)))
            return view
        leaf = Tensor.alias(x)
        if leaf.dtype not in ("float16", "bfloat16", "float32", "float64"):
            raise ScriptRuntimeError("only Tensors of floating point dtype can require gradients")
        leaf.requires_grad = True
        self.fresh.add(id(leaf))
        return leaf

    def grad(
        self,
        outputs: tuple,
        inputs: list,
        grad_outputs: list | None,
        node: ast.AST,
        retain: bool = True,
        create: bool = True,
        fill: bool = True,
    ) -> list:
        """functorch's _autograd_grad: zeros (or None, fill=False) for what the outputs do not reach."""
        if grad_outputs is None:
            grad_outputs = [None] * len(outputs)
        kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
        if not kept:
            found: list = [None] * len(inputs)
        else:
            found = list(
                self.i.autograd_call(
                    "grad",
                    [[o for o, _ in kept], list(inputs)],
                    {
                        "grad_outputs": [g for _, g in kept],
                        "retain_graph": retain,
                        "create_graph": create,
                        "allow_unused": True,
                    },
                    node,
                )
            )
        if not fill:
            return found
        return [
            Tensor(np.zeros(x.shape, x.value.dtype), dtype=x.dtype) if g is None else g
            for g, x in zip(found, inputs)
        ]

    def unwrap(self, value: Any) -> Any:
        return _tree_map(self.unwrap_tensor, value)

    def unwrap_tensor(self, t: Any) -> Any:
        if not isinstance(t, Tensor) or not t.requires_grad:
            return t
        if self.outer and self.reaches_outside(t):
            return t
        return Tensor.alias(t)  # detached: what the level tracked stays inside it

    def holds(self, t: Tensor) -> bool:
        """Whether t is one of this level's inputs or was computed from one (torch wraps it)."""
        if id(t) in self.fresh or id(t) in self.made:
            return True
        seen: set[int] = set()
        stack = [t.grad_fn] if t.grad_fn is not None else []
        while stack:
            fn = stack.pop()
            if id(fn) in self.made:
                return True
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            for operand in getattr(fn, "operands", ()):
                grad_fn = getattr(operand, "grad_fn", None)
                if grad_fn is not None:
                    stack.append(grad_fn)
                elif id(getattr(operand, "tensor", None)) in self.fresh:
                    return True
        return False

    def reaches_outside(self, t: Tensor) -> bool:
        """Whether t's graph reaches a leaf this level did not make (a parameter, an outer level's)."""
        if t.grad_fn is None:
            return id(t) not in self.fresh
        seen: set[int] = set()
        stack = [t.grad_fn]
        while stack:
            fn = stack.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            for operand in getattr(fn, "operands", ()):
                grad_fn = getattr(operand, "grad_fn", None)
                if grad_fn is not None:
                    stack.append(grad_fn)
                elif getattr(operand, "requires_grad", False) and id(operand.tensor) not in self.fresh:
                    return True
        return False


# -- pytrees: tuples, lists and dicts of the script's values ------------------------------------


def _flatten(value: Any) -> tuple[list, Any]:
    if isinstance(value, (tuple, list)) and not hasattr(value, "kind"):
        leaves: list = []
        specs = []
        for item in value:
            sub, spec = _flatten(item)
            leaves.extend(sub)
            specs.append(spec)
        return leaves, (type(value).__name__, tuple(specs))
    if isinstance(value, dict):
        leaves = []
        specs = []
        for key, item in value.items():
            sub, spec = _flatten(item)
            leaves.extend(sub)
            specs.append((key, spec))
        return leaves, ("dict", tuple(specs))
    return [value], "*"


def _unflatten(leaves: list, spec: Any) -> Any:
    items = iter(leaves)

    def build(s: Any) -> Any:
        if s == "*":
            return next(items)
        kind, parts = s
        if kind == "dict":
            return {key: build(p) for key, p in parts}
        built = [build(p) for p in parts]
        return tuple(built) if kind == "tuple" else built

    return build(spec)


def _pprint(spec: Any) -> str:
    if spec == "*":
        return "*"
    kind, parts = spec
    if kind == "dict":
        return "{" + ", ".join(f"{key!r}: {_pprint(p)}" for key, p in parts) + "}"
    inner = ", ".join(_pprint(p) for p in parts)
    return f"({inner}{',' if len(parts) == 1 else ''})" if kind == "tuple" else f"[{inner}]"


def _tree_map(fn: Any, value: Any) -> Any:
    leaves, spec = _flatten(value)
    return _unflatten([fn(v) for v in leaves], spec)


def _slice_argnums(args: tuple, argnums: Any, as_tuple: bool = True) -> Any:
    if not isinstance(argnums, (int, tuple)):
        raise ScriptRuntimeError(
            f"argnums must be int or Tuple[int, ...], got: <class '{type(argnums).__name__}'>"
        )
    argnums = _validate(argnums, len(args))
    if isinstance(argnums, tuple):
        if not argnums:
            raise ScriptRuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise ScriptRuntimeError(f"argnums elements must be unique, got {argnums}")
        return tuple(args[i] for i in argnums)
    return (args[argnums],) if as_tuple else args[argnums]


def _validate(argnums: Any, count: int) -> Any:
    if isinstance(argnums, tuple):
        return tuple(_validate(a, count) for a in argnums)
    if not isinstance(argnums, int):
        raise ScriptRuntimeError(f"argnum must be int, got: <class '{type(argnums).__name__}'>")
    if 0 <= argnums < count:
        return argnums
    if -count <= argnums < 0:
        return argnums + count
    raise ScriptRuntimeError(f"Got argnum={argnums}, but only {count} positional inputs")


def _replace_args(args: tuple, new: Any, argnums: Any) -> tuple:
    argnums = _validate(argnums, len(args))
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))
