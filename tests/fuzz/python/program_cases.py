"""kiln.load and Program.run inputs for the bindings' fuzz harness: mutated program bytes and
the run inputs, options and threads a caller may throw at a loaded program."""

from __future__ import annotations

import random
import struct
from typing import Any

import torch
import values

# Values a mutated 32-bit field takes: FlatBuffers offsets and lengths at and past their ends.
BOUNDARY_U32 = (0, 1, 2, 3, 4, 7, 8, 0x7F, 0xFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)


def mutate(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    """One to four byte-level or FlatBuffers-aware mutations of `data`."""
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        how = rng.randrange(8)
        if not buffer:
            break
        if how == 0:  # flip bits
            for _ in range(rng.randint(1, 8)):
                buffer[rng.randrange(len(buffer))] ^= 1 << rng.randrange(8)
        elif how == 1:  # random bytes
            for _ in range(rng.randint(1, 8)):
                buffer[rng.randrange(len(buffer))] = rng.randrange(256)
        elif how == 2:  # truncate
            del buffer[rng.randrange(len(buffer)) :]
        elif how == 3 and others:  # splice another program's tail on
            other = rng.choice(others)
            cut = rng.randrange(len(buffer))
            buffer[cut:] = other[rng.randrange(len(other)) :]
        elif how == 4:  # insert or delete a chunk (every later offset moves)
            at = rng.randrange(len(buffer))
            if rng.random() < 0.5:
                buffer[at:at] = bytes(rng.randrange(256) for _ in range(rng.choice([1, 4, 8, 16])))
            else:
                del buffer[at : at + rng.choice([1, 4, 8, 16])]
        elif how in (5, 6) and len(buffer) >= 8:
            # A 32-bit field: FlatBuffers keeps offsets and vector lengths 4-byte aligned. Prefer
            # words that look like offsets into the buffer, which the reader follows.
            aligned = range(0, len(buffer) - 3, 4)
            words = [i for i in aligned if 0 < _u32(buffer, i) < len(buffer)]
            at = rng.choice(words) if words and how == 5 else rng.choice(aligned)
            value = rng.choice(BOUNDARY_U32)
            if rng.random() < 0.4:
                value = (_u32(buffer, at) + rng.choice([-8, -4, -1, 1, 4, 8])) & 0xFFFFFFFF
            struct.pack_into("<I", buffer, at, value)
        elif how == 7 and len(buffer) >= 4:  # copy a chunk over another place
            size = rng.choice([4, 8, 16, 64])
            source = rng.randrange(len(buffer))
            target = rng.randrange(len(buffer))
            chunk = buffer[source : source + size]
            buffer[target : target + len(chunk)] = chunk
    return bytes(buffer)


def _u32(buffer: bytearray, at: int) -> int:
    value: int = struct.unpack_from("<I", buffer, at)[0]
    return value


def max_memory(rng: random.Random) -> Any:
    return rng.choice(
        [None, 1 << 30, 1 << 30, 1 << 30, 0, 1, 4096, 1 << 20, 2**63 - 1, 2**64, -1, True, 1.5]
    )


def backends(rng: random.Random) -> Any:
    return rng.choice(
        [
            ("portable",),
            ("portable",),
            ("portable",),
            ["portable", "ascend"],
            ("ascend",),
            (),
            ("portable", "portable"),
            ("nope",),
            "portable",
            (None,),
        ]
    )


def method(rng: random.Random) -> Any:
    return "forward" if rng.random() < 0.9 else rng.choice(["", "nope", "forward\x00x", 3, None])


def run_inputs(rng: random.Random, metas: list[tuple[Any, ...]]) -> tuple[list[Any], bool]:
    """Inputs for a program whose inputs are described by `metas` (native input_meta: kind,
    dtype code, sizes, dim order, dynamic), and whether they are all what the program expects."""
    from kiln._convert import DTYPE_CODES

    dtypes = {code: kind for kind, code in DTYPE_CODES.items()}
    inputs: list[Any] = []
    exact = True
    # Huge expanded tensors too: Program.run refuses one that does not fit before copying it.
    huge = rng.random() < 0.1
    for kind, code, sizes, *_ in metas:
        if kind != "Tensor":
            inputs.append(values.scalar(rng) if rng.random() < 0.5 else rng.randint(-3, 3))
            exact = False
            continue
        choice = rng.random()
        dtype = dtypes.get(code, torch.float32)
        if choice < 0.65:
            generator = torch.Generator().manual_seed(rng.getrandbits(32))
            inputs.append(torch.randn(list(sizes), generator=generator).to(dtype))
        elif choice < 0.75:  # the right shape, laid out differently
            inputs.append(values.tensor(rng, list(sizes), dtype, huge))
            exact = False
        elif choice < 0.85:  # another dtype
            inputs.append(values.tensor(rng, list(sizes), huge=huge))
            exact = False
        elif choice < 0.95:  # another shape
            other = [max(0, s + rng.choice([-1, 1, 2])) for s in sizes]
            if rng.random() < 0.3:
                other = values.shape(rng)
            inputs.append(values.tensor(rng, other, dtype, huge))
            exact = False
        else:
            inputs.append(values.scalar(rng))
            exact = False
    if rng.random() < 0.05:
        inputs.append(torch.zeros(1))
        exact = False
    if rng.random() < 0.05 and inputs:
        inputs.pop()
        exact = False
    return inputs, exact


def max_instructions(rng: random.Random) -> Any:
    return rng.choice([None, None, None, None, 1, 2, 5, 50, 0, -1, True, 2**63, 2**64])
