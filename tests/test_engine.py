"""The engine's walks on their own: which edges, in which order, how paths add up, hooks, roots."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli import engine
from gradcli.autograd import backward, forward
from gradcli.graph import CONST, LEAF, OP, Graph, Literal, Node
from gradcli.ops import REGISTRY
from gradcli.parse import Num


def leaf(index: int, name: str, requires_grad: bool = True) -> Node:
    return Node(index, name, LEAF if requires_grad else CONST, (), requires_grad)


def op(index: int, name: str, *operands, requires_grad: bool = True) -> Node:
    return Node(index, f"t{index}", OP, (), requires_grad, REGISTRY[name], tuple(operands), {})


def number(value: float) -> Literal:
    return Literal(value, Num(value, repr(value), 0, 0))


# x, c (a const); t2 = x * x; t3 = t2 * c; t4 = t3 + x; t5 = sin(c) (needs no grad)
NODES = (
    leaf(0, "x"),
    leaf(1, "c", requires_grad=False),
    op(2, "mul", 0, 0),
    op(3, "mul", 2, 1),
    op(4, "add", 3, 0),
    op(5, "sin", 1, requires_grad=False),
)


def derivative(node: Node, position: int, values: list[float]) -> float:
    """The toy domain's local derivatives: d node / d operand at `position`."""
    args = [values[o] if isinstance(o, int) else o.value for o in node.operands]
    if node.op.name == "mul":
        return args[1 - position]
    return 1.0  # add


def scalar_pullback(values: list[float]) -> engine.Pullback:
    return lambda node, g, positions: [g * derivative(node, position, values) for position in positions]


VALUES = [3.0, 2.0, 9.0, 18.0, 21.0, np.sin(2.0)]


def test_a_node_used_twice_adds_its_paths():
    # t4 = 2 x**2 + x: d/dx = 4x + 1 = 13 at x = 3
    adjoints = engine.backward(NODES, [(4, 1.0)], scalar_pullback(VALUES))
    assert adjoints == [13.0, None, 2.0, 1.0, 1.0, None]


def test_the_edge_callback_sees_every_edge_in_the_order_of_engine_edges():
    seen = []
    adjoints = engine.backward(
        NODES, [(4, 1.0)], scalar_pullback(VALUES), on_edge=lambda n, p, o, c: seen.append((n.index, p, o, c))
    )
    assert seen == [(4, 0, 3, 1.0), (4, 1, 0, 1.0), (3, 0, 2, 2.0), (2, 0, 0, 6.0), (2, 1, 0, 6.0)]
    assert [(n, p, o) for n, p, o, _ in seen] == [
        (n.index, p, o) for n, p, o in engine.edges(NODES, adjoints)
    ]
    # every edge a gradient can flow along, in program order: also those from unreached ops
    assert [(n.index, p) for n, p, _ in engine.edges(NODES, backward=False)] == [
        (2, 0),
        (2, 1),
        (3, 0),
        (4, 0),
        (4, 1),
    ]


def test_hooks_replace_the_gradient_that_is_kept_and_flows_on():
    adjoints = engine.backward(
        NODES, [(4, 1.0)], scalar_pullback(VALUES), hooks={2: [lambda g: g * 10, lambda g: g + 1]}
    )
    assert adjoints[2] == 21.0
    assert adjoints[0] == 1.0 + 2 * 3.0 * 21.0
    leaf_hooked = engine.backward(NODES, [(4, 1.0)], scalar_pullback(VALUES), hooks={0: [lambda g: -g]})
    assert leaf_hooked[0] == -13.0


def test_seeds_of_one_node_add_up_and_several_roots_walk_once():
    twice = engine.backward(NODES, [(4, 1.0), (4, 2.0)], scalar_pullback(VALUES))
    assert twice[0] == 39.0
    both = engine.backward(NODES, [(4, 1.0), (2, 1.0)], scalar_pullback(VALUES))
    assert both[2] == 3.0 and both[0] == 1.0 + 2 * 3.0 * 3.0


def test_combine_collects_each_nodes_terms_and_combines_them_once():
    calls = []

    def combine(terms: list) -> str:
        calls.append(list(terms))
        return " + ".join(terms)

    def pullback(node: Node, g: str, positions: list[int]) -> list[str]:
        return [f"{g}*d{node.name}/d{position}" for position in positions]

    adjoints = engine.backward(NODES, [(4, "1")], pullback, combine=combine)
    assert adjoints[0] == "1*dt4/d1 + 1*dt4/d0*dt3/d0*dt2/d0 + 1*dt4/d0*dt3/d0*dt2/d1"
    assert len(calls) == 4  # t4, t3, t2, x: once each
    assert adjoints[1] is None and adjoints[5] is None


