"""The typed, frozen model of functions.yaml / custom_ops.yaml, built with file:line errors.

``YamlFile.from_yaml(path, schemas)`` reads one file; each list entry becomes an ``OpEntry``
holding its parsed schema and its ``KernelEntry`` list, one per (backend, kernel key) after the
``type_alias`` / ``dim_order_alias`` product is expanded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kiln.codegen.errors import UserError
from kiln.codegen.model.aliases import Aliases
from kiln.codegen.model.backends import BACKENDS
from kiln.codegen.model.identifiers import RESERVED_NAMESPACES, is_identifier
from kiln.codegen.model.kernel_keys import KernelKey
from kiln.codegen.model.parse import (
    MapNode,
    Node,
    check_keys,
    did_you_mean,
    expect_list,
    expect_map,
    expect_str,
    is_null,
    load_yaml,
)
from kiln.codegen.model.schema_types import SUPPORTED_TYPES
from kiln.codegen.model.schemas import AtenSchemas

# Keys Kiln reads on an operator entry.
ENTRY_KEYS = frozenset({"op", "func", "kernels", "type_alias", "dim_order_alias", "dispatch"})
# native_functions.yaml keys ExecuTorch passes through its parser; accepted and ignored.
IGNORED_ENTRY_KEYS = frozenset(
    {
        "variants",
        "tags",
        "cpp_no_default_args",
        "manual_kernel_registration",
        "manual_cpp_binding",
        "device_guard",
        "device_check",
        "structured",
        "structured_delegate",
        "structured_inherits",
        "precomputed",
        "python_module",
        "category_override",
        "autogen",
        "ufunc_inner_loop",
        "use_const_ref_for_mutable_tensors",
    }
)
KERNEL_KEYS = frozenset({"arg_meta", "kernel_name", "backend"})

# ATen mode binds libtorch's kernels as adapters in this namespace (see api/aten.py). Users cannot
# name it: the codegen appends ``::native`` to theirs.
LIBTORCH_NAMESPACE = "kiln::libtorch"
# Where libtorch kernels say they come from, in kernel tables and manifests.
LIBTORCH_ORIGIN = "libtorch"

_KERNEL_NAME_FIX = "write 'namespace::function', e.g. 'kiln::portable::add_out'"


@dataclass(frozen=True, order=True)
class SourceLoc:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"

    def short(self) -> str:
        """``basename:line``, the origin recorded in kernel tables."""
        return f"{self.path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{self.line}"


@dataclass(frozen=True)
class KernelEntry:
    """One kernel: backend, key and the C++ function ``<namespace>::native::<function>``."""

    backend: str
    key: KernelKey
    kernel_name: str  # as written in YAML
    namespace: str  # C++ namespace with ``native`` appended
    function: str
    source: SourceLoc

    @property
    def cpp_function(self) -> str:
        return f"{self.namespace}::{self.function}"

    @property
    def backend_index(self) -> int:
        return BACKENDS.index(self.backend)

    @property
    def is_libtorch(self) -> bool:
        """An ATen-mode kernel: libtorch's, bound through an adapter the codegen writes."""
        return self.namespace == LIBTORCH_NAMESPACE

    @property
    def origin(self) -> str:
        """Where the kernel comes from, as kernel tables record it (``functions.yaml:12``)."""
        return LIBTORCH_ORIGIN if self.is_libtorch else self.source.short()

    @classmethod
    def from_yaml(
        cls, node: Node, op_name: str, schema: Any, aliases: Aliases
    ) -> list[KernelEntry]:
        """The kernels of one ``kernels:`` item: one per key its ``arg_meta`` expands to."""
        entry = expect_map(
            node, f"a kernel of {op_name}", "write '- arg_meta: null\n  kernel_name: ns::f'"
        )
        check_keys(entry, KERNEL_KEYS, f"a kernel of {op_name}")
        name_node = entry.get("kernel_name")
        if name_node is None:
            raise entry.error(
                f"a kernel of {op_name} has no 'kernel_name'",
                f"add 'kernel_name:'; {_KERNEL_NAME_FIX}",
            )
        kernel_name = expect_str(name_node, "'kernel_name'", _KERNEL_NAME_FIX)
        namespace, function = _split_kernel_name(name_node, kernel_name, op_name)
        backend = "portable"
        backend_node = entry.get("backend")
        if backend_node is not None:
            backend = expect_str(backend_node, "'backend'", f"use one of {', '.join(BACKENDS)}")
            if backend not in BACKENDS:
                hint = did_you_mean(backend, BACKENDS)
                raise backend_node.error(
                    f"unknown backend '{backend}'", f"{hint}backends are {', '.join(BACKENDS)}"
                )
        meta_node = entry.get("arg_meta")
        if meta_node is None or is_null(meta_node):
            keys = [KernelKey()]
        else:
            keys = aliases.kernel_keys(meta_node, op_name, schema)
        source = SourceLoc(entry.path, entry.line)
        return [cls(backend, key, kernel_name, namespace, function, source) for key in keys]


