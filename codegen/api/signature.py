"""Kernel signatures: the C++ parameters and return type an operator's kernels implement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.api.names import cpp_identifier
from codegen.api.types import ArgType, arg_type

CONTEXT_TYPE = "kiln::KernelRuntimeContext&"


@dataclass(frozen=True)
class Param:
    name: str  # schema name
    cpp_name: str
    schema_type: str  # e.g. "int[1]?"
    arg_type: ArgType
    default: str | None
    kwarg_only: bool
    is_out: bool


@dataclass(frozen=True)
class Signature:
    """``<returns> f(<context>, <params...>)`` for one operator; params in schema (stack) order."""

    params: tuple[Param, ...]
    returns: str
    context_name: str

    def parameter_list(self) -> list[str]:
        return [f"{CONTEXT_TYPE} {self.context_name}"] + [
            f"{p.arg_type.cpp} {p.cpp_name}" for p in self.params
        ]

    def parameter_types(self) -> tuple[str, ...]:
        return tuple(p.arg_type.cpp for p in self.params)

    def argument_names(self) -> list[str]:
        return [self.context_name] + [p.cpp_name for p in self.params]


def signature_of(schema: Any) -> Signature:
    """The signature of a schema that passed ``check_out_variant`` and ``check_types``."""
    arguments = schema.arguments
    out_names = {a.name for a in arguments.out}
    kwarg_names = {a.name for a in arguments.flat_kwarg_only} | out_names
    params = []
    for argument in arguments.flat_all:
        is_out = argument.name in out_names
        binding = arg_type(str(argument.type), mutable=is_out)
        assert binding is not None, f"unsupported type {argument.type}"
        params.append(
            Param(
                name=argument.name,
                cpp_name=cpp_identifier(argument.name),
                schema_type=str(argument.type),
                arg_type=binding,
                default=None if argument.default is None else str(argument.default),
                kwarg_only=argument.name in kwarg_names,
                is_out=is_out,
            )
        )
    taken = {p.cpp_name for p in params}
    context_name = "ctx"
    while context_name in taken:
        context_name += "_"
    count = len(schema.returns)
    if count == 0:
        returns = "void"
    elif count == 1:
        returns = "kiln::Tensor&"
    else:
        returns = "std::tuple<" + ", ".join(["kiln::Tensor&"] * count) + ">"
    return Signature(tuple(params), returns, context_name)
