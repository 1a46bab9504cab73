"""`gradcli ops`: the reference of every operation, generated from the op registry."""

from __future__ import annotations

import itertools
from typing import Any

import click

from .width import table_console, width_option

OPS_HELP = """List every operation a program may use, from gradcli's op registry.

For each op: its name as written in a program, its syntax, PyTorch's grad_fn
name(s) (some depend on the operands, e.g. PowBackward0 for tensor ** number and
PowBackward1 for tensor ** tensor), the derivative rule and where it is defined.
Calls that PyTorch records as several of these nodes (F.cross_entropy,
F.normalize, x.float(), a & b, ...) follow, with the nodes they are made of
("composite": true in JSON).

With NAME (sigmoid, torch.sigmoid, F.relu, x.sum, *, @): that op's page, with
every spelling, its grad_fn names, the rule, the nodes its VJP records when
differentiated again (create_graph=True) and an example command.

\b
Examples:
  gradcli ops
  gradcli ops sigmoid
  gradcli ops --brief
  gradcli ops "@" --format json
  gradcli ops --format json | jq -r '.[] | "\\(.name)\\t\\(.grad_fn)"'
  gradcli ops --format json | jq '.[] | select(.name == "pow")'
"""

# Operand ranks tried when listing the grad_fn names an op can get (0-d, 1-d, 2-d tensors).
_SAMPLE_SHAPES = ((), (3,), (3, 3))


def grad_fn_names(op: Any) -> list[str]:
    """Every grad_fn name the op can get, its usual one first, by asking the registry itself.

    The op's own `pick_grad_fn` is called for each valid mix of tensor/number operands,
    ranks and `dim=`, so a new case in the registry shows up here without an edit.
    """
    from ..ops import NUMBER, TENSOR

    names = [op.grad_fn]
    if op.pick_grad_fn is None:
        return names
    dims = (
        [{"dim": dim, "keepdim": keep} for dim in (None, 0) for keep in (False, True)]
        if op.reduction
        else [{}]
    )
    for kinds in itertools.product((TENSOR, NUMBER), repeat=op.arity):
        if TENSOR not in kinds:
            continue  # numbers alone are folded, no grad_fn
        choices = [_SAMPLE_SHAPES if kind == TENSOR else ((),) for kind in kinds]
        for shapes, attrs in itertools.product(itertools.product(*choices), dims):
            try:
                op.shape(shapes, attrs)
            except Exception:  # noqa: BLE001 - an invalid combination; PyTorch would refuse it too
                continue
            names.append(op.pick_grad_fn(kinds, shapes, attrs))
    return list(dict.fromkeys(names))


# Composite calls spelled with an operator or NumPy's name rather than their torch spelling.
_SYNTAX = {
    "np_var": "np.var(x, axis=0, ddof=0)",
    "np_std": "np.std(x, axis=0, ddof=0)",
    "bitwise_and": "a & b (bool tensors)",
    "bitwise_or": "a | b (bool tensors)",
    "bitwise_not": "~a (a bool tensor)",
}


def _composite_syntax(torch: str) -> str:
    """How a program writes a composite call, from its PyTorch spelling."""
    if torch.startswith("torch.Tensor."):
        return f"x.{torch.rsplit('.', 1)[-1]}()"
    return torch.replace("torch.nn.functional.", "F.") + "(...)"


def op_records() -> list[dict[str, Any]]:
    """One JSON-ready record per registry op, in registry order, then the composite calls
    (cross_entropy, F.normalize, x.float(): the nodes torch records for them are ops above)."""
    from ..ops import COMPOSITES, OPS

    records = [
        {
            "name": op.name,
            "syntax": op.syntax,
            "torch": op.torch,
            "grad_fn": op.grad_fn,
            "grad_fns": grad_fn_names(op),
            "derivative": op.derivative,
            "domain": op.domain or "all reals",
            "arity": op.arity,
            "elementwise": op.elementwise,
            "reduction": op.reduction,
            "function": op.function,
            "method": op.method,
            "composite": False,
        }
        for op in OPS
    ]
    return records + [
        {
            "name": composite.name,
            "syntax": _SYNTAX.get(composite.name) or _composite_syntax(composite.torch),
            "torch": composite.torch,
            "grad_fn": "composite",
            "grad_fns": [],
            "derivative": composite.derivative,
            "domain": "all reals",
            "arity": composite.arity,
            "elementwise": False,
            "reduction": False,
            "function": True,
            "method": composite.torch.startswith("torch.Tensor."),
            "composite": True,
        }
        for composite in COMPOSITES.values()
    ]


