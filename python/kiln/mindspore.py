"""Kiln's operators inside MindSpore: ``custom(op, library)`` is the ``ops.Custom`` of an AOT
library built with ``kiln_add_mindspore_library`` (docs/custom_ops.md, "From MindSpore").

    add = kiln.mindspore.custom("aten::add.out", "build/libms_ops.so")
    z = add(x, y, alpha=2.0)          # mindspore.Tensor in, mindspore.Tensor out

MindSpore's AOT operators take tensors only: the call turns the schema's scalars into
one-element tensors and strings into uint8 tensors of their bytes, as the entry points expect;
an optional tensor may be None or omitted. An AOT operator writes only its outputs, so an
operator that updates arguments in place (``reshape_and_cache``, ``advance_step_flashattn``)
returns their updated copies instead, in schema order, and the arguments keep their values:

    key_cache, value_cache = reshape_and_cache(key, value, key_cache, value_cache, slots)

Output shapes and dtypes come from ``kiln._out_shapes`` (an out variant's outs) or are those of
the arguments written in place; a refused call raises KilnError with the kernel's message,
which the library then does not log as well.
"""

from __future__ import annotations

import ctypes
import importlib
import os
from typing import Any

import numpy as np

from kiln._errors import KilnError
from kiln._manifest import Argument, Operator, operators
from kiln._out_shapes import out_dtype_sources, out_shapes
from kiln.codegen.model.op_names import qualified
from kiln.codegen.wording import with_article

# Schema types that travel as MindSpore tensors, and the NumPy dtype a Python value gets.
_SCALAR_DTYPES: dict[str, Any] = {"int": np.int64, "float": np.float64, "bool": np.bool_}
_TENSOR_TYPES = ("Tensor", "Tensor?")


def _schema(op_name: str) -> Operator:
    name = qualified(op_name)
    op = operators().get(name)
    if op is None:
        raise KilnError(f"{name} is not a Kiln operator", "OperatorMissing")
    return op


def _library_entry(library: str, name: str) -> tuple[str, ctypes.CDLL]:
    path = os.path.realpath(library)
    try:
        lib = ctypes.CDLL(path)
        lookup = lib.kiln_mindspore_entry
    except (OSError, AttributeError) as error:
        raise KilnError(
            f"{library} is not a Kiln MindSpore AOT library ({error}); build one with "
            "kiln_add_mindspore_library",
            "InvalidArgument",
        ) from None
    lookup.restype = ctypes.c_char_p
    lookup.argtypes = [ctypes.c_char_p]
    entry = lookup(name.encode())
    if entry is None:
        raise KilnError(
            f"{library} has no MindSpore entry point for {name}: select it in the library, and "
            "note that only operators that write tensors (out variants, in-place operators that "
            "return nothing) and whose arguments are tensors, optional tensors, int, float, "
            "bool, Scalar or str get one",
            "OperatorMissing",
        )
    lib.kiln_mindspore_last_error.restype = ctypes.c_char_p
    if not hasattr(lib, "kiln_mindspore_begin_reported_call"):
        raise KilnError(
            f"{library} was built by an older Kiln (it lacks kiln_mindspore_begin_reported_call); "
            "rebuild it with this one",
            "InvalidArgument",
        )
    lib.kiln_mindspore_last_error_code.restype = ctypes.c_char_p
    return f"{path}:{entry.decode()}", lib


def _as_tensor(op: str, arg: Argument, value: Any) -> Any:
    """``value`` as the entry point takes argument ``arg``: a mindspore.Tensor, or None for an
    optional tensor."""
    import mindspore

    if isinstance(value, mindspore.Tensor):
        return value
    if arg.type in _TENSOR_TYPES:
        if value is None and arg.type == "Tensor?":
            return None
        raise KilnError(
            f"{op}: argument '{arg.name}' expects a mindspore.Tensor, got {type(value).__name__}",
            "InvalidArgument",
        )
    if arg.type == "str":
        if not isinstance(value, str):
            raise KilnError(f"{op}: argument '{arg.name}' expects a str, got {value!r}")
        return mindspore.Tensor(np.frombuffer(value.encode(), dtype=np.uint8).copy())
    kind = arg.type
    if kind == "Scalar":  # a Scalar's kind follows the value, as the kernels' Scalar does
        kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
    if kind not in _SCALAR_DTYPES:
        raise KilnError(
            f"{op}: argument '{arg.name}' is {with_article(arg.type)}, which MindSpore's AOT "
            "operators cannot take",
            "NotSupported",
        )
    if not isinstance(value, (bool, int, float)):
        raise KilnError(
            f"{op}: argument '{arg.name}' expects {with_article(arg.type)}, got {value!r}"
        )
    dtype = _SCALAR_DTYPES[kind]
    return mindspore.Tensor(np.array([value], dtype=dtype))


