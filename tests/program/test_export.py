"""kiln.export writes programs that ExecuTorch 1.5.1's runtime runs, with eager PyTorch's results.

ExecuTorch is the reference here: its runtime runs the files (its exporter is used only to compare
layouts). When executorch cannot be imported these tests fail, telling to run tools/setup.sh.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch
from executorch_export import ExecuTorchMethod, operator_tables
from models import ZOO, ZooModel, zoo_model
from torch import nn

import kiln
from kiln._export import lowering
from kiln._export.lowering import lower
from kiln._export.planning import TENSOR_ALIGNMENT, lifetimes, plan_memory
from kiln._export.portable_ops import EXECUTORCH_PORTABLE_OPS
from kiln.codegen.pte import program_generated as pte

RTOL, ATOL = 1e-4, 1e-5
SETUP_HINT = "run tools/setup.sh: it installs ExecuTorch 1.5.1, the reference these tests run"


def _executorch_runtime() -> Any:
    try:
        from executorch.runtime import Runtime
    except ImportError as error:
        pytest.fail(f"executorch cannot be imported ({error}); {SETUP_HINT}")
    return Runtime.get()


@pytest.fixture(scope="module")
def runtime() -> Any:
    return _executorch_runtime()


def _flat(result: Any) -> list[Any]:
    return list(result) if isinstance(result, tuple | list) else [result]


def _assert_matches(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want)
    for index, (actual, expected) in enumerate(zip(got, want, strict=True)):
        if isinstance(expected, torch.Tensor):
            assert actual.dtype == expected.dtype, f"output {index}"
            torch.testing.assert_close(
                actual, expected, rtol=RTOL, atol=ATOL, msg=f"output {index}"
            )
        else:
            assert actual == expected, f"output {index}"


def _program(data: bytes) -> Any:
    return pte.ProgramT.InitFromObj(pte.Program.GetRootAs(data, 0))


@pytest.mark.parametrize("model", ZOO, ids=lambda m: m.name)
def test_zoo_model_runs_on_executorch_like_eager(
    model: ZooModel, runtime: Any, tmp_path: Path
) -> None:
    module, inputs = model.create()
    reference, _ = model.create()
    path = tmp_path / f"{model.name}.pte"
    data = kiln.export(module, inputs, path)
    assert path.read_bytes() == data
    method = runtime.load_program(data).load_method("forward")
    for _ in range(4 if model.stateful else 1):  # a mutated buffer carries over between runs
        with torch.no_grad():
            want = _flat(reference(*inputs))
        _assert_matches(_flat(method.execute(list(inputs))), want)


def test_program_is_loaded_from_a_path_as_well(runtime: Any, tmp_path: Path) -> None:
    module, inputs = zoo_model("two_in_two_out").create()
    path = tmp_path / "two.pte"
    kiln.export(module, inputs, str(path))
    got = runtime.load_program(str(path)).load_method("forward").execute(list(inputs))
    _assert_matches(_flat(got), _flat(module(*inputs)))


def test_export_is_deterministic() -> None:
    module, inputs = zoo_model("transformer_block").create()
    assert kiln.export(module, inputs) == kiln.export(module, inputs)


def test_mutable_buffer_starts_from_the_module_value(runtime: Any) -> None:
    module, inputs = zoo_model("accumulator").create()
    start = module.total.clone()
    data = kiln.export(module, inputs)
    program = _program(data)
    buffer = program.executionPlan[0].values[0].val  # the buffer is the first tensor
    assert buffer.allocationInfo is not None and buffer.dataBufferIdx == 1
    (mutable,) = program.mutableDataSegments
    assert list(mutable.offsets) == [0, 0]
    ops = [op.name.decode() for op in program.executionPlan[0].operators]
    assert ops[-1] == "aten::copy_"
    got = runtime.load_program(data).load_method("forward").execute(list(inputs))
    torch.testing.assert_close(got[0], (start + inputs[0]) * 2.0)


def test_layout_matches_what_executorch_writes(runtime: Any) -> None:
    """The file layout, the method's interface and the constants agree with ExecuTorch's own
    exporter, and ExecuTorch's deserializer reads Kiln's file."""
    try:
        from executorch.exir import to_edge
        from executorch.exir._serialize._program import deserialize_pte_binary
    except ImportError as error:
        pytest.fail(f"executorch cannot be imported ({error}); {SETUP_HINT}")
    module, inputs = zoo_model("two_in_two_out").create()
    ours = kiln.export(module, inputs)
    theirs = to_edge(torch.export.export(module, inputs)).to_executorch().buffer
    for data in (ours, theirs):
        assert data[4:8] == b"ET12" and data[8:12] == b"eh00"
        length, program_size, base, segment_size = struct.unpack_from("<IQQQ", data, 12)
        assert length == 32 and base % 128 == 0 and base >= program_size
        assert len(data) == base + segment_size
    mine, reference = _program(ours), _program(theirs)
    plan, their_plan = mine.executionPlan[0], reference.executionPlan[0]
    assert plan.name == their_plan.name == b"forward"
    assert plan.containerMetaType.encodedInpStr == their_plan.containerMetaType.encodedInpStr
    assert plan.containerMetaType.encodedOutStr == their_plan.containerMetaType.encodedOutStr
    assert list(plan.nonConstBufferSizes)[0] == list(their_plan.nonConstBufferSizes)[0] == 0

    def interface(program_plan: Any, indices: Any) -> list[tuple[Any, ...]]:
        tensors = [program_plan.values[i].val for i in indices]
        return [
            (t.scalarType, list(t.sizes), list(t.dimOrder), t.allocationInfo.memoryId)
            for t in tensors
        ]

    assert interface(plan, plan.inputs) == interface(their_plan, their_plan.inputs)
    assert interface(plan, plan.outputs) == interface(their_plan, their_plan.outputs)
    assert mine.constantSegment.segmentIndex == reference.constantSegment.segmentIndex == 0
    assert mine.constantSegment.offsets[0] == reference.constantSegment.offsets[0] == 0
    assert all(offset % TENSOR_ALIGNMENT == 0 for offset in mine.constantSegment.offsets)

    restored = deserialize_pte_binary(ours).program
    stored = {bytes(buffer.storage) for buffer in restored.constant_buffer}
    bias = module.fc.bias.detach().numpy().tobytes()
    assert any(blob.startswith(bias) for blob in stored)


def test_memory_plan_reuses_memory_and_never_overlaps_live_tensors() -> None:
    module, inputs = zoo_model("encoder_layer").create()
    lowered = lower(torch.export.export(module, inputs).run_decompositions())
    plan = plan_memory(lowered)
    live = lifetimes(lowered)
    sizes = {t: lowered.tensors[t].nbytes for t in live}
    assert plan.arena_size < sum(sizes.values())
    assert all(offset % TENSOR_ALIGNMENT == 0 for offset in plan.offsets.values())
    for first in live:
        for second in live:
            if first < second and live[first].overlaps(live[second]) and sizes[first]:
                start, other = plan.offsets[first], plan.offsets[second]
                apart = start + sizes[first] <= other or other + sizes[second] <= start
                assert apart or not sizes[second], (first, second)


def test_constant_work_is_done_at_export(runtime: Any) -> None:
    """Linear layers' weight transposes are computed at export, not at each run."""
    module, inputs = zoo_model("mlp").create()
    program = _program(kiln.export(module, inputs))
    ops = {op.name.decode() for op in program.executionPlan[0].operators}
    assert ops == {"aten::addmm", "aten::relu"}