def test_reaching_toward_the_inputs_and_toward_the_outputs():
    assert engine.reaching(NODES, [4]) == [True, False, True, True, True, False]
    assert engine.reaching(NODES, [4], gradient=False) == [True, True, True, True, True, False]
    assert engine.reaching(NODES, [1], toward_inputs=False, gradient=False) == [
        False,
        True,
        False,
        True,
        True,
        True,
    ]
    assert engine.reaching(NODES, [2], toward_inputs=False) == [False, False, True, True, True, False]


def test_forward_reads_inputs_and_evaluates_ops_in_order():
    values = engine.forward(
        NODES,
        [None] * len(NODES),
        lambda node: {"x": 3.0, "c": 2.0}[node.name],
        lambda node, v: (
            (v[node.operands[0]] * v[node.operands[1]])
            if node.op.name == "mul"
            else (
                v[node.operands[0]] + v[node.operands[1]]
                if node.op.name == "add"
                else np.sin(v[node.operands[0]])
            )
        ),
    )
    assert values == VALUES


def test_a_100k_node_chain_walks_without_recursion():
    size = 100_000
    nodes = [leaf(0, "x")] + [op(i, "mul", i - 1, number(1.0)) for i in range(1, size)]
    graph = Graph(None, tuple(nodes), size - 1)
    dtype = np.dtype("float64")
    values = forward(graph, {"x": np.asarray(2.0)}, dtype)
    assert float(values[-1]) == 2.0
    adjoints = backward(graph, values, np.ones((), dtype), dtype)
    assert float(adjoints[0]) == 1.0
    assert all(engine.reaching(nodes, [size - 1]))
    assert engine.reaching(nodes, [0], toward_inputs=False)[-1]


@pytest.mark.parametrize("seed", [1.0, 2.5])
def test_the_numeric_domain_is_the_walk(seed):
    """autograd.backward is engine.backward over arrays: the same adjoints, edge for edge."""
    dtype = np.dtype("float64")
    graph = Graph(None, NODES, 4)
    values = forward(graph, {"x": np.asarray(3.0), "c": np.asarray(2.0)}, dtype)
    seen = []
    adjoints = backward(
        graph, values, np.asarray(seed), dtype, on_edge=lambda n, p, o, c: seen.append(float(c))
    )
    assert [None if a is None else float(a) for a in adjoints] == [
        None if a is None else a * seed for a in engine.backward(NODES, [(4, 1.0)], scalar_pullback(VALUES))
    ]
    assert seen == [seed, seed, 2 * seed, 6 * seed, 6 * seed]


# A graph of references, as a script's grad_fns are: nodes are any objects, edges by `flows`.
# y = a * b; z = y + a; an unrelated w = b * 3 that no backward from z reaches.
REFERENCES = {
    "z": (("add", ((0, "y"), (1, "a")))),
    "y": (("mul", ((0, "a"), (1, "b")))),
    "w": (("mul", ((0, "b"),))),
    "a": None,
    "b": None,
}
POINT = {"a": 2.0, "b": 5.0}


def reference_flows(node: str) -> tuple:
    record = REFERENCES[node]
    return () if record is None else record[1]


def reference_pullback(node: str, g: float, positions: list[int]) -> list[float]:
    """d(a*b) = (g*b, g*a); d(y + a) = (g, g); d(b*3) = 3g."""
    if node == "y":
        return [g * (POINT["b"] if p == 0 else POINT["a"]) for p in positions]
    if node == "w":
        return [3 * g]
    return [g for _ in positions]


def test_reach_follows_references_from_the_roots_only():
    assert set(engine.reach(["z"], reference_flows)) == {"z", "y", "a", "b"}
    assert set(engine.reach(["y"], reference_flows)) == {"y", "a", "b"}  # z and w are never visited


def test_backward_over_references_is_the_walk_of_an_indexed_graph():
    order = ["z", "y", "b", "a"]  # each node before its operands
    adjoints = engine.backward_over(order, [("z", 1.0)], reference_flows, reference_pullback)
    # dz/da = b + 1, dz/db = a, dz/dy = 1; w is not reached and has no adjoint
    assert adjoints == {"z": 1.0, "y": 1.0, "a": 6.0, "b": 2.0}
    seen = []
    engine.backward_over(
        order,
        [("z", 1.0), ("y", 10.0)],  # two roots: y's own seed adds to what z sends it
        reference_flows,
        reference_pullback,
        hooks={"y": [lambda g: g * 2]},  # y's gradient doubled before it flows on
        on_edge=lambda node, position, operand, g: seen.append((node, position, operand, g)),
    )
    assert seen == [("z", 0, "y", 1.0), ("z", 1, "a", 1.0), ("y", 0, "a", 110.0), ("y", 1, "b", 44.0)]
