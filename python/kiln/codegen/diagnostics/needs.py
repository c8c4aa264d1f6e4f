"""What is needed from a library: operators with optional kernel keys, read from a selection file
or a program, .pte or saved torch.export (``--ops`` names become needs in the CLI). A .pte
program's needs include the operators Kiln's XNNPACK delegate calls for its XnnpackBackend
delegate calls, and name the delegate call; a delegate call to another backend is a need of its
own, for a delegate the runner must register."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Need:
    """An operator something needs; ``keys`` empty means any dtype."""

    name: str
    keys: tuple[str, ...] = ()
    source: str = "--ops"
    # The delegate call whose delegate calls the op (e.g. "XnnpackBackend delegate at plan
    # 'forward', chain 0, instruction 0"); empty when the program calls it itself.
    delegate: str = ""
    program: str = ""  # the program needing it, when a program does


@dataclass(frozen=True)
class DelegateNeed:
    """A delegate call to a backend Kiln does not run itself: a runner must register it."""

    backend: str
    where: str  # e.g. "plan 'forward', chain 0, instruction 0"
    source: str  # the program


@dataclass(frozen=True)
class ModelNeeds:
    """What one program needs: operators, and delegates Kiln does not have."""

    ops: tuple[Need, ...]
    delegates: tuple[DelegateNeed, ...]


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


def _keys(native: set[str]) -> tuple[str, ...]:
    """The keys to check; none (any dtype) when one of them is the default key."""
    return () if "default" in native else tuple(sorted(native))


def needs_from_model(path: str) -> ModelNeeds:
    from kiln.codegen.selective_build.program_ops import program_ops

    found = program_ops(path)
    needs = []
    for name, keys in sorted(found.keys.items()):
        delegate = found.delegated.get(name, "")
        source = f"{path} ({delegate})" if delegate else path
        native = {k.native_string() for k in keys}
        needs.append(Need(name, _keys(native), source, delegate, path))
    needs += [Need(name, (), path, program=path) for name in sorted(found.unmapped)]
    delegates = tuple(DelegateNeed(b, where, path) for b, where in found.other_delegates)
    return ModelNeeds(tuple(needs), delegates)
