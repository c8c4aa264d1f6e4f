"""Kiln's custom operators as PyTorch operators: ``import kiln.torch_ops`` registers the ``kiln::``
operators of Kiln's built-in library with ``torch.library``.

For each out variant (``kiln::rms_norm.out``) torch gets the out variant itself, schema as in
custom_ops.yaml, and its functional form (``kiln::rms_norm(Tensor input, Tensor weight, float
epsilon) -> Tensor``, derived with torchgen's FunctionSchema), whose CPU kernel allocates the outs
and runs the out variant; an op that writes its arguments (``reshape_and_cache``) keeps its
``(a!)`` schema. Every CPU kernel is Kiln's, through ``kiln.call_op`` on the backend chosen with
:func:`set_backend` (``portable`` by default; ``ascend``: the emulated Ascend kernel where Kiln
has one, else the portable one, counted in ``kiln.fallback_records()``). Fake kernels
give shapes and dtypes to torch.export and FakeTensorMode from the shape rules of
``_out_shapes.py`` (the ones kiln.mindspore reads), and
``_torch_autograd.py`` registers the backward of rms_norm, silu_and_mul and rotary_embedding. A
refused call raises ``kiln.KilnError``.

Only operators of the library built into the kiln package can run from Python (``kiln.call_op``),
so a user's own operators are registrable when their YAML is part of that build, under their own
namespace: ``register_torch_ops(namespace="my_ns", shapes={"my_ns::op.out": OutRule(...)})``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torchgen.model import FunctionSchema, OperatorName

from kiln._call import backends_for, call_op
from kiln._errors import KilnError
from kiln._manifest import Operator, operators
from kiln._out_shapes import RULES, OutRule
from kiln._torch_shapes import result_specs

_backend = "portable"


def set_backend(backend: str) -> None:
    """The backend every registered operator's CPU kernel runs on: "portable" or "ascend"."""
    global _backend
    try:
        backends_for(backend)
    except ValueError as error:
        raise KilnError(str(error), "InvalidArgument") from None
    _backend = backend


def get_backend() -> str:
    return _backend


@contextlib.contextmanager
def use_backend(backend: str) -> Iterator[None]:
    """``with kiln.torch_ops.use_backend("ascend"): ...`` runs the block's calls there."""
    previous = _backend
    set_backend(backend)
    try:
        yield
    finally:
        set_backend(previous)


@dataclass(frozen=True)
class Registration:
    """What register_torch_ops defined in one namespace: the torch operator names."""

    namespace: str
    operators: tuple[str, ...]


# torch.library.Library has no type hints; its methods are used as documented.
_Library: Any = torch.library.Library
_libraries: dict[str, tuple[Any, Registration]] = {}


