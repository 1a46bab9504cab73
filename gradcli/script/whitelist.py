"""What the interpreted `run` of before read from a script's tree; the rooms the bridge calls still
use these helpers (gradcli.torch runs scripts on CPython, which needs no whitelist)."""

from __future__ import annotations

import ast

IMPORTS = {
    "torch": "torch",
    "torch.nn.functional": "torch.nn.functional",
    "torch.autograd": "torch.autograd",
    "torch.autograd.functional": "torch.autograd.functional",
    "torch.autograd.forward_ad": "torch.autograd.forward_ad",
    "torch.func": "torch.func",
    "torch.nn": "torch.nn",
    "torch.nn.init": "torch.nn.init",
    "torch.utils.data": "torch.utils.data",
    "torch.optim": "torch.optim",
    "torch.optim.lr_scheduler": "torch.optim.lr_scheduler",
    "math": "math",
    "numpy": "numpy",
    "random": "random",
    "functools": "functools",  # partial, nothing else
}

FORBIDDEN_CALLS = {
    "eval",
    "exec",
    "compile",
    "open",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "input",
    "breakpoint",
    "help",
    "dir",
    "object",
    "memoryview",
    "exit",
    "quit",
}


def source_position(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', 1)}, column {getattr(node, 'col_offset', 0) + 1}"


def yields(node: ast.FunctionDef) -> bool:
    """Whether this def's own body (not a nested def's) yields: a generator function."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, ast.Yield):
            return True
        if not isinstance(child, (ast.FunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(child))
    return False
