"""Schema argument types -> kernel parameter C++ types, ArgKinds and unboxing expressions.

Matches ``runtime/kernel/unbox.h``: every supported schema type has one ``kiln::ArgKind`` that
``check_arguments`` verifies and one expression that reads the checked ``EValue``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kiln.codegen.model.schema_types import normalize


@dataclass(frozen=True)
class ArgType:
    cpp: str  # parameter type in kernel signatures
    kind: str  # kiln::ArgKind enumerator
    unbox: str  # expression reading the EValue pointer `{v}`

    def unbox_expr(self, value: str) -> str:
        return self.unbox.format(v=value)


def _opt(cpp: str) -> str:
    return f"std::optional<{cpp}>"


_TYPES: dict[str, ArgType] = {
    "Tensor": ArgType("const kiln::Tensor&", "Tensor", "{v}->toTensor()"),
    "Tensor?": ArgType(
        "const std::optional<kiln::Tensor>&", "OptionalTensor", "kiln::unbox::optional_tensor(*{v})"
    ),
    "Tensor[]": ArgType("kiln::ArrayRef<kiln::Tensor>", "TensorList", "{v}->toTensorList()"),
    "Tensor?[]": ArgType(
        "kiln::ArrayRef<std::optional<kiln::Tensor>>",
        "OptionalTensorList",
        "{v}->toListOptionalTensor()",
    ),
    "int": ArgType("int64_t", "Int", "{v}->toInt()"),
    "int?": ArgType(_opt("int64_t"), "OptionalInt", "kiln::unbox::optional_int(*{v})"),
    "int[]": ArgType("kiln::IntArrayRef", "IntList", "{v}->toIntList()"),
    "int[]?": ArgType(
        _opt("kiln::IntArrayRef"), "OptionalIntList", "kiln::unbox::optional_int_list(*{v})"
    ),
    "float": ArgType("double", "Double", "{v}->toDouble()"),
    "float?": ArgType(_opt("double"), "OptionalDouble", "kiln::unbox::optional_double(*{v})"),
    "float[]": ArgType("kiln::ArrayRef<double>", "DoubleList", "{v}->toDoubleList()"),
    "float[]?": ArgType(
        _opt("kiln::ArrayRef<double>"),
        "OptionalDoubleList",
        "kiln::unbox::optional_double_list(*{v})",
    ),
    "bool": ArgType("bool", "Bool", "{v}->toBool()"),
    "bool?": ArgType(_opt("bool"), "OptionalBool", "kiln::unbox::optional_bool(*{v})"),
    "bool[]": ArgType("kiln::ArrayRef<bool>", "BoolList", "{v}->toBoolList()"),
    "Scalar": ArgType("const kiln::Scalar&", "Scalar", "{v}->toScalar()"),
    "Scalar?": ArgType(
        "const std::optional<kiln::Scalar>&", "OptionalScalar", "kiln::unbox::optional_scalar(*{v})"
    ),
    "str": ArgType("std::string_view", "String", "{v}->toString()"),
    "str?": ArgType(
        _opt("std::string_view"), "OptionalString", "kiln::unbox::optional_string(*{v})"
    ),
    "ScalarType": ArgType("kiln::ScalarType", "ScalarType", "kiln::unbox::scalar_type(*{v})"),
    "ScalarType?": ArgType(
        _opt("kiln::ScalarType"), "OptionalScalarType", "kiln::unbox::optional_scalar_type(*{v})"
    ),
    "MemoryFormat": ArgType(
        "kiln::MemoryFormat", "MemoryFormat", "kiln::unbox::memory_format(*{v})"
    ),
    "MemoryFormat?": ArgType(
        _opt("kiln::MemoryFormat"),
        "OptionalMemoryFormat",
        "kiln::unbox::optional_memory_format(*{v})",
    ),
    "Layout": ArgType("kiln::Layout", "Layout", "kiln::unbox::layout(*{v})"),
    "Layout?": ArgType(
        _opt("kiln::Layout"), "OptionalLayout", "kiln::unbox::optional_layout(*{v})"
    ),
}

# A written tensor (an out argument, an in-place self, a mutable input such as a running mean) is
# taken by non-const reference. A written Tensor[] keeps its ArrayRef: the handles are not written.
_MUTABLE_TENSOR = ArgType("kiln::Tensor&", "Tensor", "{v}->toTensor()")


def arg_type(schema_type: str, *, mutable: bool) -> ArgType | None:
    """The C++ binding of one schema type (``mutable``: the schema marks it written, ``(a!)``);
    None when Kiln cannot unbox it."""
    key = normalize(schema_type)
    if mutable and key == "Tensor":
        return _MUTABLE_TENSOR
    return _TYPES.get(key)
