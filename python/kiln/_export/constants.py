"""Constants: their bytes, numbers turned into 0-dim tensors, and calls computed at export time.

A call whose inputs are all constants is computed with torch when the program gets no bigger
for it (the inputs only it reads are then not stored), or when the result is tiny: it costs
nothing at run time then, and its result is exactly eager's. Linear layers' weight transposes
are the common case.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils import _pytree as pytree

from kiln._errors import ExportError

# Constants of at most this many bytes cost less stored than computed by a call at each run.
SMALL_CONSTANT = 64


@dataclass
class LazyConstant:
    """A parameter, constant or computed constant: stored only once a call or output uses it."""

    name: str
    value: torch.Tensor
    tensor: int | None = None  # its index among the program's tensors, once stored


def tensor_bytes(value: torch.Tensor) -> bytes:
    """The tensor's elements, contiguous, in the host's (little-endian) byte order."""
    dense = value.detach().to("cpu").contiguous().clone()
    if dense.layout != torch.strided or dense.is_quantized:
        raise ExportError(f"a {dense.layout} tensor cannot be stored in a program")
    return ctypes.string_at(dense.data_ptr(), dense.numel() * dense.element_size())


def number_tensor(number: bool | int | float, floating: list[torch.dtype]) -> torch.Tensor:
    """A number given where a tensor is expected, as the 0-dim tensor torch's type promotion
    treats alike: bool, int64, or float32 (float64 beside float64 operands, for precision)."""
    if isinstance(number, bool):
        return torch.tensor(number, dtype=torch.bool)
    if isinstance(number, int):
        return torch.tensor(number, dtype=torch.int64)
    dtype = torch.float64 if torch.float64 in floating else torch.float32
    return torch.tensor(number, dtype=dtype)


def fold(
    node: torch.fx.Node,
    target: torch._ops.OpOverload,
    inputs: dict[torch.fx.Node, LazyConstant],
    same_bytes: bool,
) -> Any | None:
    """The call's result computed now (a tensor or a tuple of them), or None to keep the call.

    ``inputs`` are the node's inputs, all constants; ``same_bytes`` says the operator keeps its
    input's bytes when it keeps its dtype and size (a view, a copy): storing such a result costs
    nothing, deduplication shares the data."""
    base = target._schema.name.split("::", 1)[-1]
    if torch.Tag.nondeterministic_seeded in target.tags or base.startswith("empty"):
        return None  # random, or uninitialised memory
    value = node.meta.get("val")
    results = value if isinstance(value, list | tuple) else (value,)
    if not all(isinstance(r, torch.Tensor) for r in results):
        return None
    size = sum(r.nbytes for r in results)
    sources = [c.value for c in inputs.values()]
    unchanged = (
        same_bytes
        and len(results) == len(sources) == 1
        and (results[0].dtype, results[0].nbytes) == (sources[0].dtype, sources[0].nbytes)
    )
    if not unchanged:
        freed = sum(
            c.value.nbytes for n, c in inputs.items() if len(n.users) == 1 and c.tensor is None
        )
        if size > max(freed, SMALL_CONSTANT):
            return None
    args, kwargs = pytree.tree_map_only(
        torch.fx.Node, lambda n: inputs[n].value, (node.args, node.kwargs)
    )
    with torch.no_grad():
        return target(*args, **kwargs)
