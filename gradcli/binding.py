"""Calls and subscripts bound to the op registry: `torch.max(x, 1)`, `F.softmax(x, dim=-1)`,
`x.sum(0, keepdim=True)` or `x[0, 1:3]` become op applications with every argument checked,
named and defaulted as PyTorch's signature has it (spellings, overloads, keyword checks).

The program parser (parse.py) and the `run` interpreter (through parse.CallBinder) share it, so
a call means the same in `gradcli grad` and `gradcli run`."""

from __future__ import annotations

import ast
import math
from typing import Any

from . import limits
from .ops import (
    COMPOSITES,
    CONSTANTS,
    FUNCTIONAL,
    FUNCTIONAL_MODULES,
    LISTED,
    LISTED_EMPTY,
    MODULES,
    NOT_IN_TORCH,
    NOT_METHODS,
    NUMPY_MEANS_OTHER,
    NUMPY_SPELLINGS,
    OTHER_ORDER,
    PYTHON_BUILTINS,
    REGISTRY,
    SIGNATURES,
    TORCH_SPELLINGS,
    WEIGHTED,
    Composite,
    Param,
    Spelling,
)
from .ops.joining import MAX_JOINED
from .program import Apply, Deferred, Expr, Num, Ref

_MODULE_ROOTS = {"torch", "np", "numpy", "math", "F", "jnp", "jax", "nn"}
_MODULES_HINT = "known module prefixes: " + ", ".join(sorted(MODULES))
# Names from other tools that mean one of ours, for "did you mean" hints.
_SYNONYMS = {"ln": "log"}

# Calls that return torch.return_types (values, indices), as their records say.
PICKED = {op.name: op.pair for op in REGISTRY.values() if op.pair}
ALWAYS_PAIRED = {op.name for op in REGISTRY.values() if op.always_paired}


def _dtype_kind(value: Any) -> str | None:
    """float, int64 or bool: what a `gradcli run` tensor is, as the graph's nodes say it; a
    Python number is "number", as the graph names a number operand."""
    if isinstance(value, (int, float)):  # bool too: a Python scalar, not a tensor
        return "number"
    dtype = str(getattr(value, "dtype", "float"))
    return "bool" if dtype == "bool" else "int64" if dtype.startswith(("int", "uint")) else "float"