def _bind(
    schema: torch._C.FunctionSchema, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[Any]:
    """The call's arguments in schema order, defaults filled in."""
    values = list(args)
    for argument in schema.arguments[len(args) :]:
        if argument.name in kwargs:
            values.append(kwargs[argument.name])
        elif argument.has_default_value():
            values.append(argument.default_value)
        else:
            raise KilnError(f"{schema.name}: missing argument '{argument.name}'", "InvalidArgument")
    return values


def _run(op: Operator, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """call_op on the chosen backend; the outs go as out= (an out may itself be named "out").
    Every refusal, of the arguments' values or by the kernel, is call_op's kiln.KilnError."""
    names = [a.name for a in op.outs]
    outs = tuple(kwargs.pop(name) for name in names if name in kwargs)
    result = call_op(op.name, *args, out=outs or None, backend=_backend, **kwargs)
    return None if result == () else result


def _out_kernel(op: Operator) -> Callable[..., Any]:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        return _run(op, args, dict(kwargs))

    return kernel


def _by_name(op: Operator, values: list[Any]) -> dict[str, Any]:
    """The inputs of ``op`` by name, from the functional form's arguments in schema order."""
    return {a.name: v for a, v in zip(op.inputs, values, strict=True)}


def _out_fake(op: Operator, rule: OutRule | None) -> Callable[..., Any]:
    outs = [a.name for a in op.outs]

    def fake(*args: Any, **kwargs: Any) -> Any:
        out_values = [kwargs[name] for name in outs]
        if rule is not None:
            inputs = {a.name: v for a, v in zip(op.inputs, args, strict=False)}
            inputs.update({k: v for k, v in kwargs.items() if k not in outs})
            for value, (sizes, _) in zip(
                out_values, result_specs(op.name, rule, inputs), strict=True
            ):
                value.resize_(sizes)
        return out_values[0] if len(out_values) == 1 else tuple(out_values)

    return fake


def _functional_kernel(
    op: Operator, schema: Callable[[], torch._C.FunctionSchema], rule: OutRule
) -> Callable[..., Any]:
    outs = [a.name for a in op.outs]

    def kernel(*args: Any, **kwargs: Any) -> Any:
        values = _bind(schema(), args, kwargs)
        specs = result_specs(op.name, rule, _by_name(op, values))
        results = [torch.empty(sizes, dtype=dtype) for sizes, dtype in specs]
        # The out variant takes the same arguments, keyword-only ones by name.
        named = {a.name: v for a, v in zip(op.inputs, values, strict=True) if a.kwarg_only}
        positional = tuple(v for a, v in zip(op.inputs, values, strict=True) if not a.kwarg_only)
        _run(op, positional, {**named, **dict(zip(outs, results, strict=True))})
        return results[0] if len(results) == 1 else tuple(results)

    return kernel


def _functional_fake(
    op: Operator, schema: Callable[[], torch._C.FunctionSchema], rule: OutRule
) -> Callable[..., Any]:
    def fake(*args: Any, **kwargs: Any) -> Any:
        values = _bind(schema(), args, kwargs)
        tensor = next(v for v in values if isinstance(v, torch.Tensor))
        specs = result_specs(op.name, rule, _by_name(op, values))
        results = [tensor.new_empty(sizes, dtype=dtype) for sizes, dtype in specs]
        return results[0] if len(results) == 1 else tuple(results)

    return fake


def _mutating_fake(*args: Any, **kwargs: Any) -> None:
    return None


def _local(name: str) -> str:
    return name.split("::", 1)[1]


def _functional_schema(schema: FunctionSchema) -> FunctionSchema:
    """The functional form of out variant ``schema``: ``.out`` has the default overload
    (``kiln::rms_norm``), ``.<name>_out`` the overload ``<name>``
    (``kiln::paged_attention.paged_layout_out`` -> ``kiln::paged_attention.paged_layout``), so
    each out variant of an operator has a functional form of its own."""
    functional = schema.signature(strip_default=False)
    overload = schema.name.overload_name
    name = overload.removesuffix("_out") if overload.endswith("_out") else ""
    return dataclasses.replace(
        functional, name=OperatorName(name=functional.name.name, overload_name=name)
    )


def _torch_schema(qualified: str) -> Callable[[], torch._C.FunctionSchema]:
    namespace, rest = qualified.split("::", 1)
    base, _, overload = rest.partition(".")

    def schema() -> torch._C.FunctionSchema:
        packet = getattr(getattr(torch.ops, namespace), base)
        found: torch._C.FunctionSchema = getattr(packet, overload or "default")._schema
        return found

    return schema


def _torch_has(qualified: str) -> bool:
    namespace, rest = qualified.split("::", 1)
    base, _, overload = rest.partition(".")
    packet = getattr(getattr(torch.ops, namespace), base, None)
    return packet is not None and (overload or "default") in packet.overloads()


def register_torch_ops(
    namespace: str = "kiln",
    shapes: dict[str, OutRule] | None = None,
) -> Registration:
    """Registers every operator of ``namespace`` in Kiln's built-in library with torch.library
    (idempotent: a later call returns the first registration, whatever its ``shapes``; a name
    torch already has from another library is a KilnError). ``shapes`` adds shape rules, by out
    variant (``{"my_ns::op.out": OutRule(...)}``, see _out_shapes.py), for the functional forms of
    a user's out variants; an out variant without a rule gets no functional form."""
    if namespace in _libraries:
        return _libraries[namespace][1]
    if namespace in ("aten", "prim", "prims"):
        raise KilnError(f"namespace '{namespace}' is torch's own", "InvalidArgument")
    ops = [op for name, op in operators().items() if name.split("::")[0] == namespace]
    if not ops:
        namespaces = sorted({name.split("::")[0] for name in operators()} - {"aten"})
        raise KilnError(
            f"Kiln's library has no operator in namespace '{namespace}' (it has: "
            f"{', '.join(namespaces)}); only operators built into the kiln package can run from "
            "Python",
            "OperatorMissing",
        )
    taken = [op.name for op in ops if _torch_has(op.name)]
    if taken:
        raise KilnError(
            f"torch already has {', '.join(taken)} (defined by another library); Kiln cannot "
            "register its own operators under those names",
            "InvalidArgument",
        )
    rules = {**RULES, **(shapes or {})}
    library = _Library(namespace, "FRAGMENT")
    defined: list[str] = []
    for op in ops:
        schema = FunctionSchema.parse(_local(op.schema))
        library.define(_local(op.schema))
        defined.append(op.name)
        library.impl(_local(op.name), _out_kernel(op), "CPU")
        if op.outs:
            rule = rules.get(op.name)
            library._register_fake(_local(op.name), _out_fake(op, rule))
            if rule is None or schema.kind().name != "out":
                continue
            signature = _functional_schema(schema)
            functional = f"{namespace}::{signature.name}"
            library.define(str(signature))
            defined.append(functional)
            torch_schema = _torch_schema(functional)
            library.impl(_local(functional), _functional_kernel(op, torch_schema, rule), "CPU")
            library._register_fake(_local(functional), _functional_fake(op, torch_schema, rule))
        else:
            library._register_fake(_local(op.name), _mutating_fake)
    registration = Registration(namespace, tuple(defined))
    _libraries[namespace] = (library, registration)
    if namespace == "kiln":
        from kiln import _torch_autograd

        _torch_autograd.register()
    return registration


register_torch_ops()
