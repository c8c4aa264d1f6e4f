"""Kiln's operators inside MindSpore (PyNative, CPU): an AOT library built with
kiln_add_mindspore_library against the installed Kiln, called through kiln.mindspore.custom,
matches the same kernel run by kiln.call_op and the PyTorch reference; a refused call is
MindSpore's error turned KilnError with the kernel's message."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mindspore as ms
import numpy as np
import pytest
import torch

import kiln
import kiln.mindspore
from buildtools import BUILD_ROOT, REPO_ROOT, cmake_build, cmake_configure, run
from kiln._out_shapes import broadcast, out_dtype_sources, out_shapes

sys.path.insert(0, str(Path(__file__).parent / "ops"))
import llm_reference as ref  # noqa: E402

PROJECT = Path(__file__).parent / "cmake_projects" / "mindspore_aot"


@pytest.fixture(scope="module")
def library() -> Iterator[str]:
    # Against the installed Kiln, whose kernels kiln.call_op runs too.
    build = BUILD_ROOT / "pytest-mindspore"
    cmake_configure(PROJECT, build, f"-DCMAKE_PREFIX_PATH={kiln.cmake_prefix_path}")
    cmake_build(build, "ms_ops")
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    yield str(build / "libms_ops.so")


def _ms(tensor: torch.Tensor) -> Any:
    return ms.Tensor(tensor.numpy())


def _torch(tensor: Any) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(tensor.asnumpy()))


def _portable(name: str, *args: Any, like: torch.Tensor, outs: int = 1, **kwargs: Any) -> Any:
    """The same operator through kiln.call_op, into outs of ``like``'s dtype that it resizes."""
    out = tuple(torch.empty(0, dtype=like.dtype) for _ in range(outs))
    return kiln.call_op(name, *args, out=out[0] if outs == 1 else out, **kwargs)


