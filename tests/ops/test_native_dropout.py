"""aten::native_dropout.out: the mask's distribution and seeding, and the output's exact relation
to it (out0 = input * mask / (1 - p) in ATen's arithmetic) in training; a copy and an all-true
mask otherwise. On every backend (the aten one runs libtorch's kernel, drawing libtorch's own
numbers). Results are compared with torch.testing.assert_close, which differential_log records.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import raises
from random_checks import bernoulli_bound
from strategies import ALL_DTYPES, INT_DTYPES, float_dtypes, make_tensor, seeds, shapes

import kiln

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

DROPOUT = "aten::native_dropout.out"
probabilities = st.one_of(st.sampled_from([0.0, 1.0, 0.5]), st.floats(0, 1))


def mask_out(x: torch.Tensor) -> torch.Tensor:
    """An out tensor for the mask: Bool, or for an empty input x's dtype, as ATen returns an
    empty input's mask (Kiln takes Bool there too)."""
    return torch.empty(0, dtype=x.dtype if x.numel() == 0 else torch.bool)


def run(call_op: Any, x: torch.Tensor, p: float, train: bool | None) -> tuple[Any, Any]:
    before = x.clone()
    out = (torch.empty(0, dtype=x.dtype), mask_out(x))
    result = call_op(DROPOUT, x, p, train, out=out)
    assert result[0] is out[0] and result[1] is out[1]
    torch.testing.assert_close(x, before, rtol=0, atol=0, equal_nan=True)
    return result


def expected_output(x: torch.Tensor, mask: torch.Tensor, p: float) -> torch.Tensor:
    """ATen's arithmetic: x * mask in x's dtype, then times the scale rounded to that dtype."""
    scale = 0.0 if p == 1 else 1 / (1 - p)
    return x.mul(mask.to(x.dtype)).mul(torch.tensor(scale, dtype=x.dtype))


@SETTINGS
@given(
    dtype=float_dtypes,
    shape=shapes(0, 4, 0, 5),
    p=probabilities,
    train=st.sampled_from([True, None]),
    seed=seeds,
)
def test_training_output_follows_the_mask(
    call_op: Any, dtype: torch.dtype, shape: tuple, p: float, train: bool | None, seed: int
) -> None:
    x = make_tensor(dtype, shape, seed, special=True)
    kiln.manual_seed(seed)
    out, mask = run(call_op, x, p, train)
    assert out.shape == x.shape and mask.shape == x.shape
    if x.numel() == 0:
        return
    assert mask.dtype == torch.bool
    if p == 0:
        assert bool(mask.all())
    if p == 1:
        assert not bool(mask.any())
    torch.testing.assert_close(out, expected_output(x, mask, p), rtol=0, atol=0, equal_nan=True)
    # The same seed gives the same mask.
    kiln.manual_seed(seed)
    _, again = run(call_op, x, p, train)
    torch.testing.assert_close(again, mask, rtol=0, atol=0)


@SETTINGS
@given(dtype=st.sampled_from(ALL_DTYPES), shape=shapes(0, 4, 0, 5), p=st.floats(-1, 2), seed=seeds)
def test_evaluation_copies_and_keeps_everything(
    call_op: Any, dtype: torch.dtype, shape: tuple, p: float, seed: int
) -> None:
    x = make_tensor(dtype, shape, seed, special=True)
    out, mask = run(call_op, x, p, False)  # p is not checked outside training
    torch.testing.assert_close(out, x, rtol=0, atol=0, equal_nan=True)
    if x.numel():
        torch.testing.assert_close(mask, torch.ones(shape, dtype=torch.bool), rtol=0, atol=0)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_mask_keeps_one_minus_p(call_op: Any, p: float) -> None:
    n = 1 << 17
    x = torch.ones(n)
    kiln.manual_seed(99)
    out, mask = run(call_op, x, p, True)
    kept = mask.double()
    assert abs(float(kept.mean()) - (1 - p)) <= bernoulli_bound(n, 1 - p)
    # Neighbours are independent: P(both kept) = (1 - p)^2.
    both = float((kept[1:] * kept[:-1]).mean())
    assert abs(both - (1 - p) ** 2) <= bernoulli_bound(n, (1 - p) ** 2)
    # A fresh draw is another mask; the same seed the same one.
    _, other = run(call_op, x, p, True)
    assert not torch.equal(other, mask)
    kiln.manual_seed(99)
    _, same = run(call_op, x, p, True)
    torch.testing.assert_close(same, mask, rtol=0, atol=0)
    torch.testing.assert_close(out, expected_output(x, mask, p), rtol=0, atol=0)


def test_refusals(call_op: Any) -> None:
    x = torch.randn(4, 3)
    for p in (-0.1, 1.5, float("nan")):
        # torch: "bernoulli_ expects p to be in [0, 1]" (of the keep probability 1 - p)
        with raises(call_op, "between 0 and 1"):
            call_op(DROPOUT, x, p, True, out=(torch.empty(0), torch.empty(0, dtype=torch.bool)))
    for dtype in [*INT_DTYPES, torch.bool]:
        xi = torch.ones(3, dtype=dtype)
        with raises(call_op, "can't be cast"):
            call_op(DROPOUT, xi, 0.5, True, out=(torch.empty(0, dtype=dtype), mask_out(xi)))
    with raises(call_op, "Expected out tensor to have dtype Bool"):
        call_op(DROPOUT, x, 0.5, True, out=(torch.empty(0), torch.empty(0)))
    with raises(call_op, "Expected out tensor to have dtype Float"):
        call_op(DROPOUT, x, 0.5, True, out=(torch.empty(0, dtype=torch.double), mask_out(x)))


def test_empty_input_takes_a_bool_mask_too() -> None:
    """Kiln's kernel (libtorch wants an empty input's mask out in the input's dtype only)."""
    out = (torch.empty(0), torch.empty(0, dtype=torch.bool))
    result = kiln.call_op(DROPOUT, torch.empty(0, 3), 0.5, True, out=out)
    assert result[0].shape == (0, 3) and result[1].shape == (0, 3)
