"""The symbolic cache: a hit gives the very same result without sympy; anything odd is a miss."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gradcli import api, grad
from gradcli.commands import cache as cache_module
from gradcli.commands.cache import DiskCache

PROGRAMS = [
    ("(2*x)**3", {"x": 2.0}, None),
    (
        "y = matmul(X, W) + b; loss = sum(y**2)",
        {"W": [[1, 2], [3, 4]], "b": [0.5, 1]},
        {"X": [[1, 0.5], [0.2, 0.8]]},
    ),
    ("y = 2*x; z = y**3; out = z.mean()", {"x": [[1.0, 2.0], [3.0, 4.0]]}, None),
    ("x*y + sin(z)", None, None),
]


def symbolic_fields(result) -> tuple:
    return (
        result.grad_symbolic,
        [(n.symbolic, n.adjoint_symbolic) for n in result.nodes],
    )


def no_sympy_allowed(monkeypatch) -> None:
    def refuse(graph):
        raise AssertionError("a cache hit must not build symbolic forms")

    monkeypatch.setattr(api, "_symbolic", refuse)


@pytest.mark.parametrize(("source", "at", "const"), PROGRAMS)
def test_a_hit_gives_the_same_symbolic_result_without_building_it(monkeypatch, source, at, const):
    store: dict[str, str] = {}
    cold = grad(source, at=at, const=const, symbolic_cache=store)
    assert len(store) == 1
    no_sympy_allowed(monkeypatch)
    warm = grad(source, at=at, const=const, symbolic_cache=store)
    assert symbolic_fields(warm) == symbolic_fields(cold)
    assert warm.to_json() == cold.to_json()


def test_inputs_of_other_shapes_or_kinds_are_other_entries():
    store: dict[str, str] = {}
    grad("sum(x*y)", at={"x": 1.0, "y": 2.0}, symbolic_cache=store)
    grad("sum(x*y)", at={"x": [1.0, 2.0], "y": 2.0}, symbolic_cache=store)
    grad("sum(x*y)", at={"x": [1.0, 2.0]}, const={"y": 2.0}, symbolic_cache=store)
    grad("sum(x*y)", at={"x": 3.0, "y": 4.0}, symbolic_cache=store)  # other values: the same entry
    assert len(store) == 3
    assert grad("sum(x*y)", at={"x": [1.0, 2.0]}, const={"y": 2.0}, symbolic_cache=store).grad_symbolic == {
        "x": "y"
    }


@pytest.mark.parametrize(
    "stored",
    [
        "not json",
        "[1, 2, 3]",
        '[["x"], ["1"], {"x": 2}]',
        '[[null, "2*x"], ["6", "1"], {"y": "6"}]',
        "[]",
        # the readable lines: a leaf each, lists of text
        '[[null, "2*x", "t1**3"], ["24*x**2", "3*t1**2", "1"], {"x": "24*x**2"}, {"x": 5}]',
        '[[null, "2*x", "t1**3"], ["24*x**2", "3*t1**2", "1"], {"x": "24*x**2"}, {"x": [5]}]',
        '[[null, "2*x", "t1**3"], ["24*x**2", "3*t1**2", "1"], {"x": "24*x**2"}, {"y": null}]',
    ],
)
def test_a_stored_value_that_does_not_fit_the_program_is_recomputed(stored):
    key = api.symbolic_key(api._prepare("(2*x)**3", {"x": 2.0}, None, "float64").graph)
    store = {key: stored}
    result = grad("(2*x)**3", at={"x": 2.0}, symbolic_cache=store)
    assert result.grad_symbolic == {"x": "24*x**2"}
    assert json.loads(store[key])[2] == {"x": "24*x**2"}  # and the bad entry is replaced


def test_higher_orders_read_their_formula_afresh_and_share_the_first_order_text():
    store: dict[str, str] = {}
    r = grad("sin(x)", at={"x": 0.5}, order=3, symbolic_cache=store)
    assert r.grad_symbolic == {"x": "-cos(x)"}
    assert list(json.loads(next(iter(store.values())))[2].values()) == ["cos(x)"]  # order 1's text
    assert grad("sin(x)", at={"x": 0.5}, symbolic_cache=store).grad_symbolic == {"x": "cos(x)"}


def test_disk_cache_round_trip_and_misses(tmp_path):
    cache = DiskCache(tmp_path / "c")
    assert cache.get("k") is None  # no folder yet
    cache["k"] = "value"
    assert cache.get("k") == "value"
    (path,) = (tmp_path / "c").iterdir()
    path.write_text(json.dumps({"key": "another key", "value": "v"}))
    assert cache.get("k") is None  # a file for another key (a collision) is a miss
    path.write_text("{corrupt")
    assert cache.get("k") is None
    path.write_bytes(b"\xff\xfe")
    assert cache.get("k") is None
    assert [p.suffix for p in (tmp_path / "c").iterdir()] == [".json"]  # no temporary file left


def test_an_unwritable_folder_is_no_error(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    cache = DiskCache(blocked / "sub")
    cache["k"] = "v"
    assert cache.get("k") is None


def test_the_cache_stays_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 8)
    cache = DiskCache(tmp_path)
    for i in range(30):
        cache[f"key {i}"] = str(i)
        os.utime(cache._path(f"key {i}"), (i, i))  # mtimes in order of writing
    assert len(list(tmp_path.iterdir())) <= 8
    assert cache.get("key 29") == "29" and cache.get("key 0") is None


def test_big_entries_are_not_kept(tmp_path):
    cache = DiskCache(tmp_path)
    cache["k"] = "x" * (cache_module.MAX_ENTRY_BYTES + 1)
    assert cache.get("k") is None


def test_where_the_cache_lives(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADCLI_CACHE_DIR", "")
    assert DiskCache.default() is None
    monkeypatch.setenv("GRADCLI_CACHE_DIR", str(tmp_path))
    folder = DiskCache.default().folder
    assert folder.parent == tmp_path and "sympy-1." in folder.name
    monkeypatch.delenv("GRADCLI_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert DiskCache.default().folder.parent == tmp_path / "xdg" / "gradcli"


def test_the_sympy_version_is_read_without_importing_sympy():
    code = "import sys; from gradcli.commands.cache import _sympy_version; print(_sympy_version(), 'sympy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    import sympy

    assert done.stdout.split() == [sympy.__version__, "False"]


def test_cached_values_are_independent_of_the_point(monkeypatch):
    store: dict[str, str] = {}
    first = grad("x**3 + y", at={"x": 1.0, "y": 2.0}, symbolic_cache=store)
    no_sympy_allowed(monkeypatch)
    second = grad("x**3 + y", at={"x": 5.0, "y": -1.0}, symbolic_cache=store)
    assert second.grad_symbolic == first.grad_symbolic == {"x": "3*x**2", "y": "1"}
    assert float(second.grads["x"]) == 75.0
    assert np.isclose(float(second.value), 124.0)


def test_a_second_run_of_the_same_program_imports_no_sympy(monkeypatch, tmp_path):
    from test_startup import loaded_modules

    monkeypatch.setenv("GRADCLI_CACHE_DIR", str(tmp_path))
    args = ("grad", "y = sin(x)*x; y**2", "--at", "x=0.5", "--format", "json")
    cold, cold_modules = loaded_modules(*args)
    warm, warm_modules = loaded_modules(*args)
    assert cold.returncode == warm.returncode == 0
    assert "sympy" in cold_modules and "sympy" not in warm_modules
    assert warm.stdout == cold.stdout
    assert json.loads(warm.stdout)["leaves"]["x"]["grad_symbolic"] is not None


@pytest.mark.parametrize("fmt", ["table", "json", "latex", "plain"])
def test_every_format_prints_the_same_from_the_cache(run, monkeypatch, tmp_path, fmt):
    monkeypatch.setenv("GRADCLI_CACHE_DIR", str(tmp_path))
    args = ["grad", "y = matmul(W, x); sum(tanh(y))", "--at", "W=[[1,2],[3,4]]", "--at", "x=[0.1,0.2]"]
    no_point = ["grad", "x**2*y"]
    for command in (args, no_point):
        cold = run(*command, "--format", fmt)
        warm = run(*command, "--format", fmt)
        assert cold.exit_code == 0, cold.stderr
        assert warm.stdout == cold.stdout
    assert list(tmp_path.rglob("*.json"))  # something was kept


def _entry(tmp_path, key="k") -> tuple[DiskCache, object]:
    cache = DiskCache(tmp_path)
    cache[key] = "value"
    return cache, cache._path(key)


def test_only_plain_small_files_of_ours_are_read(tmp_path, monkeypatch):
    cache, path = _entry(tmp_path)
    assert cache.get("k") == "value"
    path.write_text("[" * 200_000)  # deeper than json can recurse
    assert cache.get("k") is None
    path.write_text(json.dumps({"key": "k", "value": "v" * cache_module.MAX_ENTRY_BYTES}))
    assert cache.get("k") is None  # oversized
    path.unlink()
    os.mkfifo(path)  # a FIFO would block a plain open() forever
    assert cache.get("k") is None
    path.unlink()
    path.symlink_to("/dev/zero")  # endless: never followed
    assert cache.get("k") is None
    path.unlink()
    cache["k"] = "value"
    monkeypatch.setattr(os, "getuid", lambda: os.stat(path).st_uid + 1)
    assert cache.get("k") is None  # another user's file in a shared folder plants nothing


def test_a_planted_entry_with_control_characters_is_a_miss():
    key = api.symbolic_key(api._prepare("(2*x)**3", {"x": 2.0}, None, "float64").graph)
    readable = {"x": ["x.grad = 24*x**2"]}
    planted = json.dumps([[None, "2*x", "t1**3"], ["\x1b[2J", "3*t1**2", "1"], {"x": "24*x**2"}, readable])
    store = {key: planted}
    assert grad("(2*x)**3", at={"x": 2.0}, symbolic_cache=store).nodes[0].adjoint_symbolic == "6*t1**2"
    planted = json.dumps(
        [[None, "2*x", "t1**3"], ["6*t1**2", "3*t1**2", "1"], {"x": "24*x**2"}, {"x": ["\x1b]0;"]}]
    )
    store = {key: planted}
    assert grad("(2*x)**3", at={"x": 2.0}, symbolic_cache=store).grad_readable == {"x": ("x.grad = 24*x**2",)}


def test_a_dangling_link_does_not_stop_pruning(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 4)
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere")
    cache = DiskCache(tmp_path)
    for i in range(12):
        cache[f"key {i}"] = str(i)
    assert len(list(tmp_path.glob("*.json"))) <= 5


def test_no_cache_without_an_absolute_home(monkeypatch, tmp_path):
    monkeypatch.delenv("GRADCLI_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # invalid by the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path))
    assert DiskCache.default().folder.parent == tmp_path / ".cache" / "gradcli"
    monkeypatch.setenv("HOME", "")
    assert DiskCache.default() is None


def test_a_changed_rule_source_is_a_miss(monkeypatch, tmp_path):
    """Within one version a rule can change (a checkout, a branch install): the default cache
    keys each entry by the digest of the source, so the old formula is never printed."""
    digest = ["one"]
    cache = DiskCache(tmp_path, sources=lambda: digest[0])
    cold = grad("sin(x)**2", at={"x": 0.5}, symbolic_cache=cache)
    built = []
    real = api._symbolic
    monkeypatch.setattr(api, "_symbolic", lambda graph: built.append(1) or real(graph))
    assert grad("sin(x)**2", at={"x": 0.5}, symbolic_cache=cache).to_json() == cold.to_json()
    assert built == []  # the same source: a hit
    digest[0] = "two"
    grad("sin(x)**2", at={"x": 0.5}, symbolic_cache=cache)
    assert built == [1]  # another source: a miss, computed again
    digest[0] = ""
    assert cache.get(api.symbolic_key(api._prepare("sin(x)**2", {"x": 0.5}, None, "float64").graph)) is None


def test_the_sources_digest_changes_with_a_rule_file(monkeypatch, tmp_path):
    import shutil

    package = os.path.dirname(os.path.dirname(os.path.abspath(cache_module.__file__)))
    copy = tmp_path / "gradcli"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache_module, "__file__", str(copy / "commands" / "cache.py"))
    cache_module.sources_digest.cache_clear()
    try:
        before = cache_module.sources_digest()
        (copy / "render" / "table.py").write_text("# a renderer never reaches the cached forms\n")
        cache_module.sources_digest.cache_clear()
        assert cache_module.sources_digest() == before
        rules = copy / "ops" / "arithmetic.py"
        original = rules.read_text()
        changed = original.replace('grad_fn="MulBackward0"', 'grad_fn="MulBackward1"')
        assert changed != original  # the edit must land somewhere, or this proves nothing
        rules.write_text(changed)
        cache_module.sources_digest.cache_clear()
        assert cache_module.sources_digest() not in ("", before)
    finally:
        cache_module.sources_digest.cache_clear()


def test_the_default_cache_keys_entries_by_the_sources(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADCLI_CACHE_DIR", str(tmp_path))
    cache = DiskCache.default()
    assert cache.sources is cache_module.sources_digest
    cache["k"] = "v"
    (entry,) = tmp_path.rglob("*.json")
    assert json.loads(entry.read_text())["key"] == f"k\nsources {cache_module.sources_digest()}"