def ops_table(records: list[dict[str, Any]]) -> Any:
    """A rich table that fits 80 columns: syntax and domain sit under the name and the rule."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(
        box=box.SIMPLE_HEAD, title="Operations (gradcli ops NAME shows one op whole)", title_justify="left"
    )
    # Names and grad_fns are never broken (BinaryCrossEntropyWithLogitsBackward0 is 37
    # characters); the prose column takes what is left and wraps at spaces.
    table.add_column("op / PyTorch / grad_fn", no_wrap=True)
    table.add_column("syntax / derivative / domain", overflow="fold")
    for record in records:
        name = Text.assemble(
            (record["name"], "bold"),
            "\n",
            ((record["torch"] or "-").replace("torch.nn.functional.", "F."), "dim"),
            "\n",
            "\n".join(record["grad_fns"]),
        )
        rule = Text.assemble(
            (record["syntax"], "dim"), "\n", record["derivative"], "\n", (record["domain"], "dim")
        )
        table.add_row(name, rule, end_section=True)
    return table


@click.command("ops", help=OPS_HELP)
@click.argument("name", required=False)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table (rich) or json (a list of objects; one object with NAME).",
)
@click.option(
    "--brief",
    is_flag=True,
    help="Only the names, grouped by family (json: family -> names); ops NAME shows one whole.",
)
@width_option
def ops_command(name: str | None, fmt: str, brief: bool, width: int | None) -> None:
    import json

    records = op_records()
    if name is not None:
        if brief:
            raise click.UsageError("--brief lists every name; drop it to see one op's page")
        click.echo(one_op(name, records, fmt, width), nl=False)
        return
    if brief:
        groups = families(records)
        text = json.dumps(groups, indent=2) + "\n" if fmt == "json" else brief_text(groups, width)
        click.echo(text, nl=False)
        return
    if fmt == "json":
        click.echo(json.dumps(records, indent=2))
        return
    print_trimmed(table_console(width), ops_table(records))


def families(records: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Every listed name under its family (the registry module it comes from), in registry order."""
    from ..ops import FAMILY

    groups: dict[str, list[str]] = {}
    for record in records:
        groups.setdefault(FAMILY[record["name"]], []).append(record["name"])
    return groups


def brief_text(groups: dict[str, list[str]], width: int | None) -> str:
    """The names by family in a few screens, wrapped at the width; a hint to `ops NAME`."""
    import textwrap

    from .width import table_width

    room = table_width(width)
    lines = [f"{sum(map(len, groups.values()))} operations by family; gradcli ops NAME shows one whole", ""]
    for family, names in groups.items():
        lines += textwrap.wrap(
            ", ".join(names),
            room,
            initial_indent=f"{family:<17}",
            subsequent_indent=" " * 17,
            break_on_hyphens=False,
            break_long_words=False,
        )
    return "\n".join(lines) + "\n"


def one_op(written: str, records: list[dict[str, Any]], fmt: str, width: int | None) -> str:
    """`gradcli ops NAME`: the op's page, or an error naming close names."""
    import json

    from ..errors import GradcliError
    from .op_page import close_names, lookup, op_page, page_text
    from .width import table_width

    name = lookup(written)
    record = next((r for r in records if r["name"] == name), None)
    if record is None:
        close = close_names(written)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        shown = repr(written if len(written) <= 60 else written[:60] + "...")  # repr: escapes shown
        raise GradcliError(f"no op named {shown}; {hint}gradcli ops --brief lists them all")
    page = op_page(record["name"], record)
    return json.dumps(page, indent=2) + "\n" if fmt == "json" else page_text(page, table_width(width))


def print_trimmed(console: Any, renderable: Any) -> None:
    """Print a rich renderable without the spaces rich pads each table line with."""
    import re

    with console.capture() as captured:
        console.print(renderable)
    trailing = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$")
    click.echo("\n".join(trailing.sub(r"\1", line) for line in captured.get().split("\n")), nl=False)
