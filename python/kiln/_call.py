"""kiln.call_op: binds Python arguments to an operator's schema and runs its kernel."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import torch

from kiln import _C, _aten
from kiln._convert import DTYPE_CODES, convert, default_value
from kiln._errors import KilnError, KilnTypeError, KilnValueError
from kiln._manifest import Argument, Operator, operators
from kiln._row_views import row_view_arguments
from kiln._strided import DenseCopies
from kiln.codegen.model import op_names

# Every backend of the runtime (runtime/kernel/backends.def), in its default preference order.
_ALL_BACKENDS = tuple(_C.backends())
# Not a kernel backend of this build: libtorch's kernel through Kiln's ATen-mode build (kiln._aten).
ATEN_BACKEND = "aten"


def _lookup(name: str) -> Operator:
    ops = operators()
    qualified = op_names.qualified(name)
    if qualified in ops:
        return ops[qualified]
    overloads = sorted(n for n in ops if n.split(".")[0] == qualified)
    if overloads:
        hint = f"name an overload: {', '.join(overloads)}"
    else:
        close = difflib.get_close_matches(qualified, list(ops), n=3)
        hint = f"did you mean {', '.join(close)}?" if close else "see kiln.registered_operators()"
    raise KilnError(f"operator '{qualified}' is not registered in kiln; {hint}", "OperatorMissing")


def backends_for(backend: str | None) -> list[str]:
    if backend is None:
        return list(_ALL_BACKENDS)
    if backend not in _ALL_BACKENDS:
        known = ", ".join((*_ALL_BACKENDS, ATEN_BACKEND))
        raise KilnValueError(f"unknown backend {backend!r}; use one of {known}")
    # The requested backend first, then the others as fallbacks.
    return [backend] + [b for b in _ALL_BACKENDS if b != backend]


def _bind(op: Operator, args: tuple[Any, ...], out: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Maps positional, keyword and `out=` arguments onto the schema's argument names."""
    inputs = op.inputs
    positional = [a for a in inputs if not a.kwarg_only]
    if len(args) > len(positional):
        raise KilnTypeError(
            f"{op.name} takes at most {len(positional)} positional arguments "
            f"({len(args)} given); schema: {op.schema}"
        )
    bound: dict[str, Any] = {a.name: v for a, v in zip(positional, args, strict=False)}
    names = {a.name for a in op.arguments}
    for key, value in kwargs.items():
        if key not in names:
            raise KilnTypeError(f"{op.name} has no argument '{key}'; schema: {op.schema}")
        if key in bound:
            raise KilnTypeError(f"{op.name} got argument '{key}' twice")
        bound[key] = value
    outs = op.outs
    if out is not None:
        out_values = out if isinstance(out, (tuple, list)) else (out,)
        if len(out_values) != len(outs):
            raise KilnTypeError(f"{op.name} has {len(outs)} out arguments, got {len(out_values)}")
        bound.update({a.name: v for a, v in zip(outs, out_values, strict=True)})
    return bound


@dataclass(frozen=True)
class BoundCall:
    """An operator with its arguments converted for the native stack, in schema order, then its
    return slots; `results` are the Python objects the call returns (the outs of an out variant,
    self of an in-place op; empty for a functional op, whose new tensors come back from the
    kernel); `copies` the dense copies of strided arguments, to write back after the call."""

    op: Operator
    tagged: list[tuple[str, Any]]
    results: tuple[Any, ...]
    copies: DenseCopies

    @property
    def new_results(self) -> int:
        """How many new tensors the op returns (its return slots, for a functional op)."""
        return self.op.return_slots if None in self.op.returns else 0


def bind_call(name: str, args: tuple[Any, ...], out: Any, kwargs: dict[str, Any]) -> BoundCall:
    """Resolves `name`, binds the arguments to its schema and converts them; a strided tensor
    that the kernels cannot read as it is becomes a dense copy (kiln._strided)."""
    op = _lookup(name)
    bound = _bind(op, args, out, kwargs)
    row_views = row_view_arguments(op.name)
    written = op.written
    copies = DenseCopies(op.name)
    tagged = []
    for arg in op.arguments:
        if arg.name in bound:
            value = bound[arg.name]
        elif arg.is_out:
            raise KilnTypeError(f"{op.name}: pass the out tensor as out= (or {arg.name}=)")
        elif arg.default is not None:
            value = default_value(op.name, arg)
        else:
            raise KilnTypeError(f"{op.name}: missing argument '{arg.name}'; schema: {op.schema}")
        row_view = arg.name in row_views
        value = copies.argument(value, row_view, arg.name in written)
        tagged.append(convert(op.name, arg, value, row_view))
    # The wrapper stores there what the op returns: self (in place) or new tensors (functional).
    tagged += [("none", None)] * op.return_slots
    results = tuple(bound[name] for name in op.returns if name is not None)
    return BoundCall(op, tagged, results, copies)


