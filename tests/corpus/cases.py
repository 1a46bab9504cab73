"""The corpus: programs PyTorch users write in their first months, each modelled on a public source.

Every case is written for gradcli (the spellings, shapes and operations its source uses,
with small fixed values), not copied from the source. `program` is what the user would
type; `torch` is the same computation in real PyTorch and must bind `out`. In `torch`,
each `at` name is a float64 leaf with requires_grad, each `const` name a tensor (integer
lists stay integer: class indices; bool lists stay bool: masks; a plain int stays a
Python int: a batch size), and `torch`, `F` (torch.nn.functional) and `math` are bound.
Values keep away from kinks and ties (relu at 0, max with equal entries) so that the
comparison is about the program, not about a subgradient convention.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from textwrap import dedent
from typing import Any


@dataclass(frozen=True)
class Case:
    """One program, where it comes from, its inputs, and the same computation in torch."""

    id: str
    source: str  # URL or repo/path of what it is modelled on
    program: str
    torch: str  # binds `out`
    at: dict[str, Any]  # leaves: name -> number or nested list
    const: dict[str, Any] = field(default_factory=dict)
    gradient: Any = None  # the upstream gradient, for a non-scalar output
    dtype: str = "float64"
    out_of_scope: str | None = None  # why gradcli's one-program language will not take it


def _text(s: str) -> str:
    return dedent(s).strip("\n")


def case(id: str, source: str, program: str, torch: str, at: dict[str, Any], **rest: Any) -> Case:
    """A Case with its program and snippet dedented, so both read as written below."""
    return Case(id, source, _text(program), _text(torch), at, **rest)


# ---- sources -------------------------------------------------------------------------------
BLITZ = "https://pytorch.org/tutorials/beginner/blitz/autograd_tutorial.html"
AUTOGRADQS = "https://pytorch.org/tutorials/beginner/basics/autogradqs_tutorial.html"
PWE = "https://pytorch.org/tutorials/beginner/pytorch_with_examples.html"
D2L_AUTOGRAD = "https://d2l.ai/chapter_preliminaries/autograd.html"
D2L_LINREG = "https://d2l.ai/chapter_linear-regression/linear-regression-scratch.html"
D2L_WD = "https://d2l.ai/chapter_linear-regression/weight-decay.html"
D2L_SOFTMAX = "https://d2l.ai/chapter_linear-classification/softmax-regression-scratch.html"
D2L_SOFTMAX_QA = "https://discuss.d2l.ai/t/softmax-regression-implementation-from-scratch/50"
D2L_MLP = "https://d2l.ai/chapter_multilayer-perceptrons/mlp.html"
D2L_MLP_SCRATCH = "https://d2l.ai/chapter_multilayer-perceptrons/mlp-implementation.html"
D2L_DROPOUT = "https://d2l.ai/chapter_multilayer-perceptrons/dropout.html"
D2L_BN = "https://d2l.ai/chapter_convolutional-modern/batch-norm.html"
D2L_NW = "https://d2l.ai/chapter_attention-mechanisms-and-transformers/attention-pooling.html"
MICROGRAD_README = "karpathy/micrograd README.md"
MICROGRAD_TEST = "karpathy/micrograd test/test_engine.py"
MICROGRAD_DEMO = "karpathy/micrograd demo.ipynb"
ZTH_MICROGRAD = "karpathy/nn-zero-to-hero lectures/micrograd/micrograd_lecture_first_half_roughly.ipynb"
ZTH_MICROGRAD2 = "karpathy/nn-zero-to-hero lectures/micrograd/micrograd_lecture_second_half_roughly.ipynb"
MAKEMORE1 = "karpathy/nn-zero-to-hero lectures/makemore/makemore_part1_bigrams.ipynb"
MAKEMORE2 = "karpathy/nn-zero-to-hero lectures/makemore/makemore_part2_mlp.ipynb"
MAKEMORE3 = "karpathy/nn-zero-to-hero lectures/makemore/makemore_part3_bn.ipynb"
MAKEMORE4 = "karpathy/nn-zero-to-hero lectures/makemore/makemore_part4_backprop.ipynb"
MAKEMORE5 = "karpathy/nn-zero-to-hero lectures/makemore/makemore_part5_cnn1.ipynb"
TEENY = "tinygrad/teenygrad test/test_ops.py"
HIPS_README = "HIPS/autograd README.md"
HIPS_TUTORIAL = "HIPS/autograd docs/tutorial.md"
HIPS_NUMPY = "HIPS/autograd tests/test_numpy.py"
HIPS_ODE = "HIPS/autograd examples/ode_net.py"
DOCS = "https://pytorch.org/docs/stable/"  # + the page's generated/ name

# Values shared by several cases (small, away from kinks and ties).
X23 = [[0.3, -1.2, 0.8], [1.5, 0.2, -0.7]]
X34 = [[0.2, -0.5, 1.1, 0.4], [-1.3, 0.7, 0.05, 0.9], [0.6, 1.4, -0.8, -0.2]]
LOGITS35 = [[1.2, -0.4, 0.3, 2.1, -1.0], [0.1, 0.9, -0.6, 0.4, 1.7], [-0.8, 0.5, 1.3, -0.2, 0.6]]
PROBS35 = [[0.1, 0.2, 0.3, 0.25, 0.15], [0.05, 0.5, 0.15, 0.2, 0.1], [0.3, 0.1, 0.1, 0.4, 0.1]]
X3D = [[[0.5, -0.3], [1.2, 0.7], [-0.9, 0.4]], [[0.1, 1.1], [-0.6, 0.8], [0.3, -1.4]]]  # (2, 3, 2)

CASES: list[Case] = [
    # ---- PyTorch tutorials --------------------------------------------------------------------
    case(
        "blitz_external_grad",
        BLITZ,
        "Q = 3*a**3 - b**2",
        "out = 3*a**3 - b**2",
        {"a": [2.0, 3.0], "b": [6.0, 4.0]},
        gradient=[1.0, 1.0],
    ),
    case(
        "autogradqs_bce_with_logits",
        AUTOGRADQS,
        """
        z = torch.matmul(x, w)+b
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
        """,
        """
        z = torch.matmul(x, w) + b
        out = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
        """,
        {
            "w": [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 0.2], [0.3, 0.4, -0.5]],
            "b": [0.1, -0.1, 0.2],
        },
        const={"x": [1.0, 1.0, 1.0, 1.0, 1.0], "y": [0.0, 0.0, 0.0]},
    ),
    case(
        "autogradqs_jacobian_product",
        AUTOGRADQS,
        "out = (inp+1).pow(2).t()",
        "out = (inp + 1).pow(2).t()",
        {
            "inp": [
                [1.0, 0.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0, 0.0],
            ]
        },
        gradient=[[1.0] * 4] * 5,
    ),
    case(
        "autogradqs_detach",
        AUTOGRADQS,
        """
        z = torch.matmul(x, w)+b
        z_det = z.detach()
        loss = (z * z_det).sum()
        """,
        """
        z = torch.matmul(x, w) + b
        z_det = z.detach()
        out = (z * z_det).sum()
        """,
        {"w": [[0.5, -0.2], [0.1, 0.3], [-0.4, 0.6]], "b": [0.2, -0.3]},
        const={"x": [1.0, 2.0, -1.0]},
    ),
    case(
        "pwe_polynomial_autograd",
        PWE,
        """
        y = torch.sin(x)
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        """,
        """
        y = torch.sin(x)
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        out = (y_pred - y).pow(2).sum()
        """,
        {"a": 0.1, "b": 0.8, "c": -0.05, "d": -0.09},
        const={"x": [-3.141592653589793, -1.5707963267948966, 0.0, 1.5707963267948966, 3.141592653589793]},
    ),
    case(
        "pwe_legendre_p3",
        PWE,
        """
        y_pred = a + b * (0.5 * (5 * (c + d * x) ** 3 - 3 * (c + d * x)))
        loss = (y_pred - y).pow(2).sum()
        """,
        """
        P3 = 0.5 * (5 * (c + d * x) ** 3 - 3 * (c + d * x))
        out = (a + b * P3 - y).pow(2).sum()
        """,
        {"a": 0.0, "b": -1.0, "c": 0.0, "d": 0.3},
        const={"x": [-2.0, -1.0, 0.5, 1.5, 3.0], "y": [-0.9, -0.8, 0.5, 1.0, 0.1]},
    ),
    case(
        "pwe_nn_linear_flatten",
        PWE,
        """
        xx = x.unsqueeze(-1).pow(p)
        y_pred = F.linear(xx, weight, bias).flatten(0, 1)
        loss = F.mse_loss(y_pred, y, reduction='sum')
        """,
        """
        xx = x.unsqueeze(-1).pow(p)
        y_pred = F.linear(xx, weight, bias).flatten(0, 1)
        out = F.mse_loss(y_pred, y, reduction='sum')
        """,
        {"weight": [[0.8, -0.1, -0.09]], "bias": [0.05]},
        const={"x": [-2.0, -1.0, 0.0, 1.0, 2.0], "p": [1, 2, 3], "y": [-0.91, -0.84, 0.0, 0.84, 0.91]},
    ),
    case(
        "pwe_dynamic_net",
        PWE,
        """
        y = a + b * x + c * x ** 2 + d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + e * x ** exp
        loss = (y - target).pow(2).sum()
        """,
        """
        import random
        random.seed(0)
        y = a + b * x + c * x ** 2 + d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + e * x ** exp
        out = (y - target).pow(2).sum()
        """,
        {"a": 0.1, "b": 0.8, "c": -0.05, "d": -0.09, "e": 0.01},
        const={"x": [-1.0, 0.5, 2.0], "target": [-0.8, 0.5, 0.9]},
        out_of_scope="a random number of layers: a loop over random.randint is a script, not one program",
    ),
    case(
        "blitz_nn_relu_linear",
        "https://pytorch.org/tutorials/beginner/blitz/neural_networks_tutorial.html",
        """
        x = F.relu(F.linear(x, w1, b1))
        output = F.linear(x, w2, b2)
        loss = F.mse_loss(output, target)
        """,
        """
        h = F.relu(F.linear(x, w1, b1))
        output = F.linear(h, w2, b2)
        out = F.mse_loss(output, target)
        """,
        {"w1": [[0.2, -0.3, 0.1], [0.4, 0.1, -0.2]], "b1": [0.05, 0.1], "w2": [[0.3, -0.2]], "b2": [0.1]},
        const={"x": [[0.3, -1.2, 0.8], [1.5, 0.2, -0.7]], "target": [[0.5], [-0.2]]},
    ),
    # ---- d2l.ai -------------------------------------------------------------------------------
    case(
        "d2l_autograd_dot",
        D2L_AUTOGRAD,
        "y = 2 * torch.dot(x, x)",
        "out = 2 * torch.dot(x, x)",
        {"x": [0.0, 1.0, 2.0, 3.0]},
    ),
    case("d2l_autograd_sum", D2L_AUTOGRAD, "y = x.sum()", "out = x.sum()", {"x": [0.0, 1.0, 2.0, 3.0]}),
    case(
        "d2l_autograd_nonscalar",
        D2L_AUTOGRAD,
        "y = x * x",
        "out = x * x",
        {"x": [0.0, 1.0, 2.0, 3.0]},
        gradient=[1.0, 1.0, 1.0, 1.0],
    ),
    case(
        "d2l_autograd_detach",
        D2L_AUTOGRAD,
        """
        y = x * x
        u = y.detach()
        z = u * x
        z.sum()
        """,
        """
        y = x * x
        u = y.detach()
        z = u * x
        out = z.sum()
        """,
        {"x": [0.0, 1.0, 2.0, 3.0]},
    ),
    case(
        "d2l_autograd_control_flow",
        D2L_AUTOGRAD,
        """
        b = a * 2
        while b.norm() < 1000:
            b = b * 2
        c = b if b.sum() > 0 else 100 * b
        """,
        """
        b = a * 2
        while b.norm() < 1000:
            b = b * 2
        out = b if b.sum() > 0 else 100 * b
        """,
        {"a": 0.7},
        out_of_scope="a while loop whose trip count depends on the data",
    ),
    case(
        "d2l_linreg_squared_loss",
        D2L_LINREG,
        """
        y_hat = torch.matmul(X, w) + b
        l = (y_hat - y.reshape(y_hat.shape)) ** 2 / 2
        l.sum()
        """,
        """
        y_hat = torch.matmul(X, w) + b
        l = (y_hat - y.reshape(y_hat.shape)) ** 2 / 2
        out = l.sum()
        """,
        {"w": [[0.3], [-0.2]], "b": 0.1},
        const={"X": [[1.0, 2.0], [0.5, -1.0], [-1.5, 0.3]], "y": [4.2, 6.5, -0.8]},
    ),
    case(
        "d2l_weight_decay",
        D2L_WD,
        """
        y_hat = torch.matmul(X, w) + b
        l = (y_hat - y.reshape(y_hat.shape)) ** 2 / 2 + lambd * torch.sum(w.pow(2)) / 2
        l.mean()
        """,
        """
        y_hat = torch.matmul(X, w) + b
        l = (y_hat - y.reshape(y_hat.shape)) ** 2 / 2 + lambd * torch.sum(w.pow(2)) / 2
        out = l.mean()
        """,
        {"w": [[0.3], [-0.2]], "b": 0.1},
        const={"X": [[1.0, 2.0], [0.5, -1.0], [-1.5, 0.3]], "y": [4.2, 6.5, -0.8], "lambd": 3.0},
    ),
    case(
        "d2l_softmax_regression",
        D2L_SOFTMAX,
        """
        O = torch.matmul(X.reshape((-1, W.shape[0])), W) + b
        X_exp = torch.exp(O)
        partition = X_exp.sum(1, keepdims=True)
        y_hat = X_exp / partition
        -torch.log(y_hat[list(range(len(y_hat))), y]).mean()
        """,
        """
        O = torch.matmul(X.reshape((-1, W.shape[0])), W) + b
        X_exp = torch.exp(O)
        partition = X_exp.sum(1, keepdims=True)
        y_hat = X_exp / partition
        out = -torch.log(y_hat[list(range(len(y_hat))), y]).mean()
        """,
        {
            "W": [[0.1, -0.2, 0.05], [0.3, 0.1, -0.1], [-0.2, 0.4, 0.2], [0.05, -0.3, 0.1]],
            "b": [0.0, 0.1, -0.1],
        },
        const={"X": [[[0.5, 1.0], [0.2, 0.8]], [[0.9, 0.1], [0.4, 0.6]]], "y": [0, 2]},
    ),
    case(
        "d2l_ndarray_indexing",
        "https://d2l.ai/chapter_preliminaries/ndarray.html",
        "(X[-1] * X[1:3]).sum() + X[:, 1].sum()",
        "out = (X[-1] * X[1:3]).sum() + X[:, 1].sum()",
        {"X": X34},
    ),
    case(
        "d2l_pick_probabilities",
        D2L_SOFTMAX,
        "y_hat[[0, 1], y]",
        "out = y_hat[[0, 1], y]",
        {"y_hat": [[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]]},
        const={"y": [0, 2]},
        gradient=[1.0, 1.0],
    ),
    case(
        "d2l_discuss_neg_log_pick",
        D2L_SOFTMAX_QA,
        "- np.log(y_hat[range(len(y_hat)), y])",
        "out = -torch.log(y_hat[range(len(y_hat)), y])",
        {"y_hat": [[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]]},
        const={"y": [0, 2]},
        gradient=[1.0, 1.0],
    ),
    case(
        "d2l_mlp_relu",
        D2L_MLP,
        "y = torch.relu(x)",
        "out = torch.relu(x)",
        {"x": [-2.0, -0.5, 0.5, 2.0]},
        gradient=[1.0, 1.0, 1.0, 1.0],
    ),
    case(
        "d2l_mlp_sigmoid",
        D2L_MLP,
        "y = torch.sigmoid(x)",
        "out = torch.sigmoid(x)",
        {"x": [-2.0, -0.5, 0.5, 2.0]},
        gradient=[1.0, 1.0, 1.0, 1.0],
    ),
    case(
        "d2l_mlp_scratch",
        D2L_MLP_SCRATCH,
        """
        X = X.reshape((-1, 4))
        Z = X@W1 + b1
        H = torch.max(Z, torch.zeros_like(Z))
        O = H@W2 + b2
        loss = F.cross_entropy(O, y, reduction='none').mean()
        """,
        """
        X = X.reshape((-1, 4))
        Z = X @ W1 + b1
        H = torch.max(Z, torch.zeros_like(Z))
        O = H @ W2 + b2
        out = F.cross_entropy(O, y, reduction='none').mean()
        """,
        {
            "W1": [[0.2, -0.3, 0.1], [0.4, 0.1, -0.2], [-0.1, 0.3, 0.5], [0.3, -0.4, 0.2]],
            "b1": [0.05, 0.1, -0.05],
            "W2": [[0.3, -0.2], [0.1, 0.4], [-0.5, 0.2]],
            "b2": [0.0, 0.1],
        },
        const={"X": [[[0.5, 1.0], [0.2, 0.8]], [[0.9, 0.1], [0.4, 0.6]]], "y": [1, 0]},
    ),
    case(
        "d2l_dropout",
        D2L_DROPOUT,
        """
        mask = (torch.rand(X.shape) > dropout).float()
        H = mask * X / (1.0 - dropout)
        H.sum()
        """,
        """
        torch.manual_seed(0)
        mask = (torch.rand(X.shape) > dropout).double()
        H = mask * X / (1.0 - dropout)
        out = H.sum()
        """,
        {"X": [[0.5, 1.0, -0.3], [0.2, 0.8, 1.1]]},
        const={"dropout": 0.5},
        out_of_scope="random numbers drawn inside the program (torch.rand): nothing to reproduce it with",
    ),
    case(
        "d2l_batch_norm",
        D2L_BN,
        """
        mean = X.mean(dim=0)
        var = ((X - mean) ** 2).mean(dim=0)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        Y = gamma * X_hat + beta
        """,
        """
        mean = X.mean(dim=0)
        var = ((X - mean) ** 2).mean(dim=0)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        out = gamma * X_hat + beta
        """,
        {"X": [[0.5, 1.0], [0.2, -0.8], [0.9, 0.1]], "gamma": [1.0, 1.5], "beta": [0.0, 0.2]},
        const={"eps": 1e-5},
        gradient=[[0.3, -0.1], [0.2, 0.5], [-0.4, 0.1]],
    ),
    # ---- micrograd and nn-zero-to-hero ---------------------------------------------------------
    case(
        "micrograd_readme",
        MICROGRAD_README,
        """
        c = a + b
        d = a * b + b**3
        c += c + 1
        c += 1 + c + (-a)
        d += d * 2 + (b + a).relu()
        d += 3 * d + (b - a).relu()
        e = c - d
        f = e**2
        g = f / 2.0
        g += 10.0 / f
        """,
        """
        c = a + b
        d = a * b + b**3
        c = c + c + 1
        c = c + 1 + c + (-a)
        d = d + d * 2 + (b + a).relu()
        d = d + 3 * d + (b - a).relu()
        e = c - d
        f = e**2
        g = f / 2.0
        out = g + 10.0 / f
        """,
        {"a": -4.0, "b": 2.0},
    ),
    case(
        "micrograd_sanity_check",
        MICROGRAD_TEST,
        """
        z = 2 * x + 2 + x
        q = z.relu() + z * x
        h = (z * z).relu()
        y = h + q + q * x
        """,
        """
        z = 2 * x + 2 + x
        q = z.relu() + z * x
        h = (z * z).relu()
        out = h + q + q * x
        """,
        {"x": -4.0},
    ),
    case(
        "zth_expression_graph",
        ZTH_MICROGRAD,
        """
        e = a*b
        d = e + c
        L = d * f
        """,
        """
        e = a * b
        d = e + c
        out = d * f
        """,
        {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0},
    ),
    case(
        "zth_neuron_torch",
        ZTH_MICROGRAD,
        """
        n = x1*w1 + x2*w2 + b
        o = torch.tanh(n)
        """,
        """
        n = x1 * w1 + x2 * w2 + b
        out = torch.tanh(n)
        """,
        {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432},
    ),
    case(
        "zth_neuron_tanh_by_exp",
        ZTH_MICROGRAD,
        """
        x1w1 = x1*w1
        x2w2 = x2*w2
        x1w1x2w2 = x1w1 + x2w2
        n = x1w1x2w2 + b
        e = (2*n).exp()
        o = (e - 1) / (e + 1)
        """,
        """
        n = x1 * w1 + x2 * w2 + b
        e = (2 * n).exp()
        out = (e - 1) / (e + 1)
        """,
        {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432},
    ),
    case(
        "zth_mlp_loss_generator",
        ZTH_MICROGRAD2,
        "loss = sum((yout - ygt)**2 for ygt, yout in zip(ys, ypred))",
        "out = sum((yout - ygt)**2 for ygt, yout in zip(ys, ypred))",
        {"ypred": [0.8, -0.7, -0.9, 0.6]},
        const={"ys": [1.0, -1.0, -1.0, 1.0]},
        out_of_scope="a generator expression over zip(): per-element Python, not a tensor program",
    ),
    case(
        "micrograd_demo_svm_loss",
        MICROGRAD_DEMO,
        """
        scores = X @ w + b
        losses = (1 + -y*scores).relu()
        data_loss = losses.sum() * (1.0 / len(losses))
        reg_loss = alpha * (w*w).sum()
        total_loss = data_loss + reg_loss
        """,
        """
        scores = X @ w + b
        losses = (1 + -y * scores).relu()
        data_loss = losses.sum() * (1.0 / len(losses))
        reg_loss = alpha * (w * w).sum()
        out = data_loss + reg_loss
        """,
        {"w": [0.4, -0.3], "b": 0.1},
        const={
            "X": [[1.0, 0.5], [-0.5, 1.5], [2.0, -1.0], [0.3, 0.3]],
            "y": [1.0, -1.0, 1.0, -1.0],
            "alpha": 1e-4,
        },
    ),
    case(
        "makemore1_bigram_nn",
        MAKEMORE1,
        """
        xenc = F.one_hot(xs, num_classes=5).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(4), ys].log().mean() + 0.01*(W**2).mean()
        """,
        """
        xenc = F.one_hot(xs, num_classes=5).double()  # .float() would leave the float64 oracle
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        out = -probs[torch.arange(4), ys].log().mean() + 0.01 * (W**2).mean()
        """,
        {"W": [[0.1 * ((3 * i + 7 * j) % 11) - 0.5 for j in range(5)] for i in range(5)]},
        const={"xs": [0, 1, 3, 2], "ys": [1, 3, 2, 0]},
    ),
    case(
        "makemore2_mlp_cross_entropy",
        MAKEMORE2,
        """
        emb = C[X]
        h = torch.tanh(emb.view(-1, 4) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Y)
        """,
        """
        emb = C[X]
        h = torch.tanh(emb.view(-1, 4) @ W1 + b1)
        logits = h @ W2 + b2
        out = F.cross_entropy(logits, Y)
        """,
        {
            "C": [[0.5, -0.2], [0.1, 0.9], [-0.7, 0.3], [0.4, 0.4], [-0.1, -0.6]],
            "W1": [[0.2, -0.3, 0.1], [0.4, 0.1, -0.2], [-0.1, 0.3, 0.5], [0.3, -0.4, 0.2]],
            "b1": [0.05, 0.1, -0.05],
            "W2": [[0.3, -0.2, 0.1, 0.0, 0.2], [0.1, 0.4, -0.3, 0.2, 0.0], [-0.5, 0.2, 0.1, 0.3, -0.1]],
            "b2": [0.0, 0.1, -0.1, 0.05, 0.0],
        },
        const={"X": [[0, 1], [1, 3], [3, 4]], "Y": [3, 4, 0]},
    ),
    case(
        "makemore2_cat_unbind",
        MAKEMORE2,
        """
        embcat = torch.cat([emb[:, 0, :], emb[:, 1, :], emb[:, 2, :]], 1)
        h = torch.tanh(embcat @ W1)
        h.sum()
        """,
        """
        embcat = torch.cat([emb[:, 0, :], emb[:, 1, :], emb[:, 2, :]], 1)
        h = torch.tanh(embcat @ W1)
        out = h.sum()
        """,
        {
            "emb": [[[0.5, -0.2], [0.1, 0.9], [-0.7, 0.3]], [[0.4, 0.4], [-0.1, -0.6], [0.2, 0.8]]],
            "W1": [[0.2, -0.3], [0.4, 0.1], [-0.1, 0.3], [0.3, -0.4], [0.1, 0.2], [-0.2, 0.5]],
        },
    ),
    case(
        "makemore3_batchnorm",
        MAKEMORE3,
        """
        emb = C[Xb]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        hpreact = bngain * (hpreact - hpreact.mean(0, keepdim=True)) / hpreact.std(0, keepdim=True) + bnbias
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Yb)
        """,
        """
        emb = C[Xb]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        hpreact = bngain * (hpreact - hpreact.mean(0, keepdim=True)) / hpreact.std(0, keepdim=True) + bnbias
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        out = F.cross_entropy(logits, Yb)
        """,
        {
            "C": [[0.5, -0.2], [0.1, 0.9], [-0.7, 0.3], [0.4, 0.4], [-0.1, -0.6]],
            "W1": [[0.2, -0.3, 0.1], [0.4, 0.1, -0.2], [-0.1, 0.3, 0.5], [0.3, -0.4, 0.2]],
            "b1": [0.05, 0.1, -0.05],
            "bngain": [[1.0, 0.9, 1.1]],
            "bnbias": [[0.0, 0.1, -0.1]],
            "W2": [[0.3, -0.2, 0.1, 0.0, 0.2], [0.1, 0.4, -0.3, 0.2, 0.0], [-0.5, 0.2, 0.1, 0.3, -0.1]],
            "b2": [0.0, 0.1, -0.1, 0.05, 0.0],
        },
        const={"Xb": [[0, 1], [1, 3], [3, 4], [2, 2]], "Yb": [3, 4, 0, 1]},
    ),
    case(
        "makemore4_exploded_cross_entropy",
        MAKEMORE4,
        """
        logit_maxes = logits.max(1, keepdim=True).values
        norm_logits = logits - logit_maxes
        counts = norm_logits.exp()
        counts_sum = counts.sum(1, keepdims=True)
        counts_sum_inv = counts_sum**-1
        probs = counts * counts_sum_inv
        logprobs = probs.log()
        loss = -logprobs[range(n), Yb].mean()
        """,
        """
        logit_maxes = logits.max(1, keepdim=True).values
        norm_logits = logits - logit_maxes
        counts = norm_logits.exp()
        counts_sum = counts.sum(1, keepdims=True)
        counts_sum_inv = counts_sum**-1
        probs = counts * counts_sum_inv
        logprobs = probs.log()
        out = -logprobs[range(n), Yb].mean()
        """,
        {"logits": LOGITS35},
        const={"Yb": [3, 1, 2], "n": 3},
    ),
    case(
        "makemore4_exploded_batchnorm",
        MAKEMORE4,
        """
        bnmeani = 1/n*hprebn.sum(0, keepdim=True)
        bndiff = hprebn - bnmeani
        bndiff2 = bndiff**2
        bnvar = 1/(n-1)*(bndiff2).sum(0, keepdim=True)
        bnvar_inv = (bnvar + 1e-5)**-0.5
        bnraw = bndiff * bnvar_inv
        hpreact = bngain * bnraw + bnbias
        h = torch.tanh(hpreact)
        """,
        """
        bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
        bndiff = hprebn - bnmeani
        bndiff2 = bndiff**2
        bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)
        bnvar_inv = (bnvar + 1e-5) ** -0.5
        bnraw = bndiff * bnvar_inv
        hpreact = bngain * bnraw + bnbias
        out = torch.tanh(hpreact)
        """,
        {"hprebn": X34, "bngain": [[1.0, 0.9, 1.1, 1.2]], "bnbias": [[0.0, 0.1, -0.1, 0.05]]},
        const={"n": 3},
        gradient=[[0.1, -0.2, 0.3, 0.0], [0.5, 0.1, -0.1, 0.2], [-0.3, 0.4, 0.2, -0.1]],
    ),
    case(
        "makemore4_cross_entropy_builtin",
        MAKEMORE4,
        "loss_fast = F.cross_entropy(logits, Yb)",
        "out = F.cross_entropy(logits, Yb)",
        {"logits": LOGITS35},
        const={"Yb": [3, 1, 2]},
    ),
    case(
        "makemore5_flatten_consecutive",
        MAKEMORE5,
        """
        B, T, C = x.shape
        x = x.view(B, T//2, C*2)
        x = x.squeeze(1)
        (x ** 2).mean()
        """,
        """
        B, T, C = x.shape
        x = x.view(B, T // 2, C * 2)
        x = x.squeeze(1)
        out = (x ** 2).mean()
        """,
        {"x": [[[0.5, -0.3], [1.2, 0.7]], [[0.1, 1.1], [-0.6, 0.8]], [[0.3, -1.4], [0.9, 0.2]]]},
    ),
    # ---- teenygrad test_ops: the op, then its (out+1).square().mean() loss ------------------------
    case(
        "teeny_leaky_relu",
        TEENY,
        "out = torch.nn.functional.leaky_relu(x, 0.01)\n(out+1).square().mean()",
        "y = torch.nn.functional.leaky_relu(x, 0.01)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_log2",
        TEENY,
        "out = torch.log2(x)\n(out+1).square().mean()",
        "y = torch.log2(x)\nout = (y + 1).square().mean()",
        {"x": [[0.3, 1.2, 0.8], [1.5, 0.2, 0.7]]},
    ),
    case(
        "teeny_exp2",
        TEENY,
        "out = torch.exp2(x)\n(out+1).square().mean()",
        "y = torch.exp2(x)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_rsqrt",
        TEENY,
        "out = torch.rsqrt(x)\n(out+1).square().mean()",
        "y = torch.rsqrt(x)\nout = (y + 1).square().mean()",
        {"x": [[0.3, 1.2, 0.8], [1.5, 0.2, 0.7]]},
    ),
    case(
        "teeny_elu_alpha",
        TEENY,
        "out = torch.nn.functional.elu(x, alpha=0.1)\n(out+1).square().mean()",
        "y = torch.nn.functional.elu(x, alpha=0.1)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_gelu_tanh",
        TEENY,
        'out = torch.nn.functional.gelu(x, approximate="tanh")\n(out+1).square().mean()',
        'y = torch.nn.functional.gelu(x, approximate="tanh")\nout = (y + 1).square().mean()',
        {"x": X23},
    ),
    case(
        "teeny_quick_gelu",
        TEENY,
        "out = x * torch.sigmoid(1.702 * x)\n(out+1).square().mean()",
        "y = x * torch.sigmoid(1.702 * x)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_mish",
        TEENY,
        "out = x * torch.tanh(torch.nn.functional.softplus(x))\n(out+1).square().mean()",
        "y = x * torch.tanh(torch.nn.functional.softplus(x))\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_relu6",
        TEENY,
        "out = torch.nn.functional.relu6(x * 5)\n(out+1).square().mean()",
        "y = torch.nn.functional.relu6(x * 5)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_hardtanh",
        TEENY,
        "out = torch.nn.functional.hardtanh(x, -1.0, 1.0)\n(out+1).square().mean()",
        "y = torch.nn.functional.hardtanh(x, -1.0, 1.0)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_maximum",
        TEENY,
        "out = torch.maximum(x, y)\n(out+1).square().mean()",
        "m = torch.maximum(x, y)\nout = (m + 1).square().mean()",
        {"x": [1.0, 0.0, 3.0, -4.0], "y": [-1.0, -2.0, 3.5, 0.0]},
    ),
    case(
        "teeny_clip",
        TEENY,
        "out = x.clip(-1.0, 1.2)\n(out+1).square().mean()",
        "y = x.clip(-1.0, 1.2)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_cumsum",
        TEENY,
        "out = torch.cumsum(x, dim=1)\n(out+1).square().mean()",
        "y = torch.cumsum(x, dim=1)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_max_axis",
        TEENY,
        "out = x.max(axis=1)[0]\n(out+1).square().mean()",
        "y = x.max(axis=1)[0]\nout = (y + 1).square().mean()",
        {"x": X34},
    ),
    case(
        "teeny_min",
        TEENY,
        "out = x.min().mul(0.5)\n(out+1).square().mean()",
        "y = x.min().mul(0.5)\nout = (y + 1).square().mean()",
        {"x": X34},
    ),
    case(
        "teeny_std_correction",
        TEENY,
        "out = torch.std(x, dim=0, keepdim=True, correction=0)\n(out+1).square().mean()",
        "y = torch.std(x, dim=0, keepdim=True, correction=0)\nout = (y + 1).square().mean()",
        {"x": X34},
    ),
    case(
        "teeny_log_softmax",
        TEENY,
        "out = x.log_softmax(1)\n(out+1).square().mean()",
        "y = x.log_softmax(1)\nout = (y + 1).square().mean()",
        {"x": X34},
    ),
    case(
        "teeny_transpose",
        TEENY,
        "out = x.transpose(1,2)\n(out+1).square().mean()",
        "y = x.transpose(1, 2)\nout = (y + 1).square().mean()",
        {"x": X3D},
    ),
    case(
        "teeny_permute",
        TEENY,
        "out = x.permute(2, 0, 1)\n(out+1).square().mean()",
        "y = x.permute(2, 0, 1)\nout = (y + 1).square().mean()",
        {"x": X3D},
    ),
    case(
        "teeny_reshape",
        TEENY,
        "out = torch.reshape(x, (-1, 3))\n(out+1).square().mean()",
        "y = torch.reshape(x, (-1, 3))\nout = (y + 1).square().mean()",
        {"x": X3D},
    ),
    case(
        "teeny_flatten",
        TEENY,
        "out = torch.flatten(x, start_dim=1)\n(out+1).square().mean()",
        "y = torch.flatten(x, start_dim=1)\nout = (y + 1).square().mean()",
        {"x": X3D},
    ),
    case(
        "teeny_unsqueeze",
        TEENY,
        "out = torch.unsqueeze(x, -1)\n(out+1).square().mean()",
        "y = torch.unsqueeze(x, -1)\nout = (y + 1).square().mean()",
        {"x": X23},
    ),
    case(
        "teeny_slice",
        TEENY,
        "out = x[1:2, 1:3, 0:-1]\n(out+1).square().mean()",
        "y = x[1:2, 1:3, 0:-1]\nout = (y + 1).square().mean()",
        {"x": X3D},
    ),
    case(
        "teeny_cat",
        TEENY,
        "out = torch.cat((x,y,z), 1)\n(out+1).square().mean()",
        "c = torch.cat((x, y, z), 1)\nout = (c + 1).square().mean()",
        {"x": X23, "y": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], "z": [[-0.1, -0.2, -0.3], [-0.4, -0.5, -0.6]]},
    ),
    case(
        "teeny_stack",
        TEENY,
        "out = torch.stack((x, y, z), dim=1)\n(out+1).square().mean()",
        "s = torch.stack((x, y, z), dim=1)\nout = (s + 1).square().mean()",
        {"x": X23, "y": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], "z": [[-0.1, -0.2, -0.3], [-0.4, -0.5, -0.6]]},
    ),
    case(
        "teeny_where",
        TEENY,
        "out = torch.where(x > 0.5, a, b)\n(out+1).square().mean()",
        "w = torch.where(x > 0.5, a, b)\nout = (w + 1).square().mean()",
        {"a": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], "b": [[-0.1, -0.2, -0.3], [-0.4, -0.5, -0.6]]},
        const={"x": X23},
    ),
    case(
        "teeny_matmul_vector",
        TEENY,
        "out = x.matmul(y)\n(out+1).square().mean()",
        "m = x.matmul(y)\nout = (m + 1).square().mean()",
        {"x": [0.5, -0.3, 0.8], "y": X34},
    ),
    case(
        "teeny_relu_sum_relu",
        TEENY,
        "x.relu().sum().relu()",
        "out = x.relu().sum().relu()",
        {"x": X3D},
    ),
    case(
        "teeny_binary_crossentropy",
        TEENY,
        "torch.nn.functional.binary_cross_entropy(x.sigmoid(), torch.clip(y, 0, 1))",
        "out = torch.nn.functional.binary_cross_entropy(x.sigmoid(), torch.clip(y, 0, 1))",
        {"x": X23},
        const={"y": [[0.0, 1.0, 1.3], [0.4, -0.2, 1.0]]},
    ),
    case(
        "teeny_binary_crossentropy_logits",
        TEENY,
        "torch.nn.functional.binary_cross_entropy_with_logits(x, torch.clip(y, 0, 1))",
        "out = torch.nn.functional.binary_cross_entropy_with_logits(x, torch.clip(y, 0, 1))",
        {"x": X23},
        const={"y": [[0.0, 1.0, 1.3], [0.4, -0.2, 1.0]]},
    ),
    case(
        "teeny_gather",
        TEENY,
        "out = x.gather(index=b, dim=1)\n(out+1).square().mean()",
        "g = x.gather(index=b, dim=1)\nout = (g + 1).square().mean()",
        {"x": X34},
        const={"b": [[0, 3], [2, 2], [1, 0]]},
    ),
    # ---- HIPS autograd ------------------------------------------------------------------------
    case(
        "hips_readme_tanh",
        HIPS_README,
        "(1.0 - np.exp((-2 * x))) / (1.0 + np.exp(-(2 * x)))",
        "out = (1.0 - torch.exp((-2 * x))) / (1.0 + torch.exp(-(2 * x)))",
        {"x": 1.0},
    ),
    case(
        "hips_logistic_regression",
        HIPS_TUTORIAL,
        """
        preds = 0.5 * (np.tanh(np.dot(inputs, weights) / 2.) + 1)
        label_probabilities = preds * targets + (1 - preds) * (1 - targets)
        -np.sum(np.log(label_probabilities))
        """,
        """
        preds = 0.5 * (torch.tanh(torch.matmul(inputs, weights) / 2.0) + 1)
        label_probabilities = preds * targets + (1 - preds) * (1 - targets)
        out = -torch.sum(torch.log(label_probabilities))
        """,
        {"weights": [0.2, -0.4, 0.1]},
        const={
            "inputs": [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]],
            "targets": [1.0, 1.0, 0.0, 1.0],
        },
    ),
    case(
        "hips_numpy_max_axis",
        HIPS_NUMPY,
        "np.max(x, axis=1)",
        "out = torch.amax(x, dim=1)  # NumPy's max along an axis is torch.amax",
        {"x": X34},
        gradient=[1.0, 0.5, -1.0],
    ),
    case(
        "hips_numpy_cumsum_axis",
        HIPS_NUMPY,
        "np.cumsum(x, axis=0)",
        "out = torch.cumsum(x, dim=0)",
        {"x": X23},
        gradient=[[1.0, 0.5, -1.0], [0.2, 0.3, 0.4]],
    ),
    case(
        "hips_numpy_mean_keepdims",
        HIPS_NUMPY,
        "np.mean(x, axis=0, keepdims=True)",
        "out = torch.mean(x, dim=0, keepdim=True)",
        {"x": X23},
        gradient=[[1.0, 0.5, -1.0]],
    ),
    case(
        "hips_index_lists",
        HIPS_NUMPY,
        "x[[0, 1, 2], :, :]",
        "out = x[[0, 1, 2], :, :]",
        {
            "x": [
                [[0.1, 0.2], [0.3, 0.4]],
                [[0.5, 0.6], [0.7, 0.8]],
                [[0.9, 1.0], [1.1, 1.2]],
                [[1.3, 1.4], [1.5, 1.6]],
            ]
        },
        gradient=[[[1.0, 0.0], [0.5, 0.5]], [[2.0, 1.0], [0.0, 1.0]], [[-1.0, 1.0], [1.0, -1.0]]],
    ),
    case(
        "hips_index_ints",
        HIPS_NUMPY,
        "x[3, 0, 1]",
        "out = x[3, 0, 1]",
        {
            "x": [
                [[0.1, 0.2], [0.3, 0.4]],
                [[0.5, 0.6], [0.7, 0.8]],
                [[0.9, 1.0], [1.1, 1.2]],
                [[1.3, 1.4], [1.5, 1.6]],
            ]
        },
    ),
    case(
        "hips_ode_euler_step",
        HIPS_ODE,
        """
        y1 = y0 + t * np.dot(y0**3, A)
        np.mean(np.abs(y1 - targets))
        """,
        """
        y1 = y0 + t * torch.matmul(y0**3, A)
        out = torch.mean(torch.abs(y1 - targets))
        """,
        {"A": [[-0.1, 2.0], [-2.0, -0.1]]},
        const={"y0": [2.0, 0.5], "t": 0.05, "targets": [1.5, 1.2]},
    ),
    case(
        "hips_nn_predict",
        HIPS_ODE,
        """
        outputs = np.dot(inputs, W) + b
        inputs = np.maximum(0, outputs)
        np.mean(np.abs(inputs - targets))
        """,
        """
        outputs = torch.matmul(inputs, W) + b
        hidden = torch.maximum(torch.tensor(0.0, dtype=outputs.dtype), outputs)  # np.maximum(0, x)
        out = torch.mean(torch.abs(hidden - targets))
        """,
        {"W": [[0.5, -0.4], [0.3, 0.8]], "b": [0.1, -0.2]},
        const={
            "inputs": [[1.0, 0.5], [-0.5, 1.5], [2.0, -1.0]],
            "targets": [[0.5, 0.2], [0.0, 1.0], [1.0, 0.3]],
        },
    ),
    # ---- PyTorch documentation examples ---------------------------------------------------------
    case(
        "docs_cross_entropy_indices",
        DOCS + "generated/torch.nn.functional.cross_entropy.html",
        "loss = F.cross_entropy(input, target)",
        "out = F.cross_entropy(input, target)",
        {"input": LOGITS35},
        const={"target": [1, 0, 4]},
    ),
    case(
        "docs_cross_entropy_probabilities",
        DOCS + "generated/torch.nn.functional.cross_entropy.html",
        "loss = F.cross_entropy(input, target)",
        "out = F.cross_entropy(input, target)",
        {"input": LOGITS35},
        const={"target": PROBS35},
    ),
    case(
        "docs_nll_loss",
        DOCS + "generated/torch.nn.functional.nll_loss.html",
        "output = F.nll_loss(F.log_softmax(input, dim=1), target)",
        "out = F.nll_loss(F.log_softmax(input, dim=1), target)",
        {"input": LOGITS35},
        const={"target": [1, 0, 4]},
    ),
    case(
        "docs_mse_loss",
        DOCS + "generated/torch.nn.MSELoss.html",
        "output = F.mse_loss(input, target)",
        "out = F.mse_loss(input, target)",
        {"input": X34},
        const={"target": [[0.0, 0.1, 1.0, 0.5], [-1.0, 0.5, 0.0, 1.0], [0.5, 1.0, -1.0, 0.0]]},
    ),
    case(
        "docs_l1_loss",
        DOCS + "generated/torch.nn.L1Loss.html",
        "output = F.l1_loss(input, target)",
        "out = F.l1_loss(input, target)",
        {"input": X34},
        const={"target": [[0.0, 0.1, 1.0, 0.5], [-1.0, 0.5, 0.0, 1.0], [0.5, 1.0, -1.0, 0.0]]},
    ),
    case(
        "docs_smooth_l1_loss",
        DOCS + "generated/torch.nn.SmoothL1Loss.html",
        "output = F.smooth_l1_loss(input, target, beta=0.5)",
        "out = F.smooth_l1_loss(input, target, beta=0.5)",
        {"input": X34},
        const={"target": [[0.0, 0.1, 1.0, 0.5], [-1.0, 0.5, 0.0, 1.0], [0.5, 1.0, -1.0, 0.0]]},
    ),
    case(
        "docs_huber_loss",
        DOCS + "generated/torch.nn.HuberLoss.html",
        "output = F.huber_loss(input, target, delta=0.5)",
        "out = F.huber_loss(input, target, delta=0.5)",
        {"input": X34},
        const={"target": [[0.0, 0.1, 1.0, 0.5], [-1.0, 0.5, 0.0, 1.0], [0.5, 1.0, -1.0, 0.0]]},
    ),
    case(
        "docs_binary_cross_entropy",
        DOCS + "generated/torch.nn.functional.binary_cross_entropy.html",
        "loss = F.binary_cross_entropy(torch.sigmoid(input), target)",
        "out = F.binary_cross_entropy(torch.sigmoid(input), target)",
        {"input": [[0.3, -1.2], [0.8, 1.5], [0.2, -0.7]]},
        const={"target": [[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]},
    ),
    case(
        "docs_softmax_dim",
        DOCS + "generated/torch.nn.functional.softmax.html",
        "F.softmax(input, dim=1)",
        "out = F.softmax(input, dim=1)",
        {"input": X23},
        gradient=[[1.0, 0.0, -1.0], [0.5, 0.5, 2.0]],
    ),
    case(
        "docs_normalize",
        DOCS + "generated/torch.nn.functional.normalize.html",
        "F.normalize(x, p=2.0, dim=1)",
        "out = F.normalize(x, p=2.0, dim=1)",
        {"x": X23},
        gradient=[[1.0, 0.0, -1.0], [0.5, 0.5, 2.0]],
    ),
    case(
        "docs_linear",
        DOCS + "generated/torch.nn.functional.linear.html",
        "F.linear(input, weight, bias).sum()",
        "out = F.linear(input, weight, bias).sum()",
        {"weight": [[0.2, -0.3, 0.1], [0.4, 0.1, -0.2]], "bias": [0.05, -0.05]},
        const={"input": X23},
    ),
    case(
        "docs_one_hot_manual_cross_entropy",
        DOCS + "generated/torch.nn.functional.one_hot.html",
        "loss = -(F.one_hot(y, num_classes=5) * F.log_softmax(logits, dim=1)).sum(dim=1).mean()",
        "out = -(F.one_hot(y, num_classes=5) * F.log_softmax(logits, dim=1)).sum(dim=1).mean()",
        {"logits": LOGITS35},
        const={"y": [1, 0, 4]},
    ),
    case(
        "docs_logsumexp",
        DOCS + "generated/torch.logsumexp.html",
        "torch.logsumexp(a, dim=1)",
        "out = torch.logsumexp(a, dim=1)",
        {"a": X34},
        gradient=[1.0, 2.0, -1.0],
    ),
    case(
        "docs_clamp",
        DOCS + "generated/torch.clamp.html",
        "torch.clamp(a, min=-0.6, max=0.5).sum()",
        "out = torch.clamp(a, min=-0.6, max=0.5).sum()",
        {"a": X34},
    ),
    case(
        "docs_where",
        DOCS + "generated/torch.where.html",
        "torch.where(x > 0, x, y)",
        "out = torch.where(x > 0, x, y)",
        {"x": X23, "y": [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]},
        gradient=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
    ),
    case(
        "docs_prod_dim",
        DOCS + "generated/torch.prod.html",
        "torch.prod(a, 1)",
        "out = torch.prod(a, 1)",
        {"a": X34},
        gradient=[1.0, 2.0, -1.0],
    ),
    case(
        "docs_var_keepdim",
        DOCS + "generated/torch.var.html",
        "torch.var(a, dim=1, keepdim=True)",
        "out = torch.var(a, dim=1, keepdim=True)",
        {"a": X34},
        gradient=[[1.0], [2.0], [-1.0]],
    ),
    case(
        "docs_norm",
        DOCS + "generated/torch.norm.html",
        "torch.norm(a)",
        "out = torch.norm(a)",
        {"a": X34},
    ),
    case(
        "docs_amax",
        DOCS + "generated/torch.amax.html",
        "torch.amax(a, 1)",
        "out = torch.amax(a, 1)",
        {"a": X34},
        gradient=[1.0, 2.0, -1.0],
    ),
    case(
        "docs_max_dim_values",
        DOCS + "generated/torch.max.html",
        "torch.max(a, 1).values.sum()",
        "out = torch.max(a, 1).values.sum()",
        {"a": X34},
    ),
    case(
        "docs_min_dim_tuple",
        DOCS + "generated/torch.min.html",
        "torch.min(a, 1)[0].sum()",
        "out = torch.min(a, 1)[0].sum()",
        {"a": X34},
    ),
    case(
        "docs_expm1_log1p",
        DOCS + "generated/torch.expm1.html",
        "torch.log1p(torch.expm1(x)).sum()",
        "out = torch.log1p(torch.expm1(x)).sum()",
        {"x": X23},
    ),
    case(
        "docs_reciprocal",
        DOCS + "generated/torch.reciprocal.html",
        "torch.reciprocal(a)",
        "out = torch.reciprocal(a)",
        {"a": [-0.4595, -2.1219, -1.4314, 0.7298]},
        gradient=[1.0, 1.0, 1.0, 1.0],
    ),
    case(
        "docs_erf",
        DOCS + "generated/torch.erf.html",
        "torch.erf(x).sum()",
        "out = torch.erf(x).sum()",
        {"x": [0.0, -1.0, 10.0]},
    ),
    case(
        "docs_silu_gelu",
        DOCS + "generated/torch.nn.functional.silu.html",
        "F.silu(x).sum() + F.gelu(x).sum()",
        "out = F.silu(x).sum() + F.gelu(x).sum()",
        {"x": X23},
    ),
    case(
        "docs_transpose_T",
        DOCS + "tensors.html#torch.Tensor.T",
        "(x.T @ x).sum()",
        "out = (x.T @ x).sum()",
        {"x": X23},
    ),
    case(
        "docs_mean_dim",
        DOCS + "generated/torch.mean.html",
        "z.mean(dim=0)",
        "out = z.mean(dim=0)",
        {"z": X23},
        gradient=[1.0, 2.0, 3.0],
    ),
    case(
        "docs_square_mul_methods",
        DOCS + "generated/torch.square.html",
        "x.square().mul(y).sum()",
        "out = x.square().mul(y).sum()",
        {"x": X23, "y": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]},
    ),
    # ---- questions and answers ------------------------------------------------------------------
    case(
        "qa_neg_log",
        D2L_SOFTMAX_QA,
        "-log(p)",
        "out = -torch.log(p)",
        {"p": 0.3},
    ),
    case(
        "qa_nonscalar_gradient",
        "https://www.pythonclear.com/errors/runtimeerror-grad-can-be-implicitly-created-only-for-scalar-outputs/",
        "A=x*y",
        "out = x * y",
        {"x": [5.0, 5.0], "y": [8.0, 8.0]},
        gradient=[1.0, 1.0],
    ),
    case(
        "qa_mse_against_ones_like",
        "https://stackoverflow.com/questions/54754153/autograd-grad-for-tensor-in-pytorch/54757383",
        """
        gt = torch.ones_like(x) * 16 - 0.5
        v = x + 2
        y = v ** 2
        loss = F.mse_loss(y, gt)
        """,
        """
        gt = torch.ones_like(x) * 16 - 0.5
        v = x + 2
        y = v ** 2
        out = F.mse_loss(y, gt)
        """,
        {"x": [[1.0, 1.0], [1.0, 1.0]]},
    ),
    case(
        "qa_stack_keeps_gradient",
        "https://discuss.pytorch.org/t/gradient-is-lost-when-use-torch-tensor-t1-t2/23261",
        """
        cosa = torch.cos(a)
        cosb = torch.cos(b)
        y2 = torch.stack([cosa, cosb])
        y2 = torch.matmul(y2, mat)
        y2.sum()
        """,
        """
        cosa = torch.cos(a)
        cosb = torch.cos(b)
        y2 = torch.stack([cosa, cosb])
        y2 = torch.matmul(y2, mat)
        out = y2.sum()
        """,
        {"a": 0.3, "b": -0.4},
        const={"mat": [[1.0, 2.0], [3.0, 4.0]]},
    ),
    case(
        "qa_masked_mse",
        "https://thedebonair.co.uk/post/mse-loss-when-mask-is-used",
        """
        loss = F.mse_loss(y_pred, y_true, reduction='none')
        masked_loss = loss * mask
        final_loss = masked_loss.sum() / mask.sum()
        """,
        """
        loss = F.mse_loss(y_pred, y_true, reduction='none')
        masked_loss = loss * mask
        out = masked_loss.sum() / mask.sum()
        """,
        {"y_pred": [2.5, 5.5, 2.0, 7.0]},
        const={"y_true": [3.0, 5.0, 2.0, 8.0], "mask": [1, 0, 1, 1]},
    ),
    case(
        "qa_boolean_mask_index",
        "https://kingtigerebooks.co.uk/post/mse-loss-when-mask-is-used",
        "loss = F.mse_loss(input_tensor[mask], target_tensor[mask])",
        "out = F.mse_loss(input_tensor[mask], target_tensor[mask])",
        {"input_tensor": [[1.5, 2.0, 3.5], [4.0, 5.5, 6.0]]},
        const={
            "target_tensor": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
            "mask": [[True, True, True], [False, True, True]],
        },
    ),
    case(
        "qa_mask_where_zeros_like",
        "https://taourl.com/read-2346723.html",
        """
        masked_x = torch.where(mask.bool(), x, torch.zeros_like(x))
        loss = masked_x.sum()
        """,
        """
        masked_x = torch.where(mask.bool(), x, torch.zeros_like(x))
        out = masked_x.sum()
        """,
        {"x": [1.0, 2.0, 3.0]},
        const={"mask": [1.0, 0.0, 1.0]},
    ),
    case(
        "qa_clamp_product",
        "https://www.zhenglinblog.top/2026/03/22/ai_infra/torch/pytorch_clamp",
        """
        c = torch.clamp(a * b, 1, 5)
        d = c.sum()
        """,
        """
        c = torch.clamp(a * b, 1, 5)
        out = c.sum()
        """,
        {"a": [1.5, 2.0, 3.0, 4.0], "b": [0.5, 2.0, 1.0, 2.0]},
    ),
    # ---- the remaining vocabulary: keepdims=, tuple forms, conversions, bool logic, gather,
    # normalize, one_hot, a 1-D vector times a matrix --------------------------------------------
    case(
        "d2l_softmax_axis_keepdims",
        D2L_SOFTMAX,
        """
        X_exp = torch.exp(X)
        partition = X_exp.sum(axis=1, keepdims=True)
        (X_exp / partition)[:, 0].sum()
        """,
        """
        X_exp = torch.exp(X)
        partition = X_exp.sum(axis=1, keepdims=True)
        out = (X_exp / partition)[:, 0].sum()
        """,
        {"X": X23},
    ),
    case(
        "d2l_masked_accuracy_weighted_loss",
        D2L_SOFTMAX,
        """
        correct = (y_hat.argmax(axis=1) == y).float()
        (F.cross_entropy(y_hat, y, reduction='none') * correct).sum() / correct.sum()
        """,
        """
        correct = (y_hat.argmax(axis=1) == y).double()
        out = (F.cross_entropy(y_hat, y, reduction='none') * correct).sum() / correct.sum()
        """,
        {"y_hat": LOGITS35},
        const={"y": [3, 4, 0]},
    ),
    case(
        "d2l_vector_times_matrix",
        "https://d2l.ai/chapter_preliminaries/linear-algebra.html",
        "(x @ A).square().sum()",
        "out = (x @ A).square().sum()",
        {"x": [0.5, -1.0, 2.0], "A": X34[:3]},
    ),
    case(
        "makemore_max_unpacked",
        MAKEMORE4,
        """
        maxes, idx = logits.max(1, keepdim=True)
        (logits - maxes).exp().sum(1).log().mean()
        """,
        """
        maxes, idx = logits.max(1, keepdim=True)
        out = (logits - maxes).exp().sum(1).log().mean()
        """,
        {"logits": LOGITS35},
    ),
    case(
        "dqn_gather_actions",
        "https://pytorch.org/tutorials/intermediate/reinforcement_q_learning.html",
        """
        state_action_values = q.gather(1, actions)
        F.smooth_l1_loss(state_action_values, expected.unsqueeze(1))
        """,
        """
        state_action_values = q.gather(1, actions)
        out = F.smooth_l1_loss(state_action_values, expected.unsqueeze(1))
        """,
        {"q": X34},
        const={"actions": [[1], [3], [0]], "expected": [0.2, 1.5, -0.4]},
    ),
    case(
        "docs_gather_log_prob",
        DOCS + "generated/torch.gather.html",
        "-torch.gather(F.log_softmax(logits, dim=1), 1, y.view(-1, 1)).mean()",
        "out = -torch.gather(F.log_softmax(logits, dim=1), 1, y.view(-1, 1)).mean()",
        {"logits": LOGITS35},
        const={"y": [2, 0, 4]},
    ),
    case(
        "docs_cosine_via_normalize",
        DOCS + "generated/torch.nn.functional.normalize.html",
        "(F.normalize(a, dim=1) * F.normalize(b, dim=1)).sum(dim=1).mean()",
        "out = (F.normalize(a, dim=1) * F.normalize(b, dim=1)).sum(dim=1).mean()",
        {"a": X23, "b": [[0.1, 0.4, -0.2], [-0.3, 0.9, 0.5]]},
    ),
    case(
        "docs_one_hot_of_long",
        DOCS + "generated/torch.nn.functional.one_hot.html",
        "(F.one_hot(labels.long(), 4) * x).sum(1).mean()",
        "out = (F.one_hot(labels.long(), 4) * x).sum(1).mean()",
        {"x": X34},
        const={"labels": [3.0, 0.0, 2.0]},
    ),
    case(
        "transformer_padding_mask",
        "https://pytorch.org/tutorials/beginner/translation_transformer.html",
        """
        keep = (~pad).float()
        (losses * keep).sum() / keep.sum()
        """,
        """
        keep = (~pad).double()
        out = (losses * keep).sum() / keep.sum()
        """,
        {"losses": [0.7, 1.2, 0.3, 2.0]},
        const={"pad": [False, False, True, True]},
    ),
    case(
        "docs_bitwise_and_window",
        DOCS + "generated/torch.bitwise_and.html",
        "torch.where((x > -1) & (x < 1) | (x > 1.2), x ** 2, 0.0).sum()",
        "out = torch.where((x > -1) & (x < 1) | (x > 1.2), x ** 2, 0.0).sum()",
        {"x": X34},
    ),
    case(
        "docs_mask_bool_long_index",
        DOCS + "generated/torch.Tensor.bool.html",
        "x[m.bool()].sum() + x[0, idx.long()].sum()",
        "out = x[m.bool()].sum() + x[0, idx.long()].sum()",
        {"x": X23},
        const={"m": [[1, 0, 1], [0, 0, 1]], "idx": [2.0, 0.0]},
    ),
    # constants made inside the program, and None as a new axis (issue 13's later forms)
    case(
        "docs_cross_entropy_inline_target",
        DOCS + "generated/torch.nn.functional.cross_entropy.html",
        "loss = F.cross_entropy(input, torch.tensor([1, 0, 4]))",
        "out = F.cross_entropy(input, torch.tensor([1, 0, 4]))",
        {"input": LOGITS35},
    ),
    case(
        "d2l_nadaraya_watson_pooling",
        D2L_NW,
        """
        dists = x[:, None] - x_train[None, :]
        attention = F.softmax(-dists**2 / 2, dim=1)
        y_hat = attention @ y_train
        ((y_hat - torch.tensor([0.5, 1.0, 1.5])) ** 2).mean()
        """,
        """
        dists = x[:, None] - x_train[None, :]
        attention = F.softmax(-dists**2 / 2, dim=1)
        y_hat = attention @ y_train
        out = ((y_hat - torch.tensor([0.5, 1.0, 1.5], dtype=torch.float64)) ** 2).mean()
        """,
        {"x": [0.2, 1.1, 2.3]},
        const={"x_train": [0.0, 0.7, 1.4, 2.1], "y_train": [0.1, 0.9, 1.2, 1.8]},
    ),
]
