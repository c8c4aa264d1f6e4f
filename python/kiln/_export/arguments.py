"""Python argument values of a graph call -> typed arguments, by the out variant's schema types.

Tensors arrive already resolved to tensor indices (``TensorRef``); every other value is what
torch.export recorded (ints, floats, lists, dtypes, memory formats, ...). ExecuTorch encodes
dtypes, memory formats and layouts as Ints with its own codes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from kiln._export.graph import (
    Arg,
    BoolArg,
    BoolListArg,
    DoubleArg,
    DoubleListArg,
    IntArg,
    IntListArg,
    NoneArg,
    OptionalTensorListArg,
    StringArg,
    SymIntArg,
    TensorArg,
    TensorListArg,
)

# ExecuTorch's codes for the element types (c10's), as stored in Tensor.scalar_type and in Int
# arguments of type ScalarType.
SCALAR_TYPE_CODES: dict[torch.dtype, int] = {
    torch.uint8: 0,
    torch.int8: 1,
    torch.int16: 2,
    torch.int32: 3,
    torch.int64: 4,
    torch.float16: 5,
    torch.float32: 6,
    torch.float64: 7,
    torch.bool: 11,
    torch.bfloat16: 15,
    torch.uint16: 27,
    torch.uint32: 28,
    torch.uint64: 29,
}

# Every tensor of a Kiln program is contiguous (dim order 0..n-1), so a channels-last request
# asks for the same values in the layout the program has.
_MEMORY_FORMAT_CODES: dict[torch.memory_format, int] = {
    torch.contiguous_format: 0,
    torch.preserve_format: 1,
    torch.channels_last: 0,
    torch.channels_last_3d: 0,
}
_LAYOUT_CODES: dict[torch.layout, int] = {torch.strided: 0}


@dataclass(frozen=True)
class TensorRef:
    """A tensor argument, resolved to its index in the lowered program."""

    tensor: int


class ArgumentError(Exception):
    """A value the schema type cannot take; lowering turns it into an ExportError with the node."""


def scalar_type_code(dtype: torch.dtype) -> int:
    code = SCALAR_TYPE_CODES.get(dtype)
    if code is None:
        known = ", ".join(str(d).removeprefix("torch.") for d in SCALAR_TYPE_CODES)
        raise ArgumentError(f"dtype {dtype} is not supported by programs (supported: {known})")
    return code


def _int(value: Any, real_type: str) -> int | SymIntArg:
    if isinstance(value, SymIntArg):  # a size computed at run time
        return value
    if isinstance(value, torch.dtype):
        return scalar_type_code(value)
    if isinstance(value, torch.memory_format):
        code = _MEMORY_FORMAT_CODES.get(value)
        if code is None:
            raise ArgumentError(f"memory format {value} is not supported")
        return code
    if isinstance(value, torch.layout):
        if value not in _LAYOUT_CODES:
            raise ArgumentError(f"layout {value} is not supported; programs hold strided tensors")
        return _LAYOUT_CODES[value]
    if isinstance(value, torch.SymInt | torch.fx.Node):
        raise ArgumentError(f"a symbolic {real_type} ({value}) that no size operator computes")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"expected {real_type}, got {type(value).__name__} {value!r}")
    return value


def number(value: Any) -> Arg:
    """A Scalar argument: a Python number, or a size the program computes (SymIntArg)."""
    if isinstance(value, SymIntArg):
        return value
    if isinstance(value, bool):
        return BoolArg(value)
    if isinstance(value, int):
        return IntArg(value)
    if isinstance(value, float):
        return DoubleArg(value)
    if isinstance(value, torch.SymInt | torch.SymFloat | torch.fx.Node):
        raise ArgumentError(f"a symbolic scalar ({value}) that no size operator computes")
    raise ArgumentError(f"expected a number, got {type(value).__name__} {value!r}")


def _tensor(value: Any) -> int:
    if isinstance(value, TensorRef):
        return value.tensor
    raise ArgumentError(f"expected a tensor, got {type(value).__name__} {value!r}")


def _list(value: Any) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        raise ArgumentError(f"expected a list, got {type(value).__name__} {value!r}")
    return value


def _optional_tensor(item: Any) -> int | None:
    return None if item is None else _tensor(item)


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgumentError(f"expected a float, got {type(value).__name__} {value!r}")
    return float(value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ArgumentError(f"expected a bool, got {type(value).__name__} {value!r}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ArgumentError(f"expected a str, got {type(value).__name__} {value!r}")
    return value


def _list_converter(element: Any) -> Callable[[Any], Arg] | None:
    name = str(element)
    if isinstance(element, torch.TensorType):
        return lambda v: TensorListArg(tuple(_tensor(i) for i in _list(v)))
    if isinstance(element, torch.OptionalType) and isinstance(
        element.getElementType(), torch.TensorType
    ):
        return lambda v: OptionalTensorListArg(tuple(_optional_tensor(i) for i in _list(v)))
    if name in ("int", "SymInt"):
        return lambda v: IntListArg(tuple(_int(i, name) for i in _list(v)))
    if name == "float":
        return lambda v: DoubleListArg(tuple(_float(i) for i in _list(v)))
    if name == "bool":
        return lambda v: BoolListArg(tuple(_bool(i) for i in _list(v)))
    return None


def convert(value: Any, real_type: Any) -> Arg:
    """``value`` as an argument of schema type ``real_type`` (an argument's ``real_type``)."""
    if isinstance(real_type, torch.OptionalType):
        return NoneArg() if value is None else convert(value, real_type.getElementType())
    if isinstance(real_type, torch.TensorType):
        return TensorArg(_tensor(value))
    if isinstance(real_type, torch.ListType):
        converter = _list_converter(real_type.getElementType())
        if converter is None:
            raise ArgumentError(f"arguments of type {real_type} are not supported")
        return converter(value)
    name = str(real_type)
    if name in ("int", "SymInt", "ScalarType", "MemoryFormat", "Layout"):
        integer = _int(value, name)
        return integer if isinstance(integer, SymIntArg) else IntArg(integer)
    if name == "float":
        return DoubleArg(_float(value))
    if name == "bool":
        return BoolArg(_bool(value))
    if name in ("number", "Scalar"):
        return number(value)
    if name == "str":
        return StringArg(_str(value))
    raise ArgumentError(f"arguments of type {name} are not supported")
