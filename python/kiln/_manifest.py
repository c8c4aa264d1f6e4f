"""The operator signatures of the built-in library, read from its generated manifest."""

from __future__ import annotations

import json
import re
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


# A written argument in a schema: "Tensor(a!) out", "Tensor(a!)[] out", "Tensor(b!)? x".
_WRITTEN = re.compile(r"Tensor\(\w+!\)(?:\[\])?\??\s+(\w+)")


@dataclass(frozen=True)
class Operator:
    name: str  # "aten::add.out"
    schema: str
    arguments: tuple[Argument, ...]
    # The argument each returned tensor is (None: a new tensor): the outs of an out variant,
    # self of an in-place op.
    returns: tuple[str | None, ...]

    @property
    def inputs(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.is_out)

    @property
    def outs(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.is_out)

    @property
    def written(self) -> frozenset[str]:
        """The arguments the operator writes: its outs, an in-place op's self and any other
        argument its schema marks `(a!)` (reshape_and_cache's caches)."""
        return frozenset(_WRITTEN.findall(self.schema))

    @property
    def return_slots(self) -> int:
        """Stack slots after the arguments: one per returned tensor that is not an out argument
        (the kernel's wrapper stores an in-place op's self there)."""
        outs = {a.name for a in self.outs}
        return sum(r is None or r not in outs for r in self.returns)


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
        outs = tuple(a.name for a in arguments if a.is_out)
        returns = tuple(op.get("returns", outs))  # a manifest before "returns": out variants
        result[op["name"]] = Operator(op["name"], op["schema"], arguments, returns)
    return result
