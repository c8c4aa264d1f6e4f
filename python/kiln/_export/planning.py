"""Memory planning: where each non-constant tensor lives in the program's memory arena.

Every tensor that is not a constant (inputs, intermediates, outputs, mutable buffers) gets an
offset in one arena (ExecuTorch's memory id 1). A tensor is live from the step that first holds
it to the last step that reads it: inputs from before the first call, outputs until after the
last, mutable buffers always (their value persists across runs). Tensors whose lifetimes do not
overlap share memory; an alias (a view) has the memory of the tensor it views, which stays live
as long as any of its aliases is. Placement is greedy: each tensor at the lowest aligned offset
free for its whole lifetime, trying a few orders (largest first, longest-lived first, ...) and
keeping the smallest arena.
"""

from __future__ import annotations

from dataclasses import dataclass

from kiln._export.graph import LoweredProgram, Role, tensors_of

# Offsets (and so data pointers) are multiples of this; ExecuTorch uses 16 as well.
TENSOR_ALIGNMENT = 16
ARENA_ID = 1  # ExecuTorch's memory id of the first planned arena (0 is reserved)


@dataclass(frozen=True)
class Lifetime:
    first: int  # steps: 0 is before the first call, call i is step i + 1
    last: int

    def overlaps(self, other: Lifetime) -> bool:
        return self.first <= other.last and other.first <= self.last


@dataclass(frozen=True)
class MemoryPlan:
    offsets: dict[int, int]  # tensor index -> byte offset in the arena
    arena_size: int


def align(size: int, alignment: int = TENSOR_ALIGNMENT) -> int:
    return (size + alignment - 1) // alignment * alignment


def lifetimes(program: LoweredProgram) -> dict[int, Lifetime]:
    """The lifetime of every planned tensor (all but constants)."""
    end = len(program.calls) + 1
    first: dict[int, int] = {}
    last: dict[int, int] = {}

    def touch(tensor: int, step: int) -> None:
        root = program.tensors[tensor].alias_of
        tensor = tensor if root is None else root  # an alias keeps its memory's owner alive
        first[tensor] = min(first.get(tensor, step), step)
        last[tensor] = max(last.get(tensor, step), step)

    for tensor in program.inputs:
        touch(tensor, 0)
    for step, call in enumerate(program.calls, start=1):
        for arg in (*call.args, *(() if call.result is None else (call.result,))):
            for tensor in tensors_of(arg):
                touch(tensor, step)
    for output in program.outputs:
        for tensor in tensors_of(output):
            touch(tensor, end)
    for index, spec in enumerate(program.tensors):
        if spec.role == Role.BUFFER:
            touch(index, 0)
            touch(index, end)
    return {
        tensor: Lifetime(first[tensor], last[tensor])
        for tensor in first
        if program.tensors[tensor].role != Role.CONSTANT
    }


def _place(order: list[int], sizes: dict[int, int], live: dict[int, Lifetime]) -> dict[int, int]:
    """Each tensor, in ``order``, at the lowest offset free for its whole lifetime."""
    placed: list[tuple[int, int, Lifetime]] = []  # offset, size, lifetime
    offsets: dict[int, int] = {}
    for tensor in order:
        size, lifetime = sizes[tensor], live[tensor]
        offset = 0
        for other_offset, other_size in sorted(
            (o, s) for o, s, other in placed if other.overlaps(lifetime)
        ):
            if offset + size <= other_offset:
                break
            offset = max(offset, other_offset + other_size)
        offsets[tensor] = offset
        placed.append((offset, size, lifetime))
    return offsets


def plan_memory(program: LoweredProgram) -> MemoryPlan:
    live = lifetimes(program)
    sizes = {tensor: align(program.tensors[tensor].nbytes) for tensor in live}

    def length(t: int) -> int:
        return live[t].last - live[t].first

    # Greedy placement is a heuristic; a few orders cost little and together land close to the
    # peak of live bytes, the lower bound.
    orders = [
        sorted(live, key=lambda t: (-sizes[t], live[t].first, t)),
        sorted(live, key=lambda t: (-sizes[t] * (length(t) + 1), t)),
        sorted(live, key=lambda t: (-length(t), -sizes[t], t)),
        sorted(live, key=lambda t: (live[t].first, -sizes[t], t)),
    ]
    best: dict[int, int] = {}
    arena = -1
    for order in orders:
        offsets = _place(order, sizes, live)
        end = max((offsets[t] + sizes[t] for t in offsets), default=0)
        if arena < 0 or end < arena:
            best, arena = offsets, end
    for index, spec in enumerate(program.tensors):
        if spec.alias_of is not None and spec.alias_of in best:
            best[index] = best[spec.alias_of]
    return MemoryPlan(dict(sorted(best.items())), arena)
