"""The invariants of docs/programs.md ("Invariants"), enforced at load: no instruction writes a
constant or a method input (but for aten::copy_'s write-back of an input the program mutates),
the load's work is bounded by the file's size even when tables are shared, and a run that loops
ends with an error.

The programs are ExecuTorch exports edited with pte_edit (the MLP's plan is described in
test_bad_programs.py: values 0..3 are constants, 4 is the input, instruction 1 is
addmm(1, 4, 5, 10, 11, out=9) returning 9), or built whole by pte_edit.shared_tables_program.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import torch
from executorch_export import pte_bytes
from pte_edit import PteFile, decode, encode, shared_tables_program
from test_bad_programs import Mlp

import kiln
from kiln.codegen.pte import program_generated as pte

ADDMM_ARGS = [1, 4, 5, 10, 11, 9, 9]  # self, mat1, mat2, beta, alpha, out; the return


@pytest.fixture(scope="module")
def mlp() -> bytes:
    torch.manual_seed(0)
    data: bytes = pte_bytes(Mlp(), (torch.randn(2, 8),))
    call: Any = decode(data).plan.chains[0].instructions[1].instrArgs
    assert list(call.args) == ADDMM_ARGS
    return data


def _edited(data: bytes, edit: Callable[[PteFile], Any]) -> bytes:
    program = decode(data)
    edit(program)
    return encode(program)


def _addmm_args(args: list[int]) -> Callable[[PteFile], None]:
    def edit(p: PteFile) -> None:
        call: Any = p.plan.chains[0].instructions[1].instrArgs
        call.args = args

    return edit


def _refusal(data: bytes) -> str:
    with pytest.raises(kiln.KilnError) as error:
        kiln.load(data)
    assert error.value.code == "InvalidProgram", error.value
    return str(error.value)


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        ([1, 4, 5, 10, 11, 0, 0], 5),  # out and return: the first weight
        ([1, 4, 5, 10, 11, 9, 0], 6),  # the return only
        ([1, 4, 5, 10, 11, 0, 9], 5),  # the out only
    ],
    ids=["out_and_return", "return", "out"],
)
def test_an_instruction_writing_a_constant_is_refused(
    mlp: bytes, args: list[int], argument: int
) -> None:
    message = _refusal(_edited(mlp, _addmm_args(args)))
    assert (
        f"method 'forward': instruction 1 (aten::addmm.out) writes value 0, a constant tensor of "
        f"the program, through its argument {argument}"
    ) in message


def test_a_tensor_list_written_with_a_constant_in_it_is_refused(mlp: bytes) -> None:
    def edit(p: PteFile) -> None:
        written = pte.TensorListT()
        written.items = [9, 2]
        value = pte.EValueT()
        value.valType, value.val = pte.KernelTypes.TensorList, written
        p.plan.values.append(value)
        _addmm_args([1, 4, 5, 10, 11, 9, len(p.plan.values) - 1])(p)

    message = _refusal(_edited(mlp, edit))
    assert "instruction 1 (aten::addmm.out) writes value 2, a constant tensor" in message


def test_an_instruction_writing_an_input_is_refused(mlp: bytes) -> None:
    message = _refusal(_edited(mlp, _addmm_args([1, 5, 5, 10, 11, 4, 4])))
    assert (
        "instruction 1 (aten::addmm.out) writes value 4, a method input, through its argument 5"
    ) in message


def _reshape_and_cache(args: list[int]) -> Callable[[PteFile], None]:
    """Instruction 1 becomes kiln::reshape_and_cache(key, value, key_cache, value_cache,
    slot_mapping) -> (), which writes its two caches, in the middle of its arguments."""

    def edit(p: PteFile) -> None:
        operator = pte.OperatorT()
        operator.name, operator.overload = "kiln::reshape_and_cache", ""
        p.plan.operators.append(operator)
        call: Any = p.plan.chains[0].instructions[1].instrArgs
        call.opIndex, call.args = len(p.plan.operators) - 1, args

    return edit


def test_an_instruction_writing_a_constant_through_a_middle_argument_is_refused(
    mlp: bytes,
) -> None:
    # the caches are arguments 2 and 3: value 0 (a constant) as value_cache, 9 (planned) as
    # key_cache; the name gives no hint of the writes, the kernel table's mask does
    message = _refusal(_edited(mlp, _reshape_and_cache([4, 4, 9, 0, 4])))
    assert (
        "instruction 1 (kiln::reshape_and_cache) writes value 0, a constant tensor of the "
        "program, through its argument 3"
    ) in message


def test_an_instruction_writing_an_input_through_a_middle_argument_is_refused(mlp: bytes) -> None:
    message = _refusal(_edited(mlp, _reshape_and_cache([5, 5, 4, 9, 5])))
    assert (
        "instruction 1 (kiln::reshape_and_cache) writes value 4, a method input, through its "
        "argument 2"
    ) in message


def test_the_read_arguments_of_a_middle_writer_may_be_constants_or_inputs(mlp: bytes) -> None:
    kiln.load(_edited(mlp, _reshape_and_cache([0, 4, 9, 5, 1])))


def _move(source: int, destination: int) -> Callable[[PteFile], None]:
    def edit(p: PteFile) -> None:
        move = pte.MoveCallT()
        move.moveFrom, move.moveTo = source, destination
        instruction = pte.InstructionT()
        instruction.instrArgsType, instruction.instrArgs = pte.InstructionArguments.MoveCall, move
        p.plan.chains[0].instructions.insert(1, instruction)

    return edit


@pytest.mark.parametrize(
    ("source", "destination"),
    [(0, 9), (4, 9), (9, 4)],
    ids=["a_constant_into_an_out", "an_input_into_an_out", "into_an_input"],
)
def test_a_move_that_would_let_a_call_write_a_constant_or_an_input_is_refused(
    mlp: bytes, source: int, destination: int
) -> None:
    message = _refusal(_edited(mlp, _move(source, destination)))
    assert f"instruction 1 (MoveCall) moves value {source} into value {destination}" in message


def test_a_move_between_planned_values_loads(mlp: bytes) -> None:
    kiln.load(_edited(mlp, _move(5, 9)))


class MutatesItsInput(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.add_(1)
        return x * 2


def test_an_input_the_program_mutates_is_written_back_through_copy() -> None:
    data = pte_bytes(MutatesItsInput(), (torch.zeros(3),))
    names: list[Any] = [op.name for op in decode(data).plan.operators]
    operators = [name.decode() for name in names]
    assert operators[-1] == "aten::copy_"
    x = torch.zeros(3)
    outputs = kiln.load(data).run(x)
    assert torch.equal(x, torch.ones(3))  # as torch would leave it
    assert torch.equal(outputs[-1], torch.full((3,), 2.0))


def test_a_program_of_shared_tables_is_refused_within_its_work_budget() -> None:
    # 200 list values that are one table of 1000 items, passed by 1000 calls that are one table:
    # a small file that checks unaware of sharing would walk calls x lists x items times.
    data = shared_tables_program(lists=200, items=1000, calls=1000)
    assert len(data) < 16 * 1024
    start = time.monotonic()
    message = _refusal(data)
    assert time.monotonic() - start < 5.0  # a bound no machine misses unless the work is unbounded
    assert "checking the program would examine more than" in message
    assert f"per byte of its {len(data)}-byte file" in message


def test_a_program_of_many_inputs_and_values_is_refused_within_its_work_budget() -> None:
    # Method::load compares each input with every value: 20000 of each, in one shared table.
    data = shared_tables_program(lists=20000, items=1, calls=0, inputs=20000)
    message = _refusal(data)
    assert f"per byte of its {len(data)}-byte file" in message


def test_a_program_of_a_few_shared_tables_loads() -> None:
    kiln.load(shared_tables_program(lists=4, items=8, calls=4))


def test_a_backward_jump_ends_the_run_with_an_error(mlp: bytes) -> None:
    def edit(p: PteFile) -> None:
        condition = pte.BoolT()
        condition.boolVal = False
        value = pte.EValueT()
        value.valType, value.val = pte.KernelTypes.Bool, condition
        p.plan.values.append(value)
        jump = pte.JumpFalseCallT()
        jump.condValueIndex, jump.destinationInstruction = len(p.plan.values) - 1, 0
        instruction = pte.InstructionT()
        instruction.instrArgsType, instruction.instrArgs = (
            pte.InstructionArguments.JumpFalseCall,
            jump,
        )
        p.plan.chains[0].instructions.insert(0, instruction)

    program = kiln.load(_edited(mlp, edit))
    with pytest.raises(kiln.KilnError) as error:
        program.run(torch.randn(2, 8))
    assert error.value.code == "InvalidState"
    assert "method 'forward': instruction 0 would exceed the run's budget of" in str(error.value)
