"""The operator contract, checked on a parsed schema: an op writes only what its schema marks
written, and returns tensors or nothing.

The norm is the out variant: results go to keyword-only ``Tensor(a!) out`` arguments (or
``Tensor(a!)[]``), which the op returns. Mutation the schema declares is legal, as in ExecuTorch:
an in-place op writes and returns its ``Tensor(a!) self`` (``copy_``), and any tensor argument
marked ``(a!)`` may be written (batch norm's running stats, a KV cache). A functional op returns
new tensors (``-> Tensor``), which its kernel allocates from the context's temp allocator.

Refused, because no kernel can honour them safely: a read-only alias ``(a)`` (a view: Kiln's
kernels never return views of their inputs; ExecuTorch's codegen lets one through, but its
runtime has no kernel-made views and exported programs use ``*_copy`` out variants instead), an
alias that names several sets or a wildcard, two arguments in one alias set, a returned alias no
argument declares (or declared differently), a written argument that is not a Tensor or
Tensor[], and returns other than tensors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiln.codegen.api.types import arg_type
from kiln.codegen.model.schema_types import SUPPORTED_TYPES, normalize


@dataclass(frozen=True)
class Violation:
    message: str
    fix: str


def is_written(argument: Any) -> bool:
    """Whether the schema marks ``argument`` written (``(a!)``)."""
    return argument.annotation is not None and argument.annotation.is_write


def _annotation_violation(argument: Any) -> Violation | None:
    annotation = argument.annotation
    name = argument.name
    if len(annotation.alias_set) != 1 or annotation.alias_set_after:
        return Violation(
            f"argument '{name}' has the annotation ({annotation}); Kiln takes one alias set per "
            "argument and no wildcard",
            f"write 'Tensor(a!) {name}' if the op writes it, or drop the annotation",
        )
    if not annotation.is_write:
        return Violation(
            f"the schema aliases input '{name}' ({annotation}) without writing it: a "
            "read-only alias makes a result a view of the input, and Kiln kernels do not return "
            "views (ExecuTorch's runtime cannot run one either)",
            f"drop the annotation if the op only reads '{name}'; for a view, use its copying out "
            "variant (e.g. view_copy.out), as ExecuTorch's exported programs do",
        )
    if normalize(str(argument.type)) not in ("Tensor", "Tensor[]"):
        return Violation(
            f"argument '{name}' of type {argument.type} is written ({annotation}); Kiln kernels "
            "write only Tensor and Tensor[] arguments",
            f"make it a required 'Tensor({annotation}) {name}', or drop the annotation",
        )
    return None


def _return_violation(ret: Any, by_alias: dict[str, Any], returned: set[str]) -> Violation | None:
    if normalize(str(ret.type)) != "Tensor":
        return Violation(
            f"returns '{ret}'; Kiln operators return tensors or nothing",
            "return new tensors ('-> Tensor'), the tensors the op writes ('-> Tensor(a!)') or "
            "nothing ('-> ()'); write any other result into a Tensor out argument, as "
            "ExecuTorch's allclose.out does",
        )
    if ret.annotation is None:
        return None  # a new tensor
    alias = ret.annotation.alias_set[0] if len(ret.annotation.alias_set) == 1 else None
    target = by_alias.get(alias) if alias is not None else None
    if target is None:
        return Violation(
            f"returns '{ret}', an alias of no argument",
            "give the argument it returns the same annotation (e.g. 'Tensor(a!) self' ... "
            "'-> Tensor(a!)'), or return a new tensor ('-> Tensor')",
        )
    if str(ret.annotation) != str(target.annotation):
        return Violation(
            f"returns '{ret}' but its argument '{target.name}' is annotated ({target.annotation})",
            f"annotate the return and '{target.name}' alike, e.g. both '({alias}!)'",
        )
    if target.name in returned:
        return Violation(
            f"returns argument '{target.name}' twice",
            "return each written argument once",
        )
    returned.add(target.name)
    return None


def check_contract(schema: Any) -> Violation | None:
    """The first way ``schema`` (a torchgen FunctionSchema) breaks the contract, or None."""
    arguments = schema.arguments
    by_alias: dict[str, Any] = {}
    for argument in arguments.flat_all:
        if argument.annotation is None:
            continue
        violation = _annotation_violation(argument)
        if violation is not None:
            return violation
        alias = argument.annotation.alias_set[0]
        first = by_alias.setdefault(alias, argument)
        if first is not argument:
            return Violation(
                f"arguments '{first.name}' and '{argument.name}' share the alias set {alias}",
                f"give each written argument its own set, e.g. 'Tensor(a!) {first.name}, "
                f"Tensor(b!) {argument.name}'",
            )
    for argument in arguments.out:
        if normalize(str(argument.type)) not in ("Tensor", "Tensor[]"):
            return Violation(
                f"out argument '{argument.name}' has type {argument.type}",
                "out arguments must be 'Tensor(a!)' or 'Tensor(a!)[]'",
            )
    returned: set[str] = set()
    for ret in schema.returns:
        violation = _return_violation(ret, by_alias, returned)
        if violation is not None:
            return violation
    return None


def check_types(schema: Any) -> Violation | None:
    """The first argument Kiln cannot unbox, or None."""
    for argument in schema.arguments.flat_all:
        if arg_type(str(argument.type), mutable=is_written(argument)) is None:
            return Violation(
                f"argument '{argument.name}' has type {argument.type}, which Kiln cannot unbox",
                f"Kiln kernels take {SUPPORTED_TYPES}; drop the op or change the schema",
            )
    return None
