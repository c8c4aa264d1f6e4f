"""A lowered, planned program -> the .pte object tree (flatc's object API) and its data blobs.

Values follow ExecuTorch's layout: tensors first (value i is tensor i), then the non-tensor
arguments, each distinct one emitted once (they are read-only at run time), but for the Ints the
program computes (symbolic sizes), one value each, written by the call that computes it. Int
lists hold the indices of Int values, as ExecuTorch's boxed lists do; float and bool lists hold
their items. A kernel call's arguments are value indices in schema order, outs included, then
its result.

Constants are stored once per distinct content in the constant segment (``data_buffer_idx`` > 0,
index 0 meaning "no data"), or, emitted for a data file, each under its own name in the .ptd
(``extra_tensor_info`` with location EXTERNAL and the name as ``fully_qualified_name``,
``data_buffer_idx`` 0). A mutable buffer is a planned tensor whose initial value is stored in the
mutable data segment, under its own ``data_buffer_idx``; ExecuTorch's runtime copies it into the
arena when it loads the method.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from kiln._export.arguments import scalar_type_code
from kiln._export.data_file import NamedTensor
from kiln._export.graph import (
    Arg,
    BoolArg,
    BoolListArg,
    DoubleArg,
    DoubleListArg,
    IntArg,
    IntListArg,
    LoweredProgram,
    NoneArg,
    OptionalTensorListArg,
    Role,
    StringArg,
    SymIntArg,
    TensorArg,
    TensorListArg,
    TensorSpec,
)
from kiln._export.planning import ARENA_ID, MemoryPlan
from kiln._export.schema import pte as schema


@dataclass
class EmittedProgram:
    """The flatbuffer object tree, minus its segment table, and the data of its segments."""

    program: Any  # schema.ProgramT
    constants: list[bytes] = field(default_factory=list)  # constant segment, entry 0 excluded
    mutable: list[bytes] = field(default_factory=list)  # mutable data segment, entry 0 excluded
    external: list[NamedTensor] = field(default_factory=list)  # the data file's tensors


def _value(kind: int, payload: Any) -> Any:
    value = schema.EValueT()
    value.valType = kind
    value.val = payload
    return value


class _Values:
    def __init__(self) -> None:
        self.values: list[Any] = []
        self.seen: dict[tuple[Any, ...], int] = {}
        self.slots: dict[int, int] = {}  # SymIntArg slot -> its Int value

    def add(self, value: Any) -> int:
        self.values.append(value)
        return len(self.values) - 1

    def shared(self, key: tuple[Any, ...], make: Any) -> int:
        """The index of an immutable value, emitted the first time it is asked for."""
        index = self.seen.get(key)
        if index is None:
            index = self.seen[key] = self.add(make())
        return index

    def scalar(self, kind: int, table: Any, field_name: str, item: Any, key: Any) -> int:
        def make() -> Any:
            payload = table()
            setattr(payload, field_name, item)
            return _value(kind, payload)

        return self.shared((kind, key), make)

    def arg(self, arg: Arg) -> int:  # noqa: C901 - one branch per argument kind
        kinds = schema.KernelTypes
        if isinstance(arg, TensorArg):
            return arg.tensor
        if isinstance(arg, NoneArg):
            return self.shared((kinds.Null,), lambda: _value(kinds.Null, schema.NullT()))
        if isinstance(arg, BoolArg):
            return self.scalar(kinds.Bool, schema.BoolT, "boolVal", arg.value, arg.value)
        if isinstance(arg, IntArg):
            return self.scalar(kinds.Int, schema.IntT, "intVal", arg.value, arg.value)
        if isinstance(arg, SymIntArg):  # its own value, which a call writes at run time
            if arg.slot not in self.slots:
                payload = schema.IntT()
                payload.intVal = 0
                self.slots[arg.slot] = self.add(_value(kinds.Int, payload))
            return self.slots[arg.slot]
        if isinstance(arg, DoubleArg):
            bits = struct.pack("<d", arg.value)  # tells 0.0 from -0.0, and NaN from itself
            return self.scalar(kinds.Double, schema.DoubleT, "doubleVal", arg.value, bits)
        if isinstance(arg, StringArg):
            text = arg.value
            return self.scalar(kinds.String, schema.StringT, "stringVal", text, text)
        if isinstance(arg, IntListArg):
            boxed = [self.arg(v if isinstance(v, SymIntArg) else IntArg(v)) for v in arg.values]
            return self.scalar(kinds.IntList, schema.IntListT, "items", boxed, tuple(boxed))
        if isinstance(arg, DoubleListArg):
            items = list(arg.values)
            key = tuple(struct.pack("<d", v) for v in items)
            return self.scalar(kinds.DoubleList, schema.DoubleListT, "items", items, key)
        if isinstance(arg, BoolListArg):
            flags = list(arg.values)
            return self.scalar(kinds.BoolList, schema.BoolListT, "items", flags, tuple(flags))
        if isinstance(arg, TensorListArg):
            members = list(arg.tensors)
            return self.scalar(kinds.TensorList, schema.TensorListT, "items", members, arg.tensors)
        if isinstance(arg, OptionalTensorListArg):
            slots = [-1 if t is None else t for t in arg.tensors]
            return self.scalar(
                kinds.OptionalTensorList, schema.OptionalTensorListT, "items", slots, tuple(slots)
            )
        raise AssertionError(f"unknown argument {arg!r}")


def _allocation(offset: int) -> Any:
    details = schema.AllocationDetailsT()
    details.memoryId = ARENA_ID
    details.memoryOffsetLow = offset & 0xFFFFFFFF
    details.memoryOffsetHigh = offset >> 32
    return details


def _tensor(spec: TensorSpec, data_index: int, offset: int | None) -> Any:
    tensor = schema.TensorT()
    tensor.scalarType = scalar_type_code(spec.dtype)
    tensor.storageOffset = 0
    tensor.sizes = list(spec.sizes)
    tensor.dimOrder = list(range(len(spec.sizes)))  # contiguous
    tensor.requiresGrad = spec.requires_grad
    tensor.dataBufferIdx = data_index
    tensor.allocationInfo = None if offset is None else _allocation(offset)
    tensor.layout = 0  # strided
    dynamism = schema.TensorShapeDynamism
    tensor.shapeDynamism = dynamism.DYNAMIC_BOUND if spec.dynamic else dynamism.STATIC
    return _value(schema.KernelTypes.Tensor, tensor)


def _external(value: Any, key: str) -> None:
    """Makes the tensor ``value`` read its data from the data file entry ``key``."""
    info = schema.ExtraTensorInfoT()
    info.fullyQualifiedName = key
    info.location = schema.TensorDataLocation.EXTERNAL
    value.val.extraTensorInfo = info


def _unique_key(name: str, taken: set[str]) -> str:
    key, suffix = name, 1
    while key in taken:
        key, suffix = f"{name}.{suffix}", suffix + 1
    taken.add(key)
    return key


def _indexed(blobs: list[bytes], seen: dict[bytes, int], data: bytes) -> int:
    """The 1-based index of ``data`` among ``blobs``, added if new (index 0 means no data)."""
    index = seen.get(data)
    if index is None:
        blobs.append(data)
        index = seen[data] = len(blobs)
    return index


def emit(
    lowered: LoweredProgram, plan: MemoryPlan, method: str = "forward", external: bool = False
) -> EmittedProgram:
    """The program's object tree; with ``external``, its constants go to ``.external`` (the data
    file's tensors), named after their parameters or graph nodes."""
    emitted = EmittedProgram(schema.ProgramT())
    values = _Values()
    constants_seen: dict[bytes, int] = {}
    keys: set[str] = set()
    for index, spec in enumerate(lowered.tensors):
        data_index = 0
        if spec.role == Role.CONSTANT and external:
            assert spec.data is not None
            key = _unique_key(spec.name, keys)
            code = scalar_type_code(spec.dtype)
            emitted.external.append(NamedTensor(key, spec.data, code, spec.sizes))
        elif spec.role == Role.CONSTANT:
            assert spec.data is not None
            data_index = _indexed(emitted.constants, constants_seen, spec.data)
        elif spec.role == Role.BUFFER:
            assert spec.data is not None
            emitted.mutable.append(spec.data)  # each buffer its own state, never shared
            data_index = len(emitted.mutable)
        value = _tensor(spec, data_index, plan.offsets.get(index))
        if spec.role == Role.CONSTANT and external:
            _external(value, emitted.external[-1].key)
        values.add(value)

    operators: dict[str, int] = {}
    instructions = []
    for call in lowered.calls:
        op_index = operators.setdefault(call.operator, len(operators))
        kernel_call = schema.KernelCallT()
        kernel_call.opIndex = op_index
        kernel_call.args = [values.arg(a) for a in call.args]
        if call.result is not None:
            kernel_call.args.append(values.arg(call.result))
        instruction = schema.InstructionT()
        instruction.instrArgsType = schema.InstructionArguments.KernelCall
        instruction.instrArgs = kernel_call
        instructions.append(instruction)
    outputs = [values.arg(output) for output in lowered.outputs]

    chain = schema.ChainT()
    chain.inputs = []
    chain.outputs = []
    chain.instructions = instructions

    plan_table = schema.ExecutionPlanT()
    plan_table.name = method
    container = schema.ContainerMetadataT()
    container.encodedInpStr = lowered.input_spec
    container.encodedOutStr = lowered.output_spec
    plan_table.containerMetaType = container
    plan_table.values = values.values
    plan_table.inputs = list(lowered.inputs)
    plan_table.outputs = outputs
    plan_table.chains = [chain]
    plan_table.operators = [_operator(name) for name in operators]
    plan_table.delegates = []
    plan_table.nonConstBufferSizes = [0, plan.arena_size]

    emitted.program.version = 0
    emitted.program.executionPlan = [plan_table]
    emitted.program.constantBuffer = []
    emitted.program.backendDelegateData = []
    return emitted


def _operator(name: str) -> Any:
    """``aten::add.out`` -> Operator(name="aten::add", overload="out")."""
    qualified, _, overload = name.partition(".")
    entry = schema.OperatorT()
    entry.name = qualified
    entry.overload = overload
    return entry
