"""Turns Python values into the (kind, value) pairs the native stack builder takes."""

from __future__ import annotations

import ast
import math
import numbers
from typing import Any

import torch

from kiln._errors import KilnError, KilnTypeError, KilnValueError
from kiln._manifest import Argument
from kiln._row_views import is_row_view

# torch dtype -> kiln::ScalarType code (equal to c10's).
DTYPE_CODES: dict[torch.dtype, int] = {
    torch.uint8: 0,
    torch.int8: 1,
    torch.int16: 2,
    torch.int32: 3,
    torch.int64: 4,
    torch.float16: 5,
    torch.float32: 6,
    torch.float64: 7,
    torch.complex32: 8,
    torch.complex64: 9,
    torch.complex128: 10,
    torch.bool: 11,
    torch.bfloat16: 15,
    torch.uint16: 27,
    torch.uint32: 28,
    torch.uint64: 29,
}

MEMORY_FORMAT_CODES: dict[torch.memory_format, int] = {
    torch.contiguous_format: 0,
    torch.preserve_format: 1,
    torch.channels_last: 2,
    torch.channels_last_3d: 3,
}

# Default texts in schemas that are names rather than literals.
_NAMED_DEFAULTS: dict[str, Any] = {
    "None": None,
    "True": True,
    "False": False,
    "contiguous_format": torch.contiguous_format,
    "preserve_format": torch.preserve_format,
    "long": torch.int64,
    "Mean": 1,
    "Sum": 2,
    "inf": float("inf"),
    "-inf": float("-inf"),
}

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def default_value(op: str, arg: Argument) -> Any:
    """The Python value of an argument's schema default."""
    assert arg.default is not None
    text = arg.default
    if text in _NAMED_DEFAULTS:
        return _NAMED_DEFAULTS[text]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise KilnTypeError(
            f"{op}: argument '{arg.name}' has default {text!r} that kiln cannot interpret; "
            "pass it explicitly"
        ) from None


def _fail(op: str, arg: Argument, expected: str, value: Any) -> KilnTypeError:
    return KilnTypeError(
        f"{op}: argument '{arg.name}' ({arg.type}) expects {expected}, got {type(value).__name__}"
    )


def dense_dim_order(value: torch.Tensor) -> tuple[int, ...] | None:
    """The dim order a dense tensor is laid out in: contiguous, or torch's channels-last formats
    (the layouts ExecuTorch programs name); None for any other layout."""
    rank = value.dim()
    if value.is_contiguous():
        return tuple(range(rank))
    if rank == 4 and value.is_contiguous(memory_format=torch.channels_last):
        return (0, 2, 3, 1)
    if rank == 5 and value.is_contiguous(memory_format=torch.channels_last_3d):
        return (0, 2, 3, 4, 1)
    return None


def _refuse_unviewable(op: str, arg: Argument, value: torch.Tensor) -> None:
    """Refuses tensors whose memory kiln cannot view as a dense CPU array: on another device
    (meta included, which has no memory), sparse or other non-strided layouts, quantized."""
    where = f"{op}: argument '{arg.name}'"
    if value.device.type != "cpu":
        raise KilnError(
            f"{where} is on {value.device}; kiln runs on CPU tensors, pass .cpu() "
            "(a meta tensor has no data: pass a real one)",
            "InvalidArgument",
        )
    if value.layout != torch.strided:
        raise KilnError(
            f"{where} has layout {value.layout}; kiln takes strided tensors, pass .to_dense()",
            "InvalidArgument",
        )
    if value.is_quantized:
        raise KilnError(
            f"{where} is quantized ({value.dtype}); kiln takes plain dtypes, pass .dequantize()",
            "InvalidArgument",
        )


def _tensor(op: str, arg: Argument, value: Any, is_out: bool, row_view: bool) -> tuple[Any, ...]:
    """(tensor, data_ptr, sizes, dtype code, is_out, dim order, dim-0 stride of a row view or
    None) for python/src/boxed_call.cpp."""
    if not isinstance(value, torch.Tensor):
        raise _fail(op, arg, "a torch.Tensor", value)
    _refuse_unviewable(op, arg, value)
    if value.dtype not in DTYPE_CODES:
        raise KilnValueError(
            f"{op}: argument '{arg.name}' has dtype {value.dtype}, which kiln lacks"
        )
    dim_order = dense_dim_order(value)
    row_stride = None
    if dim_order is None and row_view and is_row_view(value):
        dim_order, row_stride = tuple(range(value.dim())), value.stride(0)
    if dim_order is None:
        # bind_call copies such tensors; only a caller of convert() itself gets here.
        raise KilnError(
            f"{op}: argument '{arg.name}' is not contiguous (nor channels last); pass "
            ".contiguous()",
            "InvalidArgument",
        )
    shape = tuple(value.shape)
    if math.prod(max(size, 1) for size in shape) > _INT64_MAX:
        # Only a tensor without elements gets here (torch's expand makes them): its dense strides,
        # which count a 0 as 1, would not fit the int64 strides of a Kiln tensor.
        raise KilnValueError(
            f"{op}: argument '{arg.name}' has sizes {list(shape)}, whose strides would pass int64"
        )
    return (value, value.data_ptr(), shape, DTYPE_CODES[value.dtype], is_out, dim_order, row_stride)


