"""Many points through one program: JSON Lines in, JSON Lines out, in constant memory.

The program is parsed once. Points are read in chunks; when the program is
elementwise and every point is scalar, a chunk of K points runs as one forward and
one backward pass over arrays of length K (each output element depends only on its
own point, so a seed of ones gives every point its own gradient). Other programs
run point by point. Output keeps input order; a bad line is an error naming its
line number, or (skip mode) an error object in its place.

Each output line echoes its point as the line's own text (strict JSON stays byte for byte
what was written), whichever path its chunk took; only a point holding NaN, Infinity or
1e400 is rewritten, compactly, with those as "nan"/"inf". `echo=False` leaves the point out
and writes the line number instead.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import limits
from .autograd import NO_GRAD, backward, forward
from .errors import AutogradError, GradcliError, LimitError, ValueInputError
from .graph import CONST, LEAF, InputSpec, build_graph
from .parse import parse_program
from .render.json import clean, encode
from .values import to_array

CHUNK = 4096


@dataclass(frozen=True)
class _Point:
    line: int
    raw: dict[str, Any] | None  # the point as read; None when the line was bad
    error: str | None = None
    text: str = ""  # the point as echoed: the line's own JSON text, or rewritten when not strict


def bounded_lines(stream: Any) -> Iterator[bytes]:
    """Lines of a binary stream, refusing one longer than MAX_VALUE_CHARS (/dev/zero must end)."""
    number = 0
    while True:
        line = stream.readline(limits.MAX_VALUE_CHARS + 1)
        if not line:
            return
        number += 1
        if len(line) > limits.MAX_VALUE_CHARS and not line.endswith(b"\n"):
            raise LimitError(
                f"--batch line {number} is longer than the limit "
                f"MAX_VALUE_CHARS={limits.MAX_VALUE_CHARS:,} characters"
            )
        yield line


def _read(lines: Iterable[bytes | str], leaves: tuple[str, ...]) -> Iterator[_Point]:
    for number, line in enumerate(lines, start=1):
        try:
            text = line.decode("utf-8") if isinstance(line, bytes) else line
        except UnicodeDecodeError:
            yield _Point(number, None, "not valid UTF-8")
            continue
        if not text.strip():
            continue  # blank lines carry no point
        try:
            point = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            yield _Point(number, None, f"not JSON: {exc.msg if hasattr(exc, 'msg') else exc}")
            continue
        except ValueError:  # an integer past Python's 4,300-digit conversion limit
            yield _Point(number, None, "a number has more digits than a float can use (4,300 at most)")
            continue
        if not isinstance(point, dict):
            yield _Point(number, None, 'each line must be a JSON object such as {"x": 2}')
            continue
        missing = [n for n in leaves if n not in point]
        extra = [n for n in point if n not in leaves]
        if missing or extra:
            problem = f"missing {', '.join(missing)}" if missing else f"unknown name {extra[0]!r}"
            yield _Point(number, None, f"{problem} (the program's inputs: {', '.join(leaves)})")
            continue
        yield _Point(number, point, text=_echo_text(text.strip(), point))


def _chunks(points: Iterator[_Point], size: int) -> Iterator[list[_Point]]:
    chunk: list[_Point] = []
    for point in points:
        chunk.append(point)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _echo(point: dict[str, Any]) -> dict[str, Any]:
    """The point as read, with NaN, Infinity and 1e400 written as gradcli writes them."""
    return {name: clean(value) for name, value in point.items()}


# Only text with one of these can parse to a non-finite number: NaN, Infinity, or an exponent
# or a run of digits long enough to overflow (1e400, 400 digits). Others are echoed unread.
_MAYBE_NON_FINITE = re.compile(r"NaN|Infinity|[eE][+-]?\d{3}|\d{300}")


def _strict(point: Any) -> bool:
    """No float in the point is nan or infinite (walked without recursion)."""
    stack = [point]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and not math.isfinite(item):
            return False
    return True


def _echo_text(text: str, point: dict[str, Any]) -> str:
    """How a point is echoed, decided by the line alone (never by the rest of its chunk)."""
    if not _MAYBE_NON_FINITE.search(text) or _strict(point):
        return text
    return json.dumps(_echo(point), separators=(",", ":"))


def _head(point: _Point, echo: bool) -> str:
    return f'"point":{point.text}' if echo else f'"line":{point.line}'


def _line(point: _Point, value: Any, grads: dict[str, Any], echo: bool = True) -> str:
    body = json.dumps(
        {"value": encode(value), "grads": {n: encode(g) for n, g in grads.items()}},
        allow_nan=False,
        separators=(",", ":"),
    )
    return f"{{{_head(point, echo)},{body[1:]}"


def _number(value: float) -> str:
    """A float as JSON: repr is exact and short; non-finite values are strings, as everywhere."""
    if value != value:
        return '"nan"'
    if value in (float("inf"), float("-inf")):
        return '"inf"' if value > 0 else '"-inf"'
    return repr(value)


def _fast_line(point: _Point, value: float, grads: dict[str, float | None], echo: bool) -> str:
    """_line for scalar points, by string assembly: the hot path of --batch."""
    parts = ",".join(f'"{name}":{"null" if g is None else _number(g)}' for name, g in grads.items())
    return f'{{{_head(point, echo)},"value":{_number(value)},"grads":{{{parts}}}}}'


def _error_line(number: int, message: str) -> str:
    return json.dumps({"line": number, "error": message})


class BatchRunner:
    """One program, many points; `run(lines)` yields one output line per input point."""

    def __init__(
        self,
        expression: str,
        const: Mapping[str, Any] | None = None,
        dtype: str = "float64",
        *,
        skip_errors: bool = False,
        chunk: int = CHUNK,
        echo: bool = True,
    ) -> None:
        from .api import DTYPES

        if dtype not in DTYPES:
            raise GradcliError(f"dtype must be float64 or float32, not {dtype!r}")
        self.dtype = np.dtype(DTYPES[dtype])
        self.const = {n: to_array(v, self.dtype, f"--const {n}") for n, v in (const or {}).items()}
        self.program = parse_program(expression, names=set(self.const))
        unknown = [n for n in self.const if n not in self.program.inputs]
        if unknown:
            raise ValueInputError(f"--const {unknown[0]}: the program has no input named '{unknown[0]}'")
        self.leaves = tuple(n for n in self.program.inputs if n not in self.const)
        if not self.leaves:
            raise AutogradError(NO_GRAD, hint="every input is a --const; the lines must give the others")
        self.skip_errors = skip_errors
        self.chunk = chunk
        self.echo = echo
        self.skipped = 0  # bad lines written as error objects (skip mode)
        self.first_skipped: int | None = None
        # Vectorising is exact only when no op mixes elements (no sum, mean, matmul, transpose).
        try:
            probe = build_graph(self.program, self._specs({n: () for n in self.leaves}))
        except GradcliError:  # x[0], x @ W: the program needs tensor points; go point by point
            self.elementwise = False
            return
        self.elementwise = all(n.op is None or n.op.elementwise for n in probe.nodes) and all(
            v.shape == () for v in self.const.values()
        )
        if not probe.nodes[probe.output].requires_grad:
            raise AutogradError(NO_GRAD, hint="the output must depend on an input given in the lines")

    def _specs(self, shapes: dict[str, tuple[int, ...]]) -> dict[str, InputSpec]:
        specs = {n: InputSpec(LEAF, shape) for n, shape in shapes.items()}
        specs.update({n: InputSpec(CONST, v.shape) for n, v in self.const.items()})
        return specs

    def _fail(self, number: int, message: str) -> str:
        if not self.skip_errors:
            raise ValueInputError(f"--batch line {number}: {message}")
        self.skipped += 1
        if self.first_skipped is None:
            self.first_skipped = number
        return _error_line(number, message)

    def _one(self, point: _Point) -> str:
        """A point on its own: any shapes, any ops."""
        try:
            arrays = {n: to_array(point.raw[n], self.dtype, n) for n in self.leaves}
            graph = build_graph(self.program, self._specs({n: a.shape for n, a in arrays.items()}))
            values = forward(graph, {**arrays, **self.const}, self.dtype)
            output = values[graph.output]
            if output.shape != ():
                raise AutogradError(
                    "grad can be implicitly created only for scalar outputs",
                    hint="reduce the output, e.g. sum(...)",
                )
            adjoints = backward(graph, values, np.ones((), dtype=self.dtype), self.dtype)
        except GradcliError as exc:
            return self._fail(point.line, str(exc))
        grads = {leaf.name: adjoints[leaf.index] for leaf in graph.leaves}
        return _line(point, output, grads, self.echo)

    def _vectorised(self, points: list[_Point]) -> dict[int, str]:
        """Scalar points of an elementwise program: one pass over arrays of len(points).

        Returns output lines by line number; empty when some point is not a plain number
        (those chunks go point by point, so errors are reported in line order).
        """
        try:
            arrays = {n: to_array([p.raw[n] for p in points], self.dtype, n) for n in self.leaves}
        except GradcliError:
            return {}
        if any(a.shape != (len(points),) for a in arrays.values()):
            return {}
        graph = build_graph(self.program, self._specs({n: (len(points),) for n in self.leaves}))
        values = forward(graph, {**arrays, **self.const}, self.dtype)
        adjoints = backward(graph, values, np.ones(len(points), dtype=self.dtype), self.dtype)
        output = np.broadcast_to(values[graph.output], (len(points),)).astype(np.float64).tolist()
        columns = {
            leaf.name: None
            if adjoints[leaf.index] is None
            else np.broadcast_to(adjoints[leaf.index], (len(points),)).astype(np.float64).tolist()
            for leaf in graph.leaves
        }
        return {
            point.line: _fast_line(
                point, output[i], {n: None if c is None else c[i] for n, c in columns.items()}, self.echo
            )
            for i, point in enumerate(points)
        }

    def _stacked(self, points: list[_Point]) -> dict[int, str]:
        """Points of one shape each through any program: the chunk stacked on a leading axis
        and run once by the batched interpretation (gradcli.batched). Empty when the points
        differ in shape, a line is bad, or an op has no batching rule: then point by point."""
        from .batched import Batched, Unbatchable, backward_rows, forward_points

        try:
            arrays = {n: to_array([p.raw[n] for p in points], self.dtype, n) for n in self.leaves}
            shapes = {n: a.shape[1:] for n, a in arrays.items()}
            if any(a.shape[:1] != (len(points),) for a in arrays.values()):
                return {}
            graph = build_graph(self.program, self._specs(shapes))
            if graph.nodes[graph.output].shape != () or not graph.nodes[graph.output].requires_grad:
                return {}
            inputs = {**{n: Batched(a) for n, a in arrays.items()}, **self.const}
            values = forward_points(graph, inputs, self.dtype)
            adjoints = backward_rows(graph, values, np.ones(len(points), dtype=self.dtype), self.dtype)
        except (GradcliError, Unbatchable, TypeError, ValueError, AttributeError):
            return {}
        output = values[graph.output]
        output = output.value if isinstance(output, Batched) else np.broadcast_to(output, (len(points),))
        grads = {
            leaf.name: None
            if adjoints[leaf.index] is None
            else np.broadcast_to(adjoints[leaf.index], (len(points),) + leaf.shape)
            for leaf in graph.leaves
        }
        return {
            point.line: _line(
                point, output[i], {n: None if g is None else g[i] for n, g in grads.items()}, self.echo
            )
            for i, point in enumerate(points)
        }

    def run(self, lines: Iterable[bytes | str]) -> Iterator[str]:
        for chunk in _chunks(_read(lines, self.leaves), self.chunk):
            good = [p for p in chunk if p.error is None]
            done = self._vectorised(good) if self.elementwise and good else {}
            if not done and good and not self.elementwise:
                done = self._stacked(good)
            for point in chunk:
                if point.error is not None:
                    yield self._fail(point.line, point.error)
                else:
                    yield done[point.line] if point.line in done else self._one(point)
