"""@FILE: VALUEs and programs from files (and @- from stdin), bounded, with torch as the oracle."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from conftest import strict_loads
from oracle import torch
from test_every_command import one_error_line

from gradcli import limits


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _json(result) -> dict:
    assert result.exit_code == 0, result.stderr
    return strict_loads(result.stdout)


def test_a_float32_npy_keeps_its_dtype_and_its_gradient_is_torchs(run, here):
    x = np.array([[0.1, -2.5], [3.25, 1e-3]], dtype=np.float32)
    np.save("x.npy", x)
    doc = _json(run("grad", "sum(sin(x)*x)", "--at", "x=@x.npy", "--format", "json"))
    assert doc["dtype"] == "float32"  # as torch.from_numpy(x) would compute
    t = torch.from_numpy(x).requires_grad_()
    (torch.sin(t) * t).sum().backward()
    assert np.array_equal(np.array(doc["leaves"]["x"]["grad"], dtype=np.float32), t.grad.numpy())
    # --dtype decides when it is given
    doc = _json(run("grad", "sum(sin(x)*x)", "--at", "x=@x.npy", "--dtype", "float64", "--format", "json"))
    assert doc["dtype"] == "float64"
    assert doc["leaves"]["x"]["value"][0][0] == float(np.float32(0.1))  # the file's value, exactly


def test_graph_computes_in_a_float32_files_dtype_as_grad_does(run, here, monkeypatch):
    import gradcli.api

    np.save("x.npy", np.array([0.1, 2.0], dtype=np.float32))
    seen = []
    real = gradcli.api.grad
    monkeypatch.setattr(gradcli.api, "grad", lambda *a, **k: seen.append(k["dtype"]) or real(*a, **k))
    result = run("graph", "sum(x*x)", "--at", "x=@x.npy", "--format", "ascii")
    assert result.exit_code == 0, result.stderr
    assert seen == ["float32"]


def test_float32_and_float64_files_promote_to_float64(run, here):
    np.save("a.npy", np.array([1.5], dtype=np.float32))
    np.save("b.npy", np.array([2.0]))
    doc = _json(run("grad", "sum(a*b)", "--at", "a=@a.npy", "--const", "b=@b.npy", "--format", "json"))
    assert doc["dtype"] == "float64" and doc["leaves"]["a"]["grad"] == [2.0]


def test_npz_members_json_csv_and_txt_files(run, here):
    np.savez("ab.npz", a=np.array([1.0, 2.0]), b=np.array(3.0))
    np.savez_compressed("w.npz", w=np.eye(2))
    (here / "v.json").write_text("[[1, 2], [3, 4]]")
    (here / "m.csv").write_text("1,2\n3,4\n")
    (here / "r.txt").write_text("# a row\n1 2 3\n")
    doc = _json(run("grad", "sum(a*b)", "--at", "a=@ab.npz:a", "--at", "b=@ab.npz:b", "--format", "json"))
    assert doc["leaves"]["a"]["grad"] == [3.0, 3.0] and doc["leaves"]["b"]["grad"] == 3.0
    doc = _json(
        run(
            "grad",
            "sum(w*v*m)",
            "--at",
            "w=@w.npz",
            "--at",
            "v=@v.json",
            "--const",
            "m=@m.csv",
            "--format",
            "json",
        )
    )
    assert doc["leaves"]["w"]["grad"] == [[1.0, 4.0], [9.0, 16.0]]
    assert doc["consts"]["m"]["shape"] == [2, 2]
    result = run("grad", "sum(r**2)", "--at", "r=@r.txt", "--format", "plain")
    assert result.stdout == "r\t[2.0,4.0,6.0]\n"


def test_integer_files_stay_class_indices(run, here):
    np.save("y.npy", np.array([0, 1]))
    doc = _json(
        run(
            "grad",
            "F.cross_entropy(z, y)",
            "--at",
            "z=[[2,0.5],[0.1,1]]",
            "--const",
            "y=@y.npy",
            "--format",
            "json",
        )
    )
    t = torch.tensor([[2, 0.5], [0.1, 1]], dtype=torch.float64, requires_grad=True)
    torch.nn.functional.cross_entropy(t, torch.tensor([0, 1])).backward()
    assert np.allclose(doc["leaves"]["z"]["grad"], t.grad.numpy(), rtol=1e-15, atol=0)


def test_gradient_and_product_vectors_from_files(run, here):
    np.save("g.npy", np.array([1.0, -1.0]))
    doc = _json(run("grad", "x**2", "--at", "x=[3,4]", "--gradient", "@g.npy", "--format", "json"))
    assert doc["leaves"]["x"]["grad"] == [6.0, -8.0]
    doc = _json(run("hvp", "sum(x**3)", "--at", "x=[1,2]", "--v", "x=@g.npy", "--format", "json"))
    assert doc["hvp"]["x"] == [6.0, -12.0]
    doc = _json(run("jvp", "x**2", "--at", "x=[1,2]", "--v", "x=@g.npy", "--format", "json"))
    assert doc["jvp"] == [2.0, -4.0]


def test_at_dash_reads_the_value_from_stdin_unless_the_program_does(run):
    result = run("grad", "sum(x**2)", "--at", "x=@-", "--format", "plain", input="[1, 2]\n")
    assert result.exit_code == 0 and result.stdout == "x\t[2.0,4.0]\n"
    line = one_error_line(run("grad", "-", "--at", "x=@-", input="x**2"), exit_code=2)
    assert "standard input is already read" in line
    line = one_error_line(run("grad", "x*y", "--at", "x=@-", "--at", "y=@-", input="1"), exit_code=2)
    assert "--at y=@-" in line


@pytest.mark.parametrize("command", ["grad", "jacobian", "hessian", "check", "graph"])
def test_a_program_from_a_file_for_every_command_that_takes_one(run, here, command):
    (here / "prog.txt").write_text("y = 2*x\nz = y**3\nsum(z)\n")
    fmt = "dot" if command == "graph" else "json"
    inline = run(command, "y = 2*x; z = y**3; sum(z)", "--at", "x=[1,2]", "--format", fmt)
    from_file = run(command, "@prog.txt", "--at", "x=[1,2]", "--format", fmt)
    assert from_file.exit_code == inline.exit_code == 0, from_file.stderr
    if command == "graph":
        assert "y = 2*x" in from_file.stdout and "sum(z)" in from_file.stdout
        return
    expected = json.loads(inline.stdout)
    got = json.loads(from_file.stdout)
    if "expression" in expected:
        assert got.pop("expression") == "y = 2*x\nz = y**3\nsum(z)"
        expected.pop("expression")
    assert got == expected


def _write(here, name: str, data: str | bytes) -> str:
    path = here / name
    path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)
    return name


def _fifo(here) -> str:
    os.mkfifo(here / "pipe.npy")
    return "pipe.npy"


BAD_FILES = {
    "missing": (lambda here: "nope.npy", "no such file"),
    "directory": (lambda here: (here / "d.npy").mkdir() or "d.npy", "is a directory"),
    "fifo": (_fifo, "not a regular file"),
    "malformed-json": (lambda here: _write(here, "b.json", "[1, 2,"), "not JSON"),
    "ragged-json": (lambda here: _write(here, "r.json", "[[1], [2, 3]]"), "ragged"),
    "malformed-csv": (
        lambda here: _write(here, "b.csv", "1,2\n3,x\n"),
        "not a table of numbers",
    ),
    "empty-txt": (lambda here: _write(here, "e.txt", ""), "no numbers"),
    "not-npy": (lambda here: _write(here, "t.npy", "hello"), "not a .npy array"),
    "truncated-npy": (
        lambda here: (np.save(here / "t.npy", np.ones(100)), os.truncate(here / "t.npy", 200)) and "t.npy",
        "not a .npy array",
    ),
    "pickled-npy": (
        lambda here: np.save(here / "o.npy", np.array([1, "a"], dtype=object), allow_pickle=True) or "o.npy",
        "never does",
    ),
    "complex-npy": (lambda here: np.save(here / "c.npy", np.array([1j])) or "c.npy", "real numbers"),
    "not-npz": (lambda here: _write(here, "z.npz", "PK nonsense"), "not a .npz archive"),
    "npz-two-arrays": (
        lambda here: np.savez(here / "ab.npz", a=1.0, b=2.0) or "ab.npz",
        "name one as @ab.npz:KEY",
    ),
    "npz-no-key": (lambda here: np.savez(here / "ab.npz", a=1.0) or "ab.npz:q", "no array 'q'"),
    "unknown-suffix": (
        lambda here: _write(here, "x.bin", b"1"),
        "cannot tell what the file holds",
    ),
    "no-name": (lambda here: "", "needs a file name"),
    "not-utf8": (lambda here: _write(here, "u.json", b"[1, \xff]"), "not valid UTF-8"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_value_file_is_one_error_line(run, here, case):
    make, words = BAD_FILES[case]
    name = make(here)
    line = one_error_line(run("grad", "sum(x)", "--at", f"x=@{name}"))
    assert line.startswith("error: --at x: @") and words in line, line


def test_size_caps_are_checked_before_reading(run, here, monkeypatch):
    np.save("x.npy", np.ones(1000))
    (here / "x.json").write_text(json.dumps([1.0] * 1000))
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 4000)
    line = one_error_line(run("grad", "sum(x)", "--at", "x=@x.npy"))
    assert "8,128 bytes, over the limit MAX_FILE_BYTES=4,000" in line
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 10**9)
    monkeypatch.setattr(limits, "MAX_VALUE_CHARS", 1000)
    line = one_error_line(run("grad", "sum(x)", "--at", "x=@x.json"))
    assert "MAX_VALUE_CHARS=1,000" in line
    monkeypatch.setattr(limits, "MAX_ELEMENTS", 999)
    line = one_error_line(run("grad", "sum(x)", "--at", "x=@x.npy"))
    assert "MAX_ELEMENTS=999" in line


def test_a_compressed_npz_is_weighed_by_its_header_before_it_is_inflated(run, here, monkeypatch):
    np.savez_compressed("z.npz", z=np.zeros(100_000))  # a few hundred bytes on disk
    assert os.path.getsize("z.npz") < 2000
    monkeypatch.setattr(limits, "MAX_ELEMENTS", 10_000)
    import numpy.lib.npyio as npyio

    def refuse(*args, **kwargs):
        raise AssertionError("the array was read before it was weighed")

    monkeypatch.setattr(npyio.NpzFile, "__getitem__", refuse)
    line = one_error_line(run("grad", "sum(z)", "--at", "z=@z.npz"))
    assert "100,000" in line and "MAX_ELEMENTS=10,000" in line


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda here: "nope.txt", "no such file"),
        (lambda here: (here / "d").mkdir() or "d", "is a directory"),
        (lambda here: os.mkfifo(here / "p") or "p", "not a regular file"),
        (lambda here: _write(here, "u.txt", b"x\xff"), "not valid UTF-8"),
    ],
)
def test_a_bad_program_file_is_one_error_line(run, here, make, words):
    name = make(here)
    line = one_error_line(run("grad", f"@{name}", "--at", "x=1"))
    assert f"EXPR @{name}" in line and words in line


def test_a_program_file_over_the_cap_is_refused_before_reading(run, here, monkeypatch):
    (here / "p.txt").write_text("x+1\n" * 100)
    monkeypatch.setattr(limits, "MAX_PROGRAM_CHARS", 50)
    line = one_error_line(run("grad", "@p.txt", "--at", "x=1"))
    assert "400 bytes" in line and "MAX_PROGRAM_CHARS=50" in line


def test_run_refuses_a_fifo_or_directory_without_blocking(run, here):
    os.mkfifo(here / "pipe.py")
    assert "not a regular file" in one_error_line(run("run", "pipe.py"))
    (here / "d.py").mkdir()
    assert "is a directory" in one_error_line(run("run", "d.py"))


def test_the_readme_example_a_million_element_npy(run, here):
    x = np.linspace(0, 1, 1_000_000)
    np.save("x.npy", x)
    doc = _json(run("grad", "sum(sin(x)**2)", "--at", "x=@x.npy", "--format", "json"))
    t = torch.from_numpy(x).requires_grad_()
    (torch.sin(t) ** 2).sum().backward()
    assert np.allclose(doc["leaves"]["x"]["grad"], t.grad.numpy(), rtol=1e-14, atol=1e-15)
