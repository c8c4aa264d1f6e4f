"""torch.ops.kiln.* in eager PyTorch: each functional form and out variant runs Kiln's kernel
(portable, or the emulated Ascend backend) and matches the plain PyTorch reference; the operators
that write their arguments write them; bad arguments raise KilnError."""

from __future__ import annotations

import subprocess
import sys

import llm_reference as ref
import pytest
import torch
from llm_checks import LLM_DTYPES, assert_near
from llm_inputs import HEAD_SIZE, cos_sin_cache, int8_linear, paged, randn

import kiln
import kiln.torch_ops

ops = torch.ops.kiln


def test_registration_is_idempotent() -> None:
    first = kiln.torch_ops.register_torch_ops()
    assert kiln.register_torch_ops() is first
    assert "kiln::rms_norm" in first.operators and "kiln::rms_norm.out" in first.operators
    assert "kiln::reshape_and_cache" in first.operators
    assert str(ops.rms_norm.default._schema) == (
        "kiln::rms_norm(Tensor input, Tensor weight, float epsilon) -> Tensor"
    )


def test_unknown_namespace_and_backend() -> None:
    with pytest.raises(kiln.KilnError, match="no operator in namespace 'nope'"):
        kiln.register_torch_ops("nope")
    with pytest.raises(kiln.KilnError, match="unknown backend"):
        kiln.torch_ops.set_backend("gpu")


@pytest.mark.parametrize("dtype", LLM_DTYPES)
def test_rms_norm(backend: str, dtype: torch.dtype) -> None:
    x, weight = randn(3, 5, 40, dtype=dtype), randn(40, dtype=dtype, seed=1)
    expected = ref.rms_norm(x, weight, 1e-6)
    assert_near(ops.rms_norm(x, weight, 1e-6), expected)
    out = torch.empty(0, dtype=dtype)
    assert ops.rms_norm.out(x, weight, 1e-6, out=out) is out
    assert_near(out, expected)


@pytest.mark.parametrize("dtype", LLM_DTYPES)
def test_fused_add_rms_norm(backend: str, dtype: torch.dtype) -> None:
    x, residual = randn(6, 32, dtype=dtype), randn(6, 32, dtype=dtype, seed=1)
    weight = randn(32, dtype=dtype, seed=2)
    normed, total = ops.fused_add_rms_norm(x, residual, weight, 1e-5)
    expected_normed, expected_total = ref.fused_add_rms_norm(x, residual, weight, 1e-5)
    assert_near(total, expected_total)
    assert_near(normed, expected_normed)


@pytest.mark.parametrize("is_neox", [True, False])
@pytest.mark.parametrize("with_key", [True, False])
def test_rotary_embedding(backend: str, is_neox: bool, with_key: bool) -> None:
    positions = torch.tensor([0, 7, 3, 19])
    query, key = randn(4, 4 * HEAD_SIZE), randn(4, 2 * HEAD_SIZE, seed=1)
    cache = cos_sin_cache(20, HEAD_SIZE)
    q, k = ops.rotary_embedding(
        positions, query, key if with_key else None, HEAD_SIZE, cache, is_neox
    )
    assert_near(q, ref.rotary_embedding(positions, query, HEAD_SIZE, cache, is_neox))
    if with_key:
        assert_near(k, ref.rotary_embedding(positions, key, HEAD_SIZE, cache, is_neox))
    else:
        assert k.shape == (0,)


@pytest.mark.parametrize("dtype", LLM_DTYPES)
def test_gated_activations(backend: str, dtype: torch.dtype) -> None:
    x = randn(2, 3, 2 * 24, dtype=dtype)
    assert_near(ops.silu_and_mul(x), ref.silu_and_mul(x))
    for approximate in ("none", "tanh"):
        expected = ref.gelu_and_mul(x, approximate, compute=torch.float64)
        assert_near(ops.gelu_and_mul(x, approximate), expected)
    assert_near(ops.gelu_and_mul(x), ref.gelu_and_mul(x, "none", compute=torch.float64))


def test_paged_attention(backend: str) -> None:
    query, key_cache, value_cache, tables, lengths = paged([5, 0, 9])
    result = ops.paged_attention(query, key_cache, value_cache, tables, lengths, 0.25)
    expected = ref.paged_attention(query, key_cache, value_cache, tables, lengths, 0.25)
    assert_near(result, expected, 8)


def test_paged_attention_paged_layout(backend: str) -> None:
    # The .paged_layout_out variant's functional form is the .paged_layout overload.
    inputs = paged([5, 0, 600], paged_layout=True)
    result = ops.paged_attention.paged_layout(*inputs, 0.25)
    assert_near(result, ref.paged_attention(*inputs, 0.25, compute=torch.float64), 8)
    out = torch.empty(0)
    assert ops.paged_attention.paged_layout_out(*inputs, 0.25, out=out) is out
    assert_near(out, result, 0)
    assert str(ops.paged_attention.paged_layout._schema).startswith(
        "kiln::paged_attention.paged_layout(Tensor query, Tensor key_cache"
    )


