"""What torch 2.13 saves for each grad_fn the op cases make: the tensors, in the order its
saved-tensor pack hooks see them (and which operands' gradients need each), and the other
values its `_saved_*` attributes give. gradcli/script/saved_table.py is written from this
(GRADCLI_REGEN_GOLDEN=1 python -m pytest tests/test_run_saved_tensors.py), and
tests/test_run_saved_tensors.py checks that table against it."""

from __future__ import annotations

import warnings
from typing import Any

import torch
from oracle import TORCH_OPS
from test_ops import CASES, torch_arguments

from gradcli.ops import REGISTRY


def _source(x: torch.Tensor, args: list[Any], outs: tuple) -> str | int:
    for position, a in enumerate(args):
        if x is a:
            return position
    if (
        outs
        and isinstance(outs[0], torch.Tensor)
        and x.data_ptr() == outs[0].data_ptr()
        and x.shape == outs[0].shape
    ):
        return "result"
    return "?"


def _run(case, wanted: set[int]) -> tuple[Any, list, tuple] | None:
    args = torch_arguments(case, wanted)
    packed: list[torch.Tensor] = []

    def pack(x: torch.Tensor) -> torch.Tensor:
        packed.append(x)
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
                out = TORCH_OPS[case.op](*args, **case.attrs)
        except Exception:  # noqa: BLE001 - cases made to fail in torch
            return None
    outs = out if isinstance(out, tuple) else (out,)
    fn = getattr(outs[0], "grad_fn", None)
    if fn is None:
        return None
    return fn, [_source(x, args, outs) for x in packed], args


def _kind(value: Any) -> str:
    return "none" if value is None else type(value).__name__


def probe() -> dict[str, tuple[tuple, tuple]]:
    """grad_fn name -> (saved tensors as (name, source, needed by which operands), in pack order;
    other saved values as (name, kind), by name)."""
    table: dict[str, tuple[tuple, tuple]] = {}
    for case in CASES:
        if not REGISTRY[case.op].differentiable:
            continue
        grads = [
            p
            for p, o in enumerate(case.operands)
            if not isinstance(o, float) and p not in case.integers and p not in case.masks
        ]
        every = _run(case, set(grads))
        if every is None or every[0].name() in table:
            continue
        fn, order, _ = every
        names = [a[len("_saved_") :] for a in dir(fn) if a.startswith("_saved_")]
        tensors = {}
        values = []
        for name in names:
            value = getattr(fn, f"_saved_{name}")
            if isinstance(value, torch.Tensor) or (
                isinstance(value, tuple) and value and isinstance(value[0], torch.Tensor)
            ):
                tensors[name] = None
            else:
                values.append((name, _kind(value)))
        # which tensor name each packed tensor is: match by the operand or result it came from
        by_source: dict[Any, list[str]] = {}
        for name in tensors:
            value = getattr(fn, f"_saved_{name}")
            source = "?" if isinstance(value, tuple) else _source(value, every[2], ())
            if source == "?" and name == "result":
                source = "result"
            if source == "?" and isinstance(value, torch.Tensor):
                source = next(
                    (
                        p
                        for p, a in enumerate(every[2])
                        if isinstance(a, torch.Tensor)
                        and a.data_ptr() == value.data_ptr()
                        and a.shape == value.shape
                    ),
                    "?",
                )
            by_source.setdefault(source, []).append(name)
        needed: dict[str, list[int]] = {name: [] for name in tensors}
        for position in grads:
            alone = _run(case, {position})
            if alone is None:
                continue
            saved_alone = {n for n in tensors if getattr(alone[0], f"_saved_{n}") is not None}
            for n in saved_alone:
                needed[n].append(position)
        ordered = []
        for source in order:
            candidates = by_source.get(source, [])
            name = next((n for n in candidates if n not in [o[0] for o in ordered]), None)
            if name is None:
                name = next(
                    (
                        n
                        for n in tensors
                        if n not in [o[0] for o in ordered] and n not in sum(by_source.values(), [])
                    ),
                    "?",
                )
            if name != "?":  # a tensor another node of a composite saves (matmul's MmBackward0)
                ordered.append((name, source, tuple(needed.get(name, ()))))
        table[fn.name()] = (tuple(ordered), tuple(sorted(values)))
    return table
