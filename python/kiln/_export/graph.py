"""The lowered program: tensors, out-variant calls and their arguments, as the emitter reads them.

Lowering (``lowering.py``) turns a torch.export graph into this form; it holds no torch objects
except dtypes, so planning and emitting are plain data transformations.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import torch


class Role(enum.Enum):
    """Where a tensor's memory comes from when the program runs."""

    INPUT = "input"  # a user input, copied into the arena at each run
    CONSTANT = "constant"  # a parameter or constant: data in the constant segment
    BUFFER = "buffer"  # a mutable buffer: arena memory that persists, initial data stored
    TEMP = "temp"  # an intermediate or output, written by a call


@dataclass(frozen=True)
class TensorSpec:
    name: str  # the graph node (or state name) it comes from, for messages
    dtype: torch.dtype
    sizes: tuple[int, ...]
    role: Role
    data: bytes | None = None  # CONSTANT: its bytes; BUFFER: its initial value
    requires_grad: bool = False
    # TEMP: the tensor whose memory this one shares (a view, or a copy of a value nothing
    # overwrites), so no call writes it.
    alias_of: int | None = None
    # Its shape varies from run to run (dynamic shapes): `sizes` are its bounds, for which its
    # memory is planned.
    dynamic: bool = False

    @property
    def nbytes(self) -> int:
        count = 1
        for size in self.sizes:
            count *= size
        return count * self.dtype.itemsize


# Arguments of a call, one class per EValue kind. Tensor arguments name tensors by their index in
# LoweredProgram.tensors.


@dataclass(frozen=True)
class NoneArg:
    pass


@dataclass(frozen=True)
class IntArg:
    value: int


@dataclass(frozen=True)
class DoubleArg:
    value: float


@dataclass(frozen=True)
class BoolArg:
    value: bool


@dataclass(frozen=True)
class StringArg:
    value: str


@dataclass(frozen=True)
class SymIntArg:
    """An Int the program computes at run time (a symbolic size): the call whose result it is
    writes it, later calls read it. ``slot`` tells one from another."""

    slot: int


@dataclass(frozen=True)
class IntListArg:
    values: tuple[int | SymIntArg, ...]


@dataclass(frozen=True)
class DoubleListArg:
    values: tuple[float, ...]


@dataclass(frozen=True)
class BoolListArg:
    values: tuple[bool, ...]


@dataclass(frozen=True)
class TensorArg:
    tensor: int


@dataclass(frozen=True)
class TensorListArg:
    tensors: tuple[int, ...]


@dataclass(frozen=True)
class OptionalTensorListArg:
    tensors: tuple[int | None, ...]  # None: an absent tensor


Arg = (
    NoneArg
    | IntArg
    | SymIntArg
    | DoubleArg
    | BoolArg
    | StringArg
    | IntListArg
    | DoubleListArg
    | BoolListArg
    | TensorArg
    | TensorListArg
    | OptionalTensorListArg
)


def tensors_of(arg: Arg) -> tuple[int, ...]:
    """The tensors an argument refers to."""
    if isinstance(arg, TensorArg):
        return (arg.tensor,)
    if isinstance(arg, TensorListArg):
        return arg.tensors
    if isinstance(arg, OptionalTensorListArg):
        return tuple(t for t in arg.tensors if t is not None)
    return ()


@dataclass(frozen=True)
class Call:
    """One kernel call: ``operator`` (``aten::add.out``) with its arguments in schema order, outs
    included, then ``result``: the value it returns (its out tensors again, as ExecuTorch's stack
    layout has them), None when it returns nothing."""

    operator: str
    args: tuple[Arg, ...]
    result: Arg | None
    node: str  # the graph node it lowers, for messages

    @property
    def written(self) -> tuple[int, ...]:
        """Tensors this call writes: its result's."""
        return () if self.result is None else tensors_of(self.result)


@dataclass(frozen=True)
class LoweredProgram:
    tensors: tuple[TensorSpec, ...]
    calls: tuple[Call, ...]
    inputs: tuple[int, ...]  # tensors bound to the user inputs, in order
    outputs: tuple[Arg, ...]  # TensorArg, or a constant for a non-tensor output
    input_spec: str  # the pytree specs of inputs and outputs (torch's treespec_dumps format)
    output_spec: str
