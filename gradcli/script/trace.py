"""What `gradcli run --trace` and `--format json` show of each backward call.

A script's backward call lays the part of the graph it reaches out as a `graph.Graph`
(runtime.run_backward); here that graph, its values and adjoints become the same
`GradResult` that `gradcli grad` builds, so the node table (render/table.py) and the JSON
nodes (render/json.py) are the ones a learner already knows from `grad`. Nodes carry
the script's variable names where a variable holds the tensor.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph import LEAF
from ..render.safe_text import one_line
from ..results import GradResult, NodeResult, PassResult
from .runtime import Traced


@dataclass
class BackwardCall:
    """One `backward()` / `torch.autograd.grad` call of a script."""

    line: int
    call: str  # "backward" or "autograd.grad"
    source: str  # the script's line, stripped
    traced: Traced
    after: dict[int, np.ndarray | None]  # each leaf's .grad after the call (or what grad returned)

    def result(self) -> GradResult:
        """The call as `gradcli grad` would report it: nodes, values, adjoints, leaf grads."""
        laid = self.traced.laid
        assert laid is not None
        graph = laid.graph
        from ..formula_text import chain_steps
        from ..local_steps import written_forms

        written = written_forms(graph)
        upstream = not bool(np.all(self.traced.seed == 1))
        steps = chain_steps(graph, "gradient" if upstream else "1")
        adjoints = self.traced.adjoints or [None] * len(graph.nodes)
        nodes = tuple(
            NodeResult(
                name=node.name,
                kind=node.kind,
                op=node.op.name if node.op else None,
                grad_fn=node.grad_fn,
                inputs=tuple(graph.nodes[i].name for i in node.inputs()),
                shape=node.shape,
                requires_grad=node.requires_grad,
                value=np.asarray(laid.values[node.index]),
                adjoint=adjoints[node.index],
                symbolic=None,
                adjoint_symbolic=None,
                written=written[node.index],
                adjoint_local=steps[node.index],
            )
            for node in graph.nodes
        )
        grads = {graph.nodes[i].name: g for i, g in self.after.items()}
        return GradResult(
            expression=self.source,
            dtype=self.traced.dtype,
            nodes=nodes,
            output_index=graph.output,
            passes=(PassResult(1, np.asarray(self.traced.seed), dict(grads)),),
            grads=grads,
            grad_symbolic={n.name: None for n in nodes if n.kind == LEAF},
        )

    def explain(self, width: int, show: Any) -> str:
        """`run --explain`: this call narrated as `grad --explain` narrates a pass (the engine's
        own backward over the graph the call reached), then what it did to each .grad."""
        from ..render.explain import render

        laid, adjoints = self.traced.laid, self.traced.adjoints
        assert laid is not None and adjoints is not None
        result = self.result()
        # The narration's "Result" is this call's gradient; .grad may hold earlier calls' too.
        reached = {laid.graph.nodes[i].name: adjoints[i] for i in laid.leaves}
        if self.call == "autograd.grad":
            reached = {laid.graph.nodes[i].name: g for i, g in self.after.items() if i is not None}
        seed = np.asarray(self.traced.seed)
        made = PassResult(1, seed, dict(reached), tuple(adjoints), self.traced.edges)
        result = dataclasses.replace(result, grads=reached, passes=(made,))
        rule = f"── line {self.line}: {one_line(self.source)} "
        lines = [rule + "─" * max(3, width - len(rule)), render(result, laid.graph, width), ""]
        lines += self.grad_changes(
            show,
            "torch.autograd.grad returns these gradients; no .grad changes.",
            "backward() adds them into .grad (before -> after this call):",
        )
        return "\n".join(lines) + "\n\n"

    def names(self) -> dict[int, str]:
        laid = self.traced.laid
        assert laid is not None
        return {node.index: node.name for node in laid.graph.nodes}

    def to_dict(self) -> dict[str, Any]:
        from ..render.json import encode

        document = self.result().to_dict()
        names = self.names()
        record: dict[str, Any] = {
            "line": self.line,
            "call": self.call,
            "source": self.source,
            "output": document["output"],
            "gradient": encode(self.traced.seed),
            "nodes": document["nodes"],
        }
        if self.call == "autograd.grad":
            record["grads"] = {names[i]: encode(g) for i, g in self.after.items()}
        else:
            record["grads_before"] = {names[i]: encode(g) for i, g in self.traced.before.items()}
            record["grads_after"] = {names[i]: encode(g) for i, g in self.after.items()}
        return record

    def text(self, width: int, show: Any, chosen: tuple[str, ...] = ()) -> str:
        """The node table of `gradcli grad`, then each leaf's .grad before and after."""
        import io

        from rich.console import Console

        from ..render.table import render

        buffer = io.StringIO()
        console = Console(file=buffer, width=width, highlight=False, markup=False, color_system=None)
        source = one_line(self.source)  # the script's line, its unprintable characters escaped
        source = source if len(source) <= width - 20 else source[: width - 21] + "…"
        rule = f"── line {self.line}: {source} "
        lines = [rule + "─" * max(3, width - len(rule))]
        result = self.result()
        render(result, console, tuple(n for n in chosen if any(node.name == n for node in result.nodes)))
        body = buffer.getvalue().rstrip("\n")
        lines.append(body)
        lines.append("")
        lines += self.grad_changes(
            show, "torch.autograd.grad returns these; no .grad changes.", ".grad before -> after this call:"
        )
        return "\n".join(lines) + "\n\n"

    def grad_changes(self, show: Any, returned: str, accumulated: str) -> list[str]:
        """The call's effect on .grad: nothing for autograd.grad, else each leaf's before -> after."""
        if self.call == "autograd.grad":
            return [returned]
        names = self.names()
        lines = [accumulated]
        for index, after in self.after.items():
            before = self.traced.before.get(index)
            lines.append(f"  {names[index]}.grad: {_inline(before, show)} -> {_inline(after, show)}")
        return lines


def _inline(value: np.ndarray | None, show: Any) -> str:
    """A .grad as PyTorch prints it, on one line when it is short."""
    if value is None:
        return "None"
    text = show(value)
    return " ".join(part.strip() for part in text.splitlines()) if len(text) < 200 else "\n" + text
