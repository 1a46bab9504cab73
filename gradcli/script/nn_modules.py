"""torch.nn's modules in a `run` script: each layer's constructor signature, parameters (shapes,
names, dtypes, initial distributions), forward (the same `F.*` calls torch's forward makes, so the
recorded grad_fn chain is torch's) and repr; and the Module API (parameters(), state_dict(),
train()/eval(), zero_grad(), ...) for torch's layers and the script's own Module subclasses alike.

Initial values are drawn as torch draws them (kaiming-uniform bounds, N(0, 1) embeddings) from
the interpreter's model of torch's generator, so a seeded script's parameters are torch's.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .classes import ClassValue, ModuleInstance
from .runtime import ScriptError, ScriptRuntimeError, Tensor

REQUIRED = object()
_HERE = ast.Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)


@dataclass(frozen=True)
class Layer:
    """One of torch.nn's classes: where torch defines it and its constructor's parameters."""

    module: str  # torch.nn.modules.linear
    signature: tuple[tuple[str, Any], ...]  # (name, default or REQUIRED), after self; "*" before keyword-only
    variadic: bool = False  # Sequential(*modules)
    describe: Callable[[dict[str, Any]], str] | None = None  # extra_repr from the bound arguments
    init: str = ""  # the class whose __init__ it inherits, named in its TypeErrors (_Loss)


def sig(*names: str | tuple[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple((n, REQUIRED) if isinstance(n, str) else n for n in names)


KEYWORD_ONLY = ("*", None)  # in a signature: the names after it are keyword-only


def _inplace(c: dict[str, Any]) -> str:
    return "inplace=True" if c.get("inplace") else ""


def _then_inplace(text: str) -> Callable[[dict[str, Any]], str]:
    return lambda c: text.format(**c) + (", inplace=True" if c.get("inplace") else "")


def _conv_repr(c: dict[str, Any]) -> str:
    """_ConvNd.extra_repr: the non-default arguments (a padding string is shown bare)."""
    text = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}".format(**c)
    padding = c["padding"]
    if padding != (0,) * len(padding):
        text += f", padding={padding}"
    if c["dilation"] != (1,) * len(c["dilation"]):
        text += f", dilation={c['dilation']}"
    if c["groups"] != 1:
        text += f", groups={c['groups']}"
    if not c["bias"]:
        text += ", bias=False"
    return text


def _embedding_repr(c: dict[str, Any]) -> str:
    text = f"{c['num_embeddings']}, {c['embedding_dim']}"
    return text + (f", padding_idx={c['padding_idx']}" if c["padding_idx"] is not None else "")


_LOSS = sig(("size_average", None), ("reduce", None), ("reduction", "mean"))
_WEIGHTED = sig(("weight", None), ("size_average", None))
LAYERS: dict[str, Layer] = {
    "Module": Layer("torch.nn.modules.module", ()),
    "Linear": Layer(
        "torch.nn.modules.linear",
        sig("in_features", "out_features", ("bias", True), ("device", None), ("dtype", None)),
        describe="in_features={in_features}, out_features={out_features}, bias={bias}".format_map,
    ),
    "Identity": Layer("torch.nn.modules.linear", (), variadic=True),
    "ReLU": Layer("torch.nn.modules.activation", sig(("inplace", False)), describe=_inplace),
    "LeakyReLU": Layer(
        "torch.nn.modules.activation",
        sig(("negative_slope", 0.01), ("inplace", False)),
        describe=_then_inplace("negative_slope={negative_slope}"),
    ),
    "Sigmoid": Layer("torch.nn.modules.activation", (), init="Module"),
    "Tanh": Layer("torch.nn.modules.activation", (), init="Module"),
    "GELU": Layer(
        "torch.nn.modules.activation", sig(("approximate", "none")), describe="approximate={approximate!r}".format_map
    ),
    "SiLU": Layer("torch.nn.modules.activation", sig(("inplace", False)), describe=_inplace),
    "ELU": Layer(
        "torch.nn.modules.activation", sig(("alpha", 1.0), ("inplace", False)), describe=_then_inplace("alpha={alpha}")
    ),
    "Softplus": Layer(
        "torch.nn.modules.activation",
        sig(("beta", 1.0), ("threshold", 20.0)),
        describe="beta={beta}, threshold={threshold}".format_map,
    ),
    "Softmax": Layer("torch.nn.modules.activation", sig(("dim", None)), describe="dim={dim}".format_map),
    "LogSoftmax": Layer("torch.nn.modules.activation", sig(("dim", None)), describe="dim={dim}".format_map),
    "Flatten": Layer(
        "torch.nn.modules.flatten",
        sig(("start_dim", 1), ("end_dim", -1)),
        describe="start_dim={start_dim}, end_dim={end_dim}".format_map,
    ),
    "Unflatten": Layer(
        "torch.nn.modules.flatten",
        sig("dim", "unflattened_size"),
        describe="dim={dim}, unflattened_size={unflattened_size!r}".format_map,
    ),
    "Dropout": Layer(
        "torch.nn.modules.dropout",
        sig(("p", 0.5), ("inplace", False)),
        describe="p={p}, inplace={inplace}".format_map,
        init="_DropoutNd",
    ),
    "Embedding": Layer(
        "torch.nn.modules.sparse",
        sig(
            "num_embeddings",
            "embedding_dim",
            ("padding_idx", None),
            ("max_norm", None),
            ("norm_type", 2.0),
            ("scale_grad_by_freq", False),
            ("sparse", False),
            ("_weight", None),
            ("_freeze", False),
            ("device", None),
            ("dtype", None),
        ),
        describe=_embedding_repr,
    ),
    "LayerNorm": Layer(
        "torch.nn.modules.normalization",
        sig(
            "normalized_shape",
            ("eps", 1e-05),
            ("elementwise_affine", True),
            ("bias", True),
            ("device", None),
            ("dtype", None),
        ),
        describe="{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, bias={bias}".format_map,
    ),
    **{
        f"Conv{n}d": Layer(
            "torch.nn.modules.conv",
            sig(
                "in_channels",
                "out_channels",
                "kernel_size",
                ("stride", 1),
                ("padding", 0),
                ("dilation", 1),
                ("groups", 1),
                ("bias", True),
                ("padding_mode", "zeros"),
                ("device", None),
                ("dtype", None),
            ),
            describe=_conv_repr,
        )
        for n in (1, 2)
    },
    **{
        f"MaxPool{n}d": Layer(
            "torch.nn.modules.pooling",
            sig(
                "kernel_size", ("stride", None), ("padding", 0), ("dilation", 1), ("return_indices", False),
                ("ceil_mode", False),
            ),
            describe="kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
            "ceil_mode={ceil_mode}".format_map,
            init="_MaxPoolNd",
        )
        for n in (1, 2)
    },
    "AvgPool1d": Layer(
        "torch.nn.modules.pooling",
        sig("kernel_size", ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True)),
        describe="kernel_size={kernel_size}, stride={stride}, padding={padding}".format_map,
    ),
    "AvgPool2d": Layer(
        "torch.nn.modules.pooling",
        sig(
            "kernel_size", ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True),
            ("divisor_override", None),
        ),
        describe="kernel_size={kernel_size}, stride={stride}, padding={padding}".format_map,
    ),
    **{
        f"BatchNorm{n}d": Layer(
            "torch.nn.modules.batchnorm",
            sig(
                "num_features", ("eps", 1e-05), ("momentum", 0.1), ("affine", True), ("track_running_stats", True),
                ("device", None), ("dtype", None), KEYWORD_ONLY, ("bias", True),
            ),
            describe="{num_features}, eps={eps}, momentum={momentum}, affine={affine}, bias={bias}, "
            "track_running_stats={track_running_stats}".format_map,
            init="_BatchNorm",
        )
        for n in (1, 2)
    },
    "Sequential": Layer("torch.nn.modules.container", (), variadic=True),
    "ModuleList": Layer("torch.nn.modules.container", sig(("modules", None))),
    "ModuleDict": Layer("torch.nn.modules.container", sig(("modules", None))),
    "MSELoss": Layer("torch.nn.modules.loss", _LOSS, init="_Loss"),
    "L1Loss": Layer("torch.nn.modules.loss", _LOSS, init="_Loss"),
    "SmoothL1Loss": Layer("torch.nn.modules.loss", _LOSS + sig(("beta", 1.0))),
    "HuberLoss": Layer("torch.nn.modules.loss", sig(("reduction", "mean"), ("delta", 1.0))),
    "CrossEntropyLoss": Layer(
        "torch.nn.modules.loss",
        _WEIGHTED
        + sig(("ignore_index", -100), ("reduce", None), ("reduction", "mean"), ("label_smoothing", 0.0)),
    ),
    "NLLLoss": Layer(
        "torch.nn.modules.loss",
        _WEIGHTED + sig(("ignore_index", -100), ("reduce", None), ("reduction", "mean")),
    ),
    "BCELoss": Layer(
        "torch.nn.modules.loss", _WEIGHTED + sig(("reduce", None), ("reduction", "mean")), init="_WeightedLoss"
    ),
    "BCEWithLogitsLoss": Layer(
        "torch.nn.modules.loss",
        _WEIGHTED + sig(("reduce", None), ("reduction", "mean"), ("pos_weight", None)),
    ),
}

MODULE_CLASS = ClassValue("Module", builtin="Module", qualified="torch.nn.modules.module.Module")
NN_CLASSES: dict[str, ClassValue] = {"Module": MODULE_CLASS} | {
    name: ClassValue(name, builtin=name, qualified=f"{layer.module}.{name}")
    for name, layer in LAYERS.items()
    if name != "Module"
}
FUNCTION_CLASS = ClassValue(
    "Function", builtin="Function", qualified="torch.autograd.function.Function"
)

# The F.* call each loss module's forward makes, and the constructor arguments it passes on.
_LOSS_CALLS: dict[str, tuple[str, tuple[str, ...]]] = {
    "MSELoss": ("mse_loss", ("reduction",)),
    "L1Loss": ("l1_loss", ("reduction",)),
    "SmoothL1Loss": ("smooth_l1_loss", ("reduction", "beta")),
    "HuberLoss": ("huber_loss", ("reduction", "delta")),
    "CrossEntropyLoss": ("cross_entropy", ("weight", "ignore_index", "reduction", "label_smoothing")),
    "NLLLoss": ("nll_loss", ("weight", "ignore_index", "reduction")),
    "BCELoss": ("binary_cross_entropy", ("weight", "reduction")),
    "BCEWithLogitsLoss": ("binary_cross_entropy_with_logits", ("weight", "reduction", "pos_weight")),
}
_DEFAULTS = {
    "reduction": "mean",
    "beta": 1.0,
    "delta": 1.0,
    "weight": None,
    "ignore_index": -100,
    "label_smoothing": 0.0,
    "pos_weight": None,
}
# torch's activation modules: the F.* call and the constructor arguments it passes on
_ACTIVATIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ReLU": ("relu", ()),
    "LeakyReLU": ("leaky_relu", ("negative_slope",)),
    "Sigmoid": ("sigmoid", ()),
    "Tanh": ("tanh", ()),
    "GELU": ("gelu", ("approximate",)),
    "SiLU": ("silu", ()),
    "ELU": ("elu", ("alpha",)),
    "Softplus": ("softplus", ("beta", "threshold")),
    "Softmax": ("softmax", ("dim",)),
    "LogSoftmax": ("log_softmax", ("dim",)),
}
# the F.* function a pooling module's forward calls
_FUNCTION_OF = {"MaxPool1d": "max_pool1d", "MaxPool2d": "max_pool2d", "AvgPool1d": "avg_pool1d", "AvgPool2d": "avg_pool2d"}
# what a draw of one element costs here, in element operations (normal: ~0.35 us, uniform: ~0.1 us)
_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
INIT_FUNCTIONS = frozenset(
    {
        "normal_",
        "uniform_",
        "zeros_",
        "ones_",
        "constant_",
        "xavier_uniform_",
        "xavier_normal_",
        "kaiming_uniform_",
        "kaiming_normal_",
        "trunc_normal_",
    }
)
_ACTIVATION_DEFAULTS = {
    "negative_slope": 0.01,
    "approximate": "none",
    "alpha": 1.0,
    "beta": 1.0,
    "threshold": 20.0,
}
_API = frozenset(
    {
        "parameters",
        "named_parameters",
        "children",
        "named_children",
        "modules",
        "named_modules",
        "zero_grad",
        "train",
        "eval",
        "requires_grad_",
        "state_dict",
        "load_state_dict",
        "register_buffer",
        "register_parameter",
        "add_module",
        "to",
        "double",
        "float",
        "half",
        "cpu",
        "cuda",
        "forward",
        "buffers",
        "named_buffers",
        "extra_repr",
        "type",
        "append",
        "extend",
        "insert",
        "keys",
        "items",
        "values",
        "get_submodule",
        "get_parameter",
        "apply",
    }
)


def bind_arguments(title: str, spec: tuple[tuple[str, Any], ...], args: list, kwargs: dict) -> dict[str, Any]:
    """Python's binding of a call to `def __init__(self, <spec>)`, with Python's TypeErrors."""
    if KEYWORD_ONLY in spec:
        cut = spec.index(KEYWORD_ONLY)
        positional, spec = [name for name, _ in spec[:cut]], spec[:cut] + spec[cut + 1 :]
    else:
        positional = [name for name, _ in spec]
    names = [name for name, _ in spec]
    if len(args) > len(positional):
        required = sum(1 for name, d in spec if d is REQUIRED and name in positional)
        most = len(positional)
        takes = f"{required + 1}" if required == most else f"from {required + 1} to {most + 1}"
        plural = "" if takes == "1" else "s"
        raise ScriptRuntimeError(
            f"{title}() takes {takes} positional argument{plural} but {len(args) + 1} were given", "TypeError"
        )
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise ScriptRuntimeError(f"{title}() got an unexpected keyword argument '{key}'", "TypeError")
        if key in bound:
            raise ScriptRuntimeError(f"{title}() got multiple values for argument '{key}'", "TypeError")
        bound[key] = value
    missing = [name for name, default in spec if default is REQUIRED and name not in bound]
    if missing:
        quoted = [f"'{m}'" for m in missing]
        listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
        plural = "" if len(missing) == 1 else "s"
        raise ScriptRuntimeError(
            f"{title}() missing {len(missing)} required positional argument{plural}: {listed}", "TypeError"
        )
    return {name: bound.get(name, default) for name, default in spec}


class NNModules:
    """Mixed into Interpreter: torch.nn's layers and the Module API."""

    # -- construction ----------------------------------------------------------------

    def make_layer(self, cls: ClassValue, args: list, kwargs: dict, node: ast.AST) -> ModuleInstance:
        kind = cls.builtin
        assert kind is not None
        layer = LAYERS[kind]
        module = ModuleInstance(cls)
        module.initialise()
        if kind == "Identity":
            return module
        config = bind_arguments(f"{layer.init or kind}.__init__", layer.signature, args, kwargs)
        dtype = self.dtype_of({"dtype": config.get("dtype")}, "float32") if "dtype" in config else "float32"
        for name in ("device", "dtype", "size_average", "reduce", "_weight", "_freeze"):
            config.pop(name, None)
        if kind == "Linear":
            fan_in, fan_out = self.whole(config["in_features"]), self.whole(config["out_features"])
            config["bias"] = self.truth(config["bias"])
            self.weight_and_bias(module, (fan_out, fan_in), fan_in, config["bias"], dtype)
        elif kind in ("Conv1d", "Conv2d"):
            self.make_conv(module, config, int(kind[4]), dtype)
        elif kind in ("MaxPool1d", "MaxPool2d", "AvgPool2d"):
            config["stride"] = config["kernel_size"] if config["stride"] is None else config["stride"]
        elif kind == "AvgPool1d":  # torch keeps AvgPool1d's sizes as 1-tuples
            stride = config["kernel_size"] if config["stride"] is None else config["stride"]
            for key, value in (("kernel_size", config["kernel_size"]), ("stride", stride), ("padding", config["padding"])):
                config[key] = self.sizes_of(value, 1)
        elif kind in ("BatchNorm1d", "BatchNorm2d"):
            self.make_batch_norm(module, config, dtype)
        elif kind == "Embedding":
            count, width = self.whole(config["num_embeddings"]), self.whole(config["embedding_dim"])
            weight = self.draw_normal((count, width), dtype)
            if config["padding_idx"] is not None:
                index = config["padding_idx"]
                if not -count <= index < count:
                    raise ScriptRuntimeError("Padding_idx must be within num_embeddings", "AssertionError")
                config["padding_idx"] = index % count
                weight[index] = 0
            module.parameters["weight"] = self.new_parameter(weight)
        elif kind == "LayerNorm":
            shape = config["normalized_shape"]
            shape = (shape,) if isinstance(shape, int) else tuple(self.sequence_of(shape))
            config["normalized_shape"] = shape
            if self.truth(config["elementwise_affine"]):
                module.parameters["weight"] = self.new_parameter(np.ones(shape, dtype=dtype))
                module.parameters["bias"] = (
                    self.new_parameter(np.zeros(shape, dtype=dtype)) if self.truth(config["bias"]) else None
                )
        elif kind in _LOSS_CALLS:
            for name in ("weight", "pos_weight"):
                if config.get(name) is not None:
                    module.buffers[name] = config[name]
        elif kind == "Dropout":
            p = config["p"]
            if not isinstance(p, (int, float)) or not 0 <= p <= 1:
                raise ScriptRuntimeError(
                    f"dropout probability has to be between 0 and 1, but got {p}", "ValueError"
                )
        module.config = config
        taken = {**module.parameters, **module.buffers}
        module.attrs.update({k: v for k, v in config.items() if k not in taken})
        return module

    def weight_and_bias(
        self, module: ModuleInstance, shape: tuple[int, ...], fan_in: int, bias: bool, dtype: str
    ) -> None:
        """Linear's and _ConvNd's reset_parameters: kaiming_uniform_(weight, a=sqrt(5)), whose bound
        is sqrt(3) * gain / sqrt(fan_in) with gain sqrt(2 / 6), then the bias U(-1/sqrt(fan_in), ...)."""
        weight_bound = math.sqrt(3.0) * (math.sqrt(2.0 / (1 + 5)) / math.sqrt(fan_in)) if fan_in else 0
        module.parameters["weight"] = self.new_parameter(self.draw_uniform(shape, weight_bound, dtype))
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        module.parameters["bias"] = (
            self.new_parameter(self.draw_uniform(shape[:1], bound, dtype)) if bias else None
        )

    def sizes_of(self, value: Any, dims: int) -> tuple:
        """torch's _single/_pair: a sequence as a tuple, anything else repeated."""
        if isinstance(value, (list, tuple)):
            return tuple(value)
        return (value,) * dims

    def make_conv(self, module: ModuleInstance, config: dict[str, Any], dims: int, dtype: str) -> None:
        for key in ("kernel_size", "stride", "dilation"):
            config[key] = self.sizes_of(config[key], dims)
        padding = config["padding"]
        config["padding"] = padding if isinstance(padding, str) else self.sizes_of(padding, dims)
        groups, given_in, given_out = config["groups"], config["in_channels"], config["out_channels"]
        for value in (groups, given_in, given_out):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ScriptRuntimeError(
                    f"Conv{dims}d.__init__() expects ints for in_channels, out_channels and groups, "
                    f"not {self.type_name(value)}",
                    "TypeError",
                )
        if groups <= 0:
            raise ScriptRuntimeError("groups must be a positive integer", "ValueError")
        if given_in % groups:
            raise ScriptRuntimeError("in_channels must be divisible by groups", "ValueError")
        if given_out % groups:
            raise ScriptRuntimeError("out_channels must be divisible by groups", "ValueError")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ScriptRuntimeError(
                    f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}", "ValueError"
                )
            if padding == "same" and any(step != 1 for step in config["stride"]):
                raise ScriptRuntimeError("padding='same' is not supported for strided convolutions", "ValueError")
        if config["padding_mode"] != "zeros":
            raise ScriptError(
                f"line {self.line}: Conv{dims}d(padding_mode={config['padding_mode']!r}) is not supported by "
                "gradcli run (only 'zeros')"
            )
        kernel = tuple(self.whole(k) for k in config["kernel_size"])
        shape = (self.whole(given_out), self.whole(given_in) // groups, *kernel)
        config["bias"] = self.truth(config["bias"])
        self.weight_and_bias(module, shape, math.prod(shape[1:]), config["bias"], dtype)

    def make_batch_norm(self, module: ModuleInstance, config: dict[str, Any], dtype: str) -> None:
        """_NormBase: weight 1 and bias 0 when affine; running_mean 0, running_var 1 and
        num_batches_tracked when tracking (None entries otherwise, as torch registers them)."""
        count = self.whole(config["num_features"])
        affine, has_bias = self.truth(config["affine"]), self.truth(config["bias"])
        config["bias"] = affine and has_bias  # extra_repr shows whether a bias exists
        module.parameters["weight"] = self.new_parameter(np.ones(count, dtype=dtype)) if affine else None
        module.parameters["bias"] = (
            self.new_parameter(np.zeros(count, dtype=dtype)) if affine and has_bias else None
        )
        tracked = self.truth(config["track_running_stats"])
        module.buffers["running_mean"] = Tensor(np.zeros(count, dtype=dtype)) if tracked else None
        module.buffers["running_var"] = Tensor(np.ones(count, dtype=dtype)) if tracked else None
        module.buffers["num_batches_tracked"] = Tensor(np.array(0, dtype=np.int64)) if tracked else None

    def whole(self, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ScriptRuntimeError(
                f"empty(): argument 'size' must be tuple of ints, but found element of type "
                f"{self.type_name(value)} at pos 0",
                "TypeError",
            )
        if value < 0:
            raise ScriptRuntimeError(f"Trying to create tensor with negative dimension {value}: [{value}]")
        return value

    def new_parameter(self, value: np.ndarray) -> Tensor:
        made = Tensor(value, requires_grad=True)
        made.parameter = True
        return made

    def draw_uniform(self, shape: tuple[int, ...], bound: float, dtype: str) -> np.ndarray:
        """Tensor.uniform_(-bound, bound) of a new parameter."""
        return self.random.uniform(shape, -bound, bound, dtype)

    def draw_normal(self, shape: tuple[int, ...], dtype: str) -> np.ndarray:
        return self.random.normal(shape, 0.0, 1.0, dtype)

    # -- forward ----------------------------------------------------------------------

    def layer_forward(self, module: ModuleInstance, args: list, kwargs: dict, node: ast.AST) -> Any:
        kind = module.cls.builtin
        config = module.config
        if kind == "Sequential":
            if len(args) != 1 or kwargs:
                raise ScriptRuntimeError(
                    f"Sequential.forward() takes 2 positional arguments but {len(args) + 1} were given",
                    "TypeError",
                )
            value = args[0]
            for child in (module.modules or {}).values():
                value = self.call_object(child, [value], {}, node)
            return value
        if kind in ("ModuleList", "ModuleDict"):
            raise ScriptRuntimeError(
                f'Module [{kind}] is missing the required "forward" function', "NotImplementedError"
            )
        if kind == "Identity":
            return args[0] if args else None
        (x, *rest) = self.forward_arguments(kind, args, kwargs, 2 if kind in _LOSS_CALLS else 1)
        params = module.parameters or {}
        f = "torch.nn.functional"
        if kind == "Linear":
            return self.registry(f, "linear", None, [x, params["weight"], params["bias"]], {}, node)
        if kind in _ACTIVATIONS:
            name, passed = _ACTIVATIONS[kind]
            options = {k: config[k] for k in passed if config[k] != _ACTIVATION_DEFAULTS.get(k)}
            if kind in ("Softmax", "LogSoftmax") and options.get("dim") is None:
                options["dim"] = 0 if len(x.shape) in (0, 1, 3) else 1  # torch's _get_softmax_dim, warned
                self.warn(
                    f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                    "as an argument."
                )
            return self.registry(f, name, None, [x], options, node)
        if kind == "Flatten":
            return self.registry(
                "torch", "flatten", None, [x, config["start_dim"], config["end_dim"]], {}, node
            )
        if kind == "Unflatten":
            return self.tensor_method(x, "unflatten", [config["dim"], config["unflattened_size"]], {}, node)
        if kind == "Dropout":
            return self.dropout(x, config["p"], module.training)
        if kind == "Embedding":
            return self.registry(f, "embedding", None, [x, params["weight"]], {}, node)
        if kind == "LayerNorm":
            return self.registry(
                f,
                "layer_norm",
                None,
                [x, config["normalized_shape"], params.get("weight"), params.get("bias"), config["eps"]],
                {},
                node,
            )
        if kind in ("Conv1d", "Conv2d"):
            arguments = [config[k] for k in ("stride", "padding", "dilation", "groups")]
            return self.registry(
                f, kind.lower(), None, [x, params["weight"], params["bias"], *arguments], {}, node
            )
        if kind in ("MaxPool1d", "MaxPool2d"):
            if self.truth(config["return_indices"]):
                raise ScriptError(f"line {self.line}: {kind}(return_indices=True) is not supported by gradcli run")
            arguments = [config[k] for k in ("kernel_size", "stride", "padding", "dilation")]
            options = {"ceil_mode": config["ceil_mode"]} if config["ceil_mode"] else {}
            return self.registry(f, _FUNCTION_OF[kind], None, [x, *arguments], options, node)
        if kind in ("AvgPool1d", "AvgPool2d"):
            keys = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
            arguments = [config[k] for k in keys if k in config]
            return self.registry(f, _FUNCTION_OF[kind], None, [x, *arguments], {}, node)
        if kind in ("BatchNorm1d", "BatchNorm2d"):
            return self.batch_norm_forward(module, x, node)
        if kind in _LOSS_CALLS:
            name, passed = _LOSS_CALLS[kind]
            options = {}
            for key in passed:
                value = module.buffers.get(key) if key in ("weight", "pos_weight") else config.get(key)
                if value is not None and value != _DEFAULTS[key] if not isinstance(value, Tensor) else True:
                    options[key] = value
            return self.registry(f, name, None, [x, *rest], options, node)
        raise ScriptRuntimeError(f"{kind}.forward is not supported by gradcli run", "NotImplementedError")

    def batch_norm_forward(self, module: ModuleInstance, x: Any, node: ast.AST) -> Any:
        """_BatchNorm.forward: count the batch, pick the average factor, then F.batch_norm
        (which updates the running statistics in training mode)."""
        kind, config = module.cls.builtin, module.config
        if not isinstance(x, Tensor):
            raise ScriptRuntimeError(f"'{self.type_name(x)}' object has no attribute 'dim'", "AttributeError")
        if kind == "BatchNorm1d" and len(x.shape) not in (2, 3):
            raise ScriptRuntimeError(f"expected 2D or 3D input (got {len(x.shape)}D input)", "ValueError")
        if kind == "BatchNorm2d" and len(x.shape) != 4:
            raise ScriptRuntimeError(f"expected 4D input (got {len(x.shape)}D input)", "ValueError")
        momentum = config["momentum"]
        factor = 0.0 if momentum is None else momentum
        tracked = self.truth(config["track_running_stats"])
        counted = module.buffers.get("num_batches_tracked")
        if module.training and tracked and counted is not None:
            self.without_grad(lambda: self.tensor_method(counted, "add_", [1], {}, node))
            factor = 1.0 / float(counted.value) if momentum is None else momentum
        mean, var = module.buffers.get("running_mean"), module.buffers.get("running_var")
        training = True if module.training else mean is None and var is None
        keep = not module.training or tracked
        params = module.parameters
        arguments = [x, mean if keep else None, var if keep else None, params.get("weight"), params.get("bias")]
        return self.registry(
            "torch.nn.functional", "batch_norm", None, [*arguments, training, factor, config["eps"]], {}, node
        )

    def dropout(self, x: Any, p: Any, training: bool) -> Any:
        """F.dropout on the CPU: x * (bernoulli_(1 - p) / (1 - p)), the noise drawn from torch's
        generator; the identity in eval mode or at p = 0 (torch returns x itself)."""
        if not isinstance(x, Tensor):
            raise ScriptRuntimeError(
                f"dropout(): argument 'input' must be Tensor, not {self.type_name(x)}", "TypeError"
            )
        if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
            raise ScriptRuntimeError(
                f"dropout probability has to be between 0 and 1, but got {p}", "ValueError"
            )
        if not training or p == 0 or x.value.size == 0:
            return x
        if x.dtype not in ("float32", "float64"):
            raise ScriptRuntimeError(
                f"\"bernoulli_scalar_cpu_\" not implemented for '{x.dtype.capitalize()}'"
            )
        if p == 1:
            return self.apply("mul", [x, Tensor(np.zeros((), dtype=x.dtype))], {})
        noise = self.random.bernoulli(1 - p, x.shape, x.dtype)
        noise = Tensor(noise / noise.dtype.type(1 - p))  # noise.div_(1 - p), in the noise's dtype
        return self.apply("mul", [x, noise], {})

    # -- random fills: Tensor.normal_/uniform_, torch.nn.init ---------------------------------------

    def random_fill(self, t: Tensor, name: str, args: list, kwargs: dict) -> Tensor:
        """t.normal_(mean, std) / t.uniform_(from, to): torch's generator, in place."""
        spec = sig(("mean", 0.0), ("std", 1.0)) if name == "normal_" else sig(("from", 0.0), ("to", 1.0))
        given = bind_arguments(name, spec + sig(("generator", None)), args, kwargs)
        generator = self.chosen_generator({"generator": given["generator"]})
        first, second = (given[k] for k, _ in spec)
        for value in (first, second):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ScriptRuntimeError(
                    f"{name}() received an invalid combination of arguments - got ({self.class_name(value)})",
                    "TypeError",
                )
        if t.dtype in ("float16", "bfloat16"):
            raise ScriptError(f"line {self.line}: {name} of a {t.dtype} tensor is not supported by gradcli run")
        if t.dtype not in ("float32", "float64"):
            raise ScriptRuntimeError(
                f"\"{name[:-1]}_kernel_cpu\" not implemented for '{_TYPE_NAMES.get(t.dtype, t.dtype)}'",
                "NotImplementedError",
            )
        if self.grad_enabled and t.requires_grad:
            if t.is_leaf:
                raise ScriptRuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                )
            raise ScriptError(
                f"line {self.line}: {name} of a tensor in a graph is not supported by gradcli run"
            )
        if name == "normal_":
            if second < 0:
                raise ScriptRuntimeError(f"normal expects std >= 0.0, but found std {second}")
            values = generator.normal(t.shape, float(first), float(second), t.dtype)
        else:
            if first > second:
                raise ScriptRuntimeError(  # C++'s stream prints a double 2.0 as 2
                    f"uniform_ expects to return a [from, to) range, but found from={first:g} > to={second:g}"
                )
            values = generator.uniform(t.shape, float(first), float(second), t.dtype)
        t.assign(values)
        return t

    def init_call(self, name: str, args: list, kwargs: dict) -> Any:
        """torch.nn.init.*: fills under no_grad with torch's fan and gain arithmetic."""
        title = name
        if not args or not isinstance(args[0], Tensor):
            raise ScriptRuntimeError(
                f"{title}() missing 1 required positional argument: 'tensor'", "TypeError"
            )
        t, rest = args[0], args[1:]
        shape = t.shape
        receptive = math.prod(shape[2:]) if len(shape) > 2 else 1
        if name.startswith(("xavier", "kaiming")) and len(shape) < 2:
            raise ScriptRuntimeError(
                "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions", "ValueError"
            )
        fan_in = shape[1] * receptive if len(shape) > 1 else 0
        fan_out = shape[0] * receptive if shape else 0

        def fill(kind: str, a: float, b: float) -> Tensor:
            chosen = {"generator": g["generator"]}
            return self.without_grad(lambda: self.random_fill(t, kind, [a, b], chosen))

        if name == "normal_":
            g = bind_arguments(title, sig(("mean", 0.0), ("std", 1.0), ("generator", None)), rest, kwargs)
            return fill("normal_", g["mean"], g["std"])
        if name == "uniform_":
            g = bind_arguments(title, sig(("a", 0.0), ("b", 1.0), ("generator", None)), rest, kwargs)
            return fill("uniform_", g["a"], g["b"])
        if name == "trunc_normal_":
            spec = sig(("mean", 0.0), ("std", 1.0), ("a", -2.0), ("b", 2.0), ("generator", None))
            g = bind_arguments(title, spec, rest, kwargs)
            return self.without_grad(lambda: self.truncated_normal(t, g))
        if name in ("zeros_", "ones_", "constant_"):
            spec = sig("val") if name == "constant_" else ()
            g = bind_arguments(title, spec, rest, kwargs)
            value = g.get("val", 0 if name == "zeros_" else 1)
            return self.without_grad(lambda: self.tensor_method(t, "fill_", [value], {}, _HERE))
        if name in ("xavier_uniform_", "xavier_normal_"):
            g = bind_arguments(title, sig(("gain", 1.0), ("generator", None)), rest, kwargs)
            std = g["gain"] * math.sqrt(2.0 / float(fan_in + fan_out))
            if name == "xavier_normal_":
                return fill("normal_", 0.0, std)
            bound = math.sqrt(3.0) * std
            return fill("uniform_", -bound, bound)
        g = bind_arguments(
            title,
            sig(("a", 0), ("mode", "fan_in"), ("nonlinearity", "leaky_relu"), ("generator", None)),
            rest,
            kwargs,
        )
        if g["mode"] not in ("fan_in", "fan_out"):
            raise ScriptRuntimeError(
                f"Mode {g['mode']} not supported, please use one of fan_in, fan_out", "ValueError"
            )
        fan = fan_in if g["mode"] == "fan_in" else fan_out
        gains = {"relu": math.sqrt(2.0), "linear": 1, "sigmoid": 1, "tanh": 5.0 / 3}
        if g["nonlinearity"] == "leaky_relu":
            gain = math.sqrt(2.0 / (1 + (g["a"] or 0) ** 2))
        elif g["nonlinearity"] in gains:
            gain = gains[g["nonlinearity"]]
        else:
            raise ScriptRuntimeError(f"Unsupported nonlinearity {g['nonlinearity']}", "ValueError")
        std = gain / math.sqrt(fan)
        if name == "kaiming_normal_":
            return fill("normal_", 0.0, std)
        bound = math.sqrt(3.0) * std
        return fill("uniform_", -bound, bound)

    def forward_arguments(self, kind: str, args: list, kwargs: dict, count: int) -> list:
        names = ("input", "target")[:count]
        values = bind_arguments(f"{kind}.forward", sig(*names), args, kwargs)
        return [values[n] for n in names]

    # -- the Module API ---------------------------------------------------------------

    def without_grad(self, work: Any) -> Any:
        """Run work as torch's `with torch.no_grad():` would."""
        previous, self.grad_enabled = self.grad_enabled, False
        try:
            return work()
        finally:
            self.grad_enabled = previous

    def clear_grad(self, p: Tensor, set_to_none: bool) -> None:
        grad = p._grad
        if grad is None:
            return
        if set_to_none:
            p._grad = None
        else:  # detached and zeroed in place, as torch's zero_grad(set_to_none=False)
            grad.grad_fn, grad.requires_grad = None, False
            self.without_grad(lambda: self.tensor_method(grad, "zero_", [], {}, _HERE))

    # -- text ------------------------------------------------------------------------

    def extra_repr(self, module: ModuleInstance) -> str:
        kind = module.cls.builtin
        c = module.config
        layer = LAYERS.get(kind or "")
        return layer.describe(c) if layer is not None and layer.describe is not None else ""

@dataclass
class IncompatibleKeys:
    """What load_state_dict returns (torch's named tuple), printed as torch prints it."""

    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"
        )

