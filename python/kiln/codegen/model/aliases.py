"""``type_alias`` / ``dim_order_alias`` of an operator entry, and the kernel keys an ``arg_meta``
expands to (the cartesian product over the aliases it uses)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiln.codegen.model.kernel_keys import (
    DTYPE_CODES,
    KernelKey,
    expand_keys,
    is_dim_order,
    is_keyed_tensor,
)
from kiln.codegen.model.parse import (
    ListNode,
    MapNode,
    Node,
    ScalarNode,
    did_you_mean,
    expect_list,
    expect_map,
    expect_str,
    is_null,
)
from kiln.codegen.model.schema_types import normalize
from kiln.codegen.wording import with_article


@dataclass(frozen=True)
class Aliases:
    type_alias: dict[str, tuple[str, ...]]
    dim_order_alias: dict[str, tuple[tuple[int, ...], ...]]

    @classmethod
    def from_yaml(cls, entry: MapNode) -> Aliases:
        return cls(
            _type_alias(entry.get("type_alias")), _dim_order_alias(entry.get("dim_order_alias"))
        )

    def kernel_keys(self, node: Node, op_name: str, schema: Any) -> list[KernelKey]:
        """The keys of one ``arg_meta`` mapping of ``op_name`` (schema: a torchgen schema)."""
        return _arg_meta_keys(node, op_name, schema, self.type_alias, self.dim_order_alias)


def _type_alias(node: Node | None) -> dict[str, tuple[str, ...]]:
    if is_null(node):
        return {}
    assert node is not None
    fix = "write e.g. 'type_alias: {T0: [Float, Double]}'"
    aliases = expect_map(node, "'type_alias'", fix)
    result: dict[str, tuple[str, ...]] = {}
    for alias, value in aliases.items():
        items: tuple[Node, ...] = value.items if isinstance(value, ListNode) else (value,)
        if not items:
            raise value.error(f"type alias '{alias}' lists no dtypes", fix)
        dtypes: list[str] = []
        for item in items:
            dtype = expect_str(item, f"a dtype of type alias '{alias}'", fix)
            if dtype not in DTYPE_CODES:
                hint = did_you_mean(dtype, DTYPE_CODES)
                raise item.error(
                    f"unknown dtype '{dtype}' in type alias '{alias}'",
                    f"{hint}dtypes are {', '.join(DTYPE_CODES)}",
                )
            if dtype in dtypes:
                raise item.error(f"dtype '{dtype}' is listed twice in '{alias}'", "list it once")
            dtypes.append(dtype)
        result[alias] = tuple(dtypes)
    return result


def _dim_order_alias(node: Node | None) -> dict[str, tuple[tuple[int, ...], ...]]:
    """``D0: [0, 1, 2, 3]`` (one order) or ``D0: [[0, 1, 2, 3], [0, 2, 3, 1]]`` (several)."""
    if is_null(node):
        return {}
    assert node is not None
    fix = "write e.g. 'dim_order_alias: {D0: [0, 1, 2, 3]}' or '{D0: [[0, 1, 2, 3], [0, 2, 3, 1]]}'"
    aliases = expect_map(node, "'dim_order_alias'", fix)
    result: dict[str, tuple[tuple[int, ...], ...]] = {}
    for alias, value in aliases.items():
        items = expect_list(value, f"dim order alias '{alias}'", fix)
        nested = len(items) > 0 and all(isinstance(i, ListNode) for i in items)
        orders = (
            [_dim_order(i, alias, fix) for i in items]
            if nested
            else [_dim_order(items, alias, fix)]
        )
        if nested and len(set(orders)) != len(orders):
            raise value.error(f"dim order alias '{alias}' repeats a dim order", "list each once")
        result[alias] = tuple(orders)
    return result


def _dim_order(node: Node, alias: str, fix: str) -> tuple[int, ...]:
    items = expect_list(node, f"a dim order of '{alias}'", fix)
    order: list[int] = []
    for item in items:
        if not isinstance(item, ScalarNode) or type(item.value) is not int:
            raise item.error(f"dim order alias '{alias}' holds {item.describe()}, not an int", fix)
        order.append(item.value)
    if not is_dim_order(order):
        raise node.error(
            f"dim order {order} of '{alias}' is not a permutation of 0..{len(order) - 1}",
            "list each dimension index once, outermost first (e.g. [0, 2, 3, 1] for NHWC)",
        )
    return tuple(order)


def _expect_alias(
    pair: Node, arg_name: str, alias: str, defined: dict[str, Any], what: str, section: str
) -> None:
    """Refuses an ``arg_meta`` alias that the entry's ``section`` does not define."""
    if alias not in defined:
        raise pair.error(
            f"unknown {what} '{alias}' for '{arg_name}'",
            f"{did_you_mean(alias, defined)}define it under '{section}:' of this entry"
            + (f" (defined: {', '.join(defined)})" if defined else ""),
        )


def _arg_meta_keys(
    node: Node,
    op_name: str,
    schema: Any,
    type_alias: dict[str, tuple[str, ...]],
    dim_order_alias: dict[str, tuple[tuple[int, ...], ...]],
) -> list[KernelKey]:
    fix = "map each tensor argument to [type alias, dim order alias], e.g. 'self: [T0, D0]'"
    meta = expect_map(node, f"'arg_meta' of {op_name}", fix + ", or write 'arg_meta: null'")
    if not meta.entries:
        raise meta.error("'arg_meta' is empty", "write 'arg_meta: null' for the default kernel")
    arguments = {a.name: str(a.type) for a in schema.arguments.flat_all}
    tensors = [n for n, t in arguments.items() if is_keyed_tensor(t)]
    for arg_name, value in meta.items():
        if arg_name not in arguments:
            hint = did_you_mean(arg_name, arguments)
            raise meta.key_error(
                arg_name,
                f"arg_meta names '{arg_name}', which is not an argument of {op_name}",
                f"{hint}its tensor arguments are {', '.join(tensors) or 'none'}",
            )
        if arg_name not in tensors:
            raise meta.key_error(
                arg_name,
                f"arg_meta names '{arg_name}', which is {with_article(arguments[arg_name])}, "
                "not a tensor",
                f"kernel keys describe tensors only ({', '.join(tensors)}); remove '{arg_name}'",
            )
        pair = expect_list(value, f"arg_meta of '{arg_name}'", fix)
        if len(pair) != 2:
            raise pair.error(f"arg_meta of '{arg_name}' has {len(pair)} items, not 2", fix)
        dtype_alias = expect_str(pair.items[0], "a type alias", fix)
        order_alias = expect_str(pair.items[1], "a dim order alias", fix)
        _expect_alias(pair, arg_name, dtype_alias, type_alias, "type alias", "type_alias")
        _expect_alias(
            pair, arg_name, order_alias, dim_order_alias, "dim order alias", "dim_order_alias"
        )
    missing = [n for n in tensors if normalize(arguments[n]) == "Tensor" and n not in meta]
    if missing:
        raise meta.error(
            f"arg_meta leaves out tensor argument(s) {', '.join(missing)}",
            "a kernel key has one entry per tensor argument (outs included); list them all",
        )
    keyed = []
    for name in tensors:  # schema order, as the runtime builds keys
        if name in meta:
            pair_node = meta.entries[name]
            assert isinstance(pair_node, ListNode)
            items = [i.value for i in pair_node.items if isinstance(i, ScalarNode)]
            keyed.append((str(items[0]), str(items[1])))
    return expand_keys(keyed, type_alias, dim_order_alias)
