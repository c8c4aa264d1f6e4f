"""kiln.call_op: argument binding, zero-copy outs, resizing, errors; registry queries."""

from __future__ import annotations

import itertools
import sys

import pytest
import torch

import kiln
from kiln import _C
from kiln._convert import DTYPE_CODES


def test_call_op_writes_into_out_without_copies() -> None:
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    b = torch.ones(3)
    out = torch.empty(2, 3)
    pointer = out.data_ptr()
    result = kiln.call_op("aten::add.out", a, b, alpha=2, out=out)
    assert result is out and out.data_ptr() == pointer
    torch.testing.assert_close(out, a + 2 * b)


def test_out_is_resized_through_torch() -> None:
    a = torch.randn(4, 5)
    out = torch.empty(0)
    kiln.call_op("aten::relu.out", a, out=out)
    assert out.shape == (4, 5)
    torch.testing.assert_close(out, torch.relu(a))


def test_name_without_namespace_and_keyword_arguments() -> None:
    a, b = torch.randn(3), torch.randn(3)
    out = kiln.call_op("mul.out", self=a, other=b, out=torch.empty(3))
    torch.testing.assert_close(out, a * b)


def test_unknown_operator_suggests_close_names() -> None:
    with pytest.raises(kiln.KilnError, match=r"did you mean aten::add\.out") as info:
        kiln.call_op("aten::add.outt", torch.ones(1), torch.ones(1), out=torch.empty(1))
    assert info.value.code == "OperatorMissing"


def test_missing_overload_lists_the_overloads() -> None:
    with pytest.raises(kiln.KilnError, match=r"aten::add\.Scalar_out, aten::add\.out"):
        kiln.call_op("aten::add", torch.ones(1), torch.ones(1), out=torch.empty(1))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: kiln.call_op("aten::relu.out", torch.ones(2)), TypeError, "pass the out tensor"),
        (
            lambda: kiln.call_op("aten::add.out", torch.ones(2), out=torch.empty(2)),
            TypeError,
            "missing argument 'other'",
        ),
        (
            lambda: kiln.call_op("aten::relu.out", torch.ones(2), 3, out=torch.empty(2)),
            TypeError,
            "at most 1 positional",
        ),
        (
            lambda: kiln.call_op("aten::relu.out", torch.ones(2), bogus=1, out=torch.empty(2)),
            TypeError,
            "has no argument 'bogus'",
        ),
        (
            lambda: kiln.call_op("aten::relu.out", [1.0, 2.0], out=torch.empty(2)),
            TypeError,
            r"argument 'self' \(Tensor\) expects a torch.Tensor, got list",
        ),
        (
            lambda: kiln.call_op(
                "aten::add.out", torch.ones(2), torch.ones(2), alpha="x", out=torch.empty(2)
            ),
            TypeError,
            "argument 'alpha' .* expects a number",
        ),
        (
            lambda: kiln.call_op(
                "aten::relu.out", torch.ones(2), out=torch.empty(2), backend="gpu"
            ),
            ValueError,
            "unknown backend 'gpu'",
        ),
        (
            lambda: kiln.call_op(
                "aten::add.out", torch.ones(2), torch.ones(2), alpha=2**70, out=torch.empty(2)
            ),
            ValueError,
            "does not fit in int64",
        ),
    ],
)
def test_bad_arguments_raise_python_errors(call, error, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=message):
        call()


def test_functional_operator_returns_its_new_tensor() -> None:
    # allclose.Tensor's kernel makes a 0-dim Bool tensor in the call's temp memory; call_op hands
    # back a torch copy of it.
    result = kiln.call_op("aten::allclose.Tensor", torch.ones(3), torch.ones(3))
    assert isinstance(result, torch.Tensor)
    assert result.dtype == torch.bool and result.shape == () and bool(result)
    assert not bool(kiln.call_op("aten::allclose.Tensor", torch.ones(3), torch.zeros(1)))


def test_kernel_failure_raises_kiln_error_with_the_kernels_message() -> None:
    with pytest.raises(kiln.KilnError, match=r"aten::add\.out: .*broadcast") as info:
        kiln.call_op("aten::add.out", torch.ones(2, 3), torch.ones(4), out=torch.empty(0))
    assert info.value.code == "InvalidArgument"


def test_registered_operators_lists_every_functions_yaml_kernel() -> None:
    kernels = kiln.registered_operators()
    names = {k["name"] for k in kernels}
    assert {"aten::add.out", "aten::mm.out", "aten::view_copy.out"} <= names
    add = next(k for k in kernels if k["name"] == "aten::add.out")
    assert add["backend"] == "portable" and add["key"] == "default"
    assert add["origin"].startswith("functions.yaml:")