@dataclass(frozen=True)
class OpEntry:
    name: str  # "aten::add.out"
    namespace: str  # "aten"
    schema: Any  # torchgen.model.FunctionSchema
    kernels: tuple[KernelEntry, ...]
    source: SourceLoc
    out_overloads: tuple[str, ...] = ()  # for a non-out ATen op: its out variants, as a hint

    @property
    def schema_text(self) -> str:
        return f"{self.namespace}::{self.schema}"

    @classmethod
    def from_yaml(cls, node: Node, schemas: AtenSchemas) -> OpEntry:
        entry = expect_map(node, "an operator entry", "write '- op: add.out' or '- func: ...'")
        check_keys(
            entry,
            ENTRY_KEYS | IGNORED_ENTRY_KEYS,
            "an operator entry",
            shown=[*sorted(ENTRY_KEYS), "and ExecuTorch's ignored ones (variants, tags, ...)"],
        )
        has_op, has_func = "op" in entry, "func" in entry
        if has_op == has_func:
            raise entry.error(
                "an operator entry needs exactly one of 'op:' or 'func:'"
                + (" (it has both)" if has_op else ""),
                "use 'op: add.out' for ATen ops or 'func: ns::name.overload(...) -> ...' for a "
                "full schema",
            )
        if has_op:
            namespace, schema = _aten_op(entry, schemas)
        else:
            namespace, schema = _func_schema(entry)
        name = f"{namespace}::{schema.name}"
        source = SourceLoc(entry.path, entry.line)
        aliases = Aliases.from_yaml(entry)
        kernels: list[KernelEntry] = []
        kernels_node = entry.get("kernels")
        if not is_null(kernels_node):
            assert kernels_node is not None
            kernel_list = expect_list(kernels_node, f"'kernels' of {name}", "use a list of kernels")
            for item in kernel_list:
                kernels += KernelEntry.from_yaml(item, name, schema, aliases)
        kernels += _dispatch_kernels(entry.get("dispatch"), name)
        _check_unique(kernels, name)
        out_overloads: tuple[str, ...] = ()
        if has_op and not schema.is_out_fn():
            base = str(schema.name.name.base)
            out_overloads = tuple(schemas.index.out_overloads_of(base))
        return cls(name, namespace, schema, tuple(kernels), source, out_overloads)


@dataclass(frozen=True)
class YamlFile:
    path: str
    ops: tuple[OpEntry, ...]

    @classmethod
    def from_yaml(cls, path: str, schemas: AtenSchemas) -> YamlFile:
        root = load_yaml(path)
        if root is None:
            return cls(path, ())
        entries = expect_list(
            root, "the top level of an operator YAML", "write a list of '- op:' / '- func:' entries"
        )
        return cls(path, tuple(OpEntry.from_yaml(item, schemas) for item in entries))


# ---- operator names and schemas ----


def _aten_op(entry: MapNode, schemas: AtenSchemas) -> tuple[str, Any]:
    op_node = entry.entries["op"]
    text = expect_str(op_node, "'op'", "write an ATen operator name such as 'add.out'")
    namespace, sep, name = text.rpartition("::")
    if sep and namespace != "aten":
        raise op_node.error(
            f"'op: {text}' names an operator outside aten",
            "'op:' looks operators up in ATen's native_functions.yaml; give other namespaces a "
            "full schema with 'func: ns::name.overload(...) -> ...'",
        )
    schema_text = schemas.index.lookup(name)
    if schema_text is None:
        suggestions = schemas.index.suggest(name)
        hint = ("did you mean " + " or ".join(suggestions) + "? ") if suggestions else ""
        raise op_node.error(
            f"unknown ATen operator '{name}' (not in torchgen's native_functions.yaml)",
            f"{hint}use an ATen out-variant name, or a 'func:' entry with a full schema for a "
            "custom op",
        )
    from torchgen.model import FunctionSchema

    return "aten", FunctionSchema.parse(schema_text)


