"""Kernel signatures: the C++ parameters and return type an operator's kernels implement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiln.codegen.api.contract import is_written
from kiln.codegen.api.names import cpp_identifier
from kiln.codegen.api.types import ArgType, arg_type

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
    is_written: bool  # the schema marks it written, (a!): an out, an in-place self, a buffer


@dataclass(frozen=True)
class Return:
    """One returned tensor: a written argument (by reference) or a new tensor (by value)."""

    aliases: Param | None  # the argument it returns; None for a new tensor

    @property
    def cpp(self) -> str:
        return "kiln::Tensor" if self.aliases is None else "kiln::Tensor&"

    @property
    def has_slot(self) -> bool:
        """Whether the boxed stack holds it after the arguments. An out variant returns its out
        arguments, which are on the stack already; in-place and functional results get a slot,
        as in ExecuTorch."""
        return self.aliases is None or not self.aliases.is_out


@dataclass(frozen=True)
class Signature:
    """``<returns> f(<context>, <params...>)`` for one operator; params in schema (stack) order,
    then one stack slot per returned tensor that is not an out argument."""

    params: tuple[Param, ...]
    results: tuple[Return, ...]
    context_name: str

    @property
    def returns(self) -> str:
        """The C++ return type."""
        if not self.results:
            return "void"
        if len(self.results) == 1:
            return self.results[0].cpp
        return "std::tuple<" + ", ".join(r.cpp for r in self.results) + ">"

    @property
    def return_slots(self) -> int:
        return sum(r.has_slot for r in self.results)

    def parameter_list(self) -> list[str]:
        return [f"{CONTEXT_TYPE} {self.context_name}"] + [
            f"{p.arg_type.cpp} {p.cpp_name}" for p in self.params
        ]

    def parameter_types(self) -> tuple[str, ...]:
        return tuple(p.arg_type.cpp for p in self.params)

    def argument_names(self) -> list[str]:
        return [self.context_name] + [p.cpp_name for p in self.params]


def signature_of(schema: Any) -> Signature:
    """The signature of a schema that passed ``check_contract`` and ``check_types``."""
    arguments = schema.arguments
    out_names = {a.name for a in arguments.out}
    kwarg_names = {a.name for a in arguments.flat_kwarg_only} | out_names
    params = []
    by_alias: dict[str, Param] = {}
    for argument in arguments.flat_all:
        is_out = argument.name in out_names
        written = is_written(argument)
        binding = arg_type(str(argument.type), mutable=written)
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
                is_written=written,
            )
        )
        if written:
            by_alias[argument.annotation.alias_set[0]] = params[-1]
    results = tuple(
        Return(None if r.annotation is None else by_alias[r.annotation.alias_set[0]])
        for r in schema.returns
    )
    taken = {p.cpp_name for p in params}
    context_name = "ctx"
    while context_name in taken:
        context_name += "_"
    return Signature(tuple(params), results, context_name)
