"""Bad programs through kiln.load: each is refused with an error code and a message that says what
is wrong and where (the method, the value or instruction, the numbers), never a crash.

The programs are ExecuTorch's export of a small MLP, edited with pte_edit. Its plan, for
reading the edits below (values; instructions in chain 0):

    0..3  constants (weights, biases) in constant buffers 1..4 of segment 0
    4     input x [2, 8], planned in arena 1 at 640    17  output [2, 4] at 512
    5     permute_copy's out [8, 16] at 0                8  IntList of Int values 6 and 7
    9     addmm's out [2, 16] at 512                    10, 11  addmm's beta and alpha (Int)
    instruction 0: permute_copy(0, 8, out=5); 1: addmm(1, 4, 5, 10, 11, out=9); 2: relu(9, 12)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
import torch
from executorch_export import pte_bytes
from pte_edit import Header, PteFile, decode, encode

import kiln
from kiln.codegen.pte import program_generated as pte


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(8, 16)
        self.head = torch.nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.hidden(x)))


@pytest.fixture(scope="module")
def mlp() -> bytes:
    torch.manual_seed(0)
    data = pte_bytes(Mlp(), (torch.randn(2, 8),))
    plan = decode(data).plan
    # The layout the edits below rely on.
    assert [op.name.decode() for op in plan.operators] == [
        "aten::permute_copy",
        "aten::addmm",
        "aten::relu",
    ]
    assert list(plan.inputs) == [4] and list(plan.outputs) == [17]
    assert list(plan.chains[0].instructions[1].instrArgs.args) == [1, 4, 5, 10, 11, 9, 9]
    return data


def _refusal(data: bytes) -> kiln.KilnError:
    with pytest.raises(kiln.KilnError) as error:
        kiln.load(data)
    return error.value


def _edited(data: bytes, edit: Callable[[PteFile], Any]) -> bytes:
    program = decode(data)
    edit(program)
    return encode(program)


def _replaced(items: Any, index: int, value: int) -> list[int]:
    """`items` (a read-only numpy view of the file) as a list with one item replaced."""
    edited = [int(item) for item in items]
    edited[index] = value
    return edited


def _value(p: PteFile, index: int) -> Any:
    return p.plan.values[index].val


def _call(p: PteFile, instruction: int) -> Any:
    return p.plan.chains[0].instructions[instruction].instrArgs


def _add_value(p: PteFile, kind: int, val: Any) -> int:
    value = pte.EValueT()
    value.valType, value.val = kind, val
    p.plan.values.append(value)
    return len(p.plan.values) - 1


# --- truncated files ------------------------------------------------------------------------


TRUNCATIONS: dict[str, Callable[[Header], int]] = {
    "in_the_header_magic": lambda h: 12,
    "in_the_header_fields": lambda h: 20,
    "in_the_header_length": lambda h: 36,
    "just_after_the_header": lambda h: 48,
    "in_the_middle_of_the_flatbuffer": lambda h: h.program_size // 2,
    "one_byte_short_of_the_flatbuffer": lambda h: h.program_size - 1,
    "between_the_flatbuffer_and_the_segments": lambda h: h.program_size + 4,
    "at_the_segment_base": lambda h: h.segment_base,
    "in_the_segment": lambda h: h.segment_base + h.segment_data_size // 2,
    "one_byte_short_of_the_end": lambda h: h.segment_base + h.segment_data_size - 1,
}


@pytest.mark.parametrize("where", sorted(TRUNCATIONS))
def test_a_truncated_file_is_an_invalid_program(mlp: bytes, where: str) -> None:
    header = Header.of(mlp)
    assert header is not None and header.segment_base > header.program_size + 4
    error = _refusal(mlp[: TRUNCATIONS[where](header)])
    assert error.code == "InvalidProgram"
    assert str(error).startswith("program: ") and "(truncated?)" in str(error), str(error)


def test_a_truncated_file_without_segments_is_rejected_by_the_verifier(mlp: bytes) -> None:
    program = decode(mlp)
    flatbuffer = encode(PteFile(program.program, b""))  # no segment data: no extended header
    error = _refusal(flatbuffer[: len(flatbuffer) - 16])
    assert error.code == "InvalidProgram"
    assert "the FlatBuffers verifier rejects the program" in str(error)


# --- out-of-range indices, wrong tags, oversized allocations -------------------------------


def _jump_past_the_end(p: PteFile) -> None:
    flag = pte.BoolT()
    flag.boolVal = True
    jump = pte.JumpFalseCallT()
    jump.condValueIndex = _add_value(p, pte.KernelTypes.Bool, flag)
    jump.destinationInstruction = 9
    instruction = pte.InstructionT()
    instruction.instrArgsType, instruction.instrArgs = pte.InstructionArguments.JumpFalseCall, jump
    p.plan.chains[0].instructions.append(instruction)


def _tensor_list_of_an_int(p: PteFile) -> None:
    tensors = pte.TensorListT()
    tensors.items = [4, 6]
    _add_value(p, pte.KernelTypes.TensorList, tensors)


def _sizes(p: PteFile, index: int, sizes: list[int]) -> None:
    _value(p, index).sizes = sizes
    _value(p, index).dimOrder = list(range(len(sizes)))


# name: (edit, error code, message pattern)
BAD_PROGRAMS: dict[str, tuple[Callable[[PteFile], Any], str, str]] = {
    # Out-of-range indices.
    "operator_index": (
        lambda p: setattr(_call(p, 0), "opIndex", 3),
        "InvalidProgram",
        r"method 'forward': chain 0 instruction 0 calls operator 3 of 3$",
    ),
    "argument_index": (
        lambda p: setattr(_call(p, 1), "args", _replaced(_call(p, 1).args, 2, 20)),
        "InvalidProgram",
        r"chain 0 instruction 1: an argument refers to value 20 of 20$",
    ),
    "list_item_index": (
        lambda p: setattr(_value(p, 8), "items", [99, 7]),
        "InvalidProgram",
        r"method 'forward': value 8: list item 0 refers to value 99 of 20$",
    ),
    "input_index": (
        lambda p: setattr(p.plan, "inputs", [20]),
        "InvalidProgram",
        r"method 'forward': input 0 refers to value 20 of 20$",
    ),
    "output_index": (
        lambda p: setattr(p.plan, "outputs", [-1]),
        "InvalidProgram",
        r"method 'forward': output 0 refers to value -1 of 20$",
    ),
    "jump_destination": (
        _jump_past_the_end,
        "InvalidProgram",
        r"chain 0 instruction 5 jumps to instruction 9 of 6$",
    ),
    "memory_id": (
        lambda p: setattr(_value(p, 4).allocationInfo, "memoryId", 2),
        "InvalidProgram",
        r"value 4 \(Tensor\) is planned in memory arena 2, but the plan has arenas 1\.\.1$",
    ),
    "memory_offset": (
        lambda p: setattr(_value(p, 4).allocationInfo, "memoryOffsetLow", 672),
        "InvalidProgram",
        r"value 4 \(Tensor, 64 bytes\) at offset 672 runs past memory arena 1's 704 bytes$",
    ),
    "constant_buffer_index": (
        lambda p: setattr(_value(p, 0), "dataBufferIdx", 9),
        "InvalidProgram",
        r"value 0 \(Tensor, 512 bytes\): constant buffer 9 is missing",
    ),
    "segment_index": (
        lambda p: setattr(p.program.constantSegment, "segmentIndex", 3),
        "InvalidProgram",
        r"^program: constant segment names segment 3 of 1$",
    ),
    "segment_offset": (
        lambda p: setattr(p.program.segments[0], "offset", 1 << 20),
        "InvalidProgram",
        r"^program: segment 0 \(offset 1048576, 848 bytes\) runs past the end of the file",
    ),
    "constant_offset_in_its_segment": (
        lambda p: setattr(
            p.program.constantSegment,
            "offsets",
            _replaced(p.program.constantSegment.offsets, 2, 1 << 20),
        ),
        "InvalidProgram",
        r"^program: constant segment buffer 2 starts at 1048576, past its segment's 848 bytes$",
    ),
    # Wrong tags.
    "int_list_item_that_is_a_tensor": (
        lambda p: setattr(_value(p, 8), "items", [4, 7]),
        "InvalidProgram",
        r"value 8: list item 0 refers to value 4, a Tensor, not an Int$",
    ),
    "tensor_list_item_that_is_an_int": (
        _tensor_list_of_an_int,
        "InvalidProgram",
        r"value 20: list item 1 refers to value 6, an Int, not a Tensor$",
    ),
    "value_without_a_tag": (
        lambda p: setattr(p.plan.values[6], "valType", pte.KernelTypes.NONE),
        "InvalidProgram",
        r"method 'forward': value 6 has no type tag$",
    ),
    "value_with_an_unknown_tag": (
        lambda p: setattr(p.plan.values[6], "valType", 42),
        "InvalidProgram",
        r"method 'forward': value 6 has unknown type tag 42$",
    ),
    "instruction_of_an_unknown_kind": (
        lambda p: setattr(p.plan.chains[0].instructions[0], "instrArgsType", 9),
        "InvalidProgram",
        r"chain 0 instruction 0 has unknown kind 9$",
    ),
    "unknown_scalar_type": (
        lambda p: setattr(_value(p, 4), "scalarType", 99),
        "InvalidProgram",
        r"value 4 \(Tensor\): scalar type 99 is not one Kiln supports$",
    ),
    "bool_constant_holding_other_bytes": (
        lambda p: setattr(_value(p, 0), "scalarType", pte.ScalarType.BOOL),
        "InvalidProgram",
        r"value 0 \(Tensor, Bool\): its data holds \d+ at element \d+, not 0 or 1$",
    ),
    # Oversized allocations.
    "arena_of_negative_size": (
        lambda p: setattr(p.plan, "nonConstBufferSizes", [0, -1]),
        "InvalidProgram",
        r"method 'forward': memory arena 1 has an invalid size -1$",
    ),
    "element_count_overflow": (
        lambda p: _sizes(p, 4, [2**31 - 1] * 3),
        "InvalidProgram",
        r"value 4 \(Tensor\): its element count or strides overflow$",
    ),
    "strides_overflow_behind_a_zero_size": (
        lambda p: _sizes(p, 4, [0, 2**30, 2**30, 2**30]),
        "InvalidProgram",
        r"value 4 \(Tensor\): its element count or strides overflow$",
    ),
    "seventeen_dimensions": (
        lambda p: _sizes(p, 4, [1] * 17),
        "InvalidProgram",
        r"value 4 \(Tensor\): 17 dimensions \(at most 16\)$",
    ),
    "constant_larger_than_its_data": (
        lambda p: _sizes(p, 0, [1 << 20, 1 << 10]),
        "InvalidProgram",
        r"value 0 \(Tensor, 4294967296 bytes\): constant buffer 1 is missing or holds only "
        r"848 bytes$",
    ),
    "segment_larger_than_the_file": (
        lambda p: setattr(p.program.segments[0], "size", 1 << 62),
        "InvalidProgram",
        r"^program: segment 0 \(offset 0, 4611686018427387904 bytes\) runs past the end",
    ),
    # Memory plans kernels cannot run on.
    "misaligned_planned_tensor": (
        lambda p: setattr(_value(p, 4).allocationInfo, "memoryOffsetLow", 638),
        "InvalidProgram",
        r"value 4 \(Tensor\) at offset 638 of memory arena 1 is not aligned to its 4-byte "
        r"elements$",
    ),
    "arguments_overlapping_in_memory": (
        lambda p: setattr(_value(p, 9).allocationInfo, "memoryOffsetLow", 256),
        "InvalidProgram",
        r"chain 0 instruction 1: its arguments value 5 \(bytes 0\.\.512\) and value 9 \(bytes "
        r"256\.\.384\) overlap in memory arena 1$",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_PROGRAMS))
def test_a_bad_program_is_refused_saying_what_and_where(mlp: bytes, name: str) -> None:
    edit, code, pattern = BAD_PROGRAMS[name]
    error = _refusal(_edited(mlp, edit))
    assert error.code == code, str(error)
    assert re.search(pattern, str(error)), str(error)


def test_an_arena_too_large_for_the_heap_fails_to_allocate(mlp: bytes) -> None:
    error = _refusal(_edited(mlp, lambda p: setattr(p.plan, "nonConstBufferSizes", [0, 1 << 62])))
    assert error.code == "MemoryAllocationFailed"
    assert "cannot allocate the method's 4611686018427387904 planned bytes" in str(error)


def _delegate_call(backend_id: str) -> Callable[[PteFile], None]:
    """Makes instruction 0 a DelegateCall to a delegate `backend_id` whose payload reference
    (inline data 0) the program lacks."""

    def edit(p: PteFile) -> None:
        backend = pte.BackendDelegateT()
        backend.id = backend_id
        backend.processed = pte.BackendDelegateDataReferenceT()
        p.plan.delegates = [backend]
        call = pte.DelegateCallT()
        call.delegateIndex, call.args = 0, [4, 17]
        instruction = p.plan.chains[0].instructions[0]
        instruction.instrArgsType = pte.InstructionArguments.DelegateCall
        instruction.instrArgs = call

    return edit


def test_an_unregistered_delegate_is_not_supported_and_named(mlp: bytes) -> None:
    error = _refusal(_edited(mlp, _delegate_call("CoreMLBackend")))
    assert error.code == "NotSupported"
    assert "chain 0 instruction 0 calls delegate 'CoreMLBackend', which is not registered" in str(
        error
    )
    assert 'register_delegate("CoreMLBackend", ...)' in str(error)


def test_a_delegate_payload_the_program_lacks_is_invalid(mlp: bytes) -> None:
    error = _refusal(_edited(mlp, _delegate_call("XnnpackBackend")))
    assert error.code == "InvalidProgram"
    assert "delegate 'XnnpackBackend' has its payload in inline data 0 of 0" in str(error)


def test_a_tensor_argument_where_the_operator_takes_an_int_fails_the_run(mlp: bytes) -> None:
    # addmm's beta (value 10, an Int) replaced by the input tensor: the plan is consistent, the
    # call is not; the unboxing refuses it, naming the operator and the argument.
    edited = _edited(mlp, lambda p: setattr(_call(p, 1), "args", _replaced(_call(p, 1).args, 3, 4)))
    program = kiln.load(edited)
    with pytest.raises(kiln.KilnError) as error:
        program.run(torch.randn(2, 8))
    assert error.value.code == "InvalidProgram"
    assert "instruction 1 (aten::addmm.out)" in str(error.value)
    assert "argument 3 (beta) expected Scalar (Int, Double or Bool), got Tensor" in str(error.value)


def test_a_tensor_given_for_an_int_input_is_refused(mlp: bytes) -> None:
    program = kiln.load(_edited(mlp, lambda p: setattr(p.plan, "inputs", [4, 6])))
    with pytest.raises(
        kiln.KilnError, match="^input 1: the program takes an Int, got a tensor$"
    ) as error:
        program.run(torch.randn(2, 8), torch.ones(1))
    assert error.value.code == "InvalidArgument"


def test_a_program_without_segment_data_loads() -> None:
    # ExecuTorch writes no extended header when no segment has bytes, but still lists the empty
    # constant segment: a graph without weights.
    class NoWeights(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return torch.relu(a @ b)

    a, b = torch.randn(3, 4), torch.randn(4, 3)
    data = pte_bytes(NoWeights(), (a, b))
    assert Header.of(data) is None and decode(data).program.segments
    torch.testing.assert_close(kiln.load(data).run(a, b)[0], torch.relu(a @ b))
