"""Kiln's operators inside MindSpore (PyNative, CPU): an AOT library built with
kiln_add_mindspore_library against the installed Kiln, called through kiln.mindspore.custom,
matches the same kernel run by kiln.call_op and the PyTorch reference, optional tensors
omitted or None included; operators that write their arguments return the updates; the paged
decode example (examples/llm_decode) decodes from MindSpore as from torch.ops.kiln; a refused
call is a KilnError with the kernel's message and code, and no log line besides."""

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
from kiln._manifest import operators
from kiln._out_shapes import broadcast, out_dtype_sources, out_shapes

sys.path.insert(0, str(Path(__file__).parent / "ops"))
import llm_reference as ref  # noqa: E402

PROJECT = Path(__file__).parent / "cmake_projects" / "mindspore_aot"
EXAMPLE = REPO_ROOT / "examples" / "llm_decode"


@pytest.fixture(scope="module")
def library() -> Iterator[str]:
    # Against the installed Kiln, whose kernels kiln.call_op runs too.
    build = BUILD_ROOT / "pytest-mindspore"
    cmake_configure(PROJECT, build, f"-DCMAKE_PREFIX_PATH={kiln.cmake_prefix_path}")
    cmake_build(build, "ms_ops")
    ms.set_device("CPU")  # PyNative is the default mode
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


def test_every_kiln_operator_has_an_entry_point(library: str) -> None:
    # The library holds all of custom_ops.yaml: each kiln:: operator, out variant or one that
    # writes its arguments (reshape_and_cache, advance_step_flashattn), is callable.
    names = [name for name in operators() if name.startswith("kiln::")]
    assert {"kiln::reshape_and_cache", "kiln::advance_step_flashattn"} <= set(names)
    assert len(names) >= 9
    for name in names:
        kiln.mindspore.custom(name, library)


def _paged_inputs(seed: int = 0) -> tuple[torch.Tensor, ...]:
    """query [3, 4, 32], flash caches of 6 blocks of 8 tokens and 2 kv heads, block tables and
    context lengths (0 included) of three sequences."""
    generator = torch.Generator().manual_seed(seed)
    query = torch.randn(3, 4, 32, generator=generator)
    key_cache = torch.randn(6, 8, 2, 32, generator=generator)
    value_cache = torch.randn(6, 8, 2, 32, generator=generator)
    block_tables = torch.tensor([[4, 1], [0, 5], [2, 3]], dtype=torch.int32)
    context_lens = torch.tensor([13, 0, 8], dtype=torch.int32)
    return query, key_cache, value_cache, block_tables, context_lens


def test_paged_attention_with_and_without_alibi(library: str) -> None:
    query, key_cache, value_cache, block_tables, context_lens = _paged_inputs()
    attention = kiln.mindspore.custom("kiln::paged_attention.out", library)
    tensors = [_ms(t) for t in (query, key_cache, value_cache, block_tables, context_lens)]
    expected = _portable(
        "kiln::paged_attention.out",
        *(query, key_cache, value_cache, block_tables, context_lens, 0.2),
        like=query,
    )
    for got in (
        attention(*tensors, 0.2),  # omitted: the schema's default, None
        attention(*tensors, 0.2, None),
        attention(*tensors, 0.2, alibi_slopes=None),
    ):
        torch.testing.assert_close(_torch(got), expected, rtol=0, atol=0)
    torch.testing.assert_close(expected, ref.paged_attention(*_paged_inputs(), 0.2))
    slopes = torch.tensor([0.5, 0.25, 0.125, 0.0625])
    with_alibi = _torch(attention(*tensors, 0.2, _ms(slopes)))
    torch.testing.assert_close(with_alibi, ref.paged_attention(*_paged_inputs(), 0.2, slopes))
    assert not torch.allclose(with_alibi, expected)


def test_weight_int8_linear_with_and_without_bias(library: str) -> None:
    generator = torch.Generator().manual_seed(5)
    x = torch.randn(3, 2, 16, generator=generator)
    weight = torch.randint(-127, 128, (8, 16), dtype=torch.int8, generator=generator)
    scales, bias = torch.rand(8, generator=generator) / 64, torch.randn(8, generator=generator)
    linear = kiln.mindspore.custom("kiln::weight_int8_linear.out", library)
    inputs = [_ms(x), _ms(weight), _ms(scales)]
    without = _portable("kiln::weight_int8_linear.out", x, weight, scales, None, like=x)
    for got in (linear(*inputs), linear(*inputs, None), linear(*inputs, bias=None)):
        assert got.shape == (3, 2, 8)
        torch.testing.assert_close(_torch(got), without, rtol=0, atol=0)
    torch.testing.assert_close(without, ref.weight_int8_linear(x, weight, scales, None))
    with_bias = _torch(linear(*inputs, _ms(bias)))
    torch.testing.assert_close(with_bias, ref.weight_int8_linear(x, weight, scales, bias))


