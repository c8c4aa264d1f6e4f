"""Operator and dtype selection: the union of a selected_operators.yaml, --root-ops and
--include-all-ops, held in torchgen's ``SelectiveBuilder``.

Kiln reads the selection file itself first, so every mistake points at its line, then hands the
checked document to ``SelectiveBuilder.from_yaml_dict``. Sources combine as a union: an operator
named by ``--root-ops`` keeps all its kernels even when the selection file restricts its dtypes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kiln.codegen.errors import UserError
from kiln.codegen.model.entries import SourceLoc
from kiln.codegen.model.kernel_keys import KernelKey
from kiln.codegen.model.parse import (
    MapNode,
    Node,
    check_keys,
    expect_bool,
    expect_list,
    expect_map,
    expect_str,
    is_null,
    load_yaml,
    to_python,
)

TOP_LEVEL_KEYS = frozenset(
    {
        "include_all_non_op_selectives",
        "include_all_operators",
        "debug_info",
        "operators",
        "kernel_metadata",
        "et_kernel_metadata",
        "custom_classes",
        "build_features",
    }
)
OPERATOR_KEYS = frozenset(
    {"name", "is_root_operator", "is_used_for_training", "include_all_overloads", "debug_info"}
)
_OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?\Z")
ROOT_OPS_FLAG = "--root-ops"


@dataclass(frozen=True)
class Request:
    """An operator the user named explicitly, and where."""

    name: str
    origin: SourceLoc | None  # None: the --root-ops flag
    all_overloads: bool

    def where(self) -> tuple[str, int | None]:
        if self.origin is None:
            return ROOT_OPS_FLAG, None
        return self.origin.path, self.origin.line


@dataclass(frozen=True)
class Selection:
    builder: Any  # torchgen SelectiveBuilder
    requests: tuple[Request, ...]
    metadata_origins: dict[str, SourceLoc] = field(hash=False)
    selected_ops_path: str | None = None

    @property
    def include_all(self) -> bool:
        return bool(self.builder.include_all_operators)

    def is_selected(self, op_name: str) -> bool:
        return bool(self.builder.is_operator_selected(op_name))

    def root_ops(self) -> list[str]:
        return sorted(n for n, op in self.builder.operators.items() if op.is_root_operator)

    def model_keys(self, op_name: str) -> list[KernelKey] | None:
        """Kernel keys the selection asks for, or None when it takes every kernel."""
        if self.include_all:
            return None
        metadata = self.builder.et_kernel_metadata.get(op_name)
        if metadata is None or "default" in metadata:
            return None
        return [KernelKey.parse(text) for text in metadata]

    def select_kernel_keys(self, op_name: str, keys: list[KernelKey]) -> list[KernelKey]:
        """The subset of one backend's ``keys`` this selection needs (all when unrestricted)."""
        wanted = self.model_keys(op_name)
        if wanted is None:
            return list(keys)
        natives = [key.native_string() for key in keys]
        try:
            chosen = set(self.builder.et_get_selected_kernels(op_name, natives))
        except Exception:  # torchgen raises when this backend lacks a key and a default
            bodies = {key.body() for key in wanted}
            chosen = {key.native_string() for key in keys if key.args and key.body() in bodies}
        return [key for key in keys if key.native_string() in chosen]

    def dtype_mask(self, op_name: str) -> int | None:
        """Bit ``1 << code`` per ScalarType the selection uses; None when unrestricted."""
        wanted = self.model_keys(op_name)
        if wanted is None:
            return None
        mask = 0
        for key in wanted:
            for arg in key.args:
                if arg.dtype < 64:
                    mask |= 1 << arg.dtype
        return mask


def _builder(data: dict[str, object]) -> Any:
    from torchgen.selective_build.selector import (
        SelectiveBuilder,
    )

    return SelectiveBuilder.from_yaml_dict(data)


def _combine(builders: list[Any]) -> Any:
    from torchgen.selective_build.selector import (
        combine_selective_builders,
    )

    combined = builders[0]
    for builder in builders[1:]:
        combined = combine_selective_builders(combined, builder)
    return combined


def parse_root_ops(text: str) -> list[str]:
    names = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        if "::" not in name:
            name = "aten::" + name
        if not _OP_NAME.match(name):
            raise UserError(
                ROOT_OPS_FLAG,
                None,
                f"'{raw.strip()}' is not an operator name",
                "write names like 'aten::add.out' or 'add.out', separated by commas",
            )
        names.append(name)
    return names


def _check_op_name(node: MapNode, name: str) -> None:
    if "::" not in name:
        raise node.key_error(
            name, f"operator '{name}' has no namespace", f"write 'aten::{name}' (or its namespace)"
        )


