"""torch.utils.data under `gradcli run`: datasets, samplers, DataLoader and default_collate are
gradcli's own classes, written as torch's, so a script's batches, draws and errors are torch's.

Each script's printed output is compared with torch 2.13 running the same text (object
addresses masked)."""

from __future__ import annotations

import pytest
from script_run import assert_prints_as_torch

HEAD = (
    "import collections\nimport numpy as np\nimport torch\n"
    "from torch.utils.data import DataLoader, TensorDataset, Dataset, IterableDataset\n"
    "torch.manual_seed(0)\n"
    "def attempt(f):\n"
    "    try:\n        print(f())\n"
    "    except Exception as e:\n        print(type(e).__name__, e)\n"
)

SCRIPTS = {
    "samplers and batch samplers draw as torch's": HEAD + (
        "from torch.utils.data import RandomSampler, SubsetRandomSampler, WeightedRandomSampler, BatchSampler\n"
        "ds = TensorDataset(torch.arange(10.0), torch.arange(10) % 3)\n"
        "print([b[1].tolist() for b in DataLoader(ds, batch_size=3, sampler=SubsetRandomSampler([1, 4, 7, 8]))])\n"
        "print([b[0].tolist() for b in DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), 4, True))])\n"
        "print(list(RandomSampler(ds, replacement=True, num_samples=40)))\n"
        "print(list(WeightedRandomSampler([0.1, 0.0, 0.9], 6)))\n"
        "g = torch.Generator().manual_seed(3)\n"
        "print([b[0].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, generator=g)], torch.rand(2))\n"
        "loader = DataLoader(ds, batch_size=4, shuffle=True, drop_last=True)\n"
        "print(len(loader), [len(b[0]) for b in loader], torch.rand(1))\n"
        "it = iter(DataLoader(ds, batch_size=4, shuffle=True))\nprint(len(it), next(it)[1], torch.rand(1))\n"
    ),
    "default_collate of numbers, arrays, dicts, namedtuples and strings": HEAD + (
        "Point = collections.namedtuple('Point', 'x y')\n"
        "class Items(Dataset):\n"
        "    def __init__(self, make):\n        self.make = make\n"
        "    def __len__(self):\n        return 5\n"
        "    def __getitem__(self, i):\n        return self.make(i)\n"
        "for make in [lambda i: i, lambda i: i / 2, lambda i: np.float32(i), lambda i: np.arange(3) * i,\n"
        "             lambda i: {'a': i, 'b': [i, 2 * i]}, lambda i: Point(i, float(i)), lambda i: f's{i}',\n"
        "             lambda i: (torch.ones(2) * i, i % 2 == 0)]:\n"
        "    print(next(iter(DataLoader(Items(make), batch_size=3))))\n"
        "print(list(DataLoader(Items(lambda i: np.arange(2) * i), batch_size=None))[:2])\n"
        "print(list(DataLoader(Items(lambda i: (i, i)), batch_size=None))[:2])\n"
        "print(next(iter(DataLoader(Items(lambda i: i), batch_size=2, collate_fn=lambda b: sum(b)))))\n"
        "attempt(lambda: next(iter(DataLoader(Items(lambda i: None), batch_size=2))))\n"
        "attempt(lambda: next(iter(DataLoader(Items(lambda i: torch.ones(i)), batch_size=2))))\n"
        "attempt(lambda: next(iter(DataLoader(Items(lambda i: [0] * i), batch_size=2))))\n"
    ),
    "iterable and concatenated datasets, workers, and torch's refusals": HEAD + (
        "class Stream(IterableDataset):\n"
        "    def __iter__(self):\n        return iter(range(7))\n"
        "print(list(DataLoader(Stream(), batch_size=3)), list(DataLoader(Stream(), batch_size=3, drop_last=True)))\n"
        "print(list(DataLoader(Stream(), batch_size=None))[:3])\n"
        "both = TensorDataset(torch.arange(3.0)) + TensorDataset(torch.arange(10.0, 12.0))\n"
        "print(len(both), both[4], [b for b in DataLoader(both, batch_size=2)])\n"
        "ds = TensorDataset(torch.arange(6.0))\n"
        "print([b[0].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, num_workers=2)], torch.rand(1))\n"
        "attempt(lambda: DataLoader(ds, sampler=[0, 1], shuffle=True))\n"
        "attempt(lambda: DataLoader(ds, batch_sampler=[[0]], batch_size=2))\n"
        "attempt(lambda: DataLoader(ds, batch_size=None, drop_last=True))\n"
        "attempt(lambda: DataLoader(ds, num_workers=-1))\n"
        "attempt(lambda: DataLoader(Stream(), shuffle=True))\n"
        "attempt(lambda: DataLoader(ds, batch_size=0))\n"
        "loader = DataLoader(ds)\n"
        "attempt(lambda: setattr(loader, 'batch_size', 3))\n"
        "attempt(lambda: TensorDataset(torch.ones(2), torch.ones(3)))\n"
        "print(type(loader), loader.batch_size, loader.drop_last, type(loader.sampler).__name__)\n"
        "print(torch.utils.data.get_worker_info(), repr(loader)[:46])\n"
    ),
    "torch's module paths": (
        "import torch\nfrom torch.utils.data.dataset import Dataset, TensorDataset\n"
        "from torch.utils.data.sampler import RandomSampler, Sampler\n"
        "from torch.utils.data.dataloader import DataLoader, default_collate\n"
        "from torch.utils.data import default_convert\n"
        "print(Dataset, TensorDataset, RandomSampler, Sampler, DataLoader)\n"
        "print(default_collate([torch.ones(2), torch.zeros(2)]), default_convert((1, 2.5)))\n"
        "print(isinstance(TensorDataset(torch.ones(1)), torch.utils.data.Dataset))\n"
    ),
}


@pytest.mark.parametrize("script", SCRIPTS.values(), ids=SCRIPTS.keys())
def test_prints_what_torch_prints(run, script):
    assert_prints_as_torch(run, script)


def test_only_a_draw_that_shows_notes_an_unseeded_generator(run):
    """Every pass draws a base seed from torch's generator, as torch's does; only a shuffle's
    order depends on it, so only a shuffling loader gets the note that the numbers differ."""
    body = "import torch\nfrom torch.utils.data import DataLoader\nprint(list(DataLoader(range(5), batch_size=2{})))\n"
    plain = run("run", "-", input=body.format(""))
    assert plain.exit_code == 0 and plain.stderr == ""
    shuffled = run("run", "-", input=body.format(", shuffle=True"))
    assert shuffled.exit_code == 0 and shuffled.stderr.count("unseeded random numbers") == 1
