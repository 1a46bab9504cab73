# Deep Learning with PyTorch, ch. 3 (transposes and contiguity): a transposed view's array is not
# C-contiguous; np.ascontiguousarray copies it into one, and a.flags says which is which.
import numpy as np
import torch

m = np.arange(6).reshape(2, 3)
mt = torch.from_numpy(m).t()
print(mt, mt.is_contiguous(), mt.stride())
print(mt.numpy().flags['C_CONTIGUOUS'], np.ascontiguousarray(mt.numpy()).flags['C_CONTIGUOUS'])
print(m.flags)
print(np.ascontiguousarray(mt.numpy().T, dtype=np.float32), np.ascontiguousarray(mt))
