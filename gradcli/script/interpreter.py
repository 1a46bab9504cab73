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
- optim_api.py       torch.optim's optimisers and lr schedulers over the script's parameters
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

import warnings
from typing import Any

from .. import limits
from ..errors import AutogradError, GradcliError, LimitError, ParseError, ShapeError
from ..parse import CallBinder
from ..python_random import PythonRandom
from ..torch_random import Generator
from . import runtime
from .autograd_api import AutogradAPI
from .builtins import Builtins
from .classes import Classes, reset_instances
from .data import DataLoading
from .forward_ad import ForwardAD
from .func_api import FuncAPI
from .nn_modules import NNModules
from .numpy_api import NumpyArrays
from .optim_api import Optimisers
from .python import Break, Continue, PythonSubset, Return, torch_kind
from .random_api import RandomDraws, RandomGenerators
from .resources import Memory, with_deep_stack
from .runtime import ScriptError, ScriptRuntimeError
from .saved_tensors import SavedTensors
from .tensor_methods import TORCH_IN_PLACE_FUNCTIONS, TensorMethods
from .tensor_repr import reset_print_options
from .torch_api import TorchNamespace
from .values import RunResult
from .vmap import RANDOM_IN_VMAP, Vectorising
from .whitelist import check, parse_script


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
    Optimisers,
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

    # -- running ----------------------------------------------------------------

    def run(self) -> RunResult:
        reset_print_options()  # torch.set_printoptions lasts one run
        try:
            return with_deep_stack(self._run)
        finally:
            reset_print_options()

    def _run(self) -> RunResult:
        try:
            module = parse_script(self.source)
            check(module)
            # NumPy's warnings on script values (np.float64(1) / 0) are not the script's output;
            # turned off once here rather than around each operation (they cost 3 µs each).
            runtime.reset_work()
            reset_instances()
            with Memory(lambda: self.line) as self.memory, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.block(module.body)
        except ScriptRuntimeError as exc:
            said = f": {exc.message}" if exc.message else ""  # Python prints a bare `ValueError`
            return self.result(f"line {self.line}: {exc.kind}{said}")
        except (AutogradError, ShapeError) as exc:
            return self.result(f"line {self.line}: {torch_kind(exc)}: {exc.message}")
        except (ScriptError, ParseError, LimitError) as exc:
            text = str(exc)
            return self.result(text if text.startswith("line ") else f"line {self.line}: {text}")
        except (Return, Break, Continue):
            return self.result(
                f"line {self.line}: SyntaxError: 'return', 'break' or 'continue' outside a loop or function"
            )
        return self.result(None)

    def result(self, error: str | None) -> RunResult:
        return RunResult("".join(self.out), self.warnings, self.backward_calls, error)

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


def run_script(
    source: str,
    trace_width: int | None = None,
    record: bool = True,
    nodes: tuple[str, ...] = (),
    explain_width: int | None = None,
    calls: frozenset[int] | None = None,
    lines: frozenset[int] | None = None,
) -> RunResult:
    """Run a PyTorch-style script in gradcli's interpreter; never raises for the script's own errors.

    trace_width: print each backward call's node table into the output (--trace).
    record: keep each backward call's graph for `backward_calls` (--format json).
    nodes: nodes the trace prints whole, by name (--node), where a call has them.
    explain_width: narrate each backward call into the output (--explain), rules this wide.
    calls, lines: trace, explain and record only these backward calls (numbered from 1 in the
    order they run) or the calls made on these source lines (None: every call)."""
    if not isinstance(source, str):
        raise GradcliError(f"the script must be text, not {type(source).__name__}")
    interpreter = Interpreter(source, trace_width, record or explain_width is not None)
    interpreter.trace_nodes = tuple(nodes)
    interpreter.explain_width = explain_width
    interpreter.chosen_calls, interpreter.chosen_lines = calls, lines
    return interpreter.run()