def test_rotary_embedding_without_key(library: str) -> None:
    positions = torch.tensor([3, 0, 31])
    query, cache = torch.randn(3, 4 * 16), torch.randn(32, 16)
    rotary = kiln.mindspore.custom("kiln::rotary_embedding.out", library)
    query_out, key_out = rotary(_ms(positions), _ms(query), None, 16, _ms(cache), True)
    assert key_out.shape == (0,)
    torch.testing.assert_close(
        _torch(query_out), ref.rotary_embedding(positions, query, 16, cache, True)
    )


def test_reshape_and_cache_returns_the_updated_caches(library: str) -> None:
    key, value = torch.randn(4, 2, 32), torch.randn(4, 2, 32)
    key_cache, value_cache = torch.randn(6, 8, 2, 32), torch.randn(6, 8, 2, 32)
    slots = torch.tensor([9, -1, 47, 0])  # -1: a padding token, not stored
    ms_key_cache, ms_value_cache = _ms(key_cache), _ms(value_cache)
    reshape_and_cache = kiln.mindspore.custom("kiln::reshape_and_cache", library)
    assert reshape_and_cache.written == ("key_cache", "value_cache")
    got = reshape_and_cache(_ms(key), _ms(value), ms_key_cache, ms_value_cache, _ms(slots))
    expected = (key_cache.clone(), value_cache.clone())
    kiln.call_op("kiln::reshape_and_cache", key, value, *expected, slots)
    for actual, wanted in zip(got, expected, strict=True):
        torch.testing.assert_close(_torch(actual), wanted, rtol=0, atol=0)
    assert not torch.equal(expected[0], key_cache)  # the call wrote something
    # The arguments keep their values (MindSpore's AOT operators write only their outputs).
    assert torch.equal(_torch(ms_key_cache), key_cache)
    assert torch.equal(_torch(ms_value_cache), value_cache)


def test_advance_step_flashattn_returns_the_next_state(library: str) -> None:
    block_size = 8
    state = {
        "input_tokens": torch.tensor([5, 6, 7]),
        "input_positions": torch.tensor([6, 15, 2]),
        "seq_lens": torch.tensor([7, 16, 3], dtype=torch.int32),
        "slot_mapping": torch.tensor([38, 23, 18]),
    }
    sampled = torch.tensor([[11], [12]])  # two of three sequences are decoding
    block_tables = torch.tensor([[4, 1, 3], [0, 2, 5], [2, 3, 1]], dtype=torch.int32)
    advance = kiln.mindspore.custom("kiln::advance_step_flashattn", library)
    assert advance.written == ("input_tokens", "input_positions", "seq_lens", "slot_mapping")
    got = advance(
        *(3, 2, block_size, _ms(state["input_tokens"]), _ms(sampled)),
        *(_ms(state["input_positions"]), _ms(state["seq_lens"]), _ms(state["slot_mapping"])),
        _ms(block_tables),
    )
    expected = {name: t.clone() for name, t in state.items()}
    ref.advance_step_flashattn(
        3, 2, block_size, expected["input_tokens"], sampled, expected["input_positions"],
        expected["seq_lens"], expected["slot_mapping"], block_tables,
    )  # fmt: skip
    for actual, name in zip(got, expected, strict=True):
        assert torch.equal(_torch(actual), expected[name]), name
    assert _torch(got[2]).tolist() == [8, 17, 3]  # the third sequence is not advanced


def test_paged_decode_matches_torch_ops(library: str) -> None:
    # examples/llm_decode's decoder, from MindSpore: every step's state from
    # advance_step_flashattn, the caches through reshape_and_cache's returns, against the same
    # model on torch.ops.kiln; equal tokens are a real check (greedy choices win by >= 0.08).
    sys.path.insert(0, str(EXAMPLE))
    try:
        from mindspore_decode import decode_mindspore, decode_torch_ops
        from model import Config, random_weights
    finally:
        sys.path.remove(str(EXAMPLE))
    config, weights = Config(), random_weights(Config())
    steps = 12  # past the first block of 16 positions: paging is exercised
    mindspore = decode_mindspore(config, weights, library, steps)
    with torch.no_grad():
        torch_ops = decode_torch_ops(config, weights, steps)
    assert len(mindspore.tokens) == steps + 1
    assert mindspore.tokens == torch_ops.tokens
    torch.testing.assert_close(mindspore.logits, torch_ops.logits, rtol=1e-4, atol=1e-4)


