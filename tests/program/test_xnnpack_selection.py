"""Selection from XNNPACK-delegated programs: the operators Kiln's XnnpackBackend delegate calls for
a program's graphs are selected with their dtypes (python/kiln/codegen/pte/xnnpack_ops.py), so a
runner built from the program's selection alone loads and runs it; a delegate call to another
backend is a warning, and a damaged payload one clear line."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from executorch_export import quantized_module, xnnpack_pte_bytes
from models import zoo_model
from torchgen.selective_build.selector import SelectiveBuilder

import kiln
from buildtools import BUILD_ROOT, REPO_ROOT, cmake_build, cmake_configure, run
from kiln.codegen import oplist

PROJECT = REPO_ROOT / "tests/cmake_projects/xnnpack_selection"
FLOAT_4D = "6;0,1,2,3"
HALF_4D = "5;0,1,2,3"
LONG_4D = "4;0,1,2,3"


def key(*entries: str) -> str:
    return "v1/" + "|".join(entries)


# zoo's cnn, all of it in one XNNPACK graph (the program makes no kernel call of its own): NHWC
# convolutions with batch norm folded in and ReLU fused as a clamp, a max pool, the residual add,
# the head as addmm on the flattened rows, and the weights' and layouts' permutes.
CNN_SELECTION = {
    "aten::add.out": [key(FLOAT_4D, FLOAT_4D, FLOAT_4D)],
    "aten::addmm.out": [key("6;0", "6;0,1", "6;0,1", "6;0,1")],
    "aten::clamp.out": [key(FLOAT_4D, FLOAT_4D)],
    "aten::convolution.out": [key(FLOAT_4D, FLOAT_4D, "6;0", FLOAT_4D)],
    "aten::max_pool2d_with_indices.out": [key(FLOAT_4D, FLOAT_4D, LONG_4D)],
    "aten::permute_copy.out": [key(FLOAT_4D, FLOAT_4D), key("6;0,1", "6;0,1")],
}


@pytest.fixture(scope="module")
def cnn(tmp_path_factory: pytest.TempPathFactory) -> tuple[torch.nn.Module, torch.Tensor, Path]:
    module, (x,) = zoo_model("cnn").create()
    path = tmp_path_factory.mktemp("xnnpack") / "cnn.pte"
    path.write_bytes(xnnpack_pte_bytes(module, (x,)))
    return module, x, path


def run_oplist(tmp_path: Path, program: Path) -> dict[str, object]:
    output = tmp_path / "selected_operators.yaml"
    assert oplist.main(["--output", str(output), "--model", str(program)]) == 0
    SelectiveBuilder.from_yaml_path(str(output))  # what the codegen reads it with
    content: dict[str, object] = yaml.safe_load(output.read_text())
    return content


def test_the_delegates_operators_are_selected_with_their_dtypes(
    cnn: tuple[torch.nn.Module, torch.Tensor, Path], tmp_path: Path
) -> None:
    content = run_oplist(tmp_path, cnn[2])
    assert content["et_kernel_metadata"] == CNN_SELECTION
    assert isinstance(content["operators"], dict)
    assert sorted(content["operators"]) == sorted(CNN_SELECTION)


def test_a_half_graph_selects_half_kernels_and_its_weights_conversions(tmp_path: Path) -> None:
    # ExecuTorch keeps the fp16 graph's convolution weights in fp32: the delegate permutes them
    # in fp32 and converts them (_to_copy) to Half, then computes in Half.
    module, (x,) = zoo_model("cnn").create()
    program = tmp_path / "half.pte"
    program.write_bytes(xnnpack_pte_bytes(module.half(), (x.half(),)))
    metadata = run_oplist(tmp_path, program)["et_kernel_metadata"]
    assert isinstance(metadata, dict)
    assert metadata["aten::convolution.out"] == [key(HALF_4D, HALF_4D, "5;0", HALF_4D)]
    assert metadata["aten::_to_copy.out"] == [key(FLOAT_4D, HALF_4D), key("6;0", "5;0")]
    assert key(FLOAT_4D, FLOAT_4D) in metadata["aten::permute_copy.out"]


def test_kernel_calls_and_delegate_calls_select_together(tmp_path: Path) -> None:
    # The partitioner leaves the transformer block's layer norms to kernel calls between its
    # delegate calls: both are selected.
    module, inputs = zoo_model("transformer_block").create()
    program = tmp_path / "block.pte"
    program.write_bytes(xnnpack_pte_bytes(module, inputs))
    metadata = run_oplist(tmp_path, program)["et_kernel_metadata"]
    assert isinstance(metadata, dict)
    assert metadata["aten::native_layer_norm.out"]  # a kernel call of the program
    assert metadata["aten::bmm.out"] == [key("6;0,1,2", "6;0,1,2", "6;0,1,2")]  # the delegate's
    assert metadata["aten::_softmax.out"] == [key(FLOAT_4D, FLOAT_4D)]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_a_quantized_graph_selects_its_quantize_operators(tmp_path: Path, dynamic: bool) -> None:
    module, inputs = zoo_model("mlp").create()
    quantized = quantized_module(module, inputs, [inputs], dynamic=dynamic)
    program = tmp_path / "quantized.pte"
    program.write_bytes(xnnpack_pte_bytes(quantized, inputs))
    content = run_oplist(tmp_path, program)
    operators, metadata = content["operators"], content["et_kernel_metadata"]
    assert isinstance(operators, dict) and isinstance(metadata, dict)
    # Per-channel weights: every dtype (the scales' tensors are the delegate's choice).
    assert "quantized_decomposed::dequantize_per_channel.out" in operators
    assert "quantized_decomposed::dequantize_per_channel.out" not in metadata
    assert "aten::addmm.out" in metadata
    per_token = {
        "quantized_decomposed::choose_qparams_per_token_asymmetric.out",
        "quantized_decomposed::quantize_per_token.out",
        "quantized_decomposed::dequantize_per_token.out",
    }
    if dynamic:
        assert per_token <= set(operators) and not per_token & set(metadata)
        return
    assert not per_token & set(operators)
    # Static activations, per tensor: float in, int8 out and back, as kernel calls record them.
    assert metadata["quantized_decomposed::quantize_per_tensor.out"] == [key("6;0,1", "1;0,1")]
    assert key("1;0,1", "6;0,1") in metadata["quantized_decomposed::dequantize_per_tensor.out"]


def _other_backend(data: bytes) -> bytes:
    """``data`` with its delegates' backend renamed (the same length: nothing else moves)."""
    assert data.count(b"XnnpackBackend") == 1
    return data.replace(b"XnnpackBackend", b"VendorNpuBknd1")


