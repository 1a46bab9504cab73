"""Each leaf's gradient as a teacher writes it on a board, in the program's and PyTorch's words.

    W1.grad = X.T @ (outer(2*(out - 1)*out*(1 - out)/3, w2)*(h > 0))

The formula is the chain-rule column's reading of the VJP rules (formula_text.EdgeReader),
composed along every path from the output to the leaf: an adjoint used once is written in
place, one used more than once or too long to read in place keeps its name (`adj_t3`) and
gets a line of its own below, as matrixcalculus.org names common subexpressions. Names
the program gave (`h`, `out`) stay; the ones gradcli made up (`t4`) are written as their
forms (`out - 1`) while short. Where every piece is elementwise, sympy's factor and cancel
may find a shorter form (`2*x*(y + 1)**2`); that form wins only when it is clearly shorter
and uses no sympy-only names. Nothing here knows a derivative: the rules ran on formulas.
"""

from __future__ import annotations

import re
from typing import Any

from .engine import backward, reaching
from .formula_text import EdgeReader, Text, add, as_written, name, number, spell
from .graph import OP, Graph, Node
from .results import formula_parts

READABLE_NODES = 200  # past this many nodes a program's leaf formulas are not composed
LINE_BUDGET = 66  # characters of a right-hand side before a piece of it gets a name
IN_PLACE = 40  # an adjoint used once is written in place up to this many characters
SHARED = 12  # an adjoint used more than once, up to this many
FORM = 30  # an unnamed node (t4) is written as its form up to this many


def leaf_formulas(graph: Graph) -> dict[str, tuple[str, ...] | None]:
    """Per leaf: `LEAF.grad = ...` and the lines defining the names it uses; None where no
    gradient reaches the leaf or the program is too big to compose."""
    leaves = graph.leaves
    if len(graph.nodes) > READABLE_NODES:
        return {leaf.name: None for leaf in leaves}
    reader = Composer(graph)
    return {leaf.name: reader.formula(leaf.index) for leaf in leaves}


def given_names(graph: Graph) -> set[str]:
    """The names the program gave (its inputs and assigned names), not the ones gradcli made up."""
    return {s.target for s in graph.program.statements if s.target} | set(graph.program.inputs)


def _in_order(terms: list[tuple[int, int, Text]]) -> Text:
    """A node's adjoint: its edge terms summed as the program writes its uses (consumer, then
    operand position), whatever order the walk sent them in."""
    total: Text | None = None
    for _, _, term in sorted(terms, key=lambda found: found[:2]):
        total = term if total is None else add(total, term)
    return total if total is not None else number(0)


class Composer:
    """Any node's adjoint composed from the output down (--explain reads intermediate nodes')."""

    def __init__(self, graph: Graph) -> None:
        self.graph, self.nodes = graph, graph.nodes
        given = given_names(graph)
        self.made_up = [n.kind == OP and n.name not in given for n in self.nodes]
        self.forms: dict[int, Text] = {}
        self.reader = EdgeReader(graph)
        self.reader.forward = self._forward
        self.reached = reaching(self.nodes, [graph.output])
        self.by_name = {f"adj_{n.name}": n.index for n in self.nodes}

    # ------------------------------------------------------------ the program's own nodes

    def _forward(self, index: int) -> Text:
        """A node as a formula refers to it: its name, or a made-up name's short form."""
        if not self.made_up[index]:
            return name(self.nodes[index].name)
        form = self._form(index)
        return form if len(form.text) <= FORM else name(self.nodes[index].name)

    def _form(self, index: int) -> Text:
        found = self.forms.get(index)
        if found is None:
            node = self.nodes[index]
            args = [self._forward(o) if isinstance(o, int) else _literal(o) for o in node.operands]
            shapes = tuple(self.graph.operand_shape(o) for o in node.operands)
            try:
                found = spell(node.op, args, node.attrs, shapes)
            except (TypeError, ValueError, KeyError, IndexError):  # a program's own attrs (dims=None)
                found = as_written(node.op, args, node.attrs)
            self.forms[index] = found
        return found

    # ------------------------------------------------------------ one leaf

    def formula(self, leaf: int, label: str | None = None) -> tuple[str, ...] | None:
        """`LABEL = ...` (NAME.grad by default) and the lines defining the names it uses."""
        nodes = self.nodes
        below = reaching(nodes, [leaf], toward_inputs=False, gradient=False)  # what the leaf flows into
        on_path = [r and b for r, b in zip(self.reached, below)]
        if not on_path[self.graph.output]:
            return None
        named: set[int] = set()
        for _ in range(len(nodes)):
            texts, inside = self._compose(on_path, named)
            if texts.get(leaf) is None:
                return None
            lines = self._lines(leaf, texts)
            longest = max(lines, key=lambda pair: len(pair[1].text))
            pieces = [c for c in inside[longest[0]] if c not in named and not _plain(texts[c])]
            if len(longest[1].text) <= LINE_BUDGET or not pieces:
                break
            named.add(max(pieces, key=lambda c: (len(texts[c].text), c)))
        label = label or f"{nodes[leaf].name}.grad"
        result = [f"{label} = {t.text}" if i == leaf else f"adj_{nodes[i].name} = {t.text}" for i, t in lines]
        return (*result, *self._form_lines(result))

    def _compose(self, on_path: list[bool], named: set[int]) -> tuple[dict[int, Text], dict[int, set[int]]]:
        """Each path node's adjoint, by the engine's one backward walk over the edge texts:
        a consumer's adjoint is written in place, or by name when `named`, read twice and
        long, or too long to hold in place; and which adjoints each one holds in place."""
        nodes = self.nodes
        in_place: set[int] = set()
        inside: dict[int, set[int]] = {}

        def pullback(node: Node, total: Text, wanted: list[int]) -> list[tuple[int, int, Text] | None]:
            index = node.index
            on = [p for p in wanted if on_path[node.operands[p]]]
            limit = SHARED if len(on) > 1 else IN_PLACE
            if index in named or (not _plain(total) and len(total.text) > limit):
                written = name(f"adj_{nodes[index].name}")
            else:
                written = total
                in_place.add(index)
            terms = {p: self.reader.edge(index, p, written) for p in on}
            return [(index, p, terms[p]) if terms.get(p) is not None else None for p in wanted]

        def on_edge(node: Node, position: int, operand: int, term: Any) -> None:
            if node.index in in_place:
                inside.setdefault(operand, set()).update(inside.get(node.index, ()), (node.index,))

        adjoints = backward(
            nodes, [(self.graph.output, (-1, 0, number(1)))], pullback, on_edge=on_edge, combine=_in_order
        )
        texts = {i: number(0) if a is None else a for i, a in enumerate(adjoints) if on_path[i]}
        return texts, {i: inside.get(i, set()) for i in texts}

    def _lines(self, leaf: int, texts: dict[int, Text]) -> list[tuple[int, Text]]:
        """The leaf's line, then each named adjoint it needs, nearest the leaf first."""
        wanted, queue = {leaf}, [leaf]
        while queue:
            for found in re.findall(r"\badj_\w+", texts[queue.pop()].text):
                index = self.by_name.get(found)
                if index is not None and index in texts and index not in wanted:
                    wanted.add(index)
                    queue.append(index)
        return [(i, texts[i]) for i in sorted(wanted)]

    def _form_lines(self, lines: list[str]) -> list[str]:
        """`t3 = h @ w2` for each made-up name the lines still use."""
        made_up = {self.nodes[i].name: i for i, flag in enumerate(self.made_up) if flag}
        wanted: list[int] = []
        queue = [formula_parts(line)[1] for line in lines]
        while queue:
            for word in re.findall(r"(?<![.\w])[A-Za-z_]\w*", queue.pop()):
                index = made_up.get(word)
                if index is not None and index not in wanted:
                    wanted.append(index)
                    queue.append(self._form(index).text)
        return [f"{self.nodes[i].name} = {self._form(i).text}" for i in sorted(wanted)]


