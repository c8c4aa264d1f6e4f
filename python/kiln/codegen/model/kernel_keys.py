"""Kernel keys: ``v1/<dtype>;<dim order>|...`` strings that name dtype/dim-order kernels.

One ``<dtype>;<dim order>`` entry per tensor argument (outs included) in schema order, exactly
what the runtime's ``build_kernel_key`` writes for a boxed stack. ``default`` is the fallback.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kiln.codegen.model.schema_types import normalize

KEY_VERSION = 1

# ScalarType codes (c10's). ExecuTorch cannot key Half and BFloat16; Kiln can.
DTYPE_CODES: dict[str, int] = {
    "Byte": 0,
    "Char": 1,
    "Short": 2,
    "Int": 3,
    "Long": 4,
    "Half": 5,
    "Float": 6,
    "Double": 7,
    "Bool": 11,
    "BFloat16": 15,
}
DTYPE_NAMES: dict[int, str] = {code: name for name, code in DTYPE_CODES.items()}


@dataclass(frozen=True, order=True)
class KeyArg:
    dtype: int
    dim_order: tuple[int, ...]

    def text(self) -> str:
        return f"{self.dtype};{','.join(str(d) for d in self.dim_order)}"


@dataclass(frozen=True, order=True)
class KernelKey:
    """A kernel key; ``args == ()`` is the default (fallback) kernel."""

    args: tuple[KeyArg, ...] = ()

    @property
    def is_default(self) -> bool:
        return not self.args

    def native_string(self) -> str:
        """ExecuTorch's spelling: ``default`` or ``v1/...`` (YAML, manifest, selection)."""
        return "default" if self.is_default else self.table_string()

    def table_string(self) -> str:
        """The runtime's spelling: ``""`` for the default kernel, else ``v1/...``."""
        if self.is_default:
            return ""
        return f"v{KEY_VERSION}/" + "|".join(arg.text() for arg in self.args)

    @staticmethod
    def parse(text: str) -> KernelKey:
        """Parses ``default`` or ``v<n>/<dtype>;<dims>|...``; raises ValueError when malformed."""
        if text == "default":
            return KernelKey()
        version, sep, body = text.partition("/")
        if not sep or not version.startswith("v") or not version[1:].isdigit():
            raise ValueError("a kernel key starts with 'v1/' (or is 'default')")
        if not body:
            raise ValueError("a kernel key names at least one tensor")
        args = []
        for part in body.split("|"):
            dtype_text, sep, dims_text = part.partition(";")
            if not sep or not dtype_text.isdigit():
                raise ValueError(f"'{part}' is not '<dtype code>;<dim order>'")
            dims_list = dims_text.split(",") if dims_text else []
            if not all(d.isdigit() for d in dims_list):
                raise ValueError(f"'{dims_text}' is not a comma-separated dim order")
            dims = tuple(int(d) for d in dims_list)
            args.append(KeyArg(int(dtype_text), dims))
        return KernelKey(tuple(args))

    def body(self) -> str:
        """The part after ``v<n>/``, which selection compares (versions are not compared)."""
        return self.table_string().partition("/")[2]


def is_keyed_tensor(schema_type: str) -> bool:
    """Whether kernel keys carry an entry for this argument (a single, maybe optional, tensor)."""
    return normalize(schema_type) in ("Tensor", "Tensor?")


def is_dim_order(order: Sequence[int]) -> bool:
    return sorted(order) == list(range(len(order)))


def expand_keys(
    tensor_args: Sequence[tuple[str, str]],
    type_alias: Mapping[str, Sequence[str]],
    dim_order_alias: Mapping[str, Sequence[tuple[int, ...]]],
) -> list[KernelKey]:
    """All keys for one ``arg_meta``: the cartesian product over the aliases it uses.

    ``tensor_args`` holds (type alias, dim-order alias) per keyed tensor argument in schema
    order. An alias used by several arguments takes the same value in each key. The aliases must
    exist (the caller has checked).
    """
    aliases: list[tuple[str, str]] = []  # ("T"/"D", alias) in first-use order
    for dtype_alias, order_alias in tensor_args:
        for entry in (("T", dtype_alias), ("D", order_alias)):
            if entry not in aliases:
                aliases.append(entry)
    choices: list[Sequence[object]] = []
    for kind, alias in aliases:
        choices.append(type_alias[alias] if kind == "T" else dim_order_alias[alias])
    keys = []
    for combination in itertools.product(*choices):
        chosen = dict(zip(aliases, combination, strict=True))
        args = []
        for dtype_alias, order_alias in tensor_args:
            dtype = DTYPE_CODES[str(chosen[("T", dtype_alias)])]
            order = chosen[("D", order_alias)]
            assert isinstance(order, tuple)
            args.append(KeyArg(dtype, order))
        keys.append(KernelKey(tuple(args)))
    return keys
