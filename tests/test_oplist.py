"""python -m codegen.oplist: the union of its sources, valid for torchgen's SelectiveBuilder."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from torchgen.selective_build.selector import SelectiveBuilder

from codegen import oplist

REPO = Path(__file__).resolve().parent.parent
CUSTOM_OPS = REPO / "tests/native/custom_op/custom_ops.yaml"


def test_union_of_root_ops_and_yaml(tmp_path: Path) -> None:
    output = tmp_path / "selected_operators.yaml"
    status = oplist.main(
        [
            "--output",
            str(output),
            "--root-ops",
            "aten::add.out, mul.out",
            "--ops-yaml",
            str(CUSTOM_OPS),
        ]
    )
    assert status == 0
    builder = SelectiveBuilder.from_yaml_path(str(output))
    for name in ("aten::add.out", "aten::mul.out", "kiln_custom::scaled_add.out"):
        assert builder.is_operator_selected(name)
    assert not builder.is_operator_selected("aten::sub.out")
    assert not builder.include_all_operators


def test_include_all_ops(tmp_path: Path) -> None:
    output = tmp_path / "sel.yaml"
    assert oplist.main(["--output", str(output), "--include-all-ops"]) == 0
    assert SelectiveBuilder.from_yaml_path(str(output)).is_operator_selected("aten::anything.out")


def test_unchanged_output_is_not_rewritten(tmp_path: Path) -> None:
    output = tmp_path / "sel.yaml"
    oplist.main(["--output", str(output), "--root-ops", "aten::add.out"])
    before = output.stat().st_mtime_ns
    oplist.main(["--output", str(output), "--root-ops", "aten::add.out"])
    assert output.stat().st_mtime_ns == before
    assert yaml.safe_load(output.read_text())["operators"]["aten::add.out"]["is_root_operator"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "no operator source given"),
        (["--root-ops", "add out"], "is not an operator name"),
        (["--ops-yaml", "/nonexistent.yaml"], "/nonexistent.yaml"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_input_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status = oplist.main(["--output", str(tmp_path / "o.yaml"), *argv])
    err = capsys.readouterr().err
    assert status == 1
    assert message in err and "Traceback" not in err and " — " in err
