"""Schema argument types as the data model sees them: their normalised spelling and the list of
types Kiln's kernels take (``api/types.py`` maps each of them to C++)."""

from __future__ import annotations

import re

# What a YAML schema may use; api/types.py holds one C++ binding per entry.
SUPPORTED_TYPES = (
    "Tensor, Tensor?, Tensor[], Tensor?[], int, int?, int[], int[]?, SymInt (as int), float, "
    "float?, float[], float[]?, bool, bool?, bool[], Scalar, Scalar?, str, str?, ScalarType(?), "
    "MemoryFormat(?), Layout(?)"
)


def normalize(schema_type: str) -> str:
    """``SymInt[2]?`` -> ``int[]?``: sizes and symbolic ints do not change the C++ type."""
    text = re.sub(r"\[\d+\]", "[]", schema_type)
    return re.sub(r"\bSymInt\b", "int", text)
