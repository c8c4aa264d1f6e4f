"""One graph call -> its out-variant call: the operator, and the arguments in its schema order.

The functional call's arguments are matched to the out variant's by name; the out variant's outs
are the fresh result tensors, and its result (ExecuTorch's extra stack slot after the arguments)
is its single out, or a tensor list of all of them. Arguments the out variant leaves to its out
tensor (dtype, layout, device, pin_memory) must say what the out tensor already says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from kiln._export.arguments import ArgumentError, TensorRef, convert
from kiln._export.graph import Arg, TensorListArg
from kiln._export.nodes import node_error, op_name
from kiln._export.operators import OutOperator

_TENSOR_OPTIONS = frozenset({"dtype", "layout", "device", "pin_memory"})


def bind(node: torch.fx.Node, op: torch._ops.OpOverload) -> dict[str, Any]:
    """The call's arguments by name, defaults filled in."""
    arguments = op._schema.arguments
    bound: dict[str, Any] = {a.name: v for a, v in zip(arguments, node.args, strict=False)}
    bound.update(node.kwargs)
    for argument in arguments:
        if argument.name not in bound and argument.has_default_value():
            bound[argument.name] = argument.default_value
    return bound


def numbers_for_tensors(op: torch._ops.OpOverload, bound: dict[str, Any]) -> set[str]:
    """Tensor arguments given a Python number (``x * 2.0`` records ``mul.Tensor(x, 2.0)``) or a
    size computed at run time (``x * x.shape[0]``)."""
    return {
        a.name
        for a in op._schema.arguments
        if isinstance(a.real_type, torch.TensorType) and _is_number(bound.get(a.name))
    }


def _is_number(value: Any) -> bool:
    if isinstance(value, torch.fx.Node):
        return isinstance(value.meta.get("val"), torch.SymInt | torch.SymFloat | torch.SymBool)
    return isinstance(value, bool | int | float)


def scalar_sibling(op: torch._ops.OpOverload, numbers: set[str]) -> torch._ops.OpOverload | None:
    """The overload of ``op`` taking a Scalar where ``op`` takes the tensors named in
    ``numbers`` (``mul.Tensor`` -> ``mul.Scalar``), every other argument the same."""
    wanted = {a.name: str(a.type) for a in op._schema.arguments}
    packet = op.overloadpacket
    for overload in packet.overloads():
        candidate: torch._ops.OpOverload = getattr(packet, overload)
        schema = candidate._schema
        if candidate is op or schema.is_mutable or len(schema.returns) != len(op._schema.returns):
            continue
        types = {a.name: str(a.type) for a in schema.arguments}
        if types.keys() == wanted.keys() and all(
            types[name] == ("number" if name in numbers else wanted[name]) for name in wanted
        ):
            return candidate
    return None


def _check_tensor_option(
    node: torch.fx.Node, op: torch._ops.OpOverload, name: str, value: Any
) -> None:
    implied = name in _TENSOR_OPTIONS and (
        value is None
        or name == "dtype"
        or (name == "layout" and value == torch.strided)
        or (name == "device" and torch.device(value).type == "cpu")
        or (name == "pin_memory" and not value)
    )
    if not implied:
        raise node_error(node, op_name(op), f"argument {name}={value!r} has no out-variant form")


def out_arguments(
    node: torch.fx.Node,
    op: torch._ops.OpOverload,
    out_op: OutOperator,
    bound: dict[str, Any],
    outs: tuple[TensorRef, ...],
    resolve: Callable[[Any], Any],
) -> tuple[tuple[Arg, ...], Arg | None]:
    """The out variant's arguments (``resolve`` turns graph nodes into tensor references) and
    its result."""
    schema = out_op.schema
    out_params = [a for a in schema.arguments if a.is_out]
    list_out = len(out_params) == 1 and isinstance(out_params[0].type, torch.ListType)
    if not list_out and len(out_params) != len(outs):
        problem = f"{out_op.name} has {len(out_params)} outs for {len(outs)} results"
        raise node_error(node, op_name(op), problem)
    assigned: dict[str, Any] = (
        {out_params[0].name: list(outs)}
        if list_out
        else {a.name: o for a, o in zip(out_params, outs, strict=True)}
    )
    names = {a.name for a in schema.arguments}
    for leftover in sorted(set(bound) - names):
        _check_tensor_option(node, op, leftover, bound[leftover])
    args: list[Arg] = []
    for argument in schema.arguments:
        if argument.is_out:
            raw = assigned[argument.name]
        elif argument.name in bound:
            raw = bound[argument.name]
        elif argument.has_default_value():
            raw = argument.default_value
        else:
            problem = f"{out_op.name} needs '{argument.name}', which the call does not give"
            raise node_error(node, op_name(op), problem)
        try:
            args.append(convert(resolve(raw), argument.real_type))
        except ArgumentError as error:
            problem = f"argument '{argument.name}': {error}"
            raise node_error(node, op_name(op), problem) from None
    out_args = [args[i] for i, a in enumerate(schema.arguments) if a.is_out]
    result: Arg | None = None
    if len(schema.returns) > 1:
        result = TensorListArg(tuple(o.tensor for o in outs))
    elif schema.returns or list_out:
        result = out_args[0]
    return tuple(args), result