def _check_selection(root: MapNode) -> dict[str, SourceLoc]:
    """Validates a selected_operators.yaml; returns where each et_kernel_metadata entry is."""
    check_keys(root, TOP_LEVEL_KEYS, "a selected_operators.yaml")
    for flag in ("include_all_operators", "include_all_non_op_selectives"):
        if flag in root:
            expect_bool(root.entries[flag], f"'{flag}'")
    for list_key in ("debug_info", "custom_classes", "build_features"):
        value = root.get(list_key)
        if value is not None and not is_null(value):
            expect_list(value, f"'{list_key}'", "write a list")
    operators = root.get("operators")
    if operators is not None and not is_null(operators):
        ops = expect_map(operators, "'operators'", "map operator names to their flags")
        for name, info in ops.items():
            _check_op_name(ops, name)
            if is_null(info):
                continue
            flags = expect_map(
                info, f"the entry of '{name}'", "write e.g. '{is_root_operator: true}'"
            )
            check_keys(flags, OPERATOR_KEYS, f"the entry of '{name}'")
            for key, value in flags.items():
                if key == "name":
                    if expect_str(value, "'name'", f"write '{name}'") != name:
                        raise value.error(
                            f"'name' differs from the key '{name}'", f"write '{name}'"
                        )
                elif key == "debug_info":
                    expect_list(value, "'debug_info'", "write a list")
                else:
                    expect_bool(value, f"'{key}'")
    origins: dict[str, SourceLoc] = {}
    for map_key in ("kernel_metadata", "et_kernel_metadata"):
        value = root.get(map_key)
        if value is None or is_null(value):
            continue
        metadata = expect_map(value, f"'{map_key}'", "map names to lists of strings")
        for name, keys in metadata.items():
            items = expect_list(keys, f"'{map_key}' of '{name}'", "write a list of strings")
            for item in items:
                text = expect_str(item, f"an entry of '{name}'", "write strings")
                if map_key == "et_kernel_metadata":
                    _check_kernel_key(item, text)
            if map_key == "et_kernel_metadata":
                _check_op_name(metadata, name)
                origins[name] = SourceLoc(metadata.path, metadata.key_line(name))
    return origins


def _check_kernel_key(node: Node, text: str) -> None:
    try:
        KernelKey.parse(text)
    except ValueError as exc:
        raise node.error(
            f"bad kernel key '{text}': {exc}",
            "write 'default' or 'v1/<dtype code>;<dim order>|...', e.g. 'v1/6;0,1|6;0,1'",
        ) from None


def _requests_from_file(root: MapNode) -> list[Request]:
    operators = root.get("operators")
    if not isinstance(operators, MapNode):
        return []
    requests = []
    for name, info in operators.items():
        all_overloads = False
        if isinstance(info, MapNode):
            flag = info.get("include_all_overloads")
            all_overloads = flag is not None and to_python(flag) is True
        origin = SourceLoc(operators.path, operators.key_line(name))
        requests.append(Request(name, origin, all_overloads and "." not in name))
    return requests


def load_selection(
    selected_ops: str | None, root_ops: str | None, include_all_ops: bool
) -> Selection:
    """The union of the given sources; everything when none is given."""
    builders: list[Any] = []
    requests: list[Request] = []
    origins: dict[str, SourceLoc] = {}
    if selected_ops is not None:
        root = load_yaml(selected_ops)
        data: dict[str, object] = {}
        if root is not None:
            checked = expect_map(
                root,
                "the top level of a selected_operators.yaml",
                "write 'operators:' / 'include_all_operators:' / 'et_kernel_metadata:' keys",
            )
            origins = _check_selection(checked)
            requests += _requests_from_file(checked)
            plain = to_python(checked)
            assert isinstance(plain, dict)
            data = {k: v for k, v in plain.items() if v is not None}
            if isinstance(data.get("operators"), dict):
                ops = data["operators"]
                assert isinstance(ops, dict)
                data["operators"] = {k: (v if v is not None else {}) for k, v in ops.items()}
        try:
            builders.append(_builder(data))
        except Exception as exc:  # torchgen's own checks, should ours miss one
            raise UserError(
                selected_ops, None, f"invalid selection: {exc}", "fix the file"
            ) from None
    if root_ops is not None:
        names = parse_root_ops(root_ops)
        operators = {
            name: {
                "is_root_operator": True,
                "is_used_for_training": False,
                "include_all_overloads": "." not in name,
            }
            for name in names
        }
        # "default" keeps every kernel of a root op even if the selection file narrows it.
        metadata = {name: ["default"] for name in names}
        builders.append(_builder({"operators": operators, "et_kernel_metadata": metadata}))
        requests += [Request(name, None, "." not in name) for name in names]
    if include_all_ops or not builders:
        builders.append(_builder({"include_all_operators": True}))
    return Selection(_combine(builders), tuple(requests), origins, selected_ops)
