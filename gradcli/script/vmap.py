"""torch.func.vmap of the script's functions: the function run once per slice along the mapped
dimension, its results stacked along `out_dims`.

That is vmap's meaning (torch batches the ops instead, which changes nothing in the numbers of
the ops gradcli has); the results carry StackBackward0 where torch's batched graph has its ops'
own nodes, so a result that requires grad names another grad_fn than torch's."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from .autograd_api import python_arguments
from .runtime import ScriptError, ScriptRuntimeError, Tensor

_PARAMS = ("func", "in_dims", "out_dims", "randomness", "chunk_size")
_DEFAULTS = (0, 0, "error", None)


RANDOM_IN_VMAP = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
    "'different' randomness flags on vmap or perform the randomness operation out of vmap"
)


class Vectorising:
    """Mixed into Interpreter (FuncAPI hands it torch.func.vmap and the functions it makes)."""

    vmapping: tuple[str, ...] = ()  # the randomness= of each vmapped call running, innermost last

    def make_vmap(self, args: list, kwargs: dict, node: ast.AST) -> Any:
        from .func_api import Transformed, _function_node

        given = dict(zip(_PARAMS, python_arguments("vmap", _PARAMS, 1, _DEFAULTS, args, kwargs)))
        if given["randomness"] not in ("error", "different", "same"):
            raise ScriptRuntimeError(
                "Only allowed values for randomness are 'error', 'different', or 'same'. "
                f"Got {given['randomness']}"
            )
        size = given["chunk_size"]
        if size is not None and (not isinstance(size, int) or size <= 0):
            raise ScriptRuntimeError(
                f"vmap: chunk_size should be None or greater than 0. (got {size})", "ValueError"
            )
        func = given.pop("func")
        return Transformed(_function_node(func), kind="vmap", func=func, options=given)

    def vmap_call(self, t: Any, args: list, kwargs: dict, node: ast.AST) -> Any:
        in_dims, out_dims = t.options["in_dims"], t.options["out_dims"]
        name = getattr(t.node, "name", "wrapper_fn")
        where = f"vmap({name}, in_dims={self.shown(in_dims, set())}, ...)(<inputs>)"
        if isinstance(in_dims, tuple):
            if len(in_dims) != len(args):
                raise ScriptRuntimeError(
                    f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                    f"{_tree_spec(len(in_dims))} but inputs has structure {_tree_spec(len(args))}.",
                    "ValueError",
                )
            dims = list(in_dims)
        elif isinstance(in_dims, int) and not isinstance(in_dims, bool):
            dims = [in_dims] * len(args)
        else:
            raise ScriptRuntimeError(
                f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the structure "
                f"of inputs, got: {self.shown(self.type_of(in_dims), set())}.",
                "ValueError",
            )
        sizes = []
        for arg, dim in zip(args, dims):
            if dim is None:
                continue
            if not isinstance(dim, int) or isinstance(dim, bool):
                raise ScriptError(
                    f"line {self.line}: vmap in_dims of nested structures are not supported by gradcli run"
                )
            if not isinstance(arg, Tensor):
                raise ScriptRuntimeError(
                    f"{where}: Got in_dim={dim} for an input but the input is of type "
                    f"{self.shown(self.type_of(arg), set())}. We cannot vmap over non-Tensor arguments, "
                    "please use None as the respective in_dim",
                    "ValueError",
                )
            rank = len(arg.shape)
            if not -rank <= dim < rank:
                raise ScriptRuntimeError(
                    f"{where}: Got in_dim={dim} for some input, but that input is a Tensor of dimensionality "
                    f"{rank} so expected in_dim to satisfy -{rank} <= in_dim < {rank}.",
                    "ValueError",
                )
            sizes.append(arg.shape[dim])
        if not sizes:
            raise ScriptRuntimeError(
                "vmap: Expected at least one Tensor to vmap over",
                "ValueError",
            )
        if len(set(sizes)) > 1:
            raise ScriptRuntimeError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                f"{sizes} for the mapped dimension",
                "ValueError",
            )
        if sizes[0] == 0:
            raise ScriptError(f"line {self.line}: vmap over a dimension of size 0 is not supported by gradcli run")
        results = []
        self.vmapping = (*self.vmapping, t.options["randomness"])
        try:
            for i in range(sizes[0]):
                sliced = [
                    arg if dim is None else self.torch_call("select", [arg, dim, i], {}, node)
                    for arg, dim in zip(args, dims)
                ]
                results.append(self.invoke(t.func, sliced, kwargs, node))
        finally:
            self.vmapping = self.vmapping[:-1]
        return self.stacked(results, out_dims, node, getattr(t.node, "name", "wrapper_fn"))

    def stacked(self, results: list, out_dims: Any, node: ast.AST, name: str = "wrapper_fn") -> Any:
        first = results[0]
        if isinstance(first, (tuple, list)):
            dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(first)
            if len(dims) != len(first):
                raise ScriptRuntimeError(
                    f"vmap({name}, ..., out_dims={self.shown(out_dims, set())})(<inputs>): out_dims is not "
                    f"compatible with the structure of `outputs`. out_dims has structure {_tree_spec(len(dims))} "
                    f"but outputs has structure {_tree_spec(len(first), type(first).__name__)}.",
                    "ValueError",
                )
            parts = [self.stacked([r[k] for r in results], dims[k], node, name) for k in range(len(first))]
            return tuple(parts) if isinstance(first, tuple) else parts
        if isinstance(first, dict) and not isinstance(out_dims, tuple):
            return {key: self.stacked([r[key] for r in results], out_dims, node, name) for key in first}
        if isinstance(out_dims, tuple):
            raise ScriptRuntimeError(
                f"vmap({name}, ..., out_dims={self.shown(out_dims, set())})(<inputs>): out_dims is not "
                f"compatible with the structure of `outputs`. out_dims has structure {_tree_spec(len(out_dims))} "
                "but outputs has structure *.",
                "ValueError",
            )
        if not isinstance(first, Tensor):
            raise ScriptRuntimeError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                f"{self.shown(self.type_of(first), set())}. Did you mean to set out_dims= to None for output?",
                "ValueError",
            )
        if out_dims is None:  # torch refuses a batched output here: slices that differ are one
            if any(r.shape != first.shape or not np.array_equal(r.value, first.value) for r in results[1:]):
                raise ScriptRuntimeError(
                    f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None", "ValueError"
                )
            return first
        stacked = self.torch_call("stack", [results], {"dim": out_dims}, node)
        if stacked.requires_grad:  # torch's batched graph ends in its ops' own nodes, not a stack
            stacked.__dict__["vmapped"] = True
        return stacked


def _tree_spec(count: int, kind: str = "tuple") -> str:
    """torch.utils._pytree's repr of a flat tuple (or list) of `count` leaves."""
    return f"TreeSpec({kind}, None, [" + ",\n  ".join(["*"] * count) + "])"
