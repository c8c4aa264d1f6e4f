"""Which operators an exported program may call, and the out variant each graph operator lowers to.

A program calls an out-variant operator only when Kiln has a kernel for it (Kiln's
functions.yaml and custom_ops.yaml, read with the codegen's own model) and ExecuTorch's portable
library has it too (``portable_ops.py``), so that both runtimes run the file. Functional ATen
operators map to their out variants through torchgen's function groups, and view operators to
their ``_copy`` variants' out variants (``kiln.codegen.selective_build.program_ops.out_variants``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import torch

from kiln._errors import ExportError
from kiln._export.portable_ops import EXECUTORCH_PORTABLE_OPS

# The buffer write-back, an in-place copy that both runtimes have.
WRITE_BACK_OP = "aten::copy_"

# Views whose out variant Kiln and ExecuTorch share under another name.
_EXTRA_OUT_VARIANTS = {"_unsafe_view": "view_copy.out"}

_YAML_NAMES = ("functions.yaml", "custom_ops.yaml")


def operator_yaml_files() -> tuple[Path, ...]:
    """Kiln's operator YAML files: the source tree's when kiln runs from one, else the installed
    package's copies (under kiln/share/kiln)."""
    package = Path(__file__).resolve().parents[1]
    source_root = package.parents[1]
    if (source_root / "functions.yaml").is_file() and (source_root / "runtime").is_dir():
        return tuple(source_root / n for n in _YAML_NAMES if (source_root / n).is_file())
    import kiln

    for directory in kiln.__path__:
        share = Path(directory) / "share" / "kiln"
        if (share / "functions.yaml").is_file():
            return tuple(share / n for n in _YAML_NAMES if (share / n).is_file())
    return ()


@lru_cache(maxsize=1)
def kiln_operators() -> frozenset[str]:
    """Every operator with a kernel in Kiln's YAML files, as ``ns::name.overload``."""
    from kiln.codegen.errors import UserError
    from kiln.codegen.model.entries import YamlFile
    from kiln.codegen.model.schemas import AtenSchemas

    files = operator_yaml_files()
    if not files:
        raise ExportError(
            "cannot find Kiln's functions.yaml (neither in a source tree nor in the installed "
            "package); reinstall kiln"
        )
    schemas = AtenSchemas()
    names: set[str] = set()
    for path in files:
        try:
            parsed = YamlFile.from_yaml(os.fspath(path), schemas)
        except UserError as error:
            raise ExportError(f"Kiln's operator list is unreadable: {error}") from None
        names.update(op.name for op in parsed.ops if op.kernels)
    return frozenset(names)


@lru_cache(maxsize=1)
def _executorch_namespaces() -> frozenset[str]:
    return frozenset(name.split("::")[0] for name in EXECUTORCH_PORTABLE_OPS)


def is_custom(name: str) -> bool:
    """Whether ``name`` (``kiln::rms_norm.out``) is in a namespace of Kiln's own operators."""
    return name.split("::")[0] not in _executorch_namespaces()


def unavailable_reason(name: str) -> str | None:
    """Why a program may not call operator ``name`` (``aten::add.out``), or None if it may."""
    in_kiln = name in kiln_operators()
    in_executorch = name in EXECUTORCH_PORTABLE_OPS
    if in_kiln and (in_executorch or is_custom(name)):
        return None
    if not in_kiln and not in_executorch:
        return "neither Kiln nor ExecuTorch's portable library has a kernel for it"
    if not in_kiln:
        files = ", ".join(p.name for p in operator_yaml_files())
        return f"Kiln has no kernel for it (not in {files})"
    return (
        "ExecuTorch 1.5.1's portable library has no kernel for it, so its runtime could not run it"
    )


@lru_cache(maxsize=1)
def _out_variants() -> dict[str, str]:
    from kiln.codegen.selective_build.program_ops import out_variants

    return {**out_variants(), **_EXTRA_OUT_VARIANTS}


def functional_name(op: torch._ops.OpOverload) -> str:
    """``name.overload`` of an ATen operator, without namespace (``add.Tensor``, ``relu``)."""
    base = op._schema.name.split("::", 1)[1]
    overload = op._overloadname
    return base if overload == "default" else f"{base}.{overload}"


def out_variant(op: torch._ops.OpOverload) -> str | None:
    """The out variant (``aten::add.out``) an ATen graph operator lowers to; None if it has none.

    A Kiln custom operator's functional form (``kiln::rms_norm``) lowers to its ``.out``
    overload, and a named one (``kiln::paged_attention.paged_layout``) to that name's ``_out``
    overload (``.paged_layout_out``, as kiln.torch_ops names them); operators that write their
    arguments arrive wrapped in auto_functionalized, see ``mutations.py``."""
    if op.namespace != "aten":
        if op._schema.is_mutable:
            return None
        overload = op._overloadname
        name = f"{op._schema.name}.{'out' if overload == 'default' else overload + '_out'}"
        return name if name in kiln_operators() and is_custom(name) else None
    found = _out_variants().get(functional_name(op))
    return None if found is None else f"aten::{found}"


@dataclass(frozen=True)
class OutOperator:
    name: str  # aten::add.out
    overload: torch._ops.OpOverload

    @property
    def schema(self) -> torch._C.FunctionSchema:
        return self.overload._schema


def resolve(name: str) -> OutOperator:
    """torch's operator for ``aten::name.overload``."""
    namespace, rest = name.split("::", 1)
    base, _, overload = rest.partition(".")
    packet = getattr(getattr(torch.ops, namespace), base)
    return OutOperator(name, getattr(packet, overload or "default"))
