"""The `run` interpreter: PyTorch autograd scripts walked statement by statement, never executed.

A statement's route: whitelist.py parses the script and checks the whole tree before anything runs;
`Interpreter` walks it. It is assembled from rooms, each a mixin with one job over the shared state
kept here (frames, grad mode, output, the current line):

- python.py          statements, control flow, expressions, the script's own functions
- builtins.py        Python's builtins and methods; how values print
- torch_api.py       torch.* / F.* / math / numpy names, constructors, calls bound to the op registry
- tensor_methods.py  tensor attributes and methods, indexing, in-place writes and versions
- autograd_api.py    backward, autograd.grad, hooks, autograd.functional, backward-call records
- classes.py         class statements, instances, super(), attributes and calls of them
- nn_modules.py      torch.nn's layers and losses, the Module API, module reprs
- data.py            torch.utils.data: TensorDataset, DataLoader, default_collate
- numpy_api.py       NumPy's arrays, functions and np.random, run by NumPy within the caps
- random_api.py      torch.Generator objects, generator= of draws, get/set_rng_state
- func_api.py        torch.func's transforms (grad, vjp, jacrev, jacfwd, hessian) of the script's functions

A tensor op ends in runtime.apply_op, which records a node of a graph that grows as statements run;
backward() hands the reached part to runtime.run_backward. values.py holds the script's non-tensor
values, resources.py the memory cap and the deep stack.

Caps (gradcli/limits.py's Script, docs/limits.md "Safety and limits"): MAX_STEPS statements executed,
MAX_LOOP iterations of one `for`, MAX_CALL_DEPTH nested calls, MAX_EXPR_DEPTH nesting of one
expression, MAX_OUTPUT_CHARS printed, MAX_SEQUENCE items in a list or string, MAX_INT_BITS
bits of an integer.
"""

from __future__ import annotations

from typing import Any

from .. import limits
from ..parse import CallBinder
from ..python_random import PythonRandom
from ..torch_random import Generator
from .autograd_api import AutogradAPI
from .builtins import Builtins
from .classes import Classes
from .data import DataLoading
from .forward_ad import ForwardAD
from .func_api import FuncAPI
from .nn_modules import NNModules
from .numpy_api import NumpyArrays
from .python import PythonSubset
from .random_api import RandomDraws, RandomGenerators
from .resources import Memory
from .runtime import ScriptError, ScriptRuntimeError
from .saved_tensors import SavedTensors
from .tensor_methods import TORCH_IN_PLACE_FUNCTIONS, TensorMethods
from .torch_api import TorchNamespace
from .vmap import RANDOM_IN_VMAP, Vectorising


class Interpreter(
    FuncAPI,  # torch.func: ahead of PythonSubset, whose dispatch and call_user it extends
    PythonSubset,
    Builtins,
    TorchNamespace,
    TensorMethods,
    AutogradAPI,
    Classes,
    NNModules,
    DataLoading,
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
        self.out: list[str] = []
        self.printed = 0
        self.warnings: list[str] = []
        self.warned: set[tuple[int, str]] = set()
        self.dual_levels: list = []  # forward_ad.dual_level() blocks entered (forward_ad.py)
        self.backward_calls: list[Any] = []  # BackwardCall records, then {"line": N} past the cap
        self.globals: dict[str, Any] = {}
        self.frames: list[dict[str, Any]] = []
        self.yielded: list[list] = []  # one list per running generator function
        self.closures: list[tuple[dict, ...]] = []  # per frame: the frames its def could read
        self.grad_enabled = True
        self.torch_generator = Generator()  # torch's CPU generator: fresh each run until torch.manual_seed(n)
        self.seeded: set[str] = set()  # the generators the script seeded (torch, numpy, random)
        self.python_random: PythonRandom | None = None  # Python's random module, made on first use
        self.modules_printing: set[int] = set()  # modules whose repr is being built (a cycle is an error)
        self.handling: list[Exception] = []  # the exceptions being handled, innermost last (a bare raise)
        self.torch_generator.seed()
        self.steps = 0
        self.line = 1
        self.binder = CallBinder()
        self.memory = Memory()

    def foreign(self, value: Any) -> bool:
        """A callable of Python's own (gradcli.torch's bridge): never, in an interpreted script."""
        return False

    def write(self, text: str) -> None:
        self.printed += len(text)
        if self.printed > limits.Script.MAX_OUTPUT_CHARS:
            raise self.too_much_output()
        self.out.append(text)

    def too_much_output(self) -> ScriptError:
        return ScriptError(
            f"line {self.line}: the script printed more than MAX_OUTPUT_CHARS={limits.Script.MAX_OUTPUT_CHARS:,} characters"
        )

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
            source = {"torch": "torch's generator", "numpy": "NumPy's generator", "random": "Python's random"}
            self.warnings.append(
                f"line {self.line}: note: unseeded random numbers from {source[generator]} differ from run "
                f"to run, as they do in Python; call {seeding} first to repeat them"
            )

    def warn(self, message: str) -> None:
        key = (self.line, message)
        if key not in self.warned:  # Python shows a warning once per line, as torch's do
            self.warned.add(key)
            self.warnings.append(f"line {self.line}: UserWarning: {message}")
