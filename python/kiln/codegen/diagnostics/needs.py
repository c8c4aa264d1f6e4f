"""What is needed from a library: operators with optional kernel keys, read from a selection file
or a program, .pte or saved torch.export (``--ops`` names become needs in the CLI)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Need:
    """An operator something needs; ``keys`` empty means any dtype."""

    name: str
    keys: tuple[str, ...] = ()
    source: str = "--ops"


def needs_from_selection(path: str) -> list[Need]:
    """Ops (and their kernel keys) of a selected_operators.yaml."""
    from kiln.codegen.selective_build.selector import load_selection

    selection = load_selection(path, None, False)
    needs = []
    for name in selection.builder.operators:
        metadata = selection.builder.et_kernel_metadata.get(name, [])
        keys = tuple(k for k in metadata if k != "default")
        needs.append(Need(name, keys, path))
    return needs


def needs_from_model(path: str) -> list[Need]:
    from kiln.codegen.selective_build.program_ops import program_ops

    found = program_ops(path)
    needs = [
        Need(name, tuple(sorted(k.native_string() for k in keys)), path)
        for name, keys in sorted(found.keys.items())
    ]
    needs += [Need(name, (), path) for name in sorted(found.unmapped)]
    return needs