class KilnCustom:
    """A Kiln operator as a MindSpore operator; ``primitive`` is its ``ops.Custom``. Its outputs
    are the updated copies of the arguments the operator writes in place (``written``), then
    its outs."""

    def __init__(self, op_name: str, library: str) -> None:
        from mindspore import ops

        self.op = _schema(op_name)
        func, self._lib = _library_entry(library, self.op.name)
        self.written = tuple(a.name for a in self.op.inputs if a.name in self.op.written)
        self.primitive = ops.Custom(
            func, out_shape=self._out_shape, out_dtype=self._out_dtype, func_type="aot"
        )

    def _tensor_inputs(self) -> list[str]:
        return [a.name for a in self.op.inputs if a.type in _TENSOR_TYPES]

    def _outputs(self, by_name: dict[str, Any], outs: tuple[Any, ...]) -> Any:
        """MindSpore's output list: the written arguments' entries, then the outs'."""
        result = [by_name[name] for name in self.written] + list(outs)
        return result[0] if len(result) == 1 else result

    def _out_shape(self, *shapes: Any) -> Any:
        # An optional tensor passed as None has no shape; the rules take it as absent.
        by_name = {
            a.name: tuple(int(d) for d in s)
            for a, s in zip(self.op.inputs, shapes, strict=True)
            if s is not None
        }
        tensors = {n: by_name[n] for n in self._tensor_inputs() if n in by_name}
        outs: tuple[Any, ...] = ()
        if self.op.outs:
            try:
                outs = out_shapes(self.op.name, tensors, len(self.op.outs))
            except ValueError as error:
                raise KilnError(f"{self.op.name}: {error}") from None
        return self._outputs(
            {n: list(shape) for n, shape in by_name.items()}, tuple(list(s) for s in outs)
        )

    def _out_dtype(self, *dtypes: Any) -> Any:
        by_name = {a.name: dtype for a, dtype in zip(self.op.inputs, dtypes, strict=True)}
        outs: tuple[Any, ...] = ()
        if self.op.outs:
            present = [n for n in self._tensor_inputs() if by_name[n] is not None]
            names = out_dtype_sources(self.op.name, present, len(self.op.outs))
            outs = tuple(by_name[name] for name in names)
        return self._outputs(by_name, outs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = self.op.inputs
        if len(args) > len(inputs):
            raise KilnError(f"{self.op.name} takes {len(inputs)} inputs, got {len(args)}")
        values: list[Any] = []
        for index, arg in enumerate(inputs):
            if index < len(args):
                value = args[index]
            elif arg.name in kwargs:
                value = kwargs.pop(arg.name)
            elif arg.default is not None:
                value = _default(arg)
            else:
                raise KilnError(f"{self.op.name}: missing argument '{arg.name}'")
            values.append(_as_tensor(self.op.name, arg, value))
        if kwargs:
            raise KilnError(f"{self.op.name}: unexpected arguments {', '.join(kwargs)}")
        self._lib.kiln_mindspore_clear_last_error()
        # The library does not log a failure of this call: the KilnError below carries it.
        self._lib.kiln_mindspore_begin_reported_call()
        try:
            result = self.primitive(*values)
            _wait_in_pynative()
            return result
        except KilnError:
            raise  # from the shape rules, which MindSpore ran
        except (RuntimeError, TypeError, ValueError) as error:
            message = (self._lib.kiln_mindspore_last_error() or b"").decode()
            if not message:  # MindSpore refused the call before the entry point ran
                raise KilnError(f"{self.op.name}: {error}") from error
            # The message is all there is to say: MindSpore's own error only counts a failure.
            code = (self._lib.kiln_mindspore_last_error_code() or b"").decode()
            raise KilnError(message, code or "InvalidArgument") from None
        finally:
            self._lib.kiln_mindspore_end_reported_call()


def _wait_in_pynative() -> None:
    """PyNative runs operators asynchronously, so a refusal would surface at some later call;
    waiting for this one makes it raise here, with its own message."""
    import mindspore

    if mindspore.get_context("mode") != mindspore.PYNATIVE_MODE:
        return  # in a graph, MindSpore raises when the graph runs
    for module in ("mindspore.graph.api", "mindspore.common.api"):  # 2.10, earlier 2.x
        executor = getattr(importlib.import_module(module), "_pynative_executor", None)
        if executor is not None:
            executor.sync()
            return


def _default(arg: Argument) -> Any:
    from kiln._convert import default_value

    return default_value("", arg)


def custom(op_name: str, library: str) -> KilnCustom:
    """Operator ``op_name`` (e.g. "kiln::rms_norm.out", "add.out") of AOT library ``library``."""
    return KilnCustom(op_name, library)
