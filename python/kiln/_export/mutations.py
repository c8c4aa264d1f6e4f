"""Calls of operators that write their arguments, as torch.export records them: wrapped in
``auto_functionalized`` (or ``auto_functionalized_v2``), which returns the written arguments' new
values instead of writing them (``kiln::reshape_and_cache`` writing a KV cache). An operator that
also returns tensors (ExecuTorch's ``llama::update_cache``) is called through its ``.out``
overload, which writes the same arguments and takes the results' tensors as outs.

A program calls the operator itself, in place. A written argument that is a mutable buffer whose
old value nothing reads afterwards is written where it is: the buffer then already holds the new
value at the end of the run, so its write-back is skipped (a KV cache is updated in place, with
no copy per step). Any other written argument (a computed tensor, an input, a constant, a value
still read later) is copied first (``aten::copy_`` into a new tensor) and the copy is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from kiln._export.arguments import ArgumentError, TensorRef, convert
from kiln._export.graph import Arg, BoolArg, Call, Role, TensorArg
from kiln._export.nodes import node_error, op_name
from kiln._export.operators import (
    WRITE_BACK_OP,
    is_custom,
    kiln_operators,
    resolve,
    unavailable_reason,
)
from kiln._export.out_calls import out_arguments

if TYPE_CHECKING:
    from kiln._export.lowering import Lowering

WRAPPERS = frozenset({"auto_functionalized", "auto_functionalized_v2"})


def _is_written(argument: Any) -> bool:
    return argument.alias_info is not None and argument.alias_info.is_write


def _written_sources(node: torch.fx.Node, schema: Any, what: str) -> dict[str, torch.fx.Node]:
    """Each written argument's graph value (v2: its entry of ``_all_bases``)."""
    kwargs = node.kwargs
    bases: Any = kwargs.get("_all_bases")
    sources: dict[str, torch.fx.Node] = {}
    for argument in schema.arguments:
        if not _is_written(argument):
            continue
        name = argument.name
        if bases is None:  # auto_functionalized (v1): the argument itself
            source = kwargs.get(name)
        else:
            if any(f"_{name}_{part}" in kwargs for part in ("size", "stride", "storage_offset")):
                raise node_error(
                    node, what, f"it writes a view of a tensor ('{name}'); pass it whole"
                )
            index = kwargs.get(f"_{name}_base_index")
            source = None if index is None else bases[index]
        if not isinstance(source, torch.fx.Node):
            raise node_error(node, what, f"written argument '{name}' is not a tensor of the graph")
        if source in sources.values():
            raise node_error(node, what, f"it writes one tensor through two arguments ('{name}')")
        sources[name] = source
    return sources


def _in_place(lowering: Lowering, node: torch.fx.Node, source: torch.fx.Node, ref: Any) -> bool:
    """Whether writing ``source`` where it is keeps the graph's meaning."""
    if not isinstance(ref, TensorRef) or lowering.role(ref.tensor) != Role.BUFFER:
        return False
    return not lowering.read_after(node, source)


def lower_auto_functionalized(lowering: Lowering, node: torch.fx.Node) -> None:
    op = node.args[0]
    if not isinstance(op, torch._ops.OpOverload):
        raise node_error(node, str(node.target), "it wraps something that is not an operator")
    what = op_name(op)
    schema = op._schema
    called = f"{schema.name}.out" if schema.returns else what
    if called not in kiln_operators() or not is_custom(called):
        problem = (
            "it writes its arguments; programs call such operators only when they are Kiln's "
            "custom operators (custom_ops.yaml)"
        )
        if schema.returns:
            # torch.export refuses outs that alias; a new tensor beside the writes needs an
            # out variant to be called.
            problem = (
                "it returns tensors besides writing its arguments, and Kiln has no out variant "
                f"of it ({called} in custom_ops.yaml) to call"
            )
        raise node_error(node, what, problem)
    reason = unavailable_reason(WRITE_BACK_OP)
    targets: dict[str, int] = {}
    for name, source in _written_sources(node, schema, what).items():
        ref = lowering.resolve(source)
        if _in_place(lowering, node, source, ref):
            targets[name] = ref.tensor
            continue
        if reason is not None:
            raise node_error(node, WRITE_BACK_OP, f"copying '{name}' is not possible: {reason}")
        if not isinstance(ref, TensorRef):
            raise node_error(node, what, f"written argument '{name}' is not a tensor")
        copy = lowering.temp(node, source.meta.get("val"), f"{node.name}.{name}")
        copy_args = (TensorArg(copy.tensor), TensorArg(ref.tensor), BoolArg(False))
        lowering.emit(Call(WRITE_BACK_OP, copy_args, TensorArg(copy.tensor), node.name))
        targets[name] = copy.tensor
    new_values = [TensorRef(targets[name]) for name in _base_order(node, schema)]
    if schema.returns:
        _call_out_variant(lowering, node, op, called, targets, new_values)
        return
    args: list[Arg] = []
    for argument in schema.arguments:
        if argument.name in targets:
            args.append(TensorArg(targets[argument.name]))
            continue
        raw = node.kwargs.get(argument.name, argument.default_value)
        try:
            args.append(convert(lowering.resolve(raw), argument.real_type))
        except ArgumentError as error:
            raise node_error(node, what, f"argument '{argument.name}': {error}") from None
    lowering.emit(Call(what, tuple(args), None, node.name))
    # The wrapper returns the operator's result (None: it returns nothing), then the new values.
    lowering.bind(node, (None, *new_values))


def _call_out_variant(
    lowering: Lowering,
    node: torch.fx.Node,
    op: torch._ops.OpOverload,
    called: str,
    targets: dict[str, int],
    new_values: list[TensorRef],
) -> None:
    """Calls ``called``, op's out variant, writing ``targets``; its outs are new tensors for
    the results the wrapper returns first."""
    bound: dict[str, Any] = {
        name: value for name, value in node.kwargs.items() if not name.startswith("_")
    }
    bound.update({name: TensorRef(tensor) for name, tensor in targets.items()})
    results = node.meta["val"][0]
    values = results if isinstance(results, list | tuple) else (results,)
    outs = tuple(lowering.temp(node, v, f"{node.name}[{i}]") for i, v in enumerate(values))
    args, result = out_arguments(node, op, resolve(called), bound, outs, lowering.resolve)
    lowering.emit(Call(called, args, result, node.name))
    returned = outs if isinstance(results, list | tuple) else outs[0]
    lowering.bind(node, (returned, *new_values))


def _base_order(node: torch.fx.Node, schema: Any) -> list[str]:
    """The written arguments in the order the wrapper returns their new values."""
    written = [a.name for a in schema.arguments if _is_written(a)]
    if "_all_bases" not in node.kwargs:
        return written
    by_index = {node.kwargs[f"_{name}_base_index"]: name for name in written}
    bases: Any = node.kwargs["_all_bases"]
    return [by_index[i] for i in range(len(bases))]