def test_number_operand_without_a_scalar_kernel_becomes_a_constant(
    runtime: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Scale(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * 2.5

    real = lowering.unavailable_reason

    def without_mul_scalar(name: str) -> str | None:
        return "refused by the test" if name == "aten::mul.Scalar_out" else real(name)

    monkeypatch.setattr(lowering, "unavailable_reason", without_mul_scalar)
    inputs = (torch.randn(3, 4),)
    data = kiln.export(Scale(), inputs)
    plan = _program(data).executionPlan[0]
    assert [(op.name, op.overload) for op in plan.operators] == [(b"aten::mul", b"out")]
    got = runtime.load_program(data).load_method("forward").execute(list(inputs))
    _assert_matches(_flat(got), [inputs[0] * 2.5])


def test_program_without_constants_has_no_segments(runtime: Any) -> None:
    class Plain(nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return torch.relu(x) + y

    inputs = (torch.randn(2, 3), torch.randn(2, 3))
    data = kiln.export(Plain(), inputs)
    assert data[8:12] != b"eh00"
    got = runtime.load_program(data).load_method("forward").execute(list(inputs))
    _assert_matches(_flat(got), [torch.relu(inputs[0]) + inputs[1]])


def test_outputs_may_be_inputs_views_constants_and_numbers(runtime: Any) -> None:
    class Outputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.randn(2, 3))

        def forward(self, x: torch.Tensor) -> tuple[Any, ...]:
            flat = x.view(-1)
            return flat, self.weight.t(), x, flat, None, 3, x.reshape(2, 6).argmax(dim=1)

    module, inputs = Outputs(), (torch.randn(3, 4),)
    got = (
        runtime.load_program(kiln.export(module, inputs))
        .load_method("forward")
        .execute(list(inputs))
    )
    _assert_matches(_flat(got), _flat(module(*inputs)))


def test_portable_operator_list_is_executorchs() -> None:
    try:
        import executorch
    except ImportError as error:
        pytest.fail(f"executorch cannot be imported ({error}); {SETUP_HINT}")
    import yaml

    portable = Path(list(executorch.__path__)[0]) / "kernels" / "portable"
    names = set()
    for file_name in ("functions.yaml", "custom_ops.yaml"):
        for entry in yaml.safe_load((portable / file_name).read_text()):
            name = entry.get("op") or entry["func"].split("(", 1)[0]
            names.add(name if "::" in name else f"aten::{name}")
    assert names == EXECUTORCH_PORTABLE_OPS


def test_exporter_does_not_need_executorch(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["executorch"] = None  # any import of it fails
        import torch, kiln
        data = kiln.export(torch.nn.Linear(4, 2).eval(), (torch.randn(3, 4),))
        assert data[4:8] == b"ET12"
        assert not any(name.startswith("executorch") for name in sys.modules if sys.modules[name])
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=tmp_path)


# ---- refusals ----


def _export_error(module: nn.Module | Any, inputs: tuple[Any, ...] = ()) -> str:
    with pytest.raises(kiln.ExportError) as caught:
        kiln.export(module, inputs)
    return str(caught.value)


class _ScaledBy(nn.Module):
    def forward(self, x: torch.Tensor, n: int) -> torch.Tensor:
        return x * n


def test_a_number_input_is_refused_with_the_article_its_type_takes() -> None:
    message = _export_error(_ScaledBy(), (torch.randn(3), 3))
    assert message.startswith("input 'n' is an int; Kiln programs take tensor inputs only")


class _Acos(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.acos(x) + 1


class _Lgamma(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.lgamma(x) + 1


def test_operator_without_a_kiln_kernel_names_node_and_operator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kiln._export import operators

    # As if Kiln lacked acos (ExecuTorch's portable library has it).
    without_acos = operators.kiln_operators() - {"aten::acos.out"}
    monkeypatch.setattr(operators, "kiln_operators", lambda: without_acos)
    message = _export_error(_Acos(), (torch.rand(3),))
    assert "node 'acos'" in message and "aten::acos" in message
    assert "aten::acos.out" in message and "Kiln has no kernel" in message
    assert "test_export.py" in message  # where the model made it


def test_operator_executorch_lacks_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from kiln._export import operators

    assert "neither Kiln nor ExecuTorch" in _export_error(_Lgamma(), (torch.rand(3),))
    monkeypatch.setattr(operators, "EXECUTORCH_PORTABLE_OPS", frozenset({"aten::add.Scalar_out"}))
    message = _export_error(zoo_model("mlp").create()[0], zoo_model("mlp").inputs())
    assert "aten::addmm.out" in message and "ExecuTorch 1.5.1's portable library" in message


def test_a_dynamic_dimension_without_a_bound_is_refused() -> None:
    module, inputs = zoo_model("mlp").create()
    batch = torch.export.Dim("batch")
    program = torch.export.export(module, inputs, dynamic_shapes={"x": {0: batch}})
    message = _export_error(program)
    assert "input 'x' has a dimension" in message and "no upper bound" in message
    assert "give its torch.export.Dim a max" in message


def test_control_flow_is_refused() -> None:
    class Branches(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (x,))

    message = _export_error(Branches(), (torch.randn(3),))
    assert "node 'cond'" in message and "control flow" in message


def test_numbers_computed_at_run_time_pass_between_calls() -> None:
    # .item() is aten::_local_scalar_dense, a prim operator writing a Double that mul.Scalar_out
    # reads; both runtimes run the file.
    class Item(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * x.sum().item()

    module = Item()
    data = kiln.export(module, (torch.randn(3),))
    assert "aten::_local_scalar_dense" in operator_tables(data)["forward"]
    program, reference = kiln.load(data), ExecuTorchMethod(data)
    for _ in range(3):
        x = torch.randn(3)
        torch.testing.assert_close(program.run(x)[0], module(x))
        torch.testing.assert_close(reference.run(x)[0], module(x))


def test_arithmetic_on_sizes_without_a_prim_operator_is_refused() -> None:
    class Square(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.full((x.shape[0] ** 2,), 1.0)

    batch = torch.export.Dim("batch", max=5)
    program = torch.export.export(Square(), (torch.randn(3),), dynamic_shapes={"x": {0: batch}})
    message = _export_error(program)
    assert "calls pow" in message and "no operator for" in message


def test_input_mutation_is_refused() -> None:
    class Mutates(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x.add_(1)
            return x * 2

    assert "mutates its input 'x'" in _export_error(Mutates(), (torch.randn(3),))


def test_capture_failures_and_wrong_arguments_are_export_errors() -> None:
    class DataDependent(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x if x.sum() > 0 else -x

    assert "torch.export cannot capture DataDependent" in _export_error(
        DataDependent(), (torch.randn(3),)
    )
    assert "not str" in _export_error("model.pt", (torch.randn(3),))


class LooksUpThenReduces(nn.Module):
    """An embedding lookup reduced to one value per index: the reduction is small enough to take
    the index input's planned bytes once the lookup has read them."""

    def __init__(self) -> None:
        super().__init__()
        self.table = nn.Embedding(50, 8)

    def forward(self, index: torch.Tensor) -> torch.Tensor:
        return self.table(index).sum(-1) * 2 + 1


def test_repeated_runs_bind_again_an_input_whose_bytes_the_plan_reuses() -> None:
    torch.manual_seed(0)
    module, index = LooksUpThenReduces().eval(), torch.randint(0, 50, (64,))
    lowered = lower(torch.export.export(module, (index,)).run_decompositions())
    plan, live = plan_memory(lowered), lifetimes(lowered)
    (given,) = lowered.inputs
    start, end = plan.offsets[given], plan.offsets[given] + lowered.tensors[given].nbytes
    reusers = [
        t
        for t in live
        if t != given and start <= plan.offsets[t] < end and lowered.tensors[t].nbytes
    ]
    assert reusers, "the premise: a later value is planned into the input's bytes"
    program = kiln.load(kiln.export(module, (index,)))
    # Each timed run sets the input again; running on the bytes a previous run overwrote would
    # look up garbage indices and fail.
    assert program.time_execute(index, repeat=5) > 0
    with torch.no_grad():
        torch.testing.assert_close(program.run(index)[0], module(index))
