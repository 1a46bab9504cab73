"""`gradcli grad --explain`: the chain rule told step by step, from the output back to each leaf.

A learner should be able to check every number by hand: for each op, the local
derivative of its result with respect to one operand (symbolic, then at the point),
then the chain-rule product that sends the gradient one step further back. Then how
the upstream gradient `v` scales the first step, how a node used twice adds the
gradients reaching it, and how repeated passes accumulate in `.grad`.

The GradResult holds values, adjoints and forms but not the numbers folded into an
op (`2` in `2*x`) nor `dim=`; so the graph is rebuilt from the program (cheap and
deterministic) and the registry's own VJP rules give each step's numbers, which are
therefore exactly the engine's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..results import formula_parts
from .graph import inline_value
from .safe_text import one_line

if TYPE_CHECKING:
    from ..graph import Graph
    from ..results import GradResult, PassResult


@dataclass(frozen=True)
class Step:
    """What flows along one edge of the graph, from an op back to one of its operands."""

    op_node: int
    operand: int
    position: int
    local_symbolic: str | None  # d(op result)/d(operand), elementwise ops only
    local: np.ndarray | None  # the same at the point, before broadcast reduction
    rule_symbolic: str | None  # the VJP rule, with `gradient_symbol` for the incoming gradient
    gradient_symbol: str | None  # the name standing for the incoming gradient in the rule, if used
    contribution: np.ndarray | None  # the gradient this edge adds to the operand


def _gradient_name(graph: Graph) -> str:
    """`g`, or a variant no node of the program is called."""
    taken = {n.name for n in graph.nodes}
    return next(
        name for name in ("g", "g_in", *(f"g{i}" for i in range(len(taken) + 1))) if name not in taken
    )


def backward_steps(
    graph: Graph,
    values: list[np.ndarray] | None,
    adjoints: list[np.ndarray | None] | None,
    symbolic: bool,
    unit_seed: bool,
    edges: dict[tuple[int, int], np.ndarray] | None = None,
) -> list[Step]:
    """Every edge that carries a gradient, in the order backward() visits them. `edges` holds
    what the engine's backward sent along each, recorded by its edge callback as the walk ran
    (see _pass_adjoints), so a numeric story is told in the walk's own order; without a pass
    (symbolic only) the edges are the engine's, every op's that requires grad."""
    from dataclasses import replace

    from .. import engine
    from ..autograd import local_derivative
    from ..formula_text import EdgeReader, name, number

    reader = EdgeReader(graph) if symbolic else None
    nodes = graph.nodes
    if adjoints is not None and edges is not None:
        walked = ((nodes[index], position, nodes[index].operands[position]) for index, position in edges)
    else:
        walked = engine.edges(nodes, adjoints)
    steps: list[Step] = []
    for node, position, operand in walked:
        local = contribution = None
        if values is not None and edges is not None:
            if node.op.elementwise:
                local = local_derivative(node, values, position)
            contribution = edges.get((node.index, position))
        local_symbolic = rule_symbolic = gradient_symbol = None
        if reader is not None:  # the rule as it ran on the tape of formulas (formula_text)
            if node.op.elementwise:  # each element's derivative: a broadcast's sum is told apart
                found = reader.edge(node.index, position, replace(number(1), each=True))
                local_symbolic = None if found is None else found.text
            else:
                gradient = None if node.index == graph.output and unit_seed else _gradient_name(graph)
                found = reader.edge(node.index, position, number(1) if gradient is None else name(gradient))
                rule_symbolic = None if found is None else found.text
                used = gradient is not None and rule_symbolic is not None
                gradient_symbol = gradient if used and re.search(rf"\b{gradient}\b", rule_symbolic) else None
        step = Step(
            node.index,
            operand,
            position,
            local_symbolic,
            local,
            rule_symbolic,
            gradient_symbol,
            contribution,
        )
        steps.append(step)
    return steps


# ---------------------------------------------------------------- text


def _is_unit(seed: np.ndarray | None) -> bool:
    return seed is None or (np.shape(seed) == () and float(seed) == 1.0)


def _value(value: np.ndarray | None) -> str:
    """A value on one line; a tensor whose elements are all equal reads as one number."""
    if value is None:
        return "-"
    array = np.asarray(value)
    if array.size > 1 and np.all(array == array.flat[0]):
        return f"{inline_value(array.flat[0])}{EACH}"
    return inline_value(array)


EACH = " (each element)"
WIDTH = 80  # lines are wrapped to fit a standard terminal


def _equation(*parts: str | None) -> list[str]:
    """`a = b = c` as pieces, dropping missing parts and repeats (`2 = 2 (each element)`)."""
    kept: list[str] = []
    for part in parts:
        if not part:
            continue
        if kept and kept[-1].removesuffix(EACH) == part.removesuffix(EACH):
            kept[-1] = max(kept[-1], part, key=len)  # keep "(each element)" if either says it
        else:
            kept.append(part)
    return kept


def wrap_equation(indent: str, pieces: list[str], suffix: str = "", width: int = WIDTH) -> list[str]:
    """Lines of `a = b = c` within `width` columns; continuation lines start with `= `, and a
    piece too long for a line of its own goes on over more, indented further."""
    lines = [indent + pieces[0]]
    for piece in pieces[1:]:
        candidate = f"{lines[-1]} = {piece}"
        if len(candidate) <= width:
            lines[-1] = candidate
        else:
            lines.append(f"{indent}    = {piece}")
    if suffix:
        if len(lines[-1] + suffix) <= width:
            lines[-1] += suffix
        else:
            lines.append(indent + "    " + suffix.strip())
    return [part for line in lines for part in _fold(line, len(indent) + 6, width)]


def _fold(line: str, hang: int, width: int) -> list[str]:
    """A line past `width` broken at spaces (or after an operator or comma), then indented."""
    if len(line) <= width:
        return [line]
    from .grid import wrap

    lead = len(line) - len(line.lstrip(" "))
    first, *rest = wrap(line[lead:], width - lead)
    if not rest:
        return [line]
    room = max(width - hang, 20)
    return [" " * lead + first, *(" " * hang + part for part in wrap(" ".join(rest), room))]


class _Narrator:
    """Collects the explanation's lines; one method per part of the story."""

    def __init__(self, result: GradResult, graph: Graph | None = None, width: int = WIDTH) -> None:
        self.result = result
        self.width = width
        known = graph if graph is not None else result.graph
        if known is None:
            from ..errors import GradcliError

            raise GradcliError("internal error: explain needs a result computed with edges=True")
        self.graph = known
        self.nodes = result.nodes
        self.out = result.output.name
        self.symbolic = result.output.symbolic is not None
        self.lines: list[str] = []
        self._composer = None
        self.defined: set[str] = set()  # named pieces already written under a leaf

    def say(self, text: str = "") -> None:
        for line in text.split("\n"):
            hang = len(line) - len(line.lstrip(" ")) + 4  # a folded line goes on indented
            self.lines.extend(_fold(line, hang, self.width) if line else [line])

    def equation(self, indent: str, *parts: str | None, suffix: str = "") -> None:
        self.lines.extend(wrap_equation(indent, _equation(*parts), suffix, self.width))

    def formula(self, index: int) -> tuple[str, ...] | None:
        """A node's gradient as the leaf table writes it (readable.py): the leaf's own lines,
        or any other node's composed from the output down; None without symbolic output."""
        if not self.symbolic:
            return None
        node = self.nodes[index]
        first_order = getattr(self.result, "order", 1) == 1  # else the leaf's is the N-th derivative
        found = self.result.grad_readable.get(node.name) if node.kind == "leaf" and first_order else None
        if found is not None:
            return found
        from ..readable import Composer

        if self._composer is None:
            self._composer = Composer(self.graph)
        return self._composer.formula(index, node.name)

    def one_line(self, index: int) -> str | None:
        """The formula when it takes one line (with named pieces, the steps tell it instead)."""
        found = self.formula(index)
        return formula_parts(found[0])[1] if found and len(found) == 1 else None

    # --- the forward pass

    def header(self) -> None:
        """The program, the point, and the forward pass that backward() walks back through."""
        result = self.result
        if result.numeric:
            given = ", ".join(f"{n.name} = {inline_value(n.value)}" for n in self.nodes if n.kind != "op")
            title = f"Chain rule for {one_line(result.expression)} at {given}"
            if len(title) > self.width:
                title = f"Chain rule for {one_line(result.expression)}\nat {given}"
            self.say(title)
        else:
            self.say(f"Chain rule for {one_line(result.expression)}, symbolically")
            self.say("(give --at NAME=VALUE for numbers)")
        self.say()
        self.say("Forward pass, in topological order (each node from its inputs):")
        rows = []
        for index, node in enumerate(self.nodes):
            if node.kind == "leaf":
                role = "leaf, requires grad"
            elif node.kind == "const":
                role = "const, no grad"
            else:
                role = node.grad_fn or "no grad_fn: needs no grad"
            if index == result.output_index:
                role += ", the output"
            written = node.written or node.symbolic
            form = f"= {written}" if node.kind == "op" and written else ""
            value = f"= {inline_value(node.value)}" if result.numeric else ""
            rows.append([node.name, form, value, f"[{role}]"])
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        if 2 + sum(widths) + 3 + max(len(row[3]) for row in rows) > self.width:
            # Wide tensors: each value goes on its own line under its node.
            widths[2] = 0
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row, widths) if width] + [row[3]]
            self.say("  " + " ".join(cells))
            if row[2] and not widths[2]:
                self.say(" " * (3 + widths[0]) + row[2])

    # --- one backward pass

    def backward(
        self, seed: np.ndarray | None, adjoints: list | None, title: str, edges: dict | None = None
    ) -> None:
        """Narrate one pass: each op's local derivative, then the chain-rule product."""
        unit = _is_unit(seed)
        flow = self._flow(unit)
        self.say()
        self.say(f"{title}, from the output {self.out} back to the leaves:")
        if unit:
            self.say(f"  start: d{self.out}/d{self.out} = 1, the gradient backward() starts from")
        else:
            self.say(f"  start: v = {inline_value(seed)}, the upstream gradient (--gradient, PyTorch's")
            self.say(f"  backward(gradient=v)). Each gradient below is v*d{self.out}/dn, v times the")
            self.say("  derivative: v scales the first step, and through the chain every later one.")
        steps = backward_steps(self.graph, self._values(), adjoints, self.symbolic, unit, edges)
        uses = self._uses(steps)
        received: dict[int, list[Step]] = {}
        current = None
        for step in steps:
            node, operand = self.nodes[step.op_node], self.nodes[step.operand]
            if step.op_node != current:
                current = step.op_node
                self._sum_paths(step.op_node, received.get(step.op_node, []), flow, adjoints, unit)
                form = node.written or node.symbolic or self._plain_form(step.op_node)
                self.say(f"  {node.name} = {form}  [{node.grad_fn}]")
            received.setdefault(step.operand, []).append(step)
            label = flow(operand.name) + self._path_label(step, steps, uses)
            single = uses[step.operand] == 1
            adjoint_symbolic = self.one_line(step.operand) if unit and single else None
            first = step.op_node == self.result.output_index
            contribution = None if step.contribution is None else _value(step.contribution)
            if step.local_symbolic is None and step.local is None:
                self._rule_step(step, label, adjoint_symbolic, contribution, flow)
                continue
            local_name = f"d{node.name}/d{operand.name}"
            local = None if step.local is None else _value(step.local)
            self.equation("    ", local_name, step.local_symbolic, local)
            if first and unit and single:
                continue  # with a start of 1 the local derivative already is the gradient
            numbers = None
            if step.contribution is not None:
                incoming = seed if first else adjoints[step.op_node]
                numbers = f"{_value(incoming)} * {local}"
            suffix = ""
            if step.local is not None and np.shape(step.local) != operand.shape:
                suffix = f"  (summed over broadcast dims to {list(operand.shape)})"
            incoming_name = "v" if first and not unit else flow(node.name)
            self.equation(
                "    ",
                label,
                f"{incoming_name} * {local_name}",
                adjoint_symbolic,
                numbers,
                contribution,
                suffix=suffix,
            )

    def _rule_step(self, step: Step, label: str, adjoint_symbolic, contribution, flow) -> None:
        """A tensor op (sum, mean, matmul, t): its VJP rule, with g the gradient reaching it."""
        node = self.graph.nodes[step.op_node]
        note = f"   ({step.gradient_symbol} = {flow(node.name)})" if step.gradient_symbol else ""
        self.equation("    ", label, step.rule_symbolic, adjoint_symbolic, contribution, suffix=note)

    def _flow(self, unit: bool):
        prefix = "" if unit else "v*"
        return lambda name: f"{prefix}d{self.out}/d{name}"

    def _plain_form(self, index: int) -> str:
        """op(operands) with numbers kept, for --no-symbolic: pow(t1, 3), not pow(t1)."""
        node = self.graph.nodes[index]
        parts = [self.graph.nodes[o].name if isinstance(o, int) else f"{o.value:g}" for o in node.operands]
        return f"{node.op.name}({', '.join(parts)})"

    @staticmethod
    def _uses(steps: list[Step]) -> dict[int, int]:
        uses: dict[int, int] = {}
        for step in steps:
            uses[step.operand] = uses.get(step.operand, 0) + 1
        return uses

    def _path_label(self, step: Step, steps: list[Step], uses: dict[int, int]) -> str:
        """` (path via t1)` when a node is used more than once; the operand too for x*x."""
        if uses[step.operand] == 1:
            return ""
        same_op = sum(1 for s in steps if s.op_node == step.op_node and s.operand == step.operand)
        where = f", operand {step.position + 1}" if same_op > 1 else ""
        return f" (path via {self.nodes[step.op_node].name}{where})"

    def _sum_paths(self, index: int, paths: list[Step], flow, adjoints, unit: bool) -> None:
        """A node used more than once adds the gradients of all its paths (PyTorch's +=)."""
        if len(paths) < 2:
            return
        node = self.nodes[index]
        paths = sorted(paths, key=lambda p: (p.op_node, p.position))  # as the formula adds them
        parts = [_value(p.contribution) for p in paths if p.contribution is not None]
        total = None if adjoints is None else _value(adjoints[index])
        self.say(f"  {node.name} is used {len(paths)} times; backward() adds the gradients of the paths:")
        self.equation(
            "    ",
            flow(node.name),
            self.one_line(index) if unit else None,
            " + ".join(parts) if parts else None,
            total,
        )

    def leaf_sums(self, adjoints: list | None, seed: np.ndarray | None, edges: dict | None = None) -> None:
        """Leaves used more than once add their paths here (they send nothing further)."""
        unit = _is_unit(seed)
        steps = backward_steps(self.graph, self._values(), adjoints, False, unit, edges)
        for leaf in self.result.leaves:
            index = self.nodes.index(leaf)
            self._sum_paths(index, [s for s in steps if s.operand == index], self._flow(unit), adjoints, unit)

    def _values(self) -> list[np.ndarray] | None:
        if not self.result.numeric:
            return None
        return [np.asarray(n.value) for n in self.nodes]


