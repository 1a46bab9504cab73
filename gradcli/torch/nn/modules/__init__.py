"""torch.nn.modules, gradcli's: Module, the containers, and torch's layers and losses."""

from ._layers import LAYER_CLASSES
from .container import ModuleDict, ModuleList, Sequential
from .module import Module

globals().update(LAYER_CLASSES)
__all__ = ["Module", "ModuleDict", "ModuleList", "Sequential", *LAYER_CLASSES]