def _plain(text: Text) -> bool:
    """A number or a bare name: always written in place."""
    return text.number is not None or text.text.isidentifier()


def _literal(operand: Any) -> Text:
    from .program import Num

    expr = operand.expr
    if isinstance(expr, Num) and not expr.text.replace(".", "", 1).lstrip("-").isdigit():
        return name(expr.text)  # pi, e: as written
    return number(operand.value)


# ---------------------------------------------------------------- sympy's shorter forms

# names a rewrite may use and still read as PyTorch: torch.NAME of the same meaning
_TORCH_NAMES = frozenset(
    {"exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan"}
    | {"asinh", "acosh", "atanh", "erf", "sign", "pi", "relu", "abs", "where", "maximum", "minimum"}
)
SHORTER = 0.8  # a rewrite must be this much shorter than the rules' own reading to win


def simpler(
    graph: Graph, lines: tuple[str, ...] | None, forms: list, adjoints: list
) -> tuple[str, ...] | None:
    """The lines with each gradient replaced by sympy's factored or cancelled form where that
    is clearly shorter and reads as PyTorch: `2*x*(y + 1)**2`, `(p - y)/3`. `forms` and
    `adjoints` are symbolic.build's, in node names; made-up names are written out first."""
    if lines is None:
        return None
    import sympy as sp

    from .symbolic import SIMPLIFY_SIZE, _tree_size, rewrites

    nodes = graph.nodes
    given = given_names(graph)
    words = {n.name for n in nodes if n.name in given} | _TORCH_NAMES
    written: dict[Any, Any] = {}  # a made-up node's symbol -> its form in given names
    for node in nodes:
        if node.kind == OP and node.name not in given and forms[node.index] is not None:
            form = forms[node.index].xreplace(written)
            if _tree_size(form) <= SIMPLIFY_SIZE:
                written[sp.Symbol(node.name, real=True)] = form
    index = {f"adj_{n.name}": n.index for n in nodes} | {f"{n.name}.grad": n.index for n in graph.leaves}
    result = list(lines)
    for i, line in enumerate(lines):
        target, text = formula_parts(line)
        found = adjoints[index[target]] if target in index else None
        if found is None or _tree_size(found) > SIMPLIFY_SIZE:
            continue
        expr = found.xreplace(written)
        names = {s.name for s in expr.free_symbols} | {type(f).__name__ for f in expr.atoms(sp.Function)}
        if not names <= words | {"Max", "Piecewise"} or _tree_size(expr) > SIMPLIFY_SIZE:
            continue  # a tensor function, a named adjoint or a sympy-only name: no rewrite reads better
        shorter = [
            candidate
            for candidate in rewrites(expr, trig=True)
            if set(re.findall(r"[A-Za-z_]\w*", candidate)) <= words and len(candidate) < SHORTER * len(text)
        ]
        if shorter:
            result[i] = f"{target} = {min(shorter, key=len)}"
    return tuple(result)