def test_a_refusal_raises_once_without_a_log_line(
    library: str, capfd: pytest.CaptureFixture[str]
) -> None:
    rms_norm = kiln.mindspore.custom("kiln::rms_norm.out", library)
    x, weight, epsilon = _ms(torch.randn(2, 8)), _ms(torch.ones(6)), 1e-6
    capfd.readouterr()
    with pytest.raises(kiln.KilnError) as error:
        rms_norm(x, weight, epsilon)
    assert str(error.value) == (
        "kiln::rms_norm.out: weight has shape [6] but input has shape [2, 8]; pass a weight of "
        "shape [8]"
    )  # the wording kiln.call_op gives
    assert error.value.code == "InvalidArgument"
    assert "[kiln E]" not in capfd.readouterr().err
    # ops.Custom called without the helper has no one to raise the message: the library logs it.
    with pytest.raises(RuntimeError):
        rms_norm.primitive(x, weight, ms.Tensor(np.array([epsilon])))
        kiln.mindspore._wait_in_pynative()
    assert "[kiln E] kiln::rms_norm.out: weight has shape [6]" in capfd.readouterr().err


def test_every_refusal_is_a_kiln_error(library: str) -> None:
    attention = kiln.mindspore.custom("kiln::paged_attention.out", library)
    query, key_cache, value_cache, block_tables, context_lens = map(_ms, _paged_inputs())
    with pytest.raises(kiln.KilnError, match="argument 'query' expects a mindspore.Tensor"):
        attention(None, key_cache, value_cache, block_tables, context_lens, 0.2)
    with pytest.raises(kiln.KilnError, match="argument 'scale' expects a float, got 'x'"):
        attention(query, key_cache, value_cache, block_tables, context_lens, "x")
    with pytest.raises(kiln.KilnError, match="missing argument 'scale'"):
        attention(query, key_cache, value_cache, block_tables, context_lens)
    with pytest.raises(kiln.KilnError, match="unexpected arguments alibi"):
        attention(query, key_cache, value_cache, block_tables, context_lens, 0.2, alibi=None)
    # The kernel's refusal, with its code.
    with pytest.raises(kiln.KilnError, match=r"context_lens\[0\] = 99 is outside") as error:
        attention(query, key_cache, value_cache, block_tables, _ms(torch.tensor([99, 0, 1])), 0.2)
    assert error.value.code == "InvalidArgument"
    # The entry point's: a dtype Kiln lacks.
    with pytest.raises(kiln.KilnError, match="has dtype 'complex64'") as error:
        attention(
            query.astype(ms.complex64), key_cache, value_cache, block_tables, context_lens, 0.2
        )
    assert error.value.code == "InvalidType"
    # A shape rule's, run by MindSpore before the entry point.
    linear = kiln.mindspore.custom("kiln::weight_int8_linear.out", library)
    with pytest.raises(kiln.KilnError, match="weight \\[out_features, in_features\\] expected"):
        linear(query, _ms(torch.ones(32, dtype=torch.int8)), _ms(torch.ones(4)))


def test_the_documented_example_runs_without_deprecation_warnings(library: str) -> None:
    # docs/custom_ops.md's example as written, on the test library, in a fresh interpreter:
    # MindSpore logs its deprecations (set_context(device_target=...) in 2.10) to stderr.
    text = (REPO_ROOT / "docs" / "custom_ops.md").read_text()
    section = text[text.index("## From MindSpore") :]
    code = section[section.index("```python\n") + 10 :]
    code = code[: code.index("```")]
    assert 'ms.set_device("CPU")' in code
    code = code.replace('"build/libllm_ops_ms.so"', repr(library))
    code += "assert key_cache.asnumpy()[1, 1].any() and z.shape == (4, 32)\n"
    result = run([sys.executable, "-c", code], check=False)
    assert result.returncode == 0, result.stderr
    assert "deprecat" not in result.stderr.lower(), result.stderr
    assert "[kiln E]" not in result.stderr


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