def float_call(node: ast.AST) -> float | None:
    """float('-inf'), float('nan'), float('1e-3'): Python's float of a string literal, as
    attention masks write -inf; None for any other node (float(x) of a tensor is refused)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "float"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and len(node.args[0].value) <= 40
    ):
        try:
            return float(node.args[0].value)
        except ValueError:
            return None
    return None


def _element_strides(value: Any) -> tuple[int, ...] | None:
    """A `gradcli run` tensor's strides in elements, as torch counts them (None for a number)."""
    array = getattr(value, "value", None)
    if not isinstance(getattr(array, "strides", None), tuple) or not getattr(array, "itemsize", 0):
        return None
    return tuple(stride // array.itemsize for stride in array.strides)


def _torch_refuses(name: str, written: str, module: str | None, method: bool) -> tuple[str, str] | None:
    """(error, hint) where torch has no such function or method (F.sin, x.softplus(), torch.view),
    or a bare name is a Python builtin with another meaning (float(x)); None where it has."""
    if method and name in NOT_METHODS:
        fix = (
            f"F.{name}(x)"
            if name in FUNCTIONAL
            else f"torch.{name}(...)"
            if name not in NOT_IN_TORCH
            else f"{name}(x)"
        )
        return f"unknown method '{written}'", f"torch has no Tensor.{name}; write {fix}"
    if module in FUNCTIONAL_MODULES and name not in FUNCTIONAL:
        return f"unknown function '{written}'", f"torch.nn.functional has no {name}; write torch.{name}(x)"
    if module == "torch" and name in OTHER_ORDER:
        return f"'{written}' takes its arguments in another order", f"write {OTHER_ORDER[name]}"
    if module == "torch" and name in NOT_IN_TORCH:
        fix = (
            f"F.{name}(x)"
            if name in FUNCTIONAL
            else f"x.{name}()"
            if name not in NOT_METHODS
            else f"{name}(x)"
        )
        return f"unknown function '{written}'", f"the torch module has no function {name}; write {fix}"
    if module is None and not method and name in PYTHON_BUILTINS:
        return (
            f"{name}(x) is Python's {name} of a tensor, not a tensor",
            f"write x.{name}() for torch's conversion",
        )
    return None


def _is_int_literal(node: ast.AST) -> bool:
    """3 or -3, as written."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def has_dim(call: ast.Call, receiver: list) -> bool:
    """torch.max(x, 1) / x.max(dim=1): the form that returns (values, indices)."""
    return len(receiver) + len(call.args) > 1 or any(kw.arg in ("dim", "axis") for kw in call.keywords)


ELEMENTWISE_PICK = {op.name: op.with_other for op in REGISTRY.values() if op.with_other}
# torch's dtype names, for x.to(torch.float64) and x.type(torch.long): the method each means
_DTYPE_METHODS = {
    **dict.fromkeys(("float", "float32", "double", "float64"), "float"),
    **dict.fromkeys(("long", "int64"), "long"),
    "bool": "bool",
}


# dtype= of a constructor: what the new tensor is in torch (the graph's dtype kinds). Python's
# and NumPy's `int` is int64; torch.int (int32) and the half floats are not gradcli's.
_DTYPE_NAMES = {
    **dict.fromkeys(("torch.float", "torch.float32", "torch.double", "torch.float64"), "float"),
    **dict.fromkeys(("float", "float32", "float64", "double"), "float"),
    **dict.fromkeys(("torch.long", "torch.int64", "int", "int64"), "int64"),
    **dict.fromkeys(("torch.bool", "bool", "bool_"), "bool"),
}


# Methods torch has that gradcli's one-device, float/int64/bool model leaves out, with the
# spelling that does what a program usually wants from them.
_NOT_MODELLED = {
    "int": "x.int() makes an int32 tensor, which gradcli does not model; x.long() gives int64",
    "short": "gradcli's integer tensors are int64: write x.long()",
    "half": "gradcli computes in float64 or float32 (--dtype); x.float() keeps the values",
    "bfloat16": "gradcli computes in float64 or float32 (--dtype); x.float() keeps the values",
    "cuda": "gradcli computes on the CPU: leave .cuda() out (x.cpu() is x itself)",
    "numpy": "a program's values are tensors; the output's value is printed (or in --format json)",
    "requires_grad_": "a program's leaves are its --at names: give the tensor with --at",
    "backward": "gradcli grad runs backward() on the program's output; a script with .backward() "
    "runs with 'gradcli run'",
}
_RANDOM = (
    "a program has no random numbers: give values with --at x=randn(3) (seeded), or use "
    "'gradcli run' for a script with torch.manual_seed"
)
# Functions torch has that a program leaves to the command line or to `gradcli run`.
_NOT_IN_PROGRAMS = {
    **dict.fromkeys(
        ("rand", "randn", "randint", "rand_like", "randn_like", "manual_seed", "normal"), _RANDOM
    ),
    "empty": "torch.empty is uninitialised memory: write torch.zeros(...)",
}


def has_other(call: ast.Call, receiver: list) -> bool:
    """torch.max(x, y) / x.max(y) / torch.max(x, other=y): a second tensor, not a dim."""
    if any(kw.arg == "other" for kw in call.keywords):
        return True
    second = (receiver + list(call.args))[1:2]
    return bool(second) and not _is_int_literal(second[0]) and not _is_size(second[0])


def _is_size(node: ast.AST) -> bool:
    """An int written with sizes (x.dim() - 1, len(x.shape) - 1): a dim, not a tensor."""
    return any(
        (isinstance(n, ast.Attribute) and n.attr in ("shape", "ndim"))
        or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("dim", "size"))
        or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len")
        for n in ast.walk(node)
    )


def dotted_name(node: ast.AST) -> str | None:
    """`torch.nn.functional` for that attribute chain of plain names; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _number_text(value: float) -> str:
    return str(int(value)) if math.isfinite(value) and value == int(value) else repr(value)


def _guess(name: str) -> str:
    import difflib  # only for this hint: a parse that succeeds never needs it

    known = sorted(TORCH_SPELLINGS)
    close = difflib.get_close_matches(name, known + list(_SYNONYMS), n=1)
    listed = "see 'gradcli ops' for the list"
    return f"did you mean {_SYNONYMS.get(close[0], close[0])}? {listed}" if close else listed


# torch's names for the tensors of its functions, in the order they take them: matmul(input,
# other), mm(input, mat2), dot(input, tensor), pow(input, exponent), mv(input, vec), ...
_TENSOR_KEYWORDS = ("input", "other", "mat2", "tensor", "exponent", "vec", "mat", "mat1")


class CallBinding:
    """Mixed into parse's parser: the binding of calls and subscripts (plan_call, plan_subscript)."""

    def plan_call(self, node: ast.Call, line: int, col: int, part: int | None = None):
        """A call as PyTorch, NumPy or JAX users write it: f(x), torch.f(x), F.f(x), x.f().

        `part` takes one member of what torch.max(x, dim) returns: 0 values, 1 indices."""
        func = node.func
        receiver: list[ast.AST] = []
        for kw in node.keywords:  # f(__index__=x): a dunder name is refused wherever it is written
            if kw.arg is not None:
                self.check_name(kw.arg, kw.value)
        if isinstance(func, ast.Name):
            self.check_name(func.id, func)
            table, name, written = TORCH_SPELLINGS, func.id, func.id
        elif isinstance(func, ast.Attribute):
            self.check_name(func.attr, func)
            prefix = dotted_name(func.value)
            if prefix in MODULES:  # torch.sin(x), F.relu(x), np.sin(x)
                table, name, written = MODULES[prefix], func.attr, f"{prefix}.{func.attr}"
            elif prefix is not None and prefix.split(".")[0] in _MODULE_ROOTS and "." in prefix:
                raise self.error(f"unknown module '{prefix}'", func.value, hint=_MODULES_HINT)
            else:  # x.sin(), (a*b).sum(dim=0)
                table, name, written = TORCH_SPELLINGS, func.attr, f".{func.attr}()"
                receiver = [func.value]
        else:
            raise self.error("only gradcli's functions and methods can be called", node)
        if receiver and name in ("to", "type") and table is TORCH_SPELLINGS:
            # x.to(torch.float64), x.type(torch.long): the conversion's own method
            name, node = (
                self.dtype_method(node, written),
                ast.copy_location(ast.Call(func=func, args=[], keywords=[]), node),
            )
        spelling = table.get(name)
        module = dotted_name(func.value) if isinstance(func, ast.Attribute) and not receiver else None
        refused = _torch_refuses(name, written, module, bool(receiver)) if spelling is not None else None
        if refused:
            raise self.error(refused[0], func, hint=refused[1])
        if spelling is None:
            if table is NUMPY_SPELLINGS and name in NUMPY_MEANS_OTHER:
                raise self.error(
                    f"'{written}' means NumPy's {name}, which is not torch's", func, hint=NUMPY_MEANS_OTHER[name]
                )
            hint = _NOT_MODELLED.get(name) if receiver else _NOT_IN_PROGRAMS.get(name)
            raise self.error(
                f"unknown {'method' if receiver else 'function'} '{written}'", func, hint=hint or _guess(name)
            )
        if (
            spelling.op in ELEMENTWISE_PICK
            and part is None
            and table is TORCH_SPELLINGS
            and has_other(node, receiver)
        ):
            # torch.max(a, b) / a.max(b) of two tensors: elementwise, torch.maximum (MaximumBackward0)
            spelling = Spelling(ELEMENTWISE_PICK[spelling.op])
            other = [kw.value for kw in node.keywords if kw.arg == "other"]
            node = ast.copy_location(
                ast.Call(
                    func=node.func,
                    args=[*node.args, *other],
                    keywords=[kw for kw in node.keywords if kw.arg != "other"],
                ),
                node,
            )
        if spelling.op == "clamp":  # tensor bounds are torch's other overload, clamp.Tensor
            spelling, node = self.clamp_overload(node, receiver, spelling)
        if spelling.op == "div":  # rounding_mode= is torch's div.Tensor_mode, DivBackward2
            spelling, node = self.div_overload(node, spelling)
        if spelling.op in WEIGHTED and not receiver:  # weight= / pos_weight=: the weighted record
            spelling, node = self.weighted_overload(node, spelling)
        paired = spelling.op in PICKED and (spelling.op in ALWAYS_PAIRED or has_dim(node, receiver))
        if part is not None:
            if not paired:
                raise self.error(f"{written} returns one tensor: it has no .values or [0]", node)
            spelling = Spelling(PICKED[spelling.op][part], renames=spelling.renames)
        elif paired and spelling.op in ALWAYS_PAIRED:
            raise self.error(
                f"{written} returns (values, indices): take .values or .indices (or [0], [1])", node
            )
        elif paired:
            raise self.error(
                f"{written} with a dim returns (values, indices): take .values or .indices "
                f"(or [0], [1]), or write {spelling.op}(x) over every element",
                node,
            )
        positional = receiver + list(node.args)
        keywords = list(node.keywords)
        if spelling.op in LISTED:  # torch.cat([a, b], 1): the list's tensors are the operands
            if receiver:  # torch has no x.cat(...)
                raise self.error(f"unknown method '{written}'", func, hint=_guess(name))
            op, positional, keywords = self.listed(node, spelling.op, written, positional, keywords)
        else:
            op = REGISTRY.get(spelling.op) or COMPOSITES[spelling.op]
        if spelling.op not in LISTED:  # torch.matmul(input=a, other=b): torch's names for its tensors
            positional, keywords = self.tensor_keywords(op, written, positional, keywords, node)
        if op.name in SIGNATURES:  # torch.gather(x, 1, index): a param between the tensors
            positional, keywords = self.by_signature(node, op, written, positional, keywords)
        for arg in positional:
            if isinstance(arg, ast.Starred):
                raise self.error("starred arguments are not allowed", arg)
        tensors = op.arity - len(spelling.numbers)
        operands, extra = positional[:tensors], positional[tensors:]
        optional = op.optional if isinstance(op, Composite) else 0
        while optional and operands and _is_none(operands[-1]) and len(operands) > tensors - optional:
            operands.pop()  # F.linear(x, W, None): the optional operand left out
        params = {param.name: param for param in op.params}
        positional_params = [param.name for param in op.params if not param.keyword_only]
        last = params[positional_params[-1]] if positional_params else None
        if last is not None and last.kind == "ints" and len(extra) > len(positional_params):
            # x.reshape(2, 3), x.permute(1, 0), torch.ones(2, 3): the last param takes the remaining ints
            tail = len(positional_params) - 1
            extra = [*extra[:tail], ast.Tuple(elts=extra[tail:], ctx=ast.Load(), lineno=line, col_offset=0)]
        if len(operands) < tensors - optional or len(extra) > len(positional_params):
            given = len(positional)
            most = tensors + len(positional_params)
            expected = f"{tensors - optional}" + (f" to {most}" if most > tensors - optional else "")
            shown = written if receiver else f"{written}()"
            raise self.error(f"{shown} takes {expected} argument(s) ({given} given)", node)
        given_attrs: dict[str, ast.AST] = dict(zip(positional_params, extra))
        renames = dict(spelling.renames)
        for kw in keywords:
            if kw.arg is None:
                raise self.error("'**' arguments are not allowed", kw.value)
            key = renames.get(kw.arg, kw.arg)
            if key not in params:
                raise self.error(f"{written} got an unexpected keyword argument '{kw.arg}'", kw.value)
            if key in given_attrs:
                raise self.error(f"{written} got multiple values for argument '{kw.arg}'", kw.value)
            given_attrs[key] = kw.value
        attrs = {param.name: param.default for param in op.params}
        for key, value_node in given_attrs.items():
            attrs[key] = self.attribute(params[key], value_node, written)
        numbers = tuple(Num(v, _number_text(v), line, col) for v in spelling.numbers)
        if isinstance(op, Composite):
            return operands, lambda *args: self.composed(op, (*args, *numbers), attrs, line, col)
        frozen = tuple(attrs.items())
        return operands, lambda *args: Apply(op.name, (*args, *numbers), line, col, frozen)

    def tensor_keywords(
        self, op: Any, written: str, positional: list, keywords: list, node: ast.Call
    ) -> tuple[list, list]:
        """Tensors given by torch's keyword names (`input=` first, then `other=`, `mat2=`, ...)
        are the op's operands in that order, as torch's signatures bind them."""
        params = {param.name for param in op.params}
        named = {kw.arg: kw.value for kw in keywords if kw.arg in _TENSOR_KEYWORDS and kw.arg not in params}
        if not named:
            return positional, keywords
        if "input" in named and positional:
            raise self.error(f"{written}() got multiple values for argument 'input'", node)
        ordered = [*positional, *(named[name] for name in _TENSOR_KEYWORDS if name in named)]
        return ordered, [kw for kw in keywords if kw.arg not in named]

    def clamp_overload(self, node: ast.Call, receiver: list, spelling: Spelling) -> tuple[Spelling, ast.Call]:
        """torch.clamp(x, lo, hi) with a tensor bound: the clamp_tensor record, with a bound left
        out written as an infinite number (torch takes both bounds as numbers or as tensors)."""
        renames = dict(spelling.renames)
        given: dict[str, ast.AST] = dict(zip(("input", "min", "max"), receiver + list(node.args)))
        for kw in node.keywords:
            if kw.arg is not None:
                given[renames.get(kw.arg, kw.arg)] = kw.value
        bounds = {k: v for k, v in given.items() if k in ("min", "max") and not _is_none(v)}

        def number(value: ast.AST) -> bool:
            return self.scalar_literal(value) is not None or _is_size(value)

        if all(number(v) for v in bounds.values()):
            return spelling, node
        if any(number(v) for v in bounds.values()):
            raise self.error(
                "clamp() received an invalid combination of arguments: torch takes both bounds as "
                "tensors or both as numbers",
                node,
            )
        keywords = [kw for kw in node.keywords if renames.get(kw.arg, kw.arg) not in ("min", "max")]
        for key, far in (("min", -math.inf), ("max", math.inf)):
            bound = bounds.get(key)
            keywords.append(ast.keyword(arg=key, value=bound if bound is not None else ast.Constant(far)))
        args = [] if receiver else node.args[:1]  # the input; the bounds go by keyword now
        call = ast.Call(func=node.func, args=args, keywords=keywords)
        return Spelling("clamp_tensor"), ast.copy_location(call, node)

    def div_overload(self, node: ast.Call, spelling: Spelling) -> tuple[Spelling, ast.Call]:
        """torch.div(a, b, rounding_mode='floor' or 'trunc'): the _div_rounded record (a rounded
        quotient, zero gradients); rounding_mode=None written out is true division, but recorded
        by the same overload (DivBackward2)."""
        mode = next((kw for kw in node.keywords if kw.arg == "rounding_mode"), None)
        if mode is None:
            return spelling, node
        if _is_none(mode.value):  # still div.Tensor_mode for torch: DivBackward2, true division
            others = [kw for kw in node.keywords if kw is not mode]
            written = ast.keyword(
                arg="rounding_mode", value=ast.copy_location(ast.Constant("none"), mode.value)
            )
            call = ast.Call(func=node.func, args=node.args, keywords=[*others, written])
            return Spelling("_div_rounded", renames=spelling.renames), ast.copy_location(call, node)
        value = mode.value.value if isinstance(mode.value, ast.Constant) else None
        if value not in ("floor", "trunc"):
            found = f"'{value}'" if isinstance(value, str) else "a non-string"
            raise self.error(
                f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {found}",
                mode.value,
            )
        return Spelling("_div_rounded", renames=spelling.renames), node

    def weighted_overload(self, node: ast.Call, spelling: Spelling) -> tuple[Spelling, ast.Call]:
        """F.nll_loss(x, y, weight=w), F.binary_cross_entropy(p, y, w), F.binary_cross_entropy_with_logits(
        x, y, weight=w, pos_weight=pw): the loss's weighted record, its weights as operands (one left
        out is the number 1 and a flag says so); weight=None is the plain record, as in torch."""
        record, extras = WEIGHTED[spelling.op]
        if len(node.args) > 3:
            return spelling, node  # size_average and reduce positionally: the binder's own refusal
        weights: dict[str, ast.AST] = dict(zip(("weight",), node.args[2:]))
        keywords = []
        for kw in node.keywords:
            if kw.arg in extras:
                if kw.arg in weights:
                    raise self.error(f"{spelling.op}() got multiple values for argument '{kw.arg}'", kw.value)
                weights[kw.arg] = kw.value
            else:
                keywords.append(kw)
        given = {name: value for name, value in weights.items() if not _is_none(value)}
        if not given:  # every weight None or left out: the unweighted loss
            return spelling, ast.copy_location(
                ast.Call(func=node.func, args=node.args[:2], keywords=keywords), node
            )
        for name in extras:
            value = given.get(name, ast.copy_location(ast.Constant(1.0), node))
            keywords.append(ast.keyword(arg=name, value=value))
        if len(extras) > 1:  # which of weight and pos_weight were given
            for flag, name in (("weighted", "weight"), ("pos_weighted", "pos_weight")):
                keywords.append(
                    ast.keyword(arg=flag, value=ast.copy_location(ast.Constant(name in given), node))
                )
        call = ast.Call(func=node.func, args=node.args[:2], keywords=keywords)
        return Spelling(record, renames=spelling.renames), ast.copy_location(call, node)

    def dtype_method(self, node: ast.Call, written: str) -> str:
        """The method x.to(dtype) / x.type(dtype) means: float, long or bool (torch's dtype names)."""
        given = list(node.args) + [kw.value for kw in node.keywords if kw.arg == "dtype"]
        others = [kw for kw in node.keywords if kw.arg != "dtype"]
        dotted = dotted_name(given[0]) if len(given) == 1 and not others else None
        method = (
            _DTYPE_METHODS.get(dotted.split(".", 1)[-1]) if dotted and dotted.startswith("torch.") else None
        )
        if method is None:
            raise self.error(
                f"{written} takes one torch dtype here (torch.float64, torch.long, torch.bool); "
                "devices and other tensors are not part of a gradcli program",
                node,
            )
        return method

    def by_signature(
        self, node: ast.Call, op: Any, written: str, positional: list, keywords: list
    ) -> tuple[list, list]:
        """The call's arguments bound by torch's names and order (ops.SIGNATURES), returned as
        the operands in order and the params as keywords: x.gather(1, i) is gather(x, i, dim=1)."""
        signature = SIGNATURES[op.name]
        params = {param.name for param in op.params}
        shown = written if written.endswith("()") else f"{written}()"
        if len(positional) > len(signature):
            raise self.error(f"{shown} takes {len(signature)} arguments ({len(positional)} given)", node)
        bound: dict[str, ast.AST] = dict(zip(signature, positional))
        rest = []
        for kw in keywords:
            if kw.arg in signature:
                if kw.arg in bound:
                    raise self.error(f"{written} got multiple values for argument '{kw.arg}'", kw.value)
                bound[kw.arg] = kw.value
            else:
                rest.append(kw)
        operands = []
        tensors = [name for name in signature if name not in params]
        optional = tensors[len(tensors) - getattr(op, "optional", 0) :]  # F.linear's bias
        for name in signature:
            if name in params:
                if name in bound:
                    rest.append(ast.keyword(arg=name, value=bound[name]))
            elif name not in bound:
                if name in optional and not any(later in bound for later in optional[optional.index(name) :]):
                    continue  # left out: the trailing optional operands are None
                if name in optional:  # F.layer_norm(x, shape, bias=b): a gap before a given operand
                    raise self.error(
                        f"{shown} without '{name}' but with a later tensor is not supported; give {name}= too",
                        node,
                    )
                raise self.error(f"{shown} missing 1 required argument: '{name}'", node)
            else:
                operands.append(bound[name])
        return operands, rest

    def listed(
        self, node: ast.Call, name: str, written: str, positional: list, keywords: list
    ) -> tuple[Any, list, list]:
        """The record for a call that takes its tensors as one list, and the call's arguments
        with the list's elements as its operands: torch.cat([a, b], 1) is cat2(a, b, dim=1)."""
        given = [kw for kw in keywords if kw.arg == "tensors"]
        if positional:
            sequence, rest = positional[0], positional[1:]
        elif given:
            sequence, rest = given[0].value, []
        else:
            raise self.error(f"{written}() missing 1 required positional argument: 'tensors'", node)
        keywords = [kw for kw in keywords if kw.arg != "tensors"]
        if not isinstance(sequence, (ast.List, ast.Tuple)):
            raise self.error(
                f"{written}() takes its tensors as one list, as in {written}([a, b], dim=0)", sequence
            )
        elements = list(sequence.elts)
        if not elements:
            raise self.error(LISTED_EMPTY.get(name, f"{written}() expects a non-empty list"), sequence)
        for position, element in enumerate(elements):
            if isinstance(element, ast.Starred):
                raise self.error("starred arguments are not allowed", element)
            if isinstance(element, ast.Constant) and type(element.value) in (int, float):
                kind = type(element.value).__name__
                raise self.error(
                    f"expected Tensor as element {position} in argument 0, but got {kind}", element
                )
        found = LISTED[name].record(len(elements))
        if found is None:
            raise self.error(
                f"{written}() joins at most {MAX_JOINED:,} tensors in one call here ({len(elements):,} given)",
                sequence,
                hint=f"join them in steps: {written}([{written}([a, b]), c]) gives the same values",
            )
        return found, elements + rest, keywords

    def plan_subscript(self, node: ast.Subscript, line: int, col: int):
        """x[0, 1:3], x[..., -1], x[:, [2, 0]], x[range(3), y]: the nodes PyTorch records.

        Basic indices become select/slice nodes in order (a full `:` inside a tuple records
        nothing, as in torch); integer lists, range(n) and index tensors become one index
        node applied after them. Indices after `...` count from the end."""
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        single = not isinstance(node.slice, ast.Tuple)
        ellipsis = [i for i, e in enumerate(elements) if isinstance(e, ast.Constant) and e.value is Ellipsis]
        if len(ellipsis) > 1:
            raise self.error("an index can only have a single ellipsis ('...')", node)
        # ("select", dim, i) / ("slice", dim, a, b, c) / ("unsqueeze", dim) / ("advanced", dim, entry)
        steps: list[tuple] = []
        tensors: list[ast.AST] = []
        after = ellipsis[0] if ellipsis else len(elements)
        consuming = [not (isinstance(e, ast.Constant) and e.value is None) for e in elements]
        dim = 0
        literal_total = 0
        for position, element in enumerate(elements):
            if position == after:
                continue
            if position > after:  # after `...`: count the dims from the end
                dim = -sum(consuming[position:])
            if isinstance(element, ast.Constant) and element.value is None:
                # a new axis here: torch's unsqueeze, in order with the selects and slices
                if position > after:  # after `...`: before the k dims still to come, -(k + 1)
                    steps.append(("unsqueeze", dim - 1))
                else:
                    steps.append(("unsqueeze", dim))
                    dim += 1
                continue
            if isinstance(element, ast.Slice):
                start, end, step = (
                    None if part is None else self.int_literal(part, "a slice bound")
                    for part in (element.lower, element.upper, element.step)
                )
                if step is not None and step <= 0:
                    raise self.error("step must be greater than zero", element)
                full = start is None and end is None and step in (None, 1)
                if not full or single:
                    steps.append(("slice", dim, start, end, 1 if step is None else step))
                dim = dim + 1 if dim >= 0 else dim
                continue
            literal = self.index_literal(element)
            if isinstance(literal, tuple):
                literal_total += len(literal)
                limits.check(
                    literal_total,
                    limits.MAX_INDEX_LITERAL,
                    "index literals in one subscript",
                    "MAX_INDEX_LITERAL",
                )
            if isinstance(literal, int):
                steps.append(("select", dim, literal, position))
                continue
            if position > after and dim < 0:
                raise self.error("list and tensor indices after '...' are not supported", element)
            if literal is not None:
                steps.append(("advanced", dim, ("list", literal)))
            else:
                steps.append(("advanced", dim, ("tensor", len(tensors))))
                tensors.append(element)
            dim += 1

        indexed = sum(consuming) - len(ellipsis)  # dims the subscript indexes (a mask counts one)

        def build(value: Expr, *index_exprs: Expr) -> Expr:
            result = value
            advanced: dict[int, tuple] = {}
            first: int | None = indexed  # the dims check rides on the first node
            for step in steps:
                if step[0] == "select":
                    attrs = (("dim", step[1]), ("index", step[2]))
                    result = Apply("select", (result,), line, col, attrs, (step[3], first))
                elif step[0] == "slice":
                    attrs = (("dim", step[1]), ("start", step[2]), ("end", step[3]), ("step", step[4]))
                    result = Apply("slice", (result,), line, col, attrs, (-1, first))
                elif step[0] == "unsqueeze":
                    result = Apply("unsqueeze", (result,), line, col, (("dim", step[1]),), (-1, first))
                else:
                    advanced[step[1]] = step[2]
                    continue
                first = None
                self.count_operation()
            if advanced:
                key = tuple(advanced.get(d, ("all",)) for d in range(max(advanced) + 1))
                name = "index" if not index_exprs else f"index{len(index_exprs)}"
                if name not in REGISTRY:
                    raise self.error("one index tensor per subscript is supported; index in two steps", node)
                result = Apply(name, (result, *index_exprs), line, col, (("key", key),), (-1, first))
            return result

        return [node.value, *tensors], build

    def index_literal(self, node: ast.AST) -> int | tuple | Deferred | None:
        """An int, or a (nested) list of ints / range(...) as a tuple; None for a tensor expression."""
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
        ):
            node_value = node.operand.value
            if type(node_value) is int:
                return -node_value
        if isinstance(node, ast.Constant):
            if type(node.value) is int:
                return node.value
            raise self.error(f"{node.value!r} cannot index a tensor; use integers, slices or lists", node)
        if isinstance(node, (ast.List, ast.Tuple)):
            # A flat list of ints: PyTorch reads a nested one as a tuple of indices, a
            # meaning too easy to get wrong; x[[0, 1], [2, 2]] says it plainly.
            limits.check(len(node.elts), limits.MAX_INDEX_LITERAL, "index list length", "MAX_INDEX_LITERAL")
            items = []
            for item in node.elts:
                value = self.index_literal(item) if not isinstance(item, (ast.List, ast.Tuple)) else None
                if not isinstance(value, int):
                    raise self.error("an index list holds integer literals, as in x[[0, 2]]", item)
                items.append(value)
            return tuple(items)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "list"
            and len(node.args) == 1
            and not node.keywords
        ):  # list(range(len(y))): the same indices as range(len(y))
            inner = node.args[0]
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "range":
                return self.index_literal(inner)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "arange"
            and dotted_name(node.func.value) in ("torch", "np", "numpy", "jnp")
        ):  # torch.arange(n) as an index: the integers range(n) gives (int64, as torch's)
            node = ast.copy_location(
                ast.Call(func=ast.Name(id="range"), args=node.args, keywords=node.keywords), node
            )
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            if not 1 <= len(node.args) <= 3 or node.keywords:
                raise self.error("range() takes 1 to 3 integers here", node)
            if not all(_is_int_literal(arg) for arg in node.args):  # range(len(x)): settled later
                exprs = []
                for arg in node.args:
                    expr, names = self.convert(arg)
                    self.attr_names.extend(names)
                    exprs.append(expr)
                return Deferred(tuple(exprs), "range()'s arguments", kind="range")
            bounds = [self.int_literal(arg, "range()'s arguments") for arg in node.args]
            if any(b is None for b in bounds):
                raise self.error("range() takes 1 to 3 integers here", node)
            span = range(*bounds)  # type: ignore[arg-type]
            # counted before a single element is made: range(10**8) must cost nothing
            limits.check(len(span), limits.MAX_INDEX_LITERAL, "range() length", "MAX_INDEX_LITERAL")
            return tuple(span)
        return None

    def composed(self, composite: Composite, args: tuple, attrs: dict, line: int, col: int) -> Expr:
        """A composite call's expression: the nodes PyTorch records for it."""

        def apply(name: str, *operands: Any, **given: Any) -> Apply:
            op = REGISTRY[name]
            values = {param.name: param.default for param in op.params}
            values.update(given)
            exprs = tuple(
                Num(float(o), _number_text(float(o)), line, col) if isinstance(o, (int, float)) else o
                for o in operands
            )
            self.count_operation()
            return Apply(name, exprs, line, col, tuple(values.items()))

        if composite.shaped:
            padded = (*args, *(None,) * (composite.arity - len(args)))
            if any(isinstance(a, (Num, Ref, Apply)) for a in args):
                # A program: the shapes are known once the graph is built, which expands the call.
                self.count_operation()
                return Apply(composite.name, tuple(args), line, col, tuple(attrs.items()))
            # `gradcli run` binds tensors that already have shapes: expand the call now.
            shapes = tuple(None if a is None else tuple(getattr(a, "shape", ())) for a in padded)
            kinds = tuple(_dtype_kind(a) for a in padded)
            layouts = tuple(_element_strides(a) for a in padded)
            return composite.build(apply, *padded, shapes=shapes, dtypes=kinds, strides=layouts, **attrs)
        return composite.build(apply, *args, **attrs)

    def attribute(self, param: Param, node: ast.AST, written: str) -> Any:
        """A non-tensor argument: a literal of the kind PyTorch takes there (never evaluated)."""
        if param.kind == "bool":
            return self.bool_literal(node, param.name)
        if param.kind == "choice":
            if isinstance(node, ast.Constant) and node.value in param.choices:
                return node.value
            allowed = ", ".join(repr(c) for c in param.choices)
            if param.refusal and isinstance(node, ast.Constant):
                raise self.error(
                    param.refusal.format(value=node.value), node, hint=f"{param.name} is one of {allowed}"
                )
            raise self.error(f"{written}: {param.name} must be one of {allowed}", node)
        if param.kind == "data":
            return self.data_literal(node, written)
        if param.kind == "dtype":
            return self.dtype_literal(node, written)
        if isinstance(node, ast.Constant) and node.value is None and param.default is None:
            return None
        if param.kind == "scalar":  # arange's bounds: an int stays an int (torch.arange(4) is int64)
            number = self.scalar_literal(node)
            return number if number is not None else self.sized(node, param.name)
        if param.kind == "ints":
            if param.choices and isinstance(node, ast.Constant) and isinstance(node.value, str):
                return node.value  # F.conv2d's padding='same': the op says torch's words for others
            if isinstance(node, ast.Attribute) and node.attr == "shape":  # x.view(y.shape)
                expr, names = self.convert(node.value)
                self.attr_names.extend(names)
                return Deferred((expr,), param.name, kind="shape")
            items = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
            values = tuple(self.sized(item, param.name) for item in items)
            if any(v is None or (isinstance(v, int) and abs(v) > limits.MAX_ELEMENTS) for v in values):
                raise self.error(f"{param.name} must be integer literals", node)
            return values
        if param.kind == "dims" and isinstance(node, (ast.Tuple, ast.List)):
            # x.sum(dim=(1, 2)): several dims at once, as torch's sum and mean take them
            dims = tuple(self.sized(item, param.name) for item in node.elts)
            if any(d is None or (isinstance(d, int) and abs(d) > limits.MAX_ELEMENTS) for d in dims):
                raise self.error(f"{param.name} must be integer literals", node)
            return dims
        if param.kind in ("dim", "dims", "int"):
            value = self.sized(node, param.name)
            if value is None or (isinstance(value, int) and abs(value) > limits.MAX_ELEMENTS):
                raise self.error(f"{param.name} must be an integer literal", node)
            return value
        sign, inner = 1.0, node  # "number": 0.2, -1, 1e-3
        while isinstance(inner, ast.UnaryOp) and isinstance(inner.op, (ast.USub, ast.UAdd)):
            sign = -sign if isinstance(inner.op, ast.USub) else sign
            inner = inner.operand
        if isinstance(inner, ast.Name) and inner.id in ("inf", "pi", "e") and inner.id not in self.shadowed:
            return sign * (math.inf if inner.id == "inf" else CONSTANTS[inner.id])
        if float_call(inner) is not None:  # masked_fill(mask, float('-inf'))
            return sign * float_call(inner)
        dotted = dotted_name(inner) or ""
        if dotted.rpartition(".")[0] in MODULES and dotted.rpartition(".")[2] in ("inf", "nan", "pi", "e"):
            return sign * CONSTANTS[dotted.rpartition(".")[2]]  # math.inf, torch.inf, np.nan
        if isinstance(inner, ast.Constant) and type(inner.value) in (int, float):
            return sign * float(inner.value)
        raise self.error(f"{param.name} must be a number literal", node)

    def scalar_literal(self, node: ast.AST) -> int | float | bool | None:
        """A number as written, keeping its Python type (2 is an int, 2. a float, True a bool):
        -1, 1e-3, pi, inf; None if the node is not such a literal."""
        sign, inner = 1, node
        while isinstance(inner, ast.UnaryOp) and isinstance(inner.op, (ast.USub, ast.UAdd)):
            sign = -sign if isinstance(inner.op, ast.USub) else sign
            inner = inner.operand
        if isinstance(inner, ast.Constant) and type(inner.value) in (int, float, bool):
            value = inner.value
            if inner is node:
                return value
            return sign * (int(value) if isinstance(value, bool) else value)
        if float_call(inner) is not None:
            return sign * float_call(inner)
        dotted = dotted_name(inner)
        name = dotted.rsplit(".", 1)[-1] if dotted else None
        if name in CONSTANTS and (
            (dotted == name and name not in self.shadowed) or dotted.rsplit(".", 1)[0] in MODULES
        ):
            return sign * CONSTANTS[name]
        return None

    def data_literal(self, node: ast.AST, written: str) -> Any:
        """torch.tensor's data: a number, or nested lists/tuples of numbers, as nested tuples.

        Only literals are read (the brackets are already bounded by MAX_NESTING), so a
        constant is fixed when the program is parsed, as a --const is."""
        count = 0

        def read(item: ast.AST) -> Any:
            nonlocal count
            if isinstance(item, (ast.List, ast.Tuple)):
                return tuple(read(element) for element in item.elts)
            count += 1
            limits.check(count, limits.MAX_INDEX_LITERAL, "numbers in a tensor literal", "MAX_INDEX_LITERAL")
            value = self.scalar_literal(item)
            if value is None:
                raise self.error(
                    f"{written} takes numbers here (nested lists of number literals); "
                    "a tensor in a program comes from --at or --const, or from an op",
                    item,
                )
            return value

        return read(node)

    def dtype_literal(self, node: ast.AST, written: str) -> str | None:
        """dtype=torch.float64 / torch.long / torch.bool (NumPy's np.float32, np.int64 too)."""
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        dotted = dotted_name(node) or ""
        module, _, name = dotted.rpartition(".")
        if module in MODULES or (not module and name in ("float", "int", "bool")):
            kind = _DTYPE_NAMES.get(
                name if module in ("", "np", "numpy", "jnp", "jax.numpy") else f"torch.{name}"
            )
            if kind is not None:
                return kind
        raise self.error(
            f"{written}: dtype must be torch.float64, torch.float32, torch.long or torch.bool here "
            "(gradcli computes floats in one dtype, --dtype)",
            node,
        )

    def sized(self, node: ast.AST, what: str) -> int | None | Deferred:
        """An int argument: a literal, or an expression of sizes (`x.shape[0]`, `len(x) // 2`)
        that the graph settles once shapes are known."""
        if _is_int_literal(node) or isinstance(node, ast.Constant):
            return self.int_literal(node, what)
        expr, names = self.convert(node)
        self.attr_names.extend(names)
        return Deferred((expr,), what)
