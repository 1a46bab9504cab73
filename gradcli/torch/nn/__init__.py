"""torch.nn, gradcli's: Module (a real class a script subclasses), Parameter, the containers,
torch's layers and losses, and the functional, init and utils submodules."""

from .._bridge import namespace
from . import functional, init, utils
from .modules import LAYER_CLASSES, Module, ModuleDict, ModuleList, Sequential
from .parameter import Parameter

globals().update(LAYER_CLASSES)
__getattr__ = namespace("torch.nn")
__all__ = [
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "Sequential",
    "functional",
    "init",
    "utils",
    *LAYER_CLASSES,
]