def test_weight_int8_linear(backend: str) -> None:
    x, weight, scales, bias = int8_linear(3, 40, 24)
    assert_near(
        ops.weight_int8_linear(x, weight, scales, bias),
        ref.weight_int8_linear(x, weight, scales, bias),
        8,
    )
    assert_near(
        ops.weight_int8_linear(x, weight, scales),
        ref.weight_int8_linear(x, weight, scales, None),
        8,
    )


def test_reshape_and_cache_writes_its_caches(backend: str) -> None:
    _, key_cache, value_cache, _, _ = paged([5, 9])
    key, value = randn(3, 2, HEAD_SIZE, seed=8), randn(3, 2, HEAD_SIZE, seed=9)
    slots = torch.tensor([1, -1, 6])
    expected_k, expected_v = key_cache.clone(), value_cache.clone()
    ref.reshape_and_cache(key, value, expected_k, expected_v, slots)
    assert ops.reshape_and_cache(key, value, key_cache, value_cache, slots) is None
    assert torch.equal(key_cache, expected_k) and torch.equal(value_cache, expected_v)


def test_reshape_and_cache_paged_layout_writes_its_caches(backend: str) -> None:
    # Row views of a qkv tensor and a batch padded past slot_mapping's 3 tokens.
    _, key_cache, value_cache, _, _ = paged([5, 9], paged_layout=True)
    qkv = randn(5, 4 * HEAD_SIZE, seed=8)
    key, value = qkv[:, : 2 * HEAD_SIZE], qkv[:, 2 * HEAD_SIZE :]
    slots = torch.tensor([1, -1, 6])
    expected_k, expected_v = key_cache.clone(), value_cache.clone()
    ref.reshape_and_cache_paged(key, value, expected_k, expected_v, slots)
    assert ops.reshape_and_cache.paged_layout(key, value, key_cache, value_cache, slots) is None
    assert torch.equal(key_cache, expected_k) and torch.equal(value_cache, expected_v)


def test_advance_step_writes_its_state(backend: str) -> None:
    tokens, positions = torch.zeros(3, dtype=torch.long), torch.zeros(3, dtype=torch.long)
    seq_lens, slots = torch.tensor([3, 8, 1], dtype=torch.int32), torch.zeros(3, dtype=torch.long)
    sampled = torch.tensor([[11], [12]])
    tables = torch.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8]], dtype=torch.int32)
    state = [t.clone() for t in (tokens, positions, seq_lens, slots)]
    ref.advance_step_flashattn(3, 2, 4, state[0], sampled, state[1], state[2], state[3], tables)
    ops.advance_step_flashattn(3, 2, 4, tokens, sampled, positions, seq_lens, slots, tables)
    for actual, expected in zip((tokens, positions, seq_lens, slots), state, strict=True):
        assert torch.equal(actual, expected)


def test_bad_arguments_raise_kiln_errors() -> None:
    x = randn(4, 8)
    with pytest.raises(kiln.KilnError, match="weight has shape"):
        ops.rms_norm(x, randn(7), 1e-6)
    with pytest.raises(kiln.KilnError, match="even last dim"):
        ops.silu_and_mul(randn(2, 5))
    with pytest.raises(kiln.KilnError):
        ops.rms_norm(x.double(), randn(8).double(), 1e-6)
    _, key_cache, value_cache, _, _ = paged([5])
    key = randn(1, 2, HEAD_SIZE)
    with pytest.raises(kiln.KilnError, match="slot"):
        ops.reshape_and_cache(key, key, key_cache, value_cache, torch.tensor([10_000]))


def test_a_refused_argument_conversion_is_a_kiln_error() -> None:
    # More dims than a Kiln tensor holds (16): kiln's conversion refuses it, before any kernel.
    x = randn(*[1] * 16, 8)
    for call in (
        lambda: ops.rms_norm(x, randn(8), 1e-6),
        lambda: ops.rms_norm.out(x, randn(8), 1e-6, out=torch.empty_like(x)),
    ):
        with pytest.raises(kiln.KilnError, match="dims") as error:
            call()
        assert error.value.code == "InvalidArgument"


# In a fresh interpreter: torch's operator registry is process-wide, and other tests import
# ExecuTorch, which defines these namespaces itself.
_OTHER_NAMESPACE = """
import torch, kiln
from kiln.torch_ops import OutRule
rule = OutRule(lambda shapes: (shapes["self"],), ("self",))
registration = kiln.register_torch_ops(
    "dim_order_ops", shapes={"dim_order_ops::_clone_dim_order.out": rule}
)
assert "dim_order_ops::_clone_dim_order" in registration.operators
assert "dim_order_ops::_empty_dim_order" not in registration.operators  # no rule: out only
x = torch.randn(2, 3)
assert torch.equal(torch.ops.dim_order_ops._clone_dim_order(x), x)
print("ok")
"""
_TAKEN_NAMESPACE = """
import kiln
import executorch.exir  # defines et_copy::_h2d_copy.out itself
try:
    kiln.register_torch_ops("et_copy")
except kiln.KilnError as error:
    assert "torch already has et_copy::" in str(error), error
else:
    raise AssertionError("et_copy registered over ExecuTorch's operators")
print("ok")
"""


@pytest.mark.parametrize("script", [_OTHER_NAMESPACE, _TAKEN_NAMESPACE], ids=["other", "taken"])
def test_another_namespace_of_the_built_in_library(script: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
