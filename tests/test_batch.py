"""--batch: JSON Lines in and out, input order kept, errors by line number, chunks vectorised."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import strict_loads
from oracle import close, torch_grads
from test_every_command import one_error_line

from gradcli import grad
from gradcli.batch import BatchRunner
from gradcli.errors import GradcliError

PROGRAM = "x*y + sin(z)*x**2"


def _points(count: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [{k: float(v) for k, v in zip("xyz", rng.uniform(-2, 2, 3))} for _ in range(count)]


@pytest.mark.parametrize("chunk", [1, 3, 7, 4096])
def test_batch_matches_torch_per_point_across_chunk_boundaries(chunk):
    points = _points(10)
    lines = [json.dumps(p) for p in points]
    out = [strict_loads(line) for line in BatchRunner(PROGRAM, chunk=chunk).run(lines)]
    assert [o["point"] for o in out] == points  # input order, points echoed
    for o, p in zip(out, points):
        want = torch_grads(PROGRAM, p)
        assert all(close(o["grads"][k], want[k]) for k in "xyz")
        assert close(o["value"], float(grad(PROGRAM, at=p, symbolic=False).value))


def test_non_elementwise_programs_run_point_by_point():
    lines = ['{"x": [1, 2, 3]}', '{"x": [0.5]}', '{"x": 2}']
    out = [strict_loads(line) for line in BatchRunner("sum(x**2) + mean(x)", chunk=2).run(lines)]
    assert out[0]["grads"]["x"] == pytest.approx([2 + 1 / 3, 4 + 1 / 3, 6 + 1 / 3])
    assert out[1]["grads"]["x"] == [2.0]
    assert out[2]["grads"]["x"] == 5.0


@pytest.mark.parametrize(
    "program",
    ["sum(x**2*y)", "sum(tanh(W @ x) * y)", "mean(x)*y + sum(x.t() @ x)", "sum(log(x) * y)"],
)
def test_points_of_one_shape_run_stacked_and_equal_point_by_point_and_torch(program):
    rng = np.random.default_rng(3)
    points = [{"x": rng.uniform(0.1, 2, (2, 2)).tolist(), "y": float(rng.uniform(-2, 2))} for _ in range(9)]
    points += [
        {"x": [[0.0, float("nan")], [1.0, 2.0]], "y": 1e308},
        {"x": [[1.0, 2.0], [3.0, 4.0]], "y": -0.0},
    ]
    lines = [json.dumps(p) for p in points]
    const = {"W": [[1.0, -2.0], [0.5, 3.0]]} if "W" in program else {}
    runner = BatchRunner(program, const=const, chunk=4)
    assert not runner.elementwise
    stacked = list(runner.run(lines))
    one_by_one = [
        runner._one(p) for p in __import__("gradcli.batch", fromlist=["_read"])._read(lines, runner.leaves)
    ]
    assert stacked == one_by_one  # the same bytes, nan and inf included
    for line, point in zip(stacked[:9], points):
        want = torch_grads(program, point, const)
        assert all(close(strict_loads(line)["grads"][k], want[k]) for k in "xy")


def test_stacking_needs_points_of_one_shape():
    from gradcli.batch import _read

    runner = BatchRunner("sum(x**2)", chunk=8)
    points = list(_read(['{"x": [1, 2]}', '{"x": [1, 2, 3]}'], runner.leaves))
    assert runner._stacked(points) == {}
    assert runner._stacked(points[:1]) != {}


def test_a_chunk_with_a_tensor_point_falls_back_and_keeps_order():
    lines = ['{"x": 1}', '{"x": [1, 2]}', '{"x": 3}']
    out = [strict_loads(line) for line in BatchRunner("sum(x**3)", chunk=8).run(lines)]
    assert [o["grads"]["x"] for o in out] == [3.0, [3.0, 12.0], 27.0]


def test_bad_line_fails_with_its_line_number_after_earlier_lines():
    lines = ['{"x": 1, "y": 1, "z": 1}', "", "not json", '{"x": 1, "y": 1, "z": 1}']
    produced = []
    with pytest.raises(GradcliError, match="--batch line 3: not JSON"):
        for line in BatchRunner(PROGRAM).run(lines):
            produced.append(line)
    assert len(produced) == 1


def test_skip_mode_writes_an_error_object_and_goes_on():
    lines = [
        '{"x": 1, "y": 2, "z": 0}',
        "[1, 2]",
        '{"x": 1, "y": 2}',
        '{"x": 1, "y": 2, "z": 0, "w": 1}',
        '{"x": 2, "y": 2, "z": 0}',
    ]
    out = [strict_loads(line) for line in BatchRunner(PROGRAM, skip_errors=True).run(lines)]
    assert [o.get("line") for o in out] == [None, 2, 3, 4, None]
    assert "JSON object" in out[1]["error"] and "missing z" in out[2]["error"] and "'w'" in out[3]["error"]
    assert out[4]["grads"]["y"] == 2.0


def test_non_finite_values_stay_strict_json():
    out = list(BatchRunner("log(x)").run(['{"x": 0}', '{"x": -1}']))
    assert strict_loads(out[0]) == {"point": {"x": 0}, "value": "-inf", "grads": {"x": "inf"}}
    assert strict_loads(out[1])["value"] == "nan"


def test_const_is_shared_by_every_point():
    out = [strict_loads(line) for line in BatchRunner("c*x**2", const={"c": 3}).run(['{"x": 1}', '{"x": 2}'])]
    assert [o["grads"]["x"] for o in out] == [6.0, 12.0]


def test_cli_batch_from_stdin_and_file(run, tmp_path):
    text = "".join(json.dumps(p) + "\n" for p in _points(5))
    from_stdin = run("grad", PROGRAM, "--batch", "-", input=text)
    assert from_stdin.exit_code == 0, from_stdin.stderr
    path = tmp_path / "points.jsonl"
    path.write_text(text)
    from_file = run("grad", PROGRAM, "--batch", str(path))
    assert from_file.stdout == from_stdin.stdout
    assert len(from_file.stdout.splitlines()) == 5


def test_cli_batch_error_is_one_line_with_the_line_number(run):
    result = run("grad", PROGRAM, "--batch", "-", input='{"x": 1, "y": 1, "z": 1}\n{"x": }\n')
    assert result.exit_code == 1
    assert result.stderr.startswith("error: --batch line 2:") and result.stderr.count("\n") == 1
    assert len(result.stdout.splitlines()) == 1


def test_cli_batch_refuses_at_and_a_missing_file(run):
    assert run("grad", PROGRAM, "--batch", "-", "--at", "x=1").exit_code == 2
    missing = run("grad", PROGRAM, "--batch", "/nonexistent/points.jsonl")
    assert missing.exit_code == 1 and "cannot read --batch" in missing.stderr


def test_an_endless_line_is_refused_not_read_forever(monkeypatch):
    import io

    from gradcli import limits
    from gradcli.batch import bounded_lines

    monkeypatch.setattr(limits, "MAX_VALUE_CHARS", 16)
    stream = io.BytesIO(b'{"x": 1}\n' + b"0" * 100)
    lines = bounded_lines(stream)
    assert next(lines) == b'{"x": 1}\n'
    with pytest.raises(GradcliError, match="--batch line 2 is longer than the limit MAX_VALUE_CHARS=16"):
        next(lines)


# ---------------------------------------------------------------- echo, --no-echo, skip report


@pytest.mark.parametrize(
    ("program", "alone", "neighbour"),
    [
        ("x**2*y", '{"x": 2,  "y": 3}', '{"x": [1, 2], "y": 1}'),  # vectorised chunk vs point by point
        ("sum(x**2)", '{"x": [1,  2]}', '{"x": [1, 2, 3]}'),  # stacked chunk vs point by point
        ("x**2*y", '{"x": NaN, "y": 1e400}', '{"x": [1, 2], "y": 1}'),  # rewritten either way
    ],
)
def test_a_points_echo_does_not_depend_on_the_rest_of_its_chunk(run, program, alone, neighbour):
    def first_point(text: str) -> str:
        result = run("grad", program, "--batch", "-", "--batch-errors", "skip", input=text)
        assert result.exit_code == 0, result.stderr
        return result.stdout.splitlines()[0]

    same = first_point(f"{alone}\n{alone}\n")
    mixed = first_point(f"{alone}\n{neighbour}\n")
    assert same == mixed
    echoed = strict_loads(same)["point"]
    assert same.startswith('{"point":' + (alone if "NaN" not in alone else '{"x":"nan","y":"inf"}') + ",")
    assert echoed == strict_loads(mixed)["point"]


def test_no_echo_writes_line_numbers_instead_of_points(run):
    text = '{"x": 2}\n\n{"x": 3}\n'
    result = run("grad", "x**2", "--batch", "-", "--no-echo", input=text)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        '{"line":1,"value":4.0,"grads":{"x":4.0}}',
        '{"line":3,"value":9.0,"grads":{"x":6.0}}',
    ]
    stacked = run("grad", "sum(x**2)", "--batch", "-", "--no-echo", input='{"x": [1, 2]}\n')
    assert stacked.stdout == '{"line":1,"value":5.0,"grads":{"x":[2.0,4.0]}}\n'
    line = one_error_line(run("grad", "x**2", "--at", "x=1", "--no-echo"), exit_code=2)
    assert "needs --batch" in line


def test_skip_mode_says_how_many_lines_it_skipped_and_where_the_first_was(run):
    text = '{"x": 2}\nnot json\n{"x": 3}\n{"y": 1}\n'
    result = run("grad", "x**2", "--batch", "-", "--batch-errors", "skip", input=text)
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 4
    assert result.stderr.splitlines() == [
        "warning: --batch-errors skip: skipped 2 bad lines (the first: line 2); "
        'each has an {"line": N, "error": ...} object'
    ]
    clean = run("grad", "x**2", "--batch", "-", "--batch-errors", "skip", input='{"x": 2}\n')
    assert clean.exit_code == 0 and clean.stderr == ""


def test_format_table_with_batch_is_a_usage_error_and_json_is_accepted(run):
    line = one_error_line(
        run("grad", "x**2", "--batch", "-", "--format", "table", input='{"x": 2}\n'), exit_code=2
    )
    assert "--batch writes JSON Lines" in line and "--format table" in line
    result = run("grad", "x**2", "--batch", "-", "--format", "json", input='{"x": 2}\n')
    assert result.exit_code == 0 and result.stdout == '{"point":{"x": 2},"value":4.0,"grads":{"x":4.0}}\n'