def test_a_delegate_to_another_backend_is_a_warning(
    cnn: tuple[torch.nn.Module, torch.Tensor, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    program = tmp_path / "vendor.pte"
    program.write_bytes(_other_backend(cnn[2].read_bytes()))
    output = tmp_path / "selected_operators.yaml"
    assert oplist.main(["--output", str(output), "--model", str(program)]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"{program}: warning: plan 'forward', chain 0, instruction 0 calls ")
    assert "delegate 'VendorNpuBknd1', which Kiln does not run itself" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert yaml.safe_load(output.read_text())["operators"] == {}
    with pytest.raises(kiln.KilnError, match="'VendorNpuBknd1', which is not registered"):
        kiln.load(program.read_bytes())


def _damaged(data: bytes, edit: str) -> bytes:
    at = data.find(b"XH00") - 4  # the payload's start
    assert at > 0
    if edit == "graph-identifier":
        return data[: at + 36] + b"ZZ" + data[at + 38 :]
    assert edit == "graph-offset"  # past the payload
    return data[: at + 10] + (1 << 30).to_bytes(4, "little") + data[at + 14 :]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ("graph-identifier", "does not carry the identifier 'XN01'"),
        ("graph-offset", "places the graph (offset 1073741824"),
    ],
)
def test_a_damaged_payload_is_one_clear_line(
    cnn: tuple[torch.nn.Module, torch.Tensor, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: str,
    message: str,
) -> None:
    bad = tmp_path / "bad.pte"
    bad.write_bytes(_damaged(cnn[2].read_bytes(), edit))
    assert oplist.main(["--output", str(tmp_path / "o.yaml"), "--model", str(bad)]) == 1
    err = capsys.readouterr().err
    where = "plan 'forward', chain 0, instruction 0 (XnnpackBackend): "
    assert err.startswith(f"{bad}: {where}") and message in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_runner_built_from_the_programs_selection_alone_runs_it(
    cnn: tuple[torch.nn.Module, torch.Tensor, Path], tmp_path: Path
) -> None:
    """kiln_add_operator_library(MODEL cnn.pte DTYPE_SELECTIVE_BUILD): only the kernels and
    dtypes the selection names are compiled, so a delegate call the table misses (an operator, or
    a dtype) fails the load or the run. The runner matches eager PyTorch."""
    module, x, exported = cnn
    build = BUILD_ROOT / "pytest-xnnpack-selection"
    program = build / "cnn.pte"
    os.makedirs(build, exist_ok=True)
    data = exported.read_bytes()
    if not program.exists() or program.read_bytes() != data:  # keep the build incremental
        program.write_bytes(data)
    cmake_configure(PROJECT, build, f"-DKILN_SOURCE_DIR={REPO_ROOT}", f"-DPTE_PROGRAM={program}")
    cmake_build(build, "xnnpack_model_runner")
    selection = yaml.safe_load((build / "xnnpack_model_ops/selected_operators.yaml").read_text())
    assert selection["et_kernel_metadata"] == CNN_SELECTION  # nothing but the model's selection
    x.numpy().tofile(tmp_path / "x.bin")
    runner = build / "xnnpack_model_runner"
    result = run(
        [str(runner), str(program), str(tmp_path / "x.bin"), "--output-dir", str(tmp_path)]
    )
    with torch.no_grad():
        expected = module(x)
    actual = np.fromfile(tmp_path / "output0.bin", dtype=np.float32).reshape(expected.shape)
    torch.testing.assert_close(torch.from_numpy(actual), expected, rtol=1e-4, atol=1e-4)
    assert f"output 0: Float {list(expected.shape)}" in result.stdout
