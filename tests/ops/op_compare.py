"""Differential checking: run an op on torch (ATen) and on the backend under test, compare."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import kiln

# (rtol, atol) per dtype when comparing floating results: about two units in the last place,
# since Kiln rounds once where ATen may round an intermediate (alpha * other) or fuse (FMA).
TOLERANCES = {
    torch.float16: (2e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (2.6e-6, 1e-6),
    torch.float64: (1e-12, 1e-14),
}


# The Ascend backend's documented tolerances (docs/ascend.md, "Tolerances") for the floating dtypes
# its kernels compute. A result an Ascend kernel computed is held to exactly these; a result the
# portable kernel served on fallback, to TOLERANCES, as on backend "portable".
ASCEND_TOLERANCES = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1e-2, 1e-5),
    torch.float32: (1e-5, 1e-6),
}


def tolerances_for(backend: str | None) -> dict[torch.dtype, tuple[float, float]]:
    """The tolerances a result computed by `backend`'s own kernels is held to (on "ascend",
    float64, which no Ascend kernel computes, keeps the portable kernels' tolerance)."""
    return {**TOLERANCES, **ASCEND_TOLERANCES} if backend == "ascend" else TOLERANCES


def eps(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps if dtype.is_floating_point else 0.0


def assert_same(
    actual: torch.Tensor,
    expected: torch.Tensor,
    *,
    atol: float = 0.0,
    tolerances: dict[torch.dtype, tuple[float, float]] = TOLERANCES,
) -> None:
    """Same dtype, shape and values (exact for integers and bool; floats within `tolerances`
    plus `atol`, NaN matching NaN)."""
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"shape {tuple(actual.shape)} != {tuple(expected.shape)}"
    if expected.dtype.is_floating_point:
        rtol, base_atol = tolerances[expected.dtype]
        torch.testing.assert_close(
            actual, expected, rtol=rtol, atol=base_atol + atol, equal_nan=True
        )
    else:
        torch.testing.assert_close(actual, expected, rtol=0, atol=0)


def _clone(value: Any) -> Any:
    return value.clone() if isinstance(value, torch.Tensor) else value


def check_op(
    call_op: Callable[..., Any],
    name: str,
    torch_op: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    out: torch.Tensor,
    atol: float = 0.0,
    match: str | None = None,
    ints_to_float: bool = False,
) -> torch.Tensor | None:
    """Runs `torch_op` and the backend's `name` on the same arguments, each with its own copy
    of `out`. When torch raises, the backend must raise KilnError (matching `match` if given);
    otherwise the backend must succeed, leave its inputs alone, return its out tensor and agree
    with torch. `ints_to_float`: the op computes integer operands in the default float dtype
    (atan2), so a result of them is held to that dtype's tolerance. Returns torch's result
    (None when it raised)."""
    kwargs = kwargs or {}
    torch_out = out.clone()
    kiln_out = out.clone()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns when it resizes a non-empty out
            expected = torch_op(
                *[_clone(a) for a in args],
                **{k: _clone(v) for k, v in kwargs.items()},
                out=torch_out,
            )
    except (RuntimeError, IndexError, NotImplementedError, ValueError):
        with pytest.raises(kiln.KilnError, match=match):
            call_op(name, *args, out=kiln_out, **kwargs)
        return None
    inputs = [_clone(a) for a in args]
    fallbacks = _fallbacks(name)
    result = call_op(name, *args, out=kiln_out, **kwargs)
    served_by = backend_of(call_op)
    if served_by == "ascend" and _fallbacks(name) != fallbacks:
        served_by = "portable"  # the Ascend kernel declined the inputs
    assert result is kiln_out, "the op must return its out tensor"
    for before, after in zip(inputs, args, strict=True):
        if isinstance(before, torch.Tensor):
            torch.testing.assert_close(after, before, rtol=0, atol=0, equal_nan=True)
    tolerances = tolerances_for(served_by)
    computed_in = _computed_in(args, kiln_out.dtype, ints_to_float)
    if computed_in != kiln_out.dtype:
        tolerances = {**tolerances, kiln_out.dtype: tolerances[computed_in]}
    assert_same(kiln_out, expected, atol=atol, tolerances=tolerances)
    return expected


def _computed_in(
    args: tuple[Any, ...], out_dtype: torch.dtype, ints_to_float: bool = False
) -> torch.dtype:
    """The dtype a floating result was computed in: out's, or the narrower floating dtype the
    tensor and number arguments promote to (the default float dtype for integer ones when
    `ints_to_float`). A float32 pow written into a float64 out is a float32 value widened, and
    matches torch's only to float32's precision."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if not tensors or not out_dtype.is_floating_point:
        return out_dtype
    # Folded pairwise through a stand-in that keeps whether a dimensioned tensor took part, since
    # a 0-dim tensor promotes only across categories (float64 0-dim and float32 [5] give float32).
    dimensioned = tensors[0].dim() > 0
    common = tensors[0].dtype
    for arg in args:
        if isinstance(arg, (torch.Tensor, bool, int, float)):
            stand_in = torch.empty((0,) if dimensioned else (), dtype=common)
            common = torch.result_type(stand_in, arg)
            dimensioned |= isinstance(arg, torch.Tensor) and arg.dim() > 0
    if ints_to_float and not common.is_floating_point:
        common = torch.get_default_dtype()
    if common.is_floating_point and torch.finfo(common).eps > torch.finfo(out_dtype).eps:
        return common
    return out_dtype


def _fallbacks(name: str) -> int:
    """How many calls of `name` another backend served so far (kiln.fallback_records)."""
    return sum(record[3] for record in kiln.fallback_records() if record[0] == name)


def largest(t: torch.Tensor | None) -> float:
    """The largest finite magnitude in t (0 for None, empty or non-floating)."""
    if t is None or t.numel() == 0 or not t.is_floating_point():
        return 0.0
    return float(t.double().abs().nan_to_num(0, 0, 0).max())


def magnitude(*tensors: torch.Tensor | float) -> float:
    """The largest finite absolute value among the arguments (1 when there is none)."""
    largest = 1.0
    for t in tensors:
        if isinstance(t, torch.Tensor):
            if t.numel() and (t.is_floating_point()):
                finite = t.double()[torch.isfinite(t.double())]
                if finite.numel():
                    largest = max(largest, float(finite.abs().max()))
            elif t.numel() and t.dtype != torch.bool:
                largest = max(largest, float(t.double().abs().max()))
        elif isinstance(t, (int, float)) and abs(t) != float("inf") and t == t:
            largest = max(largest, abs(float(t)))
    return largest


def backend_of(call_op: Any) -> str | None:
    """The backend `call_op` (the conftest fixture) runs on."""
    backend = getattr(call_op, "keywords", {}).get("backend")
    return backend if isinstance(backend, str) else None


def is_portable(call_op: Any) -> bool:
    """Whether `call_op` refuses bad input with Kiln's portable kernels' wording: on backend
    "ascend" too, since its kernels decline what they cannot run and the portable ones take it."""
    return backend_of(call_op) in ("portable", "ascend")


def raises(call_op: Any, text: str | None = None) -> Any:
    """Expects a KilnError whose message matches `text` on Kiln's own kernels; the ATen backend
    reports libtorch's wording, so there only the refusal itself is checked."""
    return pytest.raises(kiln.KilnError, match=text if is_portable(call_op) else None)
