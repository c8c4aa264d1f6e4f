"""Selection from .pte programs that ExecuTorch writes: the operators (ExecuTorch's own reading of
the operator table), the kernel keys for dtype selection, CMake's OPS_FROM_MODEL, and a clear
one-line error for every damaged file."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flatbuffers
import pytest
import torch
import yaml
from executorch_export import methods_pte_bytes, operator_tables, pte_bytes, write_pte
from torchgen.selective_build.selector import SelectiveBuilder

from buildtools import BUILD_ROOT, REPO_ROOT, cmake_build, cmake_configure, run
from kiln.codegen import oplist
from kiln.codegen.errors import UserError
from kiln.codegen.pte import program_generated as fb
from kiln.codegen.pte.reader import read_pte_operators
from kiln.codegen.selective_build.prim_ops import PRIM_OPERATORS, is_prim_operator
from kiln.codegen.selective_build.program_ops import program_ops

PROJECT = REPO_ROOT / "tests/cmake_projects/pte_selection"


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(8, 16)
        self.output = torch.nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output(torch.relu(self.hidden(x)))


class SmallCnn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x)).view(1, -1)


class MulAdd(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * y + y)


MODELS: dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...]]] = {
    "mlp": (Mlp(), (torch.randn(2, 8),)),
    "cnn": (SmallCnn(), (torch.randn(1, 3, 8, 8),)),
    "int64": (MulAdd(), (torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long))),
}

FLOAT_2D = "6;0,1"
FLOAT_4D = "6;0,1,2,3"
LONG_2D = "4;0,1"


def key(*entries: str) -> str:
    return "v1/" + "|".join(entries)


# What each program needs: its ops (exactly its operator table) and each call's kernel key.
EXPECTED_KEYS = {
    "mlp": {
        "aten::permute_copy.out": [key(FLOAT_2D, FLOAT_2D)],
        "aten::addmm.out": [key("6;0", FLOAT_2D, FLOAT_2D, FLOAT_2D)],  # bias, mat1, mat2, out
        "aten::relu.out": [key(FLOAT_2D, FLOAT_2D)],
    },
    "cnn": {
        "aten::convolution.out": [key(FLOAT_4D, FLOAT_4D, "6;0", FLOAT_4D)],
        "aten::relu.out": [key(FLOAT_4D, FLOAT_4D)],
        "aten::view_copy.out": [key(FLOAT_4D, FLOAT_2D)],
    },
    "int64": {
        "aten::mul.out": [key(LONG_2D, LONG_2D, LONG_2D)],
        "aten::add.out": [key(LONG_2D, LONG_2D, LONG_2D)],
        "aten::relu.out": [key(LONG_2D, LONG_2D)],
    },
}


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("pte")
    return {
        name: write_pte(directory / f"{name}.pte", module, inputs)
        for name, (module, inputs) in MODELS.items()
    }


def run_oplist(tmp_path: Path, *argv: str) -> dict[str, object]:
    output = tmp_path / "selected_operators.yaml"
    assert oplist.main(["--output", str(output), *argv]) == 0
    SelectiveBuilder.from_yaml_path(str(output))  # what the codegen reads it with
    content: dict[str, object] = yaml.safe_load(output.read_text())
    return content


@pytest.mark.parametrize("name", sorted(MODELS))
def test_selection_is_the_operator_table_with_each_calls_dtypes(
    programs: dict[str, Path], tmp_path: Path, name: str
) -> None:
    content = run_oplist(tmp_path, "--model", str(programs[name]))
    (table,) = operator_tables(programs[name].read_bytes()).values()
    assert isinstance(content["operators"], dict)
    assert sorted(content["operators"]) == sorted(table)
    assert content["et_kernel_metadata"] == dict(sorted(EXPECTED_KEYS[name].items()))


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_pte_and_torch_export_programs_of_one_model_select_alike(
    programs: dict[str, Path], tmp_path: Path, name: str
) -> None:
    module, inputs = MODELS[name]
    saved = tmp_path / f"{name}.pt2"
    torch.export.save(torch.export.export(module, inputs), str(saved))
    from_pte = run_oplist(tmp_path / "pte", "--model", str(programs[name]))
    from_export = run_oplist(tmp_path / "pt2", "--model", str(saved))
    assert from_pte["et_kernel_metadata"] == from_export["et_kernel_metadata"]
    assert isinstance(from_pte["operators"], dict) and isinstance(from_export["operators"], dict)
    assert sorted(from_pte["operators"]) == sorted(from_export["operators"])


def test_the_executors_prim_operators_are_not_selected(tmp_path: Path) -> None:
    """A program with a dynamic batch calls aten::sym_size.int and executorch_prim::et_view,
    which the executor runs itself: selection leaves them out, from a .pte and from a saved
    torch.export program alike."""
    from torch.export import Dim

    from kiln import _C

    module = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten())
    inputs = (torch.randn(2, 3, 8, 8),)
    dynamic = {"input": {0: Dim("batch", min=1, max=4)}}
    pte = tmp_path / "dynamic.pte"
    pte.write_bytes(pte_bytes(module, inputs, dynamic))
    (table,) = operator_tables(pte.read_bytes()).values()
    prims = {op for op in table if is_prim_operator(op)}
    assert "aten::sym_size.int" in prims
    from_pte = run_oplist(tmp_path / "pte", "--model", str(pte))
    assert isinstance(from_pte["operators"], dict)
    assert sorted(from_pte["operators"]) == sorted(set(table) - prims)
    saved = tmp_path / "dynamic.pt2"
    torch.export.save(torch.export.export(module, inputs, dynamic_shapes=dynamic), str(saved))
    from_export = run_oplist(tmp_path / "pt2", "--model", str(saved))
    assert isinstance(from_export["operators"], dict)
    assert not any(is_prim_operator(op) for op in from_export["operators"])
    # The selection tools' list is the executor's.
    assert PRIM_OPERATORS == set(_C.prim_operators())


def test_a_pte_is_known_by_its_identifier_and_executorch_flag_name(
    programs: dict[str, Path], tmp_path: Path
) -> None:
    renamed = tmp_path / "model.bin"
    shutil.copy(programs["mlp"], renamed)
    content = run_oplist(tmp_path, "--model_file_path", str(renamed))
    assert content["et_kernel_metadata"] == dict(sorted(EXPECTED_KEYS["mlp"].items()))


def test_root_ops_union_keeps_every_dtype_of_their_ops(
    programs: dict[str, Path], tmp_path: Path
) -> None:
    content = run_oplist(tmp_path, "--model", str(programs["int64"]), "--root-ops", "relu.out")
    metadata = content["et_kernel_metadata"]
    assert isinstance(metadata, dict)
    assert sorted(metadata) == ["aten::add.out", "aten::mul.out"]


def test_every_method_is_selected(tmp_path: Path) -> None:
    class Double(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + x

    inputs = (torch.ones(2, 3),)
    data = methods_pte_bytes({"forward": (Double(), inputs), "score": (MulAdd(), inputs * 2)})
    path = tmp_path / "two_methods.pte"
    path.write_bytes(data)
    tables = operator_tables(data)
    found = read_pte_operators(str(path))
    assert {plan.name: list(plan.operators) for plan in found.plans} == tables
    content = run_oplist(tmp_path, "--model", str(path))
    assert content["et_kernel_metadata"] == {
        "aten::add.out": [key(FLOAT_2D, FLOAT_2D, FLOAT_2D)],
        "aten::mul.out": [key(FLOAT_2D, FLOAT_2D, FLOAT_2D)],
        "aten::relu.out": [key(FLOAT_2D, FLOAT_2D)],
    }


def test_default_overload_multiple_outs_and_custom_namespaces(tmp_path: Path) -> None:
    class Mixed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("total", torch.zeros(2, 3))

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            self.total.add_(x)  # written back with the in-place aten::copy_ (default overload)
            values, indices = self.total.to(torch.float64).max(dim=0)  # two outs
            return values, indices

    path = write_pte(tmp_path / "mixed.pte", Mixed(), (torch.ones(2, 3),))
    (table,) = operator_tables(path.read_bytes()).values()
    found = read_pte_operators(str(path))
    assert found.operators() == sorted(table)
    keys = {op: sorted(k.native_string() for k in ks) for op, ks in found.keys().items()}
    assert "aten::copy_" in table
    assert keys["aten::copy_"] == [key(FLOAT_2D, FLOAT_2D)]  # self and src, not the returned self
    # The outs come back as one TensorList, which is not part of the key.
    assert keys["aten::max.dim_max"] == [key("7;0,1", "7;0", "4;0")]
    # No ATen schema: the out tensor repeated at the end is known as the return.
    assert keys["dim_order_ops::_to_dim_order_copy.out"] == [key(FLOAT_2D, "7;0,1")]


def _repacked(data: bytes, edit: Callable[[Any], None]) -> bytes:
    """``data`` decoded into the object API, edited by ``edit(program)`` and packed again."""
    program = fb.ProgramT.InitFromObj(fb.Program.GetRootAs(data, 0))
    edit(program)
    builder = flatbuffers.Builder(0)
    builder.Finish(program.Pack(builder), file_identifier=b"ET12")
    return bytes(builder.Output())


def _first_call(program: fb.ProgramT) -> fb.KernelCallT:
    call = program.executionPlan[0].chains[0].instructions[0].instrArgs
    assert isinstance(call, fb.KernelCallT)
    return call


def _set_op_index(program: fb.ProgramT) -> None:
    _first_call(program).opIndex = 7


def _set_arg_index(program: fb.ProgramT) -> None:
    call = _first_call(program)
    call.args = [*list(call.args[:-1]), 1000]


def _unchanged(program: fb.ProgramT) -> None:
    pass


@pytest.fixture(scope="module")
def constant_free() -> bytes:
    """A program without constant data: re-packing the flatbuffer alone keeps it whole."""
    module, inputs = MODELS["int64"]
    data = pte_bytes(module, inputs)
    assert data[8:12] != b"eh00", "expected a program without an extended header"
    return data


def test_a_repacked_program_reads_the_same(constant_free: bytes, tmp_path: Path) -> None:
    path = tmp_path / "repacked.pte"
    path.write_bytes(_repacked(constant_free, _unchanged))
    keys = {
        op: sorted(k.native_string() for k in ks) for op, ks in program_ops(str(path)).keys.items()
    }
    assert keys == EXPECTED_KEYS["int64"]


def _bad_file(case: str, mlp: bytes, clean: bytes) -> bytes:
    """A damaged copy of ``mlp`` (constants in segments, an extended header) or of ``clean``
    (neither)."""
    makers = {
        "truncated_in_segments": lambda: mlp[:-10],
        "truncated_in_program": lambda: mlp[: len(mlp) // 3],
        "truncated_without_header": lambda: clean[: len(clean) // 2],
        "eight_bytes_short": lambda: clean[:5],
        "wrong_identifier": lambda: clean[:4] + b"PK12" + clean[8:],
        "other_version": lambda: clean[:4] + b"ET11" + clean[8:],
        "random_bytes": lambda: bytes(range(7, 250)) * 8,
        "random_bytes_with_identifier": lambda: b"\x10\0\0\0ET12" + bytes(range(256)) * 4,
        "op_index_out_of_range": lambda: _repacked(clean, _set_op_index),
        "value_index_out_of_range": lambda: _repacked(clean, _set_arg_index),
    }
    return makers[case]()


BAD_FILES = {
    "truncated_in_segments": "truncated: its header says the segment data ends at byte",
    "truncated_in_program": "truncated: its header says the program is",
    "truncated_without_header": "malformed or truncated",
    "eight_bytes_short": "fewer than a .pte file's 8-byte start",
    "wrong_identifier": "bytes 4..8 are b'PK12', where a .pte file has",
    "other_version": "file identifier 'ET11', where Kiln reads 'ET12'",
    "random_bytes": "not a .pte program",
    "random_bytes_with_identifier": "malformed or truncated",
    "op_index_out_of_range": "KernelCall op_index 7 is out of range (the plan has 3 operators)",
    "value_index_out_of_range": "takes value 1000, which is out of range",
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_damaged_program_is_one_clear_line(
    programs: dict[str, Path],
    constant_free: bytes,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
) -> None:
    message = BAD_FILES[case]
    bad = tmp_path / "bad.pte"
    bad.write_bytes(_bad_file(case, programs["mlp"].read_bytes(), constant_free))
    status = oplist.main(["--output", str(tmp_path / "o.yaml"), "--model", str(bad)])
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith(f"{bad}: ") and message in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    with pytest.raises(UserError):
        read_pte_operators(str(bad))


def test_a_missing_pte_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.pte"
    assert oplist.main(["--output", str(tmp_path / "o.yaml"), "--model", str(missing)]) == 1
    assert f"{missing}: no such file" in capsys.readouterr().err


def test_cmake_selects_a_pte_programs_ops_and_dtypes_only(programs: dict[str, Path]) -> None:
    """gen_selected_ops(OPS_FROM_MODEL x.pte DTYPE_SELECTIVE_BUILD) against Kiln's source tree;
    only the dtype-selected kernels of the program's three ops are compiled. The selection of
    kiln_add_operator_library(MODEL x.pte ...) is the same (only that file is built)."""
    build = BUILD_ROOT / "pytest-pte-selection"
    program = build / "mul_add.pte"
    os.makedirs(build, exist_ok=True)
    module, inputs = MulAdd(), (torch.ones(2, 3), torch.ones(2, 3))  # float32 this time
    data = pte_bytes(module, inputs)
    if not program.exists() or program.read_bytes() != data:  # keep the build incremental
        program.write_bytes(data)
    cmake_configure(PROJECT, build, f"-DKILN_SOURCE_DIR={REPO_ROOT}", f"-DPTE_PROGRAM={program}")
    cmake_build(build, "pte_ops_demo", "pte_model_ops/selected_operators.yaml")
    (table,) = operator_tables(data).values()
    selection = yaml.safe_load((build / "pte_ops/selected_operators.yaml").read_text())
    one_call = (build / "pte_model_ops/selected_operators.yaml").read_text()
    assert yaml.safe_load(one_call) == selection  # kiln_add_operator_library(MODEL x.pte ...)
    assert sorted(selection["operators"]) == sorted(table)
    assert selection["et_kernel_metadata"] == {
        "aten::add.out": [key(FLOAT_2D, FLOAT_2D, FLOAT_2D)],
        "aten::mul.out": [key(FLOAT_2D, FLOAT_2D, FLOAT_2D)],
        "aten::relu.out": [key(FLOAT_2D, FLOAT_2D)],
    }
    selected = build / "pte_ops/dtype_selected"
    for op in ("add", "mul", "relu"):
        assert "0x40ull  // Float" in (selected / f"op_{op}.cpp").read_text()
    # An operator the program does not use is not compiled at all, not even as an empty copy.
    assert not (selected / "op_sub.cpp").exists()
    demo = run([str(build / "pte_ops_demo")]).stdout.splitlines()
    assert demo == [
        "registered: aten::add.out aten::mul.out aten::relu.out",
        "float relu: 0 2",
        "double relu: NotSupported",
    ]
