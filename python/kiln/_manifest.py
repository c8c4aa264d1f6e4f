"""The operator signatures of the built-in library, read from its generated manifest."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kiln import _C


@dataclass(frozen=True)
class Argument:
    name: str
    type: str  # schema type, e.g. "Tensor", "int[1]?", "Scalar"
    kind: str  # the runtime's ArgKind name, e.g. "Tensor", "OptionalIntList"
    default: str | None  # schema default text, None when the argument has none
    kwarg_only: bool
    is_out: bool


@dataclass(frozen=True)
class Operator:
    name: str  # "aten::add.out"
    schema: str
    arguments: tuple[Argument, ...]

    @property
    def inputs(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.is_out)

    @property
    def outs(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.is_out)


def _manifest_path() -> Path:
    return Path(_C.__file__).with_name("kiln_all_ops.manifest.json")


@lru_cache(maxsize=1)
def operators() -> dict[str, Operator]:
    """All operators of the built-in library by qualified name."""
    data = json.loads(_manifest_path().read_text())
    result: dict[str, Operator] = {}
    for op in data["operators"]:
        arguments = tuple(
            Argument(
                name=a["name"],
                type=a["type"],
                kind=a["kind"],
                default=a["default"],
                kwarg_only=a["kwarg_only"],
                is_out=a["is_out"],
            )
            for a in op["arguments"]
        )
        result[op["name"]] = Operator(op["name"], op["schema"], arguments)
    return result
