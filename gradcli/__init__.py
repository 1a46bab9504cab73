"""gradcli: gradients of formulas and PyTorch-style programs, with backward()'s semantics.

from gradcli import grad
r = grad("(2*x)**3", at={"x": 2.0})
r.value, r.grads["x"], r.nodes, r.to_json()
from gradcli import jacobian, hessian, vjp, jvp, hvp, run
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"
__all__ = [
    "GradResult",
    "GradcliError",
    "__version__",
    "grad",
    "hessian",
    "hvp",
    "jacobian",
    "jvp",
    "run",
    "vjp",
]

if TYPE_CHECKING:
    from .api import GradResult, grad, hessian, hvp, jacobian, jvp, run, vjp
    from .errors import GradcliError


def __getattr__(name: str) -> Any:
    # Lazy: `gradcli --help` must not pay for NumPy; the API loads on first use.
    if name in ("grad", "GradResult", "jacobian", "hessian", "run", "vjp", "jvp", "hvp"):
        from . import api

        return getattr(api, name)
    if name == "GradcliError":
        from .errors import GradcliError

        return GradcliError
    raise AttributeError(f"module 'gradcli' has no attribute {name!r}")
