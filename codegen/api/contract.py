"""The out-variant contract every Kiln operator follows, checked on a parsed schema.

Kernels write results into keyword-only ``Tensor(a!) out`` arguments (or ``Tensor(a!)[]``), never
mutate or alias their inputs, and return the out tensors they wrote, or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.api.types import arg_type
from codegen.model.schema_types import SUPPORTED_TYPES, normalize

OUT_EXAMPLE = "name.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"


@dataclass(frozen=True)
class Violation:
    message: str
    fix: str


def check_out_variant(schema: Any) -> Violation | None:
    """The first way ``schema`` (a torchgen FunctionSchema) breaks the contract, or None."""
    arguments = schema.arguments
    if not arguments.out:
        mutated = [a.name for a in arguments.flat_all if a.annotation is not None]
        if mutated:
            return Violation(
                f"not an out variant: it mutates or aliases its input '{mutated[0]}' and has no "
                "keyword-only out argument",
                f"Kiln only runs out variants; use the op's out overload ({OUT_EXAMPLE})",
            )
        return Violation(
            "not an out variant: it has no keyword-only 'Tensor(a!) out' argument",
            f"Kiln only runs out variants; use the op's out overload ({OUT_EXAMPLE})",
        )
    out_names = {a.name for a in arguments.out}
    for argument in arguments.flat_all:
        if argument.name in out_names:
            continue
        if argument.annotation is not None:
            verb = "mutates" if argument.annotation.is_write else "aliases"
            return Violation(
                f"the schema {verb} input '{argument.name}' ({argument.annotation})",
                "Kiln kernels may write only their keyword-only out arguments; remove the "
                "annotation or make the argument an out argument after '*'",
            )
    for argument in arguments.out:
        if normalize(str(argument.type)) not in ("Tensor", "Tensor[]"):
            return Violation(
                f"out argument '{argument.name}' has type {argument.type}",
                "out arguments must be 'Tensor(a!)' or 'Tensor(a!)[]'",
            )
    out_annotations = {str(a.annotation): a.name for a in arguments.out}
    for ret in schema.returns:
        annotation = str(ret.annotation) if ret.annotation is not None else None
        if normalize(str(ret.type)) != "Tensor" or annotation not in out_annotations:
            return Violation(
                f"returns '{ret}', which is not one of its out tensors",
                "return the out tensors (e.g. '-> Tensor(a!)') or nothing ('-> ()')",
            )
    return None


def check_types(schema: Any) -> Violation | None:
    """The first argument Kiln cannot unbox, or None."""
    out_names = {a.name for a in schema.arguments.out}
    for argument in schema.arguments.flat_all:
        if arg_type(str(argument.type), mutable=argument.name in out_names) is None:
            return Violation(
                f"argument '{argument.name}' has type {argument.type}, which Kiln cannot unbox",
                f"Kiln kernels take {SUPPORTED_TYPES}; drop the op or change the schema",
            )
    return None
