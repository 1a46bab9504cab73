"""The rooms of gradcli's torch that the bridge (gradcli/torch/_bridge.py) calls, over the
runtime's values, assembled into one class over the state of a run (grad mode, the generator,
backward-call records, the current line). Python runs the script; these rooms are torch:

- python.py          a tensor's operators, truth and format; a call routed to the room that has it
- builtins.py        how torch's values print and name their class; their attributes and methods
- torch_api.py       torch.* / F.* names, constructors, calls bound to the op registry
- tensor_methods.py  tensor attributes and methods, indexing, in-place writes and versions
- autograd_api.py    backward, autograd.grad, hooks, autograd.functional, backward-call records
- classes.py         torch's objects kept as instances (layers, a Function's ctx)
- nn_modules.py      torch.nn's layers and losses
- numpy_api.py       tensors on NumPy's memory, NumPy values beside tensors
- random_api.py      torch.Generator objects, generator= of draws, get/set_rng_state
- func_api.py        torch.func's transforms (grad, vjp, jacrev, jacfwd, hessian)

A tensor op ends in runtime.apply_op, which records a node of a graph that grows as the script
runs; backward() hands the reached part to runtime.run_backward. Issue 40 moves these rooms
into gradcli/torch/ as real classes, one area at a time.
"""

from __future__ import annotations

from typing import Any

from ..parse import CallBinder
from ..torch_random import Generator
from .autograd_api import AutogradAPI
from .builtins import Builtins
from .classes import Classes
from .forward_ad import ForwardAD
from .func_api import FuncAPI
from .nn_modules import NNModules
from .numpy_api import NumpyArrays
from .python import PythonSubset
from .random_api import RandomDraws, RandomGenerators
from .runtime import ScriptError, ScriptRuntimeError
from .saved_tensors import SavedTensors
from .tensor_methods import TORCH_IN_PLACE_FUNCTIONS, TensorMethods
from .torch_api import TorchNamespace
from .vmap import RANDOM_IN_VMAP, Vectorising


class Interpreter(
    FuncAPI,  # torch.func: ahead of PythonSubset, whose dispatch it extends
    PythonSubset,
    Builtins,
    TorchNamespace,
    TensorMethods,
    AutogradAPI,
    Classes,
    NNModules,
    NumpyArrays,
    RandomGenerators,
    RandomDraws,
    SavedTensors,
    ForwardAD,
    Vectorising,
):
    torch_in_place_functions = TORCH_IN_PLACE_FUNCTIONS  # torch.sin_(x): what torch_api may name

    def __init__(self, source: str, trace_width: int | None = None, record: bool = True) -> None:
        self.source = source
        # lines as Python's tokenizer counts them (str.splitlines also breaks at \x85, \x0c, U+2028)
        self.lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.trace_width = trace_width  # --trace: each backward call's node table, this wide
        self.record = record or trace_width is not None
        self.trace_nodes: tuple[str, ...] = ()
        self.explain_width: int | None = None  # --explain: each backward call narrated
        # --call / --line: the backward calls (numbered from 1) and source lines --trace,
        # --explain and JSON keep; None keeps every one
        self.chosen_calls: frozenset[int] | None = None
        self.chosen_lines: frozenset[int] | None = None
        self.warnings: list[str] = []  # gradcli's notes for stderr (an unseeded generator drew)
        self.dual_levels: list = []  # forward_ad.dual_level() blocks entered (forward_ad.py)
        self.backward_calls: list[Any] = []  # BackwardCall records, then {"line": N} past the cap
        self.grad_enabled = True
        self.torch_generator = Generator()  # torch's CPU generator: fresh each run until torch.manual_seed(n)
        self.seeded: set[str] = set()  # the generators the script seeded
        self.torch_generator.seed()
        self.line = 1
        self.binder = CallBinder()

    @property
    def random(self) -> Generator:
        """torch's generator, about to draw."""
        if self.vmapping:  # torch batches a draw inside vmap; gradcli's slices would draw apart
            if self.vmapping[-1] == "error":
                raise ScriptRuntimeError(RANDOM_IN_VMAP)
            raise ScriptError(
                f"line {self.line}: random draws inside vmap(randomness={self.vmapping[-1]!r}) are not supported "
                "by gradcli run"
            )
        self.note_unseeded("torch", "torch.manual_seed(n)")
        return self.torch_generator

    def note_unseeded(self, generator: str, seeding: str) -> None:
        """Say once on stderr that an unseeded generator draws: the numbers differ each run, as
        they do under torch, so a printout will not match a tutorial's (or the next run's)."""
        if generator not in self.seeded:
            self.seeded.add(generator)
            self.warnings.append(
                f"line {self.line}: note: unseeded random numbers from torch's generator differ from run "
                f"to run, as they do in Python; call {seeding} first to repeat them"
            )