def test_add(library: str) -> None:
    x, y = torch.randn(4, 5), torch.randn(5)
    add = kiln.mindspore.custom("aten::add.out", library)
    got = _torch(add(_ms(x), _ms(y), alpha=2.0))
    torch.testing.assert_close(
        got, _portable("aten::add.out", x, y, alpha=2.0, like=x), rtol=0, atol=0
    )
    torch.testing.assert_close(got, x + 2.0 * y)
    ints = kiln.mindspore.custom("add.out", library)(
        _ms(torch.arange(6, dtype=torch.int32)), _ms(torch.ones(6, dtype=torch.int32)), alpha=3
    )
    assert _torch(ints).tolist() == [3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_rms_norm(library: str, dtype: torch.dtype) -> None:
    x, weight = torch.randn(3, 7, 64, dtype=dtype), torch.rand(64, dtype=dtype) + 0.5
    rms_norm = kiln.mindspore.custom("kiln::rms_norm.out", library)
    got = _torch(rms_norm(_ms(x), _ms(weight), 1e-6))
    assert got.dtype == dtype
    expected = _portable("kiln::rms_norm.out", x, weight, 1e-6, like=x)
    torch.testing.assert_close(got, expected, rtol=0, atol=0)
    # float16: the reference rounds the same values, maybe one unit in the last place apart.
    torch.testing.assert_close(got, ref.rms_norm(x, weight, 1e-6), rtol=2e-3, atol=1e-5)


def test_silu_and_mul(library: str) -> None:
    x = torch.randn(5, 2 * 48)
    silu_and_mul = kiln.mindspore.custom("kiln::silu_and_mul.out", library)
    got = _torch(silu_and_mul(_ms(x)))
    assert got.shape == (5, 48)
    torch.testing.assert_close(got, _portable("kiln::silu_and_mul.out", x, like=x), rtol=0, atol=0)
    torch.testing.assert_close(got, ref.silu_and_mul(x))


def test_gelu_and_mul_takes_its_string(library: str) -> None:
    x = torch.randn(4, 32)
    gelu_and_mul = kiln.mindspore.custom("kiln::gelu_and_mul.out", library)
    for approximate in ("none", "tanh"):
        got = _torch(gelu_and_mul(_ms(x), approximate))
        expected = _portable("kiln::gelu_and_mul.out", x, approximate, like=x)
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
        torch.testing.assert_close(got, ref.gelu_and_mul(x, approximate))


@pytest.mark.parametrize("is_neox", [True, False])
def test_rotary_embedding(library: str, is_neox: bool) -> None:
    tokens, heads, kv_heads, head_size, rot_dim = 6, 4, 2, 16, 8
    positions = torch.randint(0, 32, (tokens,), dtype=torch.int64)
    query = torch.randn(tokens, heads * head_size)
    key = torch.randn(tokens, kv_heads * head_size)
    cache = torch.randn(32, rot_dim)
    rotary = kiln.mindspore.custom("kiln::rotary_embedding.out", library)
    query_out, key_out = rotary(
        _ms(positions), _ms(query), _ms(key), head_size, _ms(cache), is_neox
    )
    expected = _portable(
        "kiln::rotary_embedding.out",
        *(positions, query, key, head_size, cache, is_neox),
        like=query,
        outs=2,
    )
    torch.testing.assert_close(_torch(query_out), expected[0], rtol=0, atol=0)
    torch.testing.assert_close(_torch(key_out), expected[1], rtol=0, atol=0)
    torch.testing.assert_close(
        _torch(query_out), ref.rotary_embedding(positions, query, head_size, cache, is_neox)
    )
    torch.testing.assert_close(
        _torch(key_out), ref.rotary_embedding(positions, key, head_size, cache, is_neox)
    )


def test_refused_input_raises_kernels_message(library: str) -> None:
    rms_norm = kiln.mindspore.custom("kiln::rms_norm.out", library)
    x, weight = torch.randn(2, 8), torch.ones(6)
    with pytest.raises(kiln.KilnError, match="weight"):
        rms_norm(_ms(x), _ms(weight), 1e-6)
    # The process goes on: the next call runs.
    assert _torch(rms_norm(_ms(x), _ms(torch.ones(8)), 1e-6)).shape == (2, 8)


def test_position_outside_the_cache_is_refused(library: str) -> None:
    rotary = kiln.mindspore.custom("kiln::rotary_embedding.out", library)
    positions = torch.tensor([0, 40], dtype=torch.int64)
    query, key = torch.randn(2, 16), torch.randn(2, 16)
    with pytest.raises(kiln.KilnError, match="position"):
        rotary(_ms(positions), _ms(query), _ms(key), 16, _ms(torch.randn(32, 16)), True)


def test_operator_not_in_the_library(library: str) -> None:
    with pytest.raises(kiln.KilnError, match="no MindSpore entry point for aten::mul.out"):
        kiln.mindspore.custom("aten::mul.out", library)
    with pytest.raises(kiln.KilnError, match="not a Kiln MindSpore AOT library"):
        kiln.mindspore.custom("aten::add.out", str(PROJECT / "CMakeLists.txt"))


def test_shape_rules() -> None:
    assert broadcast((4, 1), (3,)) == (4, 3)
    with pytest.raises(ValueError, match="do not broadcast"):
        broadcast((2,), (3,))
    assert out_shapes("kiln::silu_and_mul.out", {"input": (2, 8)}, 1) == ((2, 4),)
    with pytest.raises(ValueError, match="even"):
        out_shapes("kiln::gelu_and_mul.out", {"input": (2, 7)}, 1)
    rotary = {"positions": (5,), "query": (5, 64), "key": (5, 32), "cos_sin_cache": (9, 8)}
    assert out_shapes("kiln::rotary_embedding.out", rotary, 2) == ((5, 64), (5, 32))
    assert out_dtype_sources("kiln::rotary_embedding.out", list(rotary), 2) == ("query", "query")
    assert out_dtype_sources("aten::add.out", ["self", "other"], 1) == ("self",)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "kiln_add_operator_library(NAME l ROOT_OPS aten::add.out)\n"
            "kiln_add_mindspore_library(l_ms OPERATOR_LIBRARY l)",
            "library 'l' has no MindSpore entry points: add MINDSPORE_AOT",
        ),
        (
            "kiln_add_mindspore_library(l_ms OPERATOR_LIBRARY nope)",
            "OPERATOR_LIBRARY must name an operator library target",
        ),
        ("kiln_add_mindspore_library(l_ms LIBRARY l)", "unknown arguments: LIBRARY;l"),
    ],
)
def test_bad_cmake_arguments_fail_clearly(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.22)\nproject(bad LANGUAGES CXX)\n"
        'set(KILN_BUILD_EXAMPLES OFF CACHE BOOL "" FORCE)\n'
        'set(KILN_ASCEND off CACHE STRING "" FORCE)\n'
        f"add_subdirectory({REPO_ROOT} kiln)\n{body}\n"
    )
    result = run(
        [
            "cmake",
            "-S",
            str(tmp_path),
            "-B",
            str(tmp_path / "build"),
            "-G",
            "Ninja",
            f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
        ],
        check=False,
    )
    assert result.returncode != 0
    assert message in " ".join(result.stderr.split())