def _func_schema(entry: MapNode) -> tuple[str, Any]:
    func_node = entry.entries["func"]
    fix = "write 'func: ns::name.overload(Tensor self, *, Tensor(a!) out) -> Tensor(a!)'"
    text = expect_str(func_node, "'func'", fix).strip()
    head, paren, tail = text.partition("(")
    namespace, sep, bare = head.rpartition("::")
    if not sep:
        namespace = "aten"
    elif "::" in namespace or not is_identifier(namespace):
        raise func_node.error(f"'{namespace}' is not a valid operator namespace", fix)
    elif namespace in RESERVED_NAMESPACES:
        raise func_node.error(
            f"operator namespace '{namespace}' is reserved",
            "pick another namespace, e.g. 'my_ops::'",
        )
    from torchgen.model import FunctionSchema

    try:
        schema = FunctionSchema.parse(bare.strip() + paren + tail)
    except Exception as exc:  # torchgen reports schema problems with assorted exceptions
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        annotated = re.fullmatch(r"unrecognized type (\w+)(\([^)]*\))\S*", detail)
        if annotated is not None:
            type_name, annotation = annotated.groups()
            found = re.search(rf"{re.escape(type_name + annotation)}\S*\s+(\w+)", paren + tail)
            argument = f"argument '{found.group(1)}'" if found else "an argument"
            raise func_node.error(
                f"{namespace}::{bare.strip()}: {argument} of type {type_name} is annotated "
                f"{annotation}; only tensors can be written or aliased",
                "drop the annotation (a Tensor(a!) argument is how an op writes a result)",
            ) from None
        unknown = re.fullmatch(r"unrecognized type (\w+)", detail)
        if unknown is not None:
            type_name = unknown.group(1)
            found = re.search(rf"\b{re.escape(type_name)}\S*\s+(\w+)", paren + tail)
            argument = f"argument '{found.group(1)}'" if found else "an argument"
            raise func_node.error(
                f"{argument} has type {type_name}, which Kiln cannot unbox (torchgen does not "
                "know it either)",
                f"Kiln kernels take {SUPPORTED_TYPES}; change the schema",
            ) from None
        raise func_node.error(f"invalid schema '{text}': {detail}", fix) from None
    return namespace, schema


# ---- kernels ----


def _split_kernel_name(node: Node, text: str, op_name: str) -> tuple[str, str]:
    parts = text.split("::")
    if len(parts) < 2:
        raise node.error(
            f"kernel_name '{text}' of {op_name} has no namespace",
            f"{_KERNEL_NAME_FIX}; it binds the C++ function 'namespace::native::function'",
        )
    for index, part in enumerate(parts):
        if not is_identifier(part):
            raise node.error(
                f"kernel_name '{text}': '{part}' is not a C++ identifier", _KERNEL_NAME_FIX
            )
        if part == "std" or (part == "kiln" and index > 0):
            raise node.error(
                f"kernel_name '{text}' uses the reserved namespace '{part}' inside another",
                "use a namespace such as 'my_kernels::'",
            )
    if parts[-2] == "native":
        namespace = "::".join(parts[:-2])
        raise node.error(
            f"kernel_name '{text}' already ends in '::native::{parts[-1]}'",
            f"the codegen appends '::native' itself; write '{namespace}::{parts[-1]}'",
        )
    return "::".join(parts[:-1]) + "::native", parts[-1]


def _dispatch_kernels(node: Node | None, op_name: str) -> list[KernelEntry]:
    """Legacy ``dispatch: {CPU: ns::f}`` is a default portable kernel; other keys are ignored."""
    if is_null(node):
        return []
    assert node is not None
    dispatch = expect_map(
        node, f"'dispatch' of {op_name}", "write 'dispatch: {CPU: ns::function}' or drop it"
    )
    kernels = []
    for keys, value in dispatch.items():
        if "CPU" not in [k.strip() for k in keys.split(",")]:
            continue
        kernel_name = expect_str(value, "a dispatch kernel", _KERNEL_NAME_FIX)
        namespace, function = _split_kernel_name(value, kernel_name, op_name)
        source = SourceLoc(dispatch.path, dispatch.key_line(keys))
        kernels.append(
            KernelEntry("portable", KernelKey(), kernel_name, namespace, function, source)
        )
    return kernels


def _check_unique(kernels: list[KernelEntry], op_name: str) -> None:
    seen: dict[tuple[str, KernelKey], KernelEntry] = {}
    for kernel in sorted(kernels, key=lambda k: k.source):
        slot = (kernel.backend, kernel.key)
        first = seen.get(slot)
        if first is not None:
            raise UserError(
                kernel.source.path,
                kernel.source.line,
                f"{op_name} has two {kernel.backend} kernels for key "
                f"'{kernel.key.native_string()}' (the other is at {first.source})",
                "keep one; each (backend, kernel key) may have only one kernel",
            )
        seen[slot] = kernel
