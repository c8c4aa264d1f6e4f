"""python -m kiln.codegen.oplist: the union of its sources, valid for torchgen's
SelectiveBuilder."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml
from torchgen.selective_build.selector import SelectiveBuilder

from kiln.codegen import oplist

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


def test_selection_files_union_with_their_dtypes(tmp_path: Path) -> None:
    first = tmp_path / "first.yaml"
    first.write_text(
        "operators:\n  aten::add.out: {}\n  aten::mm.out: {}\n"
        "et_kernel_metadata:\n  aten::add.out: ['v1/6;0,1|6;0,1|6;0,1']\n"
    )
    second = tmp_path / "second.yaml"
    second.write_text(
        "operators:\n  aten::add.out: {}\n"
        "et_kernel_metadata:\n  aten::add.out: ['v1/7;0,1|7;0,1|7;0,1']\n"
    )
    output = tmp_path / "sel.yaml"
    argv = ["--output", str(output), "--ops-yaml", str(first), "--ops-yaml", str(second)]
    assert oplist.main([*argv, "--root-ops", "relu.out"]) == 0
    builder = SelectiveBuilder.from_yaml_path(str(output))
    assert builder.et_kernel_metadata["aten::add.out"] == [
        "v1/6;0,1|6;0,1|6;0,1",
        "v1/7;0,1|7;0,1|7;0,1",
    ]
    # mm.out had no dtypes in its selection and relu.out came from --root-ops: every dtype.
    assert "aten::mm.out" not in builder.et_kernel_metadata
    assert builder.is_operator_selected("aten::mm.out")
    assert builder.is_operator_selected("aten::relu.out")


def test_bad_selection_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("operators:\n  aten::add.out: {}\net_kernel_metadata: [1, 2]\n")
    status = oplist.main(["--output", str(tmp_path / "o.yaml"), "--ops-yaml", str(bad)])
    err = capsys.readouterr().err
    assert status == 1
    assert f"{bad}: not a valid selected_operators.yaml" in err and "Traceback" not in err


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


class _SmallNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(torch.relu(self.fc(x)).view(2, 2, 4), dim=-1).half()


@pytest.fixture(scope="module")
def saved_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("program") / "small_net.pt2"
    program = torch.export.export(_SmallNet(), (torch.randn(4, 8),))
    torch.export.save(program, str(path))
    return path


def test_model_ops_map_to_out_variants_with_dtypes(saved_program: Path, tmp_path: Path) -> None:
    output = tmp_path / "sel.yaml"
    assert oplist.main(["--output", str(output), "--model", str(saved_program)]) == 0
    content = yaml.safe_load(output.read_text())
    ops = set(content["operators"])
    # linear -> permute + addmm, view -> view_copy, softmax -> _softmax, .half() -> _to_copy
    assert {
        "aten::addmm.out",
        "aten::permute_copy.out",
        "aten::relu.out",
        "aten::view_copy.out",
        "aten::_softmax.out",
        "aten::_to_copy.out",
    } <= ops
    metadata = content["et_kernel_metadata"]
    assert metadata["aten::relu.out"] == ["v1/6;0,1|6;0,1"]
    assert metadata["aten::_to_copy.out"] == ["v1/6;0,1,2|5;0,1,2"]  # float in, half out
    builder = SelectiveBuilder.from_yaml_path(str(output))
    assert builder.is_operator_selected("aten::addmm.out")


def test_model_union_with_root_ops_keeps_every_dtype(saved_program: Path, tmp_path: Path) -> None:
    output = tmp_path / "sel.yaml"
    argv = ["--output", str(output), "--model", str(saved_program), "--root-ops", "aten::relu.out"]
    assert oplist.main(argv) == 0
    metadata = yaml.safe_load(output.read_text())["et_kernel_metadata"]
    assert "aten::relu.out" not in metadata and "aten::addmm.out" in metadata


def test_unreadable_model_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "not_a_program.pt2"
    bogus.write_text("hello")
    status = oplist.main(["--output", str(tmp_path / "o.yaml"), "--model", str(bogus)])
    err = capsys.readouterr().err
    assert status == 1 and "cannot load it as a torch.export program" in err
    assert "Traceback" not in err
