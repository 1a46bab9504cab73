"""torch.utils.data, gradcli's: TensorDataset, DataLoader and default_collate."""

from .._bridge import namespace

__getattr__ = namespace("torch.utils.data")
