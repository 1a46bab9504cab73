"""A number where torch's signature takes a Tensor (x.atan2(0), m.mm(2)) is torch's TypeError, in its words (issue 24)."""

import torch
import torch.nn.functional as F
x = torch.ones(3)
m = torch.ones(3, 3)
for f in [lambda: x.atan2(0), lambda: torch.atan2(x, 1.5), lambda: m.mm(0), lambda: torch.mm(m, 2), lambda: x.dot(True), lambda: torch.maximum(x, 1), lambda: x.gather(0, 1), lambda: F.cosine_similarity(x, 0), lambda: F.layer_norm(m, (3,), 1.0), lambda: x.logical_and(1), lambda: x.matmul(other=2)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