def _int(op: str, arg: Argument, value: Any) -> int:
    if isinstance(value, torch.Tensor) and value.dim() == 0 and not value.is_floating_point():
        value = value.item()
    if not isinstance(value, numbers.Integral):
        raise _fail(op, arg, "an int", value)
    result = int(value)
    if not _INT64_MIN <= result <= _INT64_MAX:
        raise KilnValueError(f"{op}: argument '{arg.name}' value {result} does not fit in int64")
    return result


def _scalar(op: str, arg: Argument, value: Any) -> tuple[str, Any]:
    if isinstance(value, torch.Tensor) and value.dim() == 0:
        value = value.item()
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, numbers.Integral):
        return ("int", _int(op, arg, value))
    if isinstance(value, numbers.Real):
        return ("double", float(value))
    raise _fail(op, arg, "a number (bool, int or float)", value)


def _list(value: Any) -> list[Any] | None:
    return list(value) if isinstance(value, (list, tuple)) else None


def convert(op: str, arg: Argument, value: Any, row_view: bool = False) -> tuple[str, Any]:
    """The tagged form of `value` for argument `arg` of operator `op`; a Tensor argument the
    kernels take as a row view (`row_view`, kiln._row_views) may be one."""
    kind = arg.kind
    base = kind.removeprefix("Optional") if kind != "OptionalTensorList" else kind
    if value is None and kind.startswith("Optional") and kind != "OptionalTensorList":
        return ("none", None)
    if base == "Tensor":
        return ("tensor", _tensor(op, arg, value, arg.is_out, row_view))
    if base == "TensorList":
        items = _list(value)
        if items is None:
            raise _fail(op, arg, "a list of tensors", value)
        return ("tensor_list", [_tensor(op, arg, t, arg.is_out, False) for t in items])
    if base == "OptionalTensorList":
        items = _list(value)
        if items is None:
            raise _fail(op, arg, "a list of tensors or None", value)
        return (
            "optional_tensor_list",
            [None if t is None else _tensor(op, arg, t, False, False) for t in items],
        )
    if base == "Int":
        return ("int", _int(op, arg, value))
    if base == "IntList":
        items = _list(value)
        return (
            "int_list",
            [_int(op, arg, v) for v in items] if items is not None else [_int(op, arg, value)],
        )
    if base == "Double":
        if not isinstance(value, numbers.Real):
            raise _fail(op, arg, "a float", value)
        return ("double", float(value))
    if base == "DoubleList":
        items = _list(value)
        if items is None:
            raise _fail(op, arg, "a list of floats", value)
        return ("double_list", [float(v) for v in items])
    if base == "Bool":
        if not isinstance(value, bool):
            raise _fail(op, arg, "a bool", value)
        return ("bool", value)
    if base == "BoolList":
        items = _list(value)
        if items is None:
            raise _fail(op, arg, "a list of bools", value)
        return ("bool_list", [bool(v) for v in items])
    if base == "Scalar":
        return _scalar(op, arg, value)
    if base == "String":
        if not isinstance(value, str):
            raise _fail(op, arg, "a str", value)
        return ("string", value)
    if base == "ScalarType":
        if not isinstance(value, torch.dtype) or value not in DTYPE_CODES:
            raise _fail(op, arg, "a torch.dtype", value)
        return ("int", DTYPE_CODES[value])
    if base == "MemoryFormat":
        if not isinstance(value, torch.memory_format):
            raise _fail(op, arg, "a torch.memory_format", value)
        return ("int", MEMORY_FORMAT_CODES[value])
    if base == "Layout":
        if value is not torch.strided:
            raise _fail(op, arg, "torch.strided", value)
        return ("int", 0)
    raise KilnTypeError(f"{op}: argument '{arg.name}' has kind {kind} that kiln cannot convert")