def _pass_adjoints(record: PassResult) -> tuple[list, dict]:
    """What the engine's backward computed in this pass: every node's adjoint and what each
    edge carried (the engine keeps them when asked: grad(..., edges=True))."""
    from ..errors import GradcliError

    if record.adjoints is None or record.edges is None:
        raise GradcliError("internal error: explain needs a result computed with edges=True")
    return list(record.adjoints), record.edges


def render(result: GradResult, graph: Graph | None = None, width: int = WIDTH) -> str:
    """The whole narration as text (no colour, deterministic), within `width` columns.
    `graph`: the engine's graph of the result when it has no program to rebuild it from (a
    backward call of `gradcli run`)."""
    narrator = _Narrator(result, graph, width)
    narrator.header()
    say = narrator.say
    if not result.numeric:
        narrator.backward(None, None, "Backward pass")
        narrator.leaf_sums(None, None)
        say()
        say("Result (in the inputs' names):")
        for leaf in result.leaves:
            lines = narrator.formula(result.nodes.index(leaf))
            formula = formula_parts(lines[0])[1] if lines else result.grad_symbolic.get(leaf.name)
            narrator.equation(
                "  ", f"{leaf.name}.grad", f"d{narrator.out}/d{leaf.name}", formula or "(too large to print)"
            )
            _where(narrator, lines)
        return "\n".join(narrator.lines)

    passes = result.passes
    narrated: list[tuple[np.ndarray, int]] = []
    pass_adjoints = []
    for record in passes:
        adjoints, edges = _pass_adjoints(record)
        pass_adjoints.append(adjoints)
        same = next((i for seed, i in narrated if np.array_equal(seed, record.gradient)), None)
        title = "Backward pass" if len(passes) == 1 else f"Backward pass {record.index}"
        if same is not None:
            say()
            say(f"{title}: the same upstream gradient as pass {same}, so the same gradients.")
            continue
        narrated.append((record.gradient, record.index))
        narrator.backward(record.gradient, adjoints, title, edges)
        narrator.leaf_sums(adjoints, record.gradient, edges)

    say()
    order = getattr(result, "order", 1)
    if order > 1:
        _higher_orders(narrator, result, order)
        return "\n".join(narrator.lines)
    if len(passes) == 1:
        say("Result:")
        for leaf in result.leaves:
            unit = _is_unit(passes[0].gradient)
            lines = narrator.formula(result.nodes.index(leaf)) if unit else None
            formula = formula_parts(lines[0])[1] if lines else result.grad_symbolic.get(leaf.name)
            name = f"d{narrator.out}/d{leaf.name}" if unit else f"v*d{narrator.out}/d{leaf.name}"
            narrator.equation(
                "  ",
                f"{leaf.name}.grad",
                name,
                formula if unit else None,
                _value(result.grads.get(leaf.name)),
            )
            _where(narrator, lines)
        return "\n".join(narrator.lines)

    say(f"Accumulation: like {len(passes)} backward() calls, each pass adds its gradients to .grad.")
    previous: dict[str, np.ndarray | None] = {leaf.name: None for leaf in result.leaves}
    for record, adjoints in zip(passes, pass_adjoints):
        for leaf in result.leaves:
            index = result.nodes.index(leaf)
            added = adjoints[index]
            after = record.grads.get(leaf.name)
            before = previous[leaf.name]
            label = f"after pass {record.index}: {leaf.name}.grad"
            if before is None or added is None:
                narrator.equation("  ", label, _value(after))
            elif np.array_equal(np.asarray(after), np.asarray(added)) and not np.array_equal(
                np.asarray(after), np.asarray(before) + np.asarray(added)
            ):
                zeroed = f"0 + {_value(added)}"
                narrator.equation("  ", label, zeroed, _value(after), suffix="  (zeroed first: --zero-grad)")
            else:
                narrator.equation("  ", label, f"{_value(before)} + {_value(added)}", _value(after))
            previous[leaf.name] = after
    say("  (Without --retain-graph a second pass fails, as in PyTorch: the first pass")
    say("  frees the tensors the graph saved for backward.)")
    return "\n".join(narrator.lines)


