"""Strict YAML loading: every value keeps its file and line so errors can point at it.

PyYAML composes the document into nodes (with the C loader when available); this module turns
them into ``MapNode`` / ``ListNode`` / ``ScalarNode`` objects instead of plain Python values, and
offers ``expect_*`` helpers that raise ``UserError`` at the node's line.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

import yaml

from kiln.codegen.errors import UserError

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SCALAR_CONSTRUCTOR = yaml.constructor.SafeConstructor()


@dataclass(frozen=True)
class Node:
    path: str
    line: int

    def error(self, message: str, fix: str) -> UserError:
        return UserError(self.path, self.line, message, fix)

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class ScalarNode(Node):
    value: object

    def describe(self) -> str:
        if self.value is None:
            return "null"
        if isinstance(self.value, bool):
            return "a boolean"
        if isinstance(self.value, int):
            return "an integer"
        if isinstance(self.value, float):
            return "a number"
        if isinstance(self.value, str):
            return "a string"
        return type(self.value).__name__


@dataclass(frozen=True)
class ListNode(Node):
    items: tuple[Node, ...]

    def describe(self) -> str:
        return "a list"

    def __iter__(self) -> Iterator[Node]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class MapNode(Node):
    entries: dict[str, Node] = field(hash=False)
    key_lines: dict[str, int] = field(hash=False)

    def describe(self) -> str:
        return "a mapping"

    def get(self, key: str) -> Node | None:
        return self.entries.get(key)

    def key_line(self, key: str) -> int:
        return self.key_lines.get(key, self.line)

    def key_error(self, key: str, message: str, fix: str) -> UserError:
        return UserError(self.path, self.key_line(key), message, fix)

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def items(self) -> Iterator[tuple[str, Node]]:
        return iter(self.entries.items())


def load_yaml(path: str) -> Node | None:
    """Reads and composes one YAML document; None for an empty file."""
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except FileNotFoundError:
        raise UserError(
            path, None, "file not found", "check the path given to the generator"
        ) from None
    except OSError as exc:
        message = f"cannot read the file ({exc.strerror})"
        raise UserError(path, None, message, "check the path and permissions") from None
    except UnicodeDecodeError as exc:
        message = f"not UTF-8 text ({exc.reason})"
        raise UserError(path, None, message, "save the file as UTF-8") from None
    return parse_yaml_text(text, path)


def parse_yaml_text(text: str, path: str) -> Node | None:
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise UserError(
            path, line, f"YAML syntax error: {problem}", "fix the YAML syntax"
        ) from None
    except yaml.YAMLError as exc:
        raise UserError(path, None, f"YAML error: {exc}", "fix the YAML syntax") from None
    if root is None:
        return None
    return _convert(root, path)


def _convert(node: yaml.Node, path: str) -> Node:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        entries: dict[str, Node] = {}
        key_lines: dict[str, int] = {}
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise UserError(path, key_line, "a mapping key is not a plain value", "use a name")
            key = _construct_scalar(key_node, path)
            if not isinstance(key, str):
                key = key_node.value
            if key in entries:
                raise UserError(
                    path,
                    key_line,
                    f"duplicate key '{key}' (first at line {key_lines[key]})",
                    "remove one of them",
                )
            entries[key] = _convert(value_node, path)
            key_lines[key] = key_line
        return MapNode(path, line, entries, key_lines)
    if isinstance(node, yaml.SequenceNode):
        return ListNode(path, line, tuple(_convert(item, path) for item in node.value))
    assert isinstance(node, yaml.ScalarNode)
    return ScalarNode(path, line, _construct_scalar(node, path))


def _construct_scalar(node: yaml.ScalarNode, path: str) -> object:
    try:
        return _SCALAR_CONSTRUCTOR.construct_object(node, deep=True)
    except yaml.MarkedYAMLError as exc:
        line = node.start_mark.line + 1
        raise UserError(path, line, f"bad YAML value: {exc.problem}", "fix the value") from None


# ---- typed accessors ----


def expect_map(node: Node, what: str, fix: str) -> MapNode:
    if not isinstance(node, MapNode):
        raise node.error(f"{what} must be a mapping, got {node.describe()}", fix)
    return node


def expect_list(node: Node, what: str, fix: str) -> ListNode:
    if not isinstance(node, ListNode):
        raise node.error(f"{what} must be a list, got {node.describe()}", fix)
    return node


def expect_str(node: Node, what: str, fix: str) -> str:
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str) or not node.value:
        got = "an empty string" if isinstance(node, ScalarNode) and node.value == "" else None
        raise node.error(f"{what} must be a non-empty string, got {got or node.describe()}", fix)
    return node.value


def expect_bool(node: Node, what: str) -> bool:
    if not isinstance(node, ScalarNode) or not isinstance(node.value, bool):
        raise node.error(
            f"{what} must be true or false, got {node.describe()}", "write true or false"
        )
    return node.value


def is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node, ScalarNode) and node.value is None)


def closest(word: str, candidates: Collection[str], count: int = 3) -> list[str]:
    return difflib.get_close_matches(word, list(candidates), n=count, cutoff=0.6)


def did_you_mean(word: str, candidates: Collection[str]) -> str:
    matches = closest(word, candidates)
    if not matches:
        return ""
    return "did you mean " + " or ".join(f"'{m}'" for m in matches) + "? "


def check_keys(
    node: MapNode, allowed: Collection[str], what: str, shown: Collection[str] | None = None
) -> None:
    """Rejects keys outside ``allowed``, suggesting the closest; the fix lists ``shown`` keys
    (default: all allowed keys)."""
    for key in node.entries:
        if key not in allowed:
            hint = did_you_mean(key, allowed)
            listed = ", ".join(shown if shown is not None else sorted(allowed))
            raise node.key_error(
                key, f"unknown key '{key}' in {what}", f"{hint}known keys: {listed}"
            )


def to_python(node: Node) -> object:
    """Plain Python values (dict / list / scalars) for handing a checked document to torchgen."""
    if isinstance(node, MapNode):
        return {key: to_python(value) for key, value in node.items()}
    if isinstance(node, ListNode):
        return [to_python(item) for item in node]
    assert isinstance(node, ScalarNode)
    return node.value
