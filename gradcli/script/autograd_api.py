"""The autograd API of `run`: backward(), torch.autograd.grad/backward, tensor hooks and
torch.autograd.functional, and the record each backward call leaves for --trace, --explain and JSON."""

from __future__ import annotations

import ast
import itertools
from typing import Any

import numpy as np

from .. import limits
from . import runtime
from .runtime import ScriptError, ScriptRuntimeError, Tensor
from .tensor_repr import tensor_repr
from .values import Function, HookHandle, UserFunction
from .whitelist import source_position

REFERENCE_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and "
    "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the "
    "graph to avoid this. If you have to use this function, make sure to reset the .grad fields of "
    "your parameters to None after use to break the cycle and avoid the leak. (Triggered internally "
    "at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)"
)


_HOOK_IDS = itertools.count()


class AutogradAPI:
    """Mixed into Interpreter: backward calls, hooks and torch.autograd.functional."""

    def register_hook(self, t: Tensor, hook: Any, node: ast.AST) -> HookHandle:
        """t.register_hook(f): backward passes t's gradient through f, which may return a new one."""
        if not t.requires_grad:
            raise ScriptRuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not isinstance(hook, UserFunction) and hook != Function("", "print"):
            raise ScriptError(f"{source_position(node)}: a hook is a function defined with def (or print)")
        dtype = t.dtype
        label = hook.node.name if isinstance(hook, UserFunction) else "print"

        def run(g: np.ndarray) -> np.ndarray:
            grad = Tensor(np.array(g, dtype=dtype), dtype=dtype)
            if isinstance(hook, UserFunction):
                returned = self.call_user(hook, [grad], {}, node)
            else:
                returned = self.builtin("print", [grad], {}, node)
            if returned is None:  # the hook may have changed its gradient in place (g *= 2)
                return g if grad.version.value == 0 else np.asarray(grad.value, dtype=g.dtype)
            if not isinstance(returned, Tensor):
                raise ScriptRuntimeError(
                    f"expected Variable or None (got {self.type_name(returned)})", "TypeError"
                )
            if returned.shape != np.shape(g):
                raise ScriptRuntimeError(f"hook '{label}' has changed the size of value")
            return np.asarray(returned.value, dtype=g.dtype)

        owner = t.hooks if t.grad_fn is None else t.grad_fn.hooks
        key = next(_HOOK_IDS)
        owner[key] = run
        return HookHandle(owner, key)

    def signature(self, name: str, args: list, kwargs: dict, params: tuple[str, ...]) -> list:
        if len(args) > len(params):
            raise ScriptRuntimeError(f"{name}() takes at most {len(params)} arguments", "TypeError")
        values = dict(zip(params, args))
        for key, value in kwargs.items():
            if key not in params or key in values:
                raise ScriptRuntimeError(f"{name}() got an unexpected keyword argument '{key}'", "TypeError")
            values[key] = value
        return [values.get(p) for p in params]

    # -- autograd -------------------------------------------------------------------------

    def backward(
        self,
        t: Tensor | list,
        gradient: Any,
        retain_graph: Any,
        create_graph: Any,
        inputs: Any = None,
        call: str = "backward",
    ) -> None:
        """t.backward() and torch.autograd.backward: one pass from one or several tensors,
        accumulating into the leaves' .grad (only into `inputs` when given)."""
        roots = self.tensors_of(t, "tensors")
        grads = self.gradients_of(gradient, roots)
        create = self.truth(create_graph) if create_graph is not None else False
        retain = create if retain_graph is None else self.truth(retain_graph)
        only = None if inputs is None else self.tensors_of(inputs, "inputs")
        if only is not None and not only:
            raise ScriptRuntimeError("`inputs` argument to `backward()` cannot be empty.")
        traced = self.traced()
        if create:
            self.warn_once(REFERENCE_CYCLE)
        runtime.run_backward(roots, grads, retain, record=traced, create_graph=create, only=only)
        self.recorded(call, traced)
        return None

    def tensors_of(self, value: Any, what: str) -> list[Tensor]:
        """A tensor or a sequence of tensors, as torch.autograd's functions take them."""
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if not all(isinstance(i, Tensor) for i in items):
            bad = next(i for i in items if not isinstance(i, Tensor))
            raise ScriptRuntimeError(f"{what} must be tensors, not {self.type_name(bad)}", "TypeError")
        return items

    def gradients_of(self, value: Any, roots: list[Tensor]) -> list[Tensor | None]:
        """grad_tensors / grad_outputs: None for each root, one tensor, or a sequence."""
        if value is None:
            return [None] * len(roots)
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        found: list[Tensor | None] = []
        for item, root in zip(items, roots):
            if item is None or isinstance(item, Tensor):
                found.append(item)
                continue
            dtype = root.dtype if root.dtype in runtime.FLOAT_DTYPES else "float32"
            found.append(Tensor(np.asarray(item, dtype=dtype)))
        return found + [None] * (len(items) - len(roots)) if len(items) > len(roots) else found

    def warn_once(self, message: str) -> None:
        """A warning PyTorch's C++ engine raises: Python shows it once per run (its location is
        always the same line of torch/autograd/graph.py)."""
        if ("*", message) not in self.warned:
            self.warned.add(("*", message))
            self.warnings.append(f"line {self.line}: UserWarning: {message}")

    def traced(self) -> runtime.Traced | None:
        """A record for the next backward call, named after the script's variables."""
        if not self.record or len(self.backward_calls) >= limits.Script.MAX_RECORDED_BACKWARD_CALLS:
            return None
        names: dict[int, str] = {}
        for scope in (self.globals, *self.frames):
            for name, value in scope.items():
                if isinstance(value, Tensor):
                    names[id(value)] = name
                    if value.grad_fn is not None:
                        names[id(value.grad_fn)] = name
        return runtime.Traced(names)

    def recorded(self, call: str, traced: runtime.Traced | None, grads: list | None = None) -> None:
        if traced is None or traced.laid is None:
            self.backward_calls.append({"line": self.line, "call": call})
            return
        from .trace import BackwardCall

        if grads is None:
            after = {i: runtime._grad_copy(t) for i, t in traced.laid.leaves.items()}
        else:
            # allow_unused: an input the call did not reach has no node and returns None
            after = {index: g for index, g in zip(traced.inputs, grads) if index is not None}
        source = self.lines[self.line - 1].strip() if self.line <= len(self.lines) else ""
        record = BackwardCall(self.line, call, source, traced, after)
        self.backward_calls.append(record)
        show_array = lambda v: tensor_repr(v, dtype=str(v.dtype))  # noqa: E731
        if self.explain_width is not None:
            self.write(record.explain(self.explain_width, show_array))
        if self.trace_width is not None:
            self.write(record.text(self.trace_width, show_array, self.trace_nodes))

    def autograd_call(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if name == "backward":
            tensors, grads, retain, create, inputs = self.signature(
                "backward",
                args,
                kwargs,
                ("tensors", "grad_tensors", "retain_graph", "create_graph", "inputs"),
            )
            return self.backward(tensors, grads, retain, create, inputs, call="autograd.backward")
        # only_inputs: deprecated in torch and ignored (True is its default and its only meaning)
        outputs, inputs, grad_outputs, retain, create, _, unused = self.signature(
            "grad",
            args,
            kwargs,
            (
                "outputs",
                "inputs",
                "grad_outputs",
                "retain_graph",
                "create_graph",
                "only_inputs",
                "allow_unused",
            ),
        )
        roots = self.tensors_of(outputs, "outputs")
        sources = self.tensors_of(inputs, "inputs")
        if not sources:
            raise ScriptRuntimeError("`inputs` argument to `grad()` cannot be empty.")
        create = self.truth(create) if create is not None else False
        retain = create if retain is None else self.truth(retain)
        traced = self.traced()
        grads = runtime.run_backward(
            roots,
            self.gradients_of(grad_outputs, roots),
            retain,
            sources,
            record=traced,
            create_graph=create,
            allow_unused=bool(unused) and self.truth(unused),
        )
        assert grads is not None
        results = tuple(
            g if g is None or isinstance(g, Tensor) else Tensor(g, dtype=i.dtype)
            for g, i in zip(grads, sources)
        )
        self.recorded("autograd.grad", traced, [None if g is None else g.value for g in results])
        return results

    def functional(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        """torch.autograd.functional.jacobian(f, inputs) and .hessian(f, inputs), as torch's
        reverse mode computes them: the inputs detached and made to require grad, f called
        once, then one torch.autograd.grad per output element (the gradient's, for hessian)."""
        if name in ("vjp", "vhp", "hvp"):
            return self.functional_product(name, args, kwargs, node)
        names = ("func", "inputs", "create_graph", "strict", "vectorize", "strategy")
        if name == "hessian":
            names = ("func", "inputs", "create_graph", "strict", "vectorize", "outer_jacobian_strategy")
        func, given, single, leaves = self.functional_inputs(name, names, args, kwargs, node)
        previous, self.grad_enabled = self.grad_enabled, True
        try:
            out = self.call_user(func, leaves, {}, node)
            if name == "hessian":
                if not isinstance(out, Tensor) or out.value.size != 1:
                    raise ScriptRuntimeError(
                        "The function given to hessian should return a single Tensor with a single element"
                    )
                firsts = self.autograd_call(
                    "grad", [out, leaves], {"create_graph": True, "allow_unused": True}, node
                )
                outputs = [
                    g if g is not None else Tensor(np.zeros(x.shape, x.value.dtype), dtype=x.dtype)
                    for g, x in zip(firsts, leaves)
                ]
                blocks = [self._jacobian_rows(o, leaves, node) for o in outputs]
                if single:
                    return blocks[0][0]
                return tuple(tuple(row) for row in blocks)
            outputs = (
                [out] if isinstance(out, Tensor) else list(out) if isinstance(out, (list, tuple)) else None
            )
            if not outputs or not all(isinstance(o, Tensor) for o in outputs):
                raise ScriptRuntimeError(
                    "The outputs of the user-provided function given to jacobian must be either a Tensor or a tuple of Tensors",
                    "TypeError",
                )
            blocks = [self._jacobian_rows(o, leaves, node) for o in outputs]
        finally:
            self.grad_enabled = previous
        if isinstance(out, Tensor):
            return blocks[0][0] if single else tuple(blocks[0])
        return tuple(b[0] for b in blocks) if single else tuple(tuple(b) for b in blocks)

    def functional_inputs(
        self, name: str, names: tuple[str, ...], args: list, kwargs: dict, node: ast.AST
    ) -> tuple[UserFunction, dict, bool, list[Tensor]]:
        """torch.autograd.functional's arguments: the function, every argument by name, whether
        `inputs` is one tensor, and the inputs detached and made to require grad."""
        given = dict(zip(names, args)) | kwargs
        if len(args) > len(names) or any(k not in names for k in given):
            raise ScriptRuntimeError(f"{name}() got an unexpected argument", "TypeError")
        func, inputs = given.get("func"), given.get("inputs")
        if not isinstance(func, UserFunction):
            raise ScriptError(f"{source_position(node)}: {name}() takes a function defined in the script")
        unsupported = [k for k in ("create_graph", "strict", "vectorize") if k in names]
        if any(given.get(k) for k in unsupported):
            raise ScriptError(
                f"{source_position(node)}: {name}() with {', '.join(unsupported)} is not supported"
            )
        single = isinstance(inputs, Tensor)
        sources = [inputs] if single else list(inputs) if isinstance(inputs, (list, tuple)) else None
        if not sources or not all(isinstance(x, Tensor) for x in sources):
            raise ScriptRuntimeError(
                f"The inputs given to {name} must be either a Tensor or a tuple of Tensors", "TypeError"
            )
        return (
            func,
            given,
            single,
            [Tensor(np.array(x.value), dtype=x.dtype, requires_grad=True) for x in sources],
        )

    def functional_product(self, name: str, args: list, kwargs: dict, node: ast.AST) -> tuple:
        """torch.autograd.functional.vjp(f, inputs, v) -> (f(inputs), v^T J), and vhp / hvp
        -> (f(inputs), v^T H / H v) of a scalar f: one backward, or a backward of the
        create_graph gradient (H v is v^T H for the symmetric Hessians of these functions)."""
        names = ("func", "inputs", "v", "create_graph", "strict")
        func, given, single, leaves = self.functional_inputs(name, names, args, kwargs, node)
        v = given.get("v")
        vectors = None if v is None else [v] if isinstance(v, Tensor) else list(v)
        previous, self.grad_enabled = self.grad_enabled, True
        try:
            out = self.call_user(func, leaves, {}, node)
            outputs = (
                [out] if isinstance(out, Tensor) else list(out) if isinstance(out, (list, tuple)) else []
            )
            if name != "vjp":
                if not isinstance(out, Tensor):
                    raise ScriptRuntimeError(f"The function given to {name} should return a single Tensor")
                if out.value.size != 1:
                    raise ScriptRuntimeError(
                        f"The Tensor returned by the function given to {name} should contain a single element"
                    )
                if vectors is None and (len(leaves) != 1 or leaves[0].value.size != 1):
                    raise ScriptRuntimeError(
                        "The vector v can only be None if the input to the user-provided function is a single "
                        "Tensor with a single element."
                    )
                first = self.autograd_call("grad", [out, leaves], {"create_graph": True}, node)
                grads = self.autograd_call(
                    "grad", [list(first), leaves], {"grad_outputs": vectors, "allow_unused": True}, node
                )
            else:
                if vectors is None and (len(outputs) != 1 or outputs[0].value.size != 1):
                    raise ScriptRuntimeError(
                        "The vector v can only be None if the user-provided function returns a single Tensor "
                        "with a single element."
                    )
                grads = self.autograd_call(
                    "grad", [outputs, leaves], {"grad_outputs": vectors, "allow_unused": True}, node
                )
        finally:
            self.grad_enabled = previous
        filled = [
            g if g is not None else Tensor(np.zeros(x.shape, x.value.dtype), dtype=x.dtype)
            for g, x in zip(grads, leaves)
        ]
        plain = [Tensor.alias(o) for o in outputs]  # torch returns the outputs detached
        for o in plain:
            o.requires_grad, o.grad_fn = False, None
        result = plain[0] if isinstance(out, Tensor) else tuple(plain)
        return result, filled[0] if single else tuple(filled)

    def _jacobian_rows(self, output: Tensor, leaves: list, node: ast.AST) -> list:
        """d output / d leaf for each leaf: one backward per element of output, stacked."""
        count = output.value.size
        if count > limits.Script.MAX_LOOP:
            raise ScriptError(
                f"line {self.line}: a jacobian of more than MAX_LOOP={limits.Script.MAX_LOOP:,} rows"
            )
        rows: list[list[np.ndarray]] = [[] for _ in leaves]
        for i in range(count):
            if output.requires_grad:
                seed = np.zeros(output.value.size, dtype=output.value.dtype)
                seed[i] = 1
                grads = self.autograd_call(
                    "grad",
                    [output, leaves],
                    {
                        "grad_outputs": Tensor(seed.reshape(output.shape), dtype=output.dtype),
                        "retain_graph": True,
                        "allow_unused": True,
                    },
                    node,
                )
            else:
                grads = [None] * len(leaves)
            for k, (g, x) in enumerate(zip(grads, leaves)):
                rows[k].append(np.zeros(x.shape, x.value.dtype) if g is None else np.asarray(g.value))
        return [
            Tensor(
                np.stack(r).reshape(output.shape + x.shape) if r else np.zeros(output.shape + x.shape),
                dtype=x.dtype,
            )
            for r, x in zip(rows, leaves)
        ]
