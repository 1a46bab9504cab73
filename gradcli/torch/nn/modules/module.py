"""torch.nn.Module, gradcli's: a real Python class that registers parameters, buffers and
submodules in `__setattr__` as torch's `torch/nn/modules/module.py` does, so a script's
`class Net(nn.Module)` is Python's own class and `super().__init__()`, properties,
`**kwargs` and `type(m) == nn.Linear` work as with torch."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from ..._bridge import call, is_dtype, module_attribute
from ..._tensor import Tensor
from ..parameter import Parameter

_NO_FORWARD = 'Module [{}] is missing the required "forward" function'


def _add_indent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _type_name(value: Any) -> str:
    """torch.typename: what torch's errors call a value ('torch.FloatTensor', 'int')."""
    if isinstance(value, Tensor):
        return call(lambda s: s.tensor_type_name(value._rt))
    return type(value).__name__


class _IncompatibleKeys(tuple):
    """What load_state_dict returns: missing_keys and unexpected_keys, printed as torch does."""

    def __new__(cls, missing: list[str], unexpected: list[str]) -> _IncompatibleKeys:
        return super().__new__(cls, (missing, unexpected))

    missing_keys = property(lambda self: self[0])
    unexpected_keys = property(lambda self: self[1])

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"
        )

    __str__ = __repr__


class _RemovableHandle:
    """What register_forward_hook and its kin return: .remove() takes the hook off."""

    _next = [0]

    def __init__(self, table: dict) -> None:
        self.table = table
        self.id = self._next[0]
        self._next[0] += 1

    def remove(self) -> None:
        self.table.pop(self.id, None)


class Module:
    """Base class for all neural network modules (see the module's docstring)."""

    training: bool
    _version = 1
    call_super_init = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
            )
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        set_plain = object.__setattr__
        set_plain(self, "training", True)
        set_plain(self, "_parameters", {})
        set_plain(self, "_buffers", {})
        set_plain(self, "_non_persistent_buffers_set", set())
        set_plain(self, "_modules", {})
        set_plain(self, "_forward_hooks", OrderedDict())
        set_plain(self, "_forward_pre_hooks", OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(_NO_FORWARD.format(type(self).__name__))

    # -- calling -------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for hook in list(self.__dict__.get("_forward_pre_hooks", {}).values()):
            changed = hook(self, args)
            if changed is not None:
                args = changed if isinstance(changed, tuple) else (changed,)
        result = self.forward(*args, **kwargs)
        for hook in list(self.__dict__.get("_forward_hooks", {}).values()):
            changed = hook(self, args, result)
            if changed is not None:
                result = changed
        return result

    def register_forward_hook(self, hook: Callable) -> _RemovableHandle:
        handle = _RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_forward_pre_hook(self, hook: Callable) -> _RemovableHandle:
        handle = _RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    # -- registration --------------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in state and name in state[table]:
                return state[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        state = self.__dict__
        params = state.get("_parameters")

        def remove_from(*tables: Any) -> None:
            for table in tables:
                if name in table:
                    if isinstance(table, dict):
                        del table[name]
                    else:
                        table.discard(name)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(state, state["_buffers"], state["_modules"], state["_non_persistent_buffers_set"])
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = state.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(
                    state, state["_parameters"], state["_buffers"], state["_non_persistent_buffers_set"]
                )
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{_type_name(value)}' as child module '{name}' "
                        "(torch.nn.Module or None expected)"
                    )
                modules[name] = value
            else:
                buffers = state.get("_buffers")
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{_type_name(value)}' as buffer '{name}' (torch.Tensor or None expected)"
                        )
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = list(super().__dir__())
        keys += list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name)
        if (
            name in self.__dict__
            or (name in self._buffers or name in self._modules)
            and name not in self._parameters
        ):
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' (torch.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name)
        if (
            name in self.__dict__
            or (name in self._parameters or name in self._modules)
            and name not in self._buffers
        ):
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_type_name(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    @staticmethod
    def _check_name(what: str, name: Any) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {_type_name(name)}")
        if "." in name:
            raise KeyError(f'{what} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{what} name can\'t be empty string ""')

    # -- walking -------------------------------------------------------------------------

    def _named_members(
        self, table: str, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ):
        seen: set[int] = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for key, value in module.__dict__[table].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + ("." if module_prefix else "") + key, value)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    # -- modes and updates ---------------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                grad = p.grad
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """fn on every parameter (in place of its data, so the Parameter is the same object)
        and every buffer, submodules first."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            no_grad = module_attribute("torch", "no_grad")

            with no_grad():
                applied = fn(param)
            if applied is not param:
                param.data = applied
            grad = param.grad
            if grad is not None:
                with no_grad():
                    applied_grad = fn(grad)
                if applied_grad is not grad:
                    param.grad = applied_grad
        for key, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[key] = fn(buffer)
        return self

    def _floating(self, dtype: Any) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def double(self) -> Module:
        float64 = module_attribute("torch", "float64")

        return self._floating(float64)

    def float(self) -> Module:
        float32 = module_attribute("torch", "float32")

        return self._floating(float32)

    def half(self) -> Module:
        float16 = module_attribute("torch", "float16")

        return self._floating(float16)

    def bfloat16(self) -> Module:
        bfloat16 = module_attribute("torch", "bfloat16")

        return self._floating(bfloat16)

    def cpu(self) -> Module:
        return self

    def cuda(self, device: Any = None) -> Module:
        raise AssertionError("Torch not compiled with CUDA enabled")

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """to(dtype), to(tensor), to(device) (the CPU: nothing to move), to(device, dtype)."""
        dtype = kwargs.get("dtype")
        for value in args:
            if isinstance(value, Tensor):
                dtype = value.dtype
            elif is_dtype(value):
                dtype = value
        if dtype is None:
            return self
        return self._floating(dtype)

    def type(self, dst_type: Any) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    # -- state ---------------------------------------------------------------------------

    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> Any:
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(
        self, state_dict: Any, strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict:
            if unexpected:
                errors.insert(
                    0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected))
                )
            if missing:
                errors.insert(
                    0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing))
                )
        no_grad = module_attribute("torch", "no_grad")

        for key, target in own.items():
            if key not in state_dict:
                continue
            source = state_dict[key]
            if not isinstance(source, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object from '
                    f"checkpoint but received {type(source)}"
                )
                continue
            if source.shape != target.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {source.shape} from checkpoint, "
                    f"the shape in current model is {target.shape}."
                )
                continue
            with no_grad():
                target.copy_(source)
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(self._get_name(), "\n\t".join(errors))
            )
        return _IncompatibleKeys(missing, unexpected)

    # -- text ----------------------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _add_indent(repr(module), 2))
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