def call_op(
    name: str,
    *args: Any,
    out: Any = None,
    backend: str | None = None,
    allow_fallback: bool = True,
    **kwargs: Any,
) -> Any:
    """Runs operator `name` (e.g. "aten::add.out") on torch tensors and returns its out(s).

    Arguments follow the operator's schema, positionally or by name; `out=` takes the out
    tensor (a tuple for several outs), which the kernel writes in place, resizing it when its
    shape differs. An in-place operator (e.g. "aten::copy_") writes its self argument and
    returns it. `backend` ("portable" or "ascend") is tried first; other backends serve as
    fallbacks when it has no kernel or its kernel declines the inputs (counted, see
    kiln.fallback_records); `allow_fallback=False` makes that a KilnError instead.
    `backend="aten"` runs libtorch's kernel through the same generated code, built in ATen mode
    (see kiln._aten). A functional operator (e.g. "aten::allclose.Tensor") returns the new
    tensors its kernel made, copied into torch tensors. A kernel's refusal raises KilnError with
    the kernel's message.
    """
    # The fast path: the operator's schema was bound once (_bind_operator); the native object
    # maps, converts and runs. It hands back NotImplemented for values it leaves to Python:
    # those the full path converts (numpy numbers, 0-dim tensors as numbers ...) or rejects.
    bound = _BOUND.get((name, backend))
    if bound is None:
        bound = _bind_operator(name, backend)
        if bound is None:
            return _call_full(name, args, out, backend, allow_fallback, kwargs)
    result = bound(args, out, kwargs, allow_fallback)
    if result is NotImplemented:
        return _call_full(name, args, out, backend, allow_fallback, kwargs)
    return result


# call_op's bound operators by (name as the caller spells it, backend).
_BOUND: dict[tuple[str, str | None], _C.BoundOperator] = {}


def _bind_operator(name: str, backend: str | None) -> _C.BoundOperator | None:
    """The operator bound for call_op's fast path, or None when the full path must answer: the
    "aten" backend (another extension), an unknown backend or operator (errors it raises)."""
    if backend is not None and backend not in _ALL_BACKENDS:
        return None
    try:
        op = _lookup(name)
    except KilnError:
        return None
    row_views = row_view_arguments(op.name)
    arguments = [
        (a.name, a.kind, a.kwarg_only, a.is_out, *_usable_default(op, a), a.name in row_views)
        for a in op.arguments
    ]
    index = {a.name: i for i, a in enumerate(op.arguments)}
    returns = [-1 if r is None else index[r] for r in op.returns]
    bound = _C.bind_operator(
        op.name, arguments, returns, op.return_slots, backends_for(backend), _new_tensor
    )
    _BOUND[(name, backend)] = bound
    return bound


def _usable_default(op: Operator, arg: Argument) -> tuple[Any, bool]:
    """(value, True) for an argument's schema default, (None, False) when it has none kiln can
    read (a call that omits it then takes the full path, which explains)."""
    if arg.default is None:
        return None, False
    try:
        return default_value(op.name, arg), True
    except TypeError:
        return None, False


def _call_full(
    name: str,
    args: tuple[Any, ...],
    out: Any,
    backend: str | None,
    allow_fallback: bool,
    kwargs: dict[str, Any],
) -> Any:
    """call_op through Python: binds and converts every argument here (bind_call), for values
    the fast path leaves, the "aten" backend, and every error message about arguments."""
    call = bind_call(name, args, out, kwargs)
    if backend == ATEN_BACKEND:
        # In ATen mode libtorch's kernels are registered in the portable slot.
        outcome = _aten.extension().call_boxed(
            call.op.name, ["portable"], call.tagged, new_results=call.new_results
        )
    else:
        outcome = _C.call_boxed(
            call.op.name,
            backends_for(backend),
            call.tagged,
            allow_fallback=allow_fallback,
            new_results=call.new_results,
        )
    if outcome.error != "Ok":
        raise KilnError(outcome.message, outcome.error)
    call.copies.write_back()
    results = call.results or tuple(_new_tensor(r) for r in outcome.results)
    return results[0] if len(results) == 1 else results


_DTYPES = {code: dtype for dtype, code in DTYPE_CODES.items()}


def _new_tensor(exported: tuple[tuple[int, ...], tuple[int, ...], int, bytes] | None) -> Any:
    """A torch tensor holding a copy of a tensor the kernel returned (see export_tensor in
    python/src/stack_builder.h)."""
    if exported is None:
        return None
    sizes, strides, code, data = exported
    dtype = _DTYPES[code]
    if not data:
        return torch.empty(sizes, dtype=dtype)
    flat = torch.frombuffer(bytearray(data), dtype=dtype)
    return flat.as_strided(sizes, strides).clone(memory_format=torch.preserve_format)
