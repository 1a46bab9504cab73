"""Cases for the shape family (gradcli/ops/shape.py): every op on 0-d to 3-d operands, -1 sizes, negative dims."""

from __future__ import annotations

from . import Case, uniform


def _x(*shape: int):
    return (uniform(-2, 2, shape),)


CASES = [
    Case("reshape", "2x3 to 3x2", _x(2, 3), {"shape": (3, 2)}),
    Case("reshape", "2x3 to -1", _x(2, 3), {"shape": (-1,)}),
    Case("reshape", "2x3x2 to 3, -1", _x(2, 3, 2), {"shape": (3, -1)}),
    Case("reshape", "same shape", _x(2, 3), {"shape": (2, 3)}),
    Case("reshape", "0-d to 1x1", _x(), {"shape": (1, 1)}),
    Case("reshape", "1 to 0-d", _x(1), {"shape": ()}),
    Case("view", "2x3 to 6", _x(2, 3), {"size": (6,)}),
    Case("view", "6 to -1, 2", _x(6), {"size": (-1, 2)}),
    Case("view", "2x3 to 2x3x1", _x(2, 3), {"size": (2, 3, 1)}),
    Case("flatten", "all", _x(2, 3, 2), {"start_dim": 0, "end_dim": -1}),
    Case("flatten", "start_dim=1", _x(2, 3, 2), {"start_dim": 1, "end_dim": -1}),
    Case("flatten", "0 to 1", _x(2, 3, 2), {"start_dim": 0, "end_dim": 1}),
    Case("flatten", "0-d", _x(), {"start_dim": 0, "end_dim": -1}),
    Case("squeeze", "all size-1 dims", _x(1, 3, 1), {"dim": None}),
    Case("squeeze", "dim=0", _x(1, 3, 1), {"dim": 0}),
    Case("squeeze", "dim=-1", _x(1, 3, 1), {"dim": -1}),
    Case("squeeze", "a dim that is not 1", _x(2, 3), {"dim": 1}),
    Case("squeeze", "0-d", _x(), {"dim": None}),
    Case("unsqueeze", "dim=0", _x(2, 3), {"dim": 0}),
    Case("unsqueeze", "dim=-1", _x(2, 3), {"dim": -1}),
    Case("unsqueeze", "dim=1", _x(3), {"dim": 1}),
    Case("unsqueeze", "0-d", _x(), {"dim": 0}),
    Case("permute", "2, 0, 1", _x(2, 3, 4), {"dims": (2, 0, 1)}),
    Case("permute", "negative dims", _x(2, 3, 4), {"dims": (-1, 0, -2)}),
    Case("permute", "2-D", _x(2, 3), {"dims": (1, 0)}),
    Case("permute", "identity", _x(2, 3), {"dims": (0, 1)}),
    Case("transpose", "0, 1", _x(2, 3), {"dim0": 0, "dim1": 1}),
    Case("transpose", "1, -1 of 3-D", _x(2, 3, 4), {"dim0": 1, "dim1": -1}),
    Case("transpose", "same dim", _x(2, 3), {"dim0": 1, "dim1": 1}),
    Case("transpose", "0-d", _x(), {"dim0": 0, "dim1": -1}),
    Case("expand", "new leading dim", _x(2, 3), {"size": (4, 2, 3)}),
    Case("expand", "stretch size-1 dims with -1", _x(2, 1), {"size": (3, -1, 4)}),
    Case("expand", "same shape", _x(2, 3), {"size": (2, 3)}),
    Case("expand", "0-d", _x(), {"size": (3, 2)}),
    Case("repeat", "2, 1", _x(2, 3), {"repeats": (2, 1)}),
    Case("repeat", "new leading dims", _x(2, 3), {"repeats": (2, 1, 3)}),
    Case("repeat", "1-D", _x(3), {"repeats": (4,)}),
    Case("repeat", "0-d", _x(), {"repeats": (2, 3)}),
    Case("mT", "2x3", _x(2, 3)),
    Case("mT", "batch of 2x3", _x(4, 2, 3)),
    Case("_unsafe_view", "6 to 3x2", _x(6), {"size": (3, 2)}),
    Case("_unsafe_view", "-1", _x(2, 3, 2), {"size": (-1, 2)}),
    Case("clone", "2x3", _x(2, 3)),
    Case("clone", "0-d", _x()),
]

CASES += [
    Case("pad", "the last dim, both sides", _x(2, 3), {"pad": (1, 2)}),
    Case("pad", "two dims with a value", _x(2, 3), {"pad": (0, 2, 1, 0), "value": -1.5}),
    Case("pad", "a negative pad cuts", _x(2, 4), {"pad": (-1, 1, 0, -1)}),
    Case("pad", "a 3-d tensor's middle dim", _x(2, 3, 2), {"pad": (0, 0, 2, 1)}),
]
