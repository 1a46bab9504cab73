"""The autograd API of `run`: backward(), torch.autograd.grad/backward, tensor hooks and
torch.autograd.functional, and the record each backward call leaves for --trace, --explain and JSON."""

from __future__ import annotations

import ast
import itertools
from typing import Any

import numpy as np

from . import runtime
from .runtime import ScriptError, ScriptRuntimeError, Tensor, source_position
from .tensor_repr import tensor_repr
from .values import Function, HookHandle, Size

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
        foreign = self.foreign(hook)  # a Python function, when Python runs the script
        if not foreign:
            raise ScriptRuntimeError(f"'{self.type_name(hook)}' object is not callable", "TypeError")
        dtype = t.dtype
        label = getattr(hook, "__name__", type(hook).__name__)

        def run(g: Any) -> Any:
            if isinstance(g, runtime.Recorded):  # create_graph: the gradient is a tensor with a graph
                returned = self.call_function(hook, [g.tensor], {}, node)
                if returned is None:
                    return g
                if not isinstance(returned, Tensor):
                    raise ScriptRuntimeError(
                        f"expected Variable or None (got {self.type_name(returned)})", "TypeError"
                    )
                if returned.shape != g.shape:
                    raise ScriptRuntimeError(f"hook '{label}' has changed the size of value")
                return g.recorder.wrap(returned)
            grad = Tensor(np.array(g, dtype=dtype), dtype=dtype)
            returned = self.call_function(hook, [grad], {}, node)
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

    def register_post_accumulate_grad_hook(
        self, t: Tensor, args: list, kwargs: dict, node: ast.AST
    ) -> HookHandle:
        """p.register_post_accumulate_grad_hook(f): f(p) runs right after backward adds to p.grad
        (in the order torch's engine accumulates, runtime._accumulation_order)."""
        hook = args[0] if len(args) == 1 and not kwargs else kwargs.get("hook") if not args else None
        if hook is None or len(args) + len(kwargs) != 1:
            raise ScriptRuntimeError(
                "register_post_accumulate_grad_hook() takes 1 positional argument", "TypeError"
            )
        if not t.requires_grad:
            raise ScriptRuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if t.grad_fn is not None:
            raise ScriptRuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")

        def run(tensor: Tensor) -> None:
            self.call_value(hook, [tensor], node)

        key = next(_HOOK_IDS)
        t.post_hooks[key] = run
        return HookHandle(t.post_hooks, key)

    def variable(self, args: list, kwargs: dict) -> Tensor:
        """torch.autograd.Variable(t, requires_grad=False): since torch 0.4 a tensor, t's
        elements detached (as the legacy constructor does), with the flag set."""
        names = ["data", "requires_grad", "volatile"]
        if len(args) > len(names) or set(kwargs) - set(names):
            raise ScriptRuntimeError("Variable() takes data, requires_grad and volatile", "TypeError")
        given = dict(zip(names, args)) | kwargs
        data = given.get("data")
        if not isinstance(data, Tensor):
            raise ScriptRuntimeError(
                f"Variable data has to be a tensor, but got {self.type_name(data)}", "TypeError"
            )
        t = Tensor.alias(data)
        t.set_requires_grad(self.truth(given.get("requires_grad", False)))
        return t

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

    def chosen_call(self, number: int, line: int) -> bool:
        """Whether --call / --line keep this backward call (both absent: every call)."""
        if self.chosen_calls is None and self.chosen_lines is None:
            return True
        return number in (self.chosen_calls or ()) or line in (self.chosen_lines or ())

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

    # -- torch.autograd.functional ----------------------------------------------------------
    # A port of torch/autograd/functional.py (torch 2.13): the same steps in the same order, each
    # torch call made through the interpreter, so values, grad_fn names, grad modes and error
    # texts are torch's (jvp by the double-backward trick, hessian as a jacobian of a jacobian).

    def functional(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        params, defaults = _FUNCTIONAL[name]
        bound = dict(zip(params, python_arguments(name, params, 2, defaults, args, kwargs)))
        func = bound["func"]

        def call(*inputs: Tensor) -> Any:
            return self.call_value(func, list(inputs), node)

        create = bound["create_graph"]  # torch hands it on to the engine, which takes a C++ bool
        if isinstance(create, int) and not 0 <= create <= 255:
            side = "less than minimum" if create < 0 else "greater than maximum"
            raise ScriptRuntimeError(f"unsigned byte integer is {side}", "OverflowError")
        if not isinstance(create, int):
            raise ScriptRuntimeError(
                f"'{self.class_name(create)}' object cannot be interpreted as an integer", "TypeError"
            )
        truth = {k: self.truth(bound[k]) for k in ("create_graph", "strict", "vectorize") if k in bound}
        previous = self.grad_enabled
        f = _Functional(self, node, previous)
        try:
            if name == "jacobian":
                return f.jacobian(call, bound["inputs"], *truth.values(), bound["strategy"])
            if name == "hessian":
                return f.hessian(call, bound["inputs"], *truth.values(), bound["outer_jacobian_strategy"])
            return getattr(f, name)(call, bound["inputs"], bound["v"], *truth.values())
        finally:
            self.grad_enabled = previous


_FUNCTIONAL = {
    "jacobian": (
        ("func", "inputs", "create_graph", "strict", "vectorize", "strategy"),
        (False, False, False, "reverse-mode"),
    ),
    "hessian": (
        ("func", "inputs", "create_graph", "strict", "vectorize", "outer_jacobian_strategy"),
        (False, False, False, "reverse-mode"),
    ),
    **{
        name: (("func", "inputs", "v", "create_graph", "strict"), (None, False, False))
        for name in ("vjp", "jvp", "vhp", "hvp")
    },
}


def python_arguments(
    name: str,
    params: tuple[str, ...],
    required: int,
    defaults: tuple,
    args: list,
    kwargs: dict,
    positional: int | None = None,
) -> list:
    """A Python function's arguments bound as CPython binds them, with its TypeError texts
    (`positional`: how many params may be given by position, the rest by keyword only)."""
    positional = len(params) if positional is None else positional
    if len(args) > positional:
        takes = f"{positional}" if required == positional else f"from {required} to {positional}"
        raise ScriptRuntimeError(
            f"{name}() takes {takes} positional arguments but {len(args)} were given", "TypeError"
        )
    values = dict(zip(params, args))
    for key, value in kwargs.items():
        if key not in params:
            raise ScriptRuntimeError(f"{name}() got an unexpected keyword argument '{key}'", "TypeError")
        if key in values:
            raise ScriptRuntimeError(f"{name}() got multiple values for argument '{key}'", "TypeError")
        values[key] = value
    missing = [p for p in params[:required] if p not in values]
    if missing:
        quoted = [f"'{m}'" for m in missing]
        listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
        plural = "argument" if len(missing) == 1 else "arguments"
        raise ScriptRuntimeError(
            f"{name}() missing {len(missing)} required positional {plural}: {listed}", "TypeError"
        )
    return [values[p] if p in values else defaults[i - required] for i, p in enumerate(params)]


class _Functional:
    """torch.autograd.functional's functions over one call's interpreter state: `outer` is the
    grad mode the script called them in."""

    def __init__(self, interp: Any, node: ast.AST, outer: bool) -> None:
        self.i, self.node, self.outer = interp, node, outer

    # torch's own calls, made through the interpreter
    def view_as(self, t: Tensor) -> Tensor:
        return self.i.tensor_method(t, "view", [tuple(t.shape)], {}, self.node)

    def detach(self, t: Tensor, requires_grad: bool = False) -> Tensor:
        d = Tensor.alias(t)
        if requires_grad:  # t.detach().requires_grad_(): the method's words, not the constructor's
            if d.dtype not in runtime.FLOAT_DTYPES:
                raise ScriptRuntimeError("only Tensors of floating point dtype can require gradients")
            d.requires_grad = True
        return d

    def stack(self, tensors: list) -> Tensor:
        if not tensors:
            raise ScriptRuntimeError("stack expects a non-empty TensorList")
        return self.torch("stack", tensors, dim=0)

    def zeros_like(self, t: Tensor, requires_grad: bool = False) -> Tensor:
        z = Tensor(np.zeros(t.shape, t.value.dtype), dtype=t.dtype)
        if requires_grad:
            z.set_requires_grad(True)
        return z

    def torch(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.i.dispatch(Function("torch", name), list(args), kwargs, self.node)

    def method(self, t: Tensor, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.i.tensor_method(t, name, list(args), kwargs, self.node)

    def enable(self, flag: bool) -> None:
        self.i.grad_enabled = flag

    # functional.py's helpers
    def as_tuple(self, inp: Any, arg_name: str, fn_name: str | None) -> tuple[bool, tuple]:
        is_tuple = isinstance(inp, tuple)
        items = tuple(inp) if is_tuple else (inp,)
        for i, el in enumerate(items):
            if not isinstance(el, Tensor):
                what = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
                raise ScriptRuntimeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                    f"{what} has type <class '{self.i.class_name(el)}'>.",
                    "TypeError",
                )
        return is_tuple, items

    def preprocess(self, inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
        return tuple(
            self.view_as(inp) if create_graph and inp.requires_grad else self.detach(inp, need_graph)
            for inp in inputs
        )

    def postprocess(self, inputs: tuple, create_graph: bool) -> tuple:
        if isinstance(inputs[0], Tensor):
            return inputs if create_graph else tuple(self.detach(inp) for inp in inputs)
        return tuple(self.postprocess(inp, create_graph) for inp in inputs)

    @staticmethod
    def unpack(res: Any, to_unpack: Any) -> Any:
        if isinstance(to_unpack, tuple):
            if not to_unpack[1]:
                res = tuple(el[0] for el in res)
            if not to_unpack[0]:
                res = res[0]
        elif not to_unpack:
            res = res[0]
        return res

    @staticmethod
    def validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
        if len(other) != len(v):
            if is_other_tuple:
                raise ScriptRuntimeError(
                    f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
                )
            raise ScriptRuntimeError("The given v should contain a single Tensor.")
        for idx, (el_v, el_other) in enumerate(zip(v, other)):
            if el_v.shape != el_other.shape:
                prepend = f"Entry {idx} in " if is_other_tuple else ""
                raise ScriptRuntimeError(
                    f"{prepend}v has invalid size: should be {Size(el_other.shape)!r} but got "
                    f"{Size(el_v.shape)!r}."
                )

    @staticmethod
    def check_requires_grad(inputs: tuple, input_type: str, strict: bool) -> None:
        if not strict:
            return
        for i, inp in enumerate(inputs):
            if inp is None:
                raise ScriptRuntimeError(
                    f"The output of the user-provided function is independent of input {i}. This is not "
                    "allowed in strict mode."
                )
            if not inp.requires_grad:
                raise ScriptRuntimeError(_NOT_REQUIRING[input_type].format(i=i))

    def autograd_grad(
        self,
        outputs: tuple,
        inputs: tuple,
        grad_outputs: tuple | None = None,
        create_graph: bool = False,
        retain_graph: bool | None = None,
    ) -> tuple:
        if grad_outputs is None:
            grad_outputs = (None,) * len(outputs)
        kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
        if not kept:
            return (None,) * len(inputs)
        options: dict = {
            "grad_outputs": [g for _, g in kept],
            "allow_unused": True,
            "create_graph": create_graph,
        }
        if retain_graph is not None:
            options["retain_graph"] = retain_graph
        return self.i.autograd_call("grad", [[o for o, _ in kept], list(inputs)], options, self.node)

    def fill_in_zeros(self, grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
        res = []
        for i, grads_i in enumerate(grads):
            if grads_i is None:
                if strict:
                    raise ScriptRuntimeError(_INDEPENDENT[stage].format(i=i))
                grads_i = self.zeros_like(refs[i])
            elif strict and create_graph and not grads_i.requires_grad:
                which = "hessian" if "double" in stage else "jacobian"
                raise ScriptRuntimeError(
                    f"The {which} of the user-provided function is independent of input {i}. This is not "
                    "allowed in strict mode when create_graph=True."
                )
            res.append(grads_i)
        return tuple(res)

    def vector(self, v: Any, fn_name: str, other: tuple, is_other_tuple: bool, create_graph: bool) -> tuple:
        _, v = self.as_tuple(v, "v", fn_name)
        v = self.preprocess(v, create_graph, False)
        self.validate_v(v, other, is_other_tuple)
        return v

    # the functions
    def vjp(self, func: Any, inputs: Any, v: Any, create_graph: bool, strict: bool) -> tuple:
        self.enable(True)
        is_inputs_tuple, inputs = self.as_tuple(inputs, "inputs", "vjp")
        inputs = self.preprocess(inputs, create_graph, True)
        is_outputs_tuple, outputs = self.as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        self.check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = self.vector(v, "vjp", outputs, is_outputs_tuple, create_graph)
        elif len(outputs) != 1 or outputs[0].value.size != 1:
            raise ScriptRuntimeError(
                "The vector v can only be None if the user-provided function returns a single Tensor with "
                "a single element."
            )
        self.enable(True if create_graph else self.outer)
        grad_res = self.autograd_grad(outputs, inputs, v, create_graph=create_graph)
        vjp = self.fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
        outputs = self.postprocess(outputs, create_graph)
        vjp = self.postprocess(vjp, create_graph)
        return self.unpack(outputs, is_outputs_tuple), self.unpack(vjp, is_inputs_tuple)

    def jvp(self, func: Any, inputs: Any, v: Any, create_graph: bool, strict: bool) -> tuple:
        self.enable(True)
        is_inputs_tuple, inputs = self.as_tuple(inputs, "inputs", "jvp")
        inputs = self.preprocess(inputs, create_graph, True)
        if v is not None:
            v = self.vector(v, "jvp", inputs, is_inputs_tuple, create_graph)
        elif len(inputs) != 1 or inputs[0].value.size != 1:
            raise ScriptRuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single "
                "Tensor with a single element."
            )
        is_outputs_tuple, outputs = self.as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        self.check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(self.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = self.autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        self.check_requires_grad(grad_inputs, "grad_inputs", strict)
        self.enable(True if create_graph else self.outer)
        grad_res = self.autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        jvp = self.fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
        outputs = self.postprocess(outputs, create_graph)
        jvp = self.postprocess(jvp, create_graph)
        return self.unpack(outputs, is_outputs_tuple), self.unpack(jvp, is_outputs_tuple)

    def jacobian(
        self, func: Any, inputs: Any, create_graph: bool, strict: bool, vectorize: bool, strategy: Any
    ) -> Any:
        if strategy not in ("forward-mode", "reverse-mode"):
            raise ScriptRuntimeError(
                'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has '
                'more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to '
                'use "reverse-mode".',
                "AssertionError",
            )
        if strategy == "forward-mode":
            if create_graph:
                raise ScriptRuntimeError(
                    'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` '
                    "are not supported together (yet). Please either set `create_graph=False` or "
                    '`strategy="reverse-mode"`.',
                    "NotImplementedError",
                )
            return self.jacfwd(func, inputs, strict, vectorize)
        self.enable(True)
        is_inputs_tuple, inputs = self.as_tuple(inputs, "inputs", "jacobian")
        inputs = self.preprocess(inputs, create_graph, True)
        is_outputs_tuple, outputs = self.as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        self.check_requires_grad(outputs, "outputs", strict)
        if vectorize:
            if strict:
                raise ScriptRuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                    "supported together. Please either set `strict=False` or `vectorize=False`."
                )
            jacobian = self.vectorized(outputs, inputs, create_graph)
        else:
            jacobian = tuple(self.rows(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs))
        jacobian = self.postprocess(jacobian, create_graph)
        return self.unpack(jacobian, (is_outputs_tuple, is_inputs_tuple))

    def rows(self, i: int, out: Tensor, inputs: tuple, create_graph: bool, strict: bool) -> tuple:
        """One output's jacobian blocks: a backward per element of it, stacked and viewed."""
        jac_i: tuple[list, ...] = tuple([] for _ in inputs)
        flat = self.method(out, "reshape", -1)
        for j in range(out.value.size):
            element = self.i.index_tensor(flat, j, self.node)
            vj = self.autograd_grad((element,), inputs, retain_graph=True, create_graph=create_graph)
            for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                if vj_el is not None:
                    if strict and create_graph and not vj_el.requires_grad:
                        raise ScriptRuntimeError(
                            f"The jacobian of the user-provided function is independent of input {i}. This is "
                            "not allowed in strict mode when create_graph=True."
                        )
                    jac_i_el.append(vj_el)
                else:
                    if strict:
                        raise ScriptRuntimeError(
                            f"Output {i} of the user-provided function is independent of input {el_idx}. This "
                            "is not allowed in strict mode."
                        )
                    jac_i_el.append(self.zeros_like(inp_el))
        return tuple(
            self.method(self.stack(jac_i_el), "view", tuple(out.shape) + tuple(inputs[k].shape))
            for k, jac_i_el in enumerate(jac_i)
        )

    def vectorized(self, outputs: tuple, inputs: tuple, create_graph: bool) -> tuple:
        """vectorize=True: torch's one batched backward over the standard basis of all the
        outputs at once, one backward per basis vector here (the same sums, the same zeros)."""
        numels = [o.value.size for o in outputs]
        total = sum(numels)
        if total == 0:  # where torch's batched backward over no basis vectors stops
            raise ScriptRuntimeError("index 0 is out of bounds for dimension 0 with size 0", "IndexError")
        flat_outputs = tuple(self.method(o, "reshape", -1) for o in outputs)
        per_input: list[list] = [[] for _ in inputs]
        for r in range(total):
            seeds, start = [], 0
            for o, n in zip(outputs, numels):
                seed = np.zeros(n, o.value.dtype)
                if start <= r < start + n:
                    seed[r - start] = 1
                seeds.append(Tensor(seed, dtype=o.dtype))
                start += n
            vj = self.autograd_grad(
                flat_outputs, inputs, tuple(seeds), create_graph=create_graph, retain_graph=True
            )
            for k, g in enumerate(vj):
                per_input[k].append(g)
        blocks = []
        for rows, inp in zip(per_input, inputs):
            if total == 0 or rows[0] is None:  # no output reaches this input
                base = self.zeros_like(inp)
                jac = self.method(base, "expand", (total, *inp.shape))
            else:
                jac = self.stack(rows)
            parts = self.method(jac, "split", numels, dim=0)
            blocks.append(
                [self.method(p, "view", tuple(o.shape) + tuple(inp.shape)) for p, o in zip(parts, outputs)]
            )
        return tuple(zip(*blocks))

    def jacfwd(self, func: Any, inputs: Any, strict: bool, vectorize: bool) -> Any:
        if strict:
            raise ScriptRuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
            )
        is_inputs_tuple, tensors = self.as_tuple(inputs, "inputs", "jacobian")
        if not vectorize:
            raise ScriptRuntimeError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
                "`vectorize=True`.",
                "NotImplementedError",
            )
        if self.forward_hessian or any(t.requires_grad for t in tensors):
            # torch's result then carries the graph of its vmapped forward-mode pass
            raise ScriptError(
                f"{source_position(self.node)}: forward-mode jacobian/hessian of inputs that require grad "
                "is not supported by gradcli run (use the default reverse-mode strategy)"
            )

        # forward mode, one column per input element: the tangent of each output by the double-
        # backward trick (v -> d(J^T g)/dg . v), which multiplies and sums as forward mode does
        self.enable(True)
        inputs = self.preprocess(tensors, False, True)
        is_outputs_tuple, outputs = self.as_tuple(func(*inputs), "outputs", None)
        grad_outputs = tuple(self.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = self.autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        numels = [t.value.size for t in inputs]
        columns: list[list[np.ndarray]] = [[] for _ in outputs]
        for c in range(sum(numels)):
            tangents, start = [], 0
            for t, n in zip(inputs, numels):
                tangent = np.zeros(n, t.value.dtype)
                if start <= c < start + n:
                    tangent[c - start] = 1
                tangents.append(Tensor(tangent.reshape(t.shape), dtype=t.dtype))
                start += n
            jv = self.autograd_grad(grad_inputs, grad_outputs, tuple(tangents), retain_graph=True)
            for k, (tangent_k, out) in enumerate(zip(jv, outputs)):
                columns[k].append(
                    np.zeros(out.shape, out.value.dtype) if tangent_k is None else tangent_k.value
                )
        jacobian = []
        for cols, out in zip(columns, outputs):
            stacked = np.stack(cols) if cols else np.zeros((0, *out.shape), out.value.dtype)
            blocks, start = [], 0
            for t, n in zip(inputs, numels):
                part = np.moveaxis(stacked[start : start + n], 0, -1)
                blocks.append(Tensor(part.reshape(out.shape + t.shape), dtype=out.dtype))
                start += n
            jacobian.append(blocks)
        return self.unpack(jacobian, (is_outputs_tuple, is_inputs_tuple))  # lists, as torch's are

    forward_hessian = False

    def hessian(
        self, func: Any, inputs: Any, create_graph: bool, strict: bool, vectorize: bool, strategy: Any
    ) -> Any:
        is_inputs_tuple, inputs = self.as_tuple(inputs, "inputs", "hessian")
        if strategy not in ("forward-mode", "reverse-mode"):
            raise ScriptRuntimeError(
                'Expected strategy to be either "forward-mode" or "reverse-mode".', "AssertionError"
            )

        def ensure_single_output_function(*inp: Tensor) -> Tensor:
            out = func(*inp)
            is_out_tuple, t_out = self.as_tuple(out, "outputs of the user-provided function", "hessian")
            self.check_requires_grad(t_out, "outputs", strict)
            if is_out_tuple or not isinstance(out, Tensor):
                raise ScriptRuntimeError("The function given to hessian should return a single Tensor")
            if out.value.size != 1:
                raise ScriptRuntimeError(
                    "The Tensor returned by the function given to hessian should contain a single element"
                )
            return self.method(out, "squeeze")

        def jac_func(*inp: Tensor) -> Any:
            jac = self.jacobian(ensure_single_output_function, inp, True, False, False, "reverse-mode")
            self.check_requires_grad(jac, "jacobian", strict)
            return jac

        self.forward_hessian = strategy == "forward-mode"
        res = self.jacobian(jac_func, inputs, create_graph, strict, vectorize, strategy)
        return self.unpack(res, (is_inputs_tuple, is_inputs_tuple))

    def vhp(self, func: Any, inputs: Any, v: Any, create_graph: bool, strict: bool) -> tuple:
        return self.hessian_product("vhp", func, inputs, v, create_graph, strict)

    def hvp(self, func: Any, inputs: Any, v: Any, create_graph: bool, strict: bool) -> tuple:
        return self.hessian_product("hvp", func, inputs, v, create_graph, strict)

    def hessian_product(
        self, name: str, func: Any, inputs: Any, v: Any, create_graph: bool, strict: bool
    ) -> tuple:
        """vhp: the backward of the gradient; hvp: torch's double-backward trick on top of it."""
        self.enable(True)
        is_inputs_tuple, inputs = self.as_tuple(inputs, "inputs", name)
        inputs = self.preprocess(inputs, create_graph, True)
        if v is not None:
            v = self.vector(v, name, inputs, is_inputs_tuple, create_graph)
        elif len(inputs) != 1 or inputs[0].value.size != 1:
            raise ScriptRuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single "
                "Tensor with a single element."
            )
        is_outputs_tuple, outputs = self.as_tuple(
            func(*inputs), "outputs of the user-provided function", name
        )
        self.check_requires_grad(outputs, "outputs", strict)
        if is_outputs_tuple:
            raise ScriptRuntimeError(f"The function given to {name} should return a single Tensor")
        if outputs[0].value.size != 1:
            raise ScriptRuntimeError(
                f"The Tensor returned by the function given to {name} should contain a single element"
            )
        jac = self.autograd_grad(outputs, inputs, create_graph=True)
        self.check_requires_grad(jac, "jacobian", strict)
        if name == "vhp":
            self.enable(True if create_graph else self.outer)
            grad_res = self.autograd_grad(jac, inputs, v, create_graph=create_graph)
            result = self.fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
        else:
            grad_jac = tuple(self.zeros_like(inp, requires_grad=True) for inp in inputs)
            double_back = self.autograd_grad(jac, inputs, grad_jac, create_graph=True)
            self.check_requires_grad(jac, "hessian", strict)
            self.enable(True if create_graph else self.outer)
            grad_res = self.autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
            result = self.fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
        outputs = self.postprocess(outputs, create_graph)
        result = self.postprocess(result, create_graph)
        return self.unpack(outputs, is_outputs_tuple), self.unpack(result, is_inputs_tuple)


_NOT_REQUIRING = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the "
    "input. This is not allowed in strict mode. You should ensure that your function is thrice "
    "differentiable and that the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with "
    "respect to input {i} is independent of the input. This is not allowed in strict mode. You should "
    "ensure that your function is twice differentiable and that the jacobian depends on the inputs (this "
    "would be violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
    "user-provided function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be "
    "computed in a differentiable manner from the input when running in strict mode.",
}

_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
    "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs "
    "when using the double backward trick to compute forward mode gradients. This is not allowed in "
    "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
    "grad_jacobian. This is not allowed in strict mode as it prevents from using the double backward "
    "trick to replace forward mode AD.",
}
