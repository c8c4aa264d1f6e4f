"""Operators and dtypes a program needs, as out variants with kernel keys: a .pte program or a
saved torch.export program. The executor's prim operators (selective_build/prim_ops.py) are no
operator library's, and are left out.

A .pte program (told by its file identifier "ET12", or by its name) already calls out variants:
its operator tables and each KernelCall's key come from ``kiln.codegen.pte.reader``, and so do the
operators Kiln's XNNPACK delegate calls for its XnnpackBackend delegate calls. Any other
file is loaded with torch.export.load and decomposed to core ATen (what an out-variant runtime
executes). Each functional op maps to its out variant through torchgen's function groups
(``aten::add.Tensor`` -> ``aten::add.out``); view ops map to their ``_copy`` variant's out
(``aten::view`` -> ``aten::view_copy.out``). Every call records a kernel key: one
``<dtype>;<dim order>`` entry per tensor argument of the out variant, outs included, in schema
order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kiln.codegen.errors import UserError
from kiln.codegen.model.kernel_keys import DTYPE_CODES, KernelKey, KeyArg
from kiln.codegen.selective_build.prim_ops import is_prim_operator

# Checks inserted by torch.export that an out-variant runtime does not execute.
_ASSERTION_OPS = {
    "_assert_tensor_metadata",
    "_assert_async",
    "_assert_scalar",
    "sym_constrain_range",
}

_CHANNELS_LAST_4D = (0, 2, 3, 1)


@dataclass
class ProgramOps:
    """What one program needs: out-variant op name -> kernel keys (the default key: every
    dtype), plus ops with no out variant, the ops Kiln's delegates call and the delegate calls
    Kiln does not run itself."""

    keys: dict[str, set[KernelKey]] = field(default_factory=dict)
    unmapped: dict[str, str] = field(default_factory=dict)  # op -> why
    delegated: dict[str, str] = field(default_factory=dict)  # op -> the delegate call needing it
    other_delegates: list[tuple[str, str]] = field(default_factory=list)  # (backend, where)


@lru_cache(maxsize=1)
def out_variants() -> dict[str, str]:
    """``name.overload`` of every ATen op -> the ``name.overload`` of its out variant."""
    from torchgen.gen import (
        get_grouped_by_view_native_functions,
        get_grouped_native_functions,
        parse_native_yaml,
    )
    from torchgen.model import NativeFunctionsGroup, NativeFunctionsViewGroup

    from kiln.codegen.model.schemas import native_yaml_paths

    native, tags = native_yaml_paths()
    functions = parse_native_yaml(str(native), str(tags)).native_functions
    mapping: dict[str, str] = {}
    for group in get_grouped_native_functions(functions):
        if isinstance(group, NativeFunctionsGroup):
            out = str(group.out.func.name)
            for function in group.functions():
                mapping[str(function.func.name)] = out
    for view_group in get_grouped_by_view_native_functions(functions):
        if isinstance(view_group, NativeFunctionsViewGroup) and view_group.view_copy is not None:
            copy_out = mapping.get(str(view_group.view_copy.func.name))
            if copy_out is not None:
                mapping[str(view_group.view.func.name)] = copy_out
    return mapping


def _dtype_code(dtype: Any) -> int | None:
    import torch

    names = {
        torch.uint8: "Byte",
        torch.int8: "Char",
        torch.int16: "Short",
        torch.int32: "Int",
        torch.int64: "Long",
        torch.float16: "Half",
        torch.float32: "Float",
        torch.float64: "Double",
        torch.bool: "Bool",
        torch.bfloat16: "BFloat16",
    }
    name = names.get(dtype)
    return None if name is None else DTYPE_CODES[name]


def _key_arg(value: Any) -> KeyArg | None:
    """The key entry of a tensor value, None for what keys do not describe."""
    import torch

    if not isinstance(value, torch.Tensor):
        return None
    code = _dtype_code(value.dtype)
    if code is None:
        return None
    # Out-variant programs hold dense tensors: row-major, or channels-last when the value is.
    rank = value.dim()
    channels_last = rank == 4 and value.is_contiguous(memory_format=torch.channels_last)
    order = _CHANNELS_LAST_4D if channels_last and not value.is_contiguous() else tuple(range(rank))
    return KeyArg(code, order)


def _load(path: str) -> Any:
    import torch

    try:
        program = torch.export.load(path)
    except FileNotFoundError:
        raise UserError(
            path, None, "no such file", "pass a program saved with torch.export.save"
        ) from None
    except Exception as error:  # torch raises many types for a file that is not a program
        raise UserError(
            path,
            None,
            f"cannot load it as a torch.export program ({type(error).__name__}: {error})",
            "pass a .pte program, or a file written by "
            "torch.export.save(torch.export.export(model, inputs), path)",
        ) from None
    return program.run_decompositions()


def _node_key(node: Any, out_schema: Any) -> KernelKey:
    """The key of one call: the out variant's tensor arguments in schema order, then its outs."""
    schema = node.target._schema
    values: dict[str, Any] = {}
    for argument, value in zip(schema.arguments, node.args, strict=False):
        values[argument.name] = value
    values.update(node.kwargs)
    entries: list[KeyArg] = []
    for argument in out_schema.arguments.flat_all:
        if argument.is_write:
            continue
        entry = _key_arg(getattr(values.get(argument.name), "meta", {}).get("val"))
        if entry is not None:
            entries.append(entry)
    results = node.meta.get("val")
    for result in results if isinstance(results, (tuple, list)) else (results,):
        entry = _key_arg(result)
        if entry is not None:
            entries.append(entry)
    return KernelKey(tuple(entries))


def is_pte_program(path: str) -> bool:
    """Whether ``path`` is read as a .pte program: by content, or by name when the content is
    not a .pte (so that the reader says what is wrong with it)."""
    from kiln.codegen.pte.header import file_has_identifier

    return file_has_identifier(path) or path.lower().endswith(".pte")


def _pte_program_ops(path: str) -> ProgramOps:
    from kiln.codegen.pte.reader import read_pte_operators

    found = read_pte_operators(path)
    keys = found.keys()
    return ProgramOps(
        keys={name: k for name, k in keys.items() if not is_prim_operator(name)},
        delegated=found.delegated(),
        other_delegates=[(d.backend, d.where) for d in found.delegates() if not d.runs_in_kiln],
    )


def program_ops(path: str) -> ProgramOps:
    """The out-variant ops and kernel keys of the program at ``path`` (.pte or torch.export)."""
    if is_pte_program(path):
        return _pte_program_ops(path)
    import torch
    from torchgen.model import FunctionSchema

    from kiln.codegen.model.schemas import AtenSchemas

    program = _load(path)
    variants = out_variants()
    index = AtenSchemas().index
    found = ProgramOps()
    for node in program.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        namespace, base = node.target._schema.name.split("::", 1)
        overload = node.target._overloadname
        functional = base if overload == "default" else f"{base}.{overload}"
        qualified = f"{namespace}::{functional}"
        if (namespace == "aten" and base in _ASSERTION_OPS) or is_prim_operator(qualified):
            continue
        out_name = variants.get(functional) if namespace == "aten" else None
        if out_name is None:
            found.unmapped[qualified] = (
                "it has no out variant in native_functions.yaml"
                if namespace == "aten"
                else "custom ops are not mapped from programs; select their out variant with "
                "--root-ops"
            )
            continue
        schema_text = index.lookup(out_name)
        assert schema_text is not None
        key = _node_key(node, FunctionSchema.parse(schema_text))
        found.keys.setdefault(f"aten::{out_name}", set()).add(key)
    return found
