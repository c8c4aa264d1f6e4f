"""Dynamic shapes in kiln.export: a tensor's bounds from torch.export's range constraints, and
the nodes that compute sizes (``aten.sym_size.int``, Python arithmetic on sizes) as ExecuTorch's
prim operators, which write an Int the calls after them read (``SymIntArg``)."""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Mapping
from typing import Any

import sympy
import torch
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

from kiln._errors import ExportError
from kiln._export.arguments import ArgumentError, number
from kiln._export.graph import Arg
from kiln._export.nodes import node_error, where

# Python's operators on sizes -> ExecuTorch's prim operators (its exporter's table).
PRIM_OPERATORS: dict[Any, str] = {
    operator.add: "executorch_prim::add.Scalar",
    operator.sub: "executorch_prim::sub.Scalar",
    operator.mul: "executorch_prim::mul.Scalar",
    operator.floordiv: "executorch_prim::floordiv.Scalar",
    operator.truediv: "executorch_prim::truediv.Scalar",
    operator.mod: "executorch_prim::mod.Scalar",
    operator.neg: "executorch_prim::neg.Scalar",
    operator.eq: "executorch_prim::eq.Scalar",
    operator.gt: "executorch_prim::gt.Scalar",
    operator.lt: "executorch_prim::lt.Scalar",
    operator.ge: "executorch_prim::ge.Scalar",
    operator.le: "executorch_prim::le.Scalar",
    math.ceil: "executorch_prim::ceil.Scalar",
    math.trunc: "executorch_prim::trunc.Scalar",
    builtins.round: "executorch_prim::round.Scalar",
    torch.sym_float: "executorch_prim::sym_float.Scalar",
    torch.sym_int: "executorch_prim::sym_int.Scalar",
    torch.sym_max: "executorch_prim::sym_max.Scalar",
    torch.sym_min: "executorch_prim::sym_min.Scalar",
    torch.sym_not: "executorch_prim::sym_not.Scalar",
    torch.sym_ite: "executorch_prim::sym_ite.Scalar",
}
# ATen's operators on a tensor's metadata -> the prim operators of the same name.
ATEN_SIZE_OPERATORS = {
    "sym_size.int": "aten::sym_size.int",
    "sym_numel": "aten::sym_numel",
    "_local_scalar_dense": "aten::_local_scalar_dense",
}

SYMBOLIC = (torch.SymInt, torch.SymFloat, torch.SymBool)


def is_symbolic(value: Any) -> bool:
    return isinstance(value, SYMBOLIC)


def has_symbolic_layout(value: torch.Tensor) -> bool:
    """Sizes, strides or storage offset computed at run time (a view at a position read from a
    tensor has static sizes but a symbolic offset)."""
    layout = (*value.shape, *value.stride(), value.storage_offset())
    return any(not isinstance(item, int) for item in layout)


def bounds(
    node: torch.fx.Node, value: torch.Tensor, ranges: Mapping[Any, ValueRanges[Any]], what: str
) -> tuple[tuple[int, ...], bool]:
    """The value's sizes, a symbolic one replaced by its upper bound under ``ranges`` (the
    program's range constraints), and whether any was symbolic."""
    sizes: list[int] = []
    dynamic = False
    for size in value.shape:
        if isinstance(size, int):
            sizes.append(size)
            continue
        dynamic = True
        upper = bound_sympy(size.node.expr, dict(ranges)).upper
        if upper in (int_oo, sympy.oo) or not upper.is_Integer:
            raise ExportError(
                f"{what} '{node.name}'{where(node)} has a dimension {size} with no upper bound; "
                "give its torch.export.Dim a max (programs plan memory for the largest shape)"
            )
        sizes.append(int(upper))
    return tuple(sizes), dynamic


def number_arg(node: torch.fx.Node, value: Any) -> Arg:
    """An operand of a prim operator: a size computed before (SymIntArg) or a Python number."""
    try:
        return number(value)
    except ArgumentError as error:
        raise node_error(node, str(node.target), f"an operand: {error}") from None
