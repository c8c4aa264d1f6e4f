"""Strided torch tensors through kiln.call_op and torch.ops.kiln: the LLM operators take row views
(serving engines' `qkv.split(...)`, slices of padded buffers) as they are, on every backend;
every other strided tensor becomes one dense copy, counted, with written arguments copied back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from llm_checks import LLM_DTYPES, assert_near, randn

import kiln
from kiln._row_views import ROW_VIEW_ARGUMENTS

TOKENS, HEADS, HEAD_SIZE = 5, 2, 64
WIDTH = HEADS * HEAD_SIZE


def _split_views(dtype: torch.dtype, width: int) -> list[torch.Tensor]:
    """Three row views of one buffer, as `q, k, v = qkv.split(...)` gives them."""
    return list(randn(TOKENS, 3 * width, dtype=dtype).split(width, -1))


def _padded_rows(tensor: torch.Tensor, pad: int = 24) -> torch.Tensor:
    """`tensor` copied into the leading columns of a wider zeroed buffer: rows `pad` apart more."""
    buffer = torch.zeros(tensor.shape[0], tensor[0].numel() + pad, dtype=tensor.dtype)
    view = buffer[:, : tensor[0].numel()].view(tensor.shape)
    view.copy_(tensor)
    return view


# Per operator: (input args from three row views of the source, out shapes, extra args).
def _rms_norm(views: list[torch.Tensor]) -> tuple[list[Any], list[tuple[int, ...]]]:
    weight = randn(WIDTH, dtype=views[0].dtype, seed=3)
    return [views[0], weight, 1e-6], [views[0].shape]


def _fused_add_rms_norm(views: list[torch.Tensor]) -> tuple[list[Any], list[tuple[int, ...]]]:
    weight = randn(WIDTH, dtype=views[0].dtype, seed=3)
    return [views[0], views[1], weight, 1e-6], [views[0].shape] * 2


def _rotary_embedding(views: list[torch.Tensor]) -> tuple[list[Any], list[tuple[int, ...]]]:
    positions = torch.tensor([3, 0, 7, 7, 1])
    cache = randn(16, HEAD_SIZE, seed=4)
    args = [positions, views[0], views[1], HEAD_SIZE, cache, True]
    return args, [views[0].shape, views[1].shape]


def _gated(views: list[torch.Tensor]) -> tuple[list[Any], list[tuple[int, ...]]]:
    return [views[0]], [(TOKENS, WIDTH // 2)]


CASES: dict[str, Callable[[list[torch.Tensor]], tuple[list[Any], list[tuple[int, ...]]]]] = {
    "kiln::rms_norm.out": _rms_norm,
    "kiln::fused_add_rms_norm.out": _fused_add_rms_norm,
    "kiln::rotary_embedding.out": _rotary_embedding,
    "kiln::silu_and_mul.out": _gated,
    "kiln::gelu_and_mul.out": _gated,
}


def _outs(shapes: list[tuple[int, ...]], dtype: torch.dtype, padded: bool) -> list[torch.Tensor]:
    outs = [torch.zeros(shape, dtype=dtype) for shape in shapes]
    return [_padded_rows(out) for out in outs] if padded else outs


def test_every_row_view_operator_has_a_case() -> None:
    assert set(CASES) <= set(ROW_VIEW_ARGUMENTS)


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("op", sorted(CASES))
@pytest.mark.parametrize("source", ["split", "padded"])
@pytest.mark.parametrize("padded_outs", [False, True])
def test_row_views_run_without_copies(
    call_op: Any, op: str, dtype: torch.dtype, source: str, padded_outs: bool
) -> None:
    views = _split_views(dtype, WIDTH)
    if source == "padded":
        views = [_padded_rows(v.contiguous()) for v in views]
    args, shapes = CASES[op](views)
    dense_args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
    expected = call_op(op, *dense_args, out=tuple(_outs(shapes, dtype, padded=False)))
    outs = _outs(shapes, dtype, padded_outs)
    kiln.reset_strided_copies()
    actual = call_op(op, *args, out=tuple(outs))
    assert op not in kiln.strided_copies()
    for got, want, out in zip(
        actual if isinstance(actual, tuple) else (actual,),
        expected if isinstance(expected, tuple) else (expected,),
        outs,
        strict=True,
    ):
        assert got is out
        assert_near(got, want)
        if padded_outs:  # the padding between the out's rows stays untouched
            buffer = torch.as_strided(out, (out.shape[0], out.stride(0)), (out.stride(0), 1))
            assert not buffer[:, out[0].numel() :].any()


def test_rotary_in_place_on_views_of_one_buffer(call_op: Any) -> None:
    """vLLM rotates query and key in place, both views of qkv: their rows interleave, which is no
    overlap between an out and the other input."""
    q, k, _ = _split_views(torch.float32, WIDTH)
    args, _ = _rotary_embedding([q, k])
    q_expected, k_expected = call_op(
        "kiln::rotary_embedding.out",
        *[a.clone() if isinstance(a, torch.Tensor) else a for a in args],
        out=(torch.empty_like(q), torch.empty_like(k)),
    )
    # np.int64 takes call_op's Python path, the plain int its native one: both must agree.
    for head_size in (HEAD_SIZE, np.int64(HEAD_SIZE)):
        q, k, _ = _split_views(torch.float32, WIDTH)
        args, _ = _rotary_embedding([q, k])
        args[3] = head_size
        kiln.reset_strided_copies()
        call_op("kiln::rotary_embedding.out", *args, out=(q, k))
        assert kiln.strided_copies() == {}
        assert_near(q, q_expected)
        assert_near(k, k_expected)


@pytest.mark.parametrize("backend", ["portable", "ascend"])  # ATen mode follows libtorch's rules
def test_an_out_straddling_an_input_is_refused(backend: str) -> None:
    qkv = randn(TOKENS, 3 * WIDTH)
    straddling = qkv[:, WIDTH // 2 : WIDTH // 2 + WIDTH]
    with pytest.raises(kiln.KilnError, match="refer to a single memory location"):
        kiln.call_op(
            "kiln::rms_norm.out",
            qkv[:, :WIDTH],
            torch.ones(WIDTH),
            1e-6,
            out=straddling,
            backend=backend,
        )


def test_strided_arguments_are_copied_once_and_outs_written_back(call_op: Any) -> None:
    a = randn(6, 4).t()  # transposed
    b = randn(4, 1, seed=1).expand(4, 6)  # broadcast by stride 0
    out = torch.zeros(6, 4).t()
    kiln.reset_strided_copies()
    result = call_op("aten::add.out", a, b, out=out)
    assert result is out
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)
    assert kiln.strided_copies() == {"aten::add.out": 3}


def test_a_strided_out_is_resized_like_torch(call_op: Any) -> None:
    out = torch.zeros(3, 2).t()  # [2, 3], to become [4, 5]
    a = randn(4, 5)
    call_op("aten::add.out", a, a, out=out)
    assert out.shape == (4, 5)
    torch.testing.assert_close(out, a + a, rtol=0, atol=0)


def test_a_strided_self_is_written_back(call_op: Any) -> None:
    target = torch.zeros(6, 4).t()
    source = randn(4, 6)
    assert call_op("aten::copy_", target, source) is target
    torch.testing.assert_close(target, source, rtol=0, atol=0)


def test_an_expanded_out_is_refused(call_op: Any) -> None:
    out = torch.zeros(1, 6).expand(4, 6)
    with pytest.raises(kiln.KilnError, match="more than one element of the written-to tensor"):
        call_op("aten::add.out", torch.ones(4, 6), torch.ones(4, 6), out=out)
    with pytest.raises(kiln.KilnError, match="more than one element of the written-to tensor"):
        call_op("kiln::rms_norm.out", torch.ones(4, 6), torch.ones(6), 1e-6, out=out)


def test_torch_ops_take_strided_tensors() -> None:
    import kiln.torch_ops  # noqa: F401  (registers torch.ops.kiln)

    q, k, _ = _split_views(torch.float32, WIDTH)
    weight = randn(WIDTH, seed=3)
    kiln.reset_strided_copies()
    torch.testing.assert_close(
        torch.ops.kiln.rms_norm(q, weight, 1e-6),
        torch.ops.kiln.rms_norm(q.contiguous(), weight, 1e-6),
        rtol=0,
        atol=0,
    )
    assert kiln.strided_copies() == {}
    transposed = randn(WIDTH, TOKENS).t()
    torch.testing.assert_close(
        torch.ops.kiln.rms_norm(transposed, weight, 1e-6),
        torch.ops.kiln.rms_norm(transposed.contiguous(), weight, 1e-6),
        rtol=0,
        atol=0,
    )
    assert kiln.strided_copies() == {"kiln::rms_norm.out": 1}


def test_a_strided_1d_tensor_is_copied_not_taken_as_rows(call_op: Any) -> None:
    """A 1-dim tensor's rows would be single elements, shorter than any kernel's run (a norm's
    row, a gate's 2d): it reaches the kernel as a dense copy."""
    x = randn(32)[::2]
    weight = randn(16, seed=1)
    kiln.reset_strided_copies()
    assert_near(
        call_op("kiln::rms_norm.out", x, weight, 1e-6, out=torch.empty(16)),
        call_op("kiln::rms_norm.out", x.contiguous(), weight, 1e-6, out=torch.empty(16)),
    )
    assert_near(
        call_op("kiln::silu_and_mul.out", x, out=torch.empty(8)),
        call_op("kiln::silu_and_mul.out", x.contiguous(), out=torch.empty(8)),
    )
    assert kiln.strided_copies() == {"kiln::rms_norm.out": 1, "kiln::silu_and_mul.out": 1}


def test_a_copy_beyond_memory_is_refused(call_op: Any) -> None:
    huge = torch.ones(1, 1).expand(2**20, 2**28)  # 2**48 elements in one of memory
    with pytest.raises(kiln.KilnError, match="could not be allocated") as refusal:
        call_op("aten::relu.out", huge, out=torch.empty(0))
    assert refusal.value.code == "MemoryAllocationFailed"
