"""The `run` script language: PyTorch-style scripts interpreted by gradcli, and what they print."""