def test_runtime_promotion_matches_torch_promote_types() -> None:
    real = [
        d
        for d in DTYPE_CODES
        if not d.is_complex and d not in (torch.uint16, torch.uint32, torch.uint64)
    ]
    for a, b in itertools.product(real, real):
        expected = DTYPE_CODES[torch.promote_types(a, b)]
        assert _C.promote_types(DTYPE_CODES[a], DTYPE_CODES[b]) == expected, (a, b)


def test_missing_operators_report_from_the_runtime() -> None:
    report = kiln.missing_operators(
        ["aten::add.out", "aten::squeeze_copy.dim_outt", ("aten::mul.out", "v1/6;0|6;0|6;0")],
        backend="portable",
    )
    assert report == [
        {
            "index": 1,
            "op": "aten::squeeze_copy.dim_outt",
            "key": "default",
            "backends_searched": ["portable", "ascend"],
            "cause": "not registered",
        }
    ]


def test_an_op_without_an_ascend_kernel_falls_back_visibly() -> None:
    # sort has no Ascend kernel: the portable one serves, and the fallback is recorded.
    kiln.reset_fallback_stats()
    x = torch.tensor([3.0, 1.0, 2.0])
    values, indices = torch.empty(3), torch.empty(3, dtype=torch.long)
    kiln.call_op("aten::sort.values", x, out=(values, indices), backend="ascend")
    torch.testing.assert_close(values, torch.tensor([1.0, 2.0, 3.0]))
    assert ("aten::sort.values", "ascend", "portable", 1, "no kernel") in kiln.fallback_records()
    with pytest.raises(kiln.KilnError, match="has no kernel on ascend .fallback to another "):
        kiln.call_op(
            "aten::sort.values", x, out=(values, indices), backend="ascend", allow_fallback=False
        )


class _AddRelu(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + y)


def _add_relu_program() -> bytes:
    return kiln.export(_AddRelu(), (torch.ones(2, 3), torch.ones(2, 3)))


def test_native_refusals_raise_kiln_error_itself_with_separate_code() -> None:
    assert _C.KilnError is kiln.KilnError  # the extension raises the class users catch
    with pytest.raises(kiln.KilnError, match="broadcast") as call:
        kiln.call_op("aten::add.out", torch.ones(2, 3), torch.ones(4), out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="not a .pte file") as load:
        kiln.load(b"\0" * 64)
    program = kiln.load(_add_relu_program())
    with pytest.raises(kiln.KilnError, match="input 1: expected dtype") as run:
        program.run(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.int32))
    for error, code in (
        (call, "InvalidArgument"),
        (load, "InvalidProgram"),
        (run, "InvalidArgument"),
    ):
        assert type(error.value) is kiln.KilnError
        assert error.value.code == code
        assert not str(error.value).startswith(code)  # the code is not folded into the text


def test_a_missing_program_file_is_access_failed() -> None:
    with pytest.raises(kiln.KilnError, match="cannot read /nonexistent/x.pte") as error:
        kiln.load("/nonexistent/x.pte")
    assert error.value.code == "AccessFailed"


def test_program_lists_operators_and_instructions_without_the_python_reader(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    data = _add_relu_program()
    path = f"{tmp_path}/add_relu.pte"
    with open(path, "wb") as file:
        file.write(data)

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("kiln.load read the program with the Python flatc reader")

    # The reader's modules cannot be imported, and the generated reader's root accessors refuse.
    for package in ("codegen", "kiln.codegen"):
        generated = sys.modules.get(f"{package}.pte.program_generated")
        if generated is not None:
            monkeypatch.setattr(generated.Program, "GetRootAs", refuse)
        for module in ("pte", "pte.reader", "pte.program_generated"):
            monkeypatch.setitem(sys.modules, f"{package}.{module}", None)
    program = kiln.load(path)
    assert program.operators == ("aten::add.out", "aten::relu.out")
    before = program.instructions()
    # The relu is fused into the add at load (docs/programs.md, "Fusion at load").
    assert [(i.index, i.kind, i.op, i.backend) for i in before] == [
        (0, "KernelCall", "aten::add.out", ""),
        (1, "KernelCall", "aten::relu.out", "fused"),
    ]
    program.run(torch.ones(2, 3), -torch.ones(2, 3) * 2)
    # add's kernel does not take the clamp, so the relu ran after it (in place).
    assert [i.backend for i in program.instructions()] == ["portable", "portable"]
