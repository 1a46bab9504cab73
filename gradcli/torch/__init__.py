"""gradcli's torch: PyTorch's API on NumPy, for scripts Python runs (`gradcli run`) and for
`import gradcli.torch as torch` in any Python or notebook.

Laid out on torch's own paths (`nn/functional.py`, `optim/lr_scheduler.py`, `utils/data.py`,
`autograd/forward_ad.py`, ...), so `gradcli run` binds every `torch.*` module a script
imports to the one module here. Names this package lacks raise AttributeError (ImportError
for `from torch.x import Name`) naming them, as torch would for a name it lacks.
"""

from ..script.torch_api import TORCH_VERSION
from . import accelerator, autograd, backends, cuda, func, functional, linalg, nn, optim, special, utils
from ._bridge import namespace
from ._tensor import Tensor
from ._threads import get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads

__version__ = TORCH_VERSION
__getattr__ = namespace("torch")
__all__ = [
    "Tensor",
    "__version__",
    "accelerator",
    "autograd",
    "backends",
    "cuda",
    "func",
    "functional",
    "get_num_interop_threads",
    "get_num_threads",
    "linalg",
    "nn",
    "optim",
    "set_num_interop_threads",
    "set_num_threads",
    "special",
    "utils",
]