def _where(narrator: _Narrator, lines: tuple[str, ...] | None) -> None:
    """The named pieces of a leaf's formula, under it (`where adj_t2 = ...`), each once."""
    for line in (lines or ())[1:]:
        if line not in narrator.defined:
            narrator.defined.add(line)
            narrator.equation("      ", f"where {line}")


def _higher_orders(narrator: _Narrator, result: GradResult, order: int) -> None:
    """--order N: PyTorch differentiates x.grad again (create_graph=True), N - 1 more times."""
    out = narrator.out
    narrator.say("Result of the pass above (first order):")
    derivatives = getattr(result, "derivatives", {}) or {}
    for leaf in result.leaves:
        values = derivatives.get(leaf.name) or ()
        first = values[0] if values else leaf.adjoint
        narrator.equation(
            "  ",
            f"{leaf.name}.grad",
            f"d{out}/d{leaf.name}",
            narrator.one_line(result.nodes.index(leaf)),
            _value(first),
        )
    narrator.say()
    narrator.say(f"Higher orders: backward(create_graph=True) makes {out}'s gradient a graph of its own,")
    narrator.say("which is differentiated again, once per order:")
    for leaf in result.leaves:
        values = derivatives.get(leaf.name) or ()
        for k, value in enumerate(values[1:], start=2):
            formula = result.formula(leaf.name) if k == order else None
            narrator.equation("  ", f"d{k}{out}/d{leaf.name}{k}", formula, _value(value))
