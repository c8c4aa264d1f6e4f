"""quantized_decomposed::embedding_byte / embedding_4bit / embedding_2bit (.out and .dtype_out),
ExecuTorch's quantized embeddings, against ExecuTorch 1.5.1 itself: its compiled kernels, run by
its runtime on a program that calls them (exactly: Kiln computes as they do, in float, rounded
once), and its Python reference ops (within their intermediate roundings). Packings, per-row and
grouped scales, zero points, dtypes, index dtypes and shapes, odd sizes, a large table, and bad
input."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

import pytest
import torch
from executorch_export import ExecuTorchMethod, load_quantized_kernels, pte_bytes
from op_compare import assert_same, raises

NAMES = {8: "embedding_byte", 4: "embedding_4bit", 2: "embedding_2bit"}
# The code ranges ExecuTorch's exporter passes (its Python reference insists on them).
QUANT_RANGES = {8: (-128, 127), 4: (-8, 7), 2: (-2, 1)}
FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16]
EXACT = {dtype: (0.0, 0.0) for dtype in FLOAT_DTYPES}


@dataclass(frozen=True)
class Case:
    """One call: a seeded table of `rows` x `dim` codes with scales (and zero points) per row
    (groups 0: 1-D scales) or per group, gathered at seeded indices."""

    bits: int
    overload: str  # "out" (returns the scales' dtype) or "dtype_out"
    scale_dtype: torch.dtype = torch.float32
    out_dtype: torch.dtype = torch.float32
    zero_points: bool = False
    groups: int = 0
    rows: int = 11
    dim: int = 24
    index_shape: tuple[int, ...] = (3, 5)
    index_dtype: torch.dtype = torch.long
    weight_dtype: torch.dtype = torch.uint8
    quant_range: tuple[int, int] | None = None  # None: QUANT_RANGES[bits]
    dtype_argument: bool = True  # .dtype_out: pass dtype, or None (out's dtype then rules)

    @property
    def op(self) -> str:
        return f"quantized_decomposed::{NAMES[self.bits]}.{self.overload}"

    @property
    def quant_min_max(self) -> tuple[int, int]:
        return self.quant_range or QUANT_RANGES[self.bits]

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor]:
        seed = hash((self.bits, self.rows, self.dim, self.groups, self.index_shape)) % 2**31
        generator = torch.Generator().manual_seed(seed)
        width = self.dim * self.bits // 8
        if self.weight_dtype == torch.int8:
            weight = torch.randint(-128, 128, (self.rows, width), generator=generator)
        else:
            weight = torch.randint(0, 256, (self.rows, width), generator=generator)
        shape = (self.rows, self.groups) if self.groups else (self.rows,)
        scales = torch.rand(shape, generator=generator) * 0.05 + 0.001
        zero_points = torch.randn(shape, generator=generator) * 3 if self.zero_points else None
        indices = torch.randint(0, self.rows, self.index_shape, generator=generator)
        return (
            weight.to(self.weight_dtype),
            scales.to(self.scale_dtype),
            None if zero_points is None else zero_points.to(self.scale_dtype),
            indices.to(self.index_dtype),
        )


def run_kiln(call_op: Any, case: Case) -> torch.Tensor:
    weight, scales, zero_points, indices = case.tensors()
    out = torch.empty(0, dtype=case.out_dtype)
    args = (weight, scales, zero_points, *case.quant_min_max, indices)
    dtype = case.out_dtype if case.dtype_argument else None
    kwargs = {} if case.overload == "out" else {"dtype": dtype}
    result: torch.Tensor = call_op(case.op, *args, out=out, **kwargs)
    assert result is out, "the op must return its out tensor"
    return result


# ExecuTorch's side ------------------------------------------------------------------------------


def functional_call(
    case: Case, *tensors: torch.Tensor | None, exported: bool = False
) -> torch.Tensor:
    """The functional form of `case`'s op (the Python reference), which ExecuTorch's exporter
    lowers to the out variant its kernels run (`exported`: the form to export)."""
    weight, scales, zero_points, indices = tensors
    op = getattr(torch.ops.quantized_decomposed, NAMES[case.bits])
    args = (weight, scales, zero_points, *case.quant_min_max, indices)
    # ExecuTorch's exporter plans a Float out for a packed table's .out whatever the scales' dtype
    # (the op's fake kernel says Float), which its .out kernel, reading the scales as out's type,
    # cannot take; .dtype given the scales' dtype computes what .out does.
    planned_as_float = case.bits != 8 and case.scale_dtype != torch.float32
    result: torch.Tensor
    if case.overload == "out" and not (exported and planned_as_float):
        result = op.default(*args)
    else:
        result = op.dtype(*args, dtype=case.out_dtype)
    return result


class _Calls(torch.nn.Module):
    """Every case's call in one program: its inputs are the cases' tensors, flat."""

    def __init__(self, cases: tuple[Case, ...]) -> None:
        super().__init__()
        self.cases = cases

    def forward(self, *tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
        results = []
        remaining = iter(tensors)
        for case in self.cases:
            weight, scales = next(remaining), next(remaining)
            zero_points = next(remaining) if case.zero_points else None
            indices = next(remaining)
            results.append(
                functional_call(case, weight, scales, zero_points, indices, exported=True)
            )
        return tuple(results)


def _executorch_inputs(case: Case) -> list[torch.Tensor]:
    weight, scales, zero_points, indices = case.tensors()
    # ExecuTorch's embedding_byte takes Long indices only (it aborts on Int ones); the values are
    # the same, and so is the reference.
    if case.bits == 8:
        indices = indices.long()
    return [t for t in (weight, scales, zero_points, indices) if t is not None]


@functools.cache
def _executorch_results(cases: tuple[Case, ...]) -> tuple[torch.Tensor, ...]:
    import executorch.exir.passes._quant_patterns_and_replacements  # noqa: F401  (the ops)

    load_quantized_kernels()
    inputs = [t for case in cases for t in _executorch_inputs(case)]
    outputs = ExecuTorchMethod(pte_bytes(_Calls(cases), tuple(inputs))).run(*inputs)
    return tuple(o.clone() for o in outputs)


def executorch_result(case: Case, group: tuple[Case, ...]) -> torch.Tensor:
    """ExecuTorch's kernel's result for `case`, from one program running all of `group` (which
    holds only inputs ExecuTorch's kernels take: they abort on anything else)."""
    return _executorch_results(group)[group.index(case)]


def python_reference(case: Case) -> torch.Tensor:
    """ExecuTorch's Python reference op, run eagerly: it dequantizes the whole table in the
    scales' dtype, then gathers (so 16-bit scales round (code - zero point) and the product)."""
    return functional_call(case, *case.tensors())


def byte_reference(case: Case) -> torch.Tensor:
    """ExecuTorch's arithmetic for an 8-bit table in torch's float ops: (float(code) -
    float(zero point)) * float(scale), rounded once to out's dtype, then gathered."""
    weight, scales, zero_points, indices = case.tensors()
    groups = max(case.groups, 1)
    values = weight.float().reshape(case.rows, groups, case.dim // groups)
    if zero_points is not None:
        values = values - zero_points.float().reshape(case.rows, groups, 1)
    values = values * scales.float().reshape(case.rows, groups, 1)
    return values.reshape(case.rows, case.dim).to(case.out_dtype)[indices.long()]


def assert_within_reference_rounding(
    actual: torch.Tensor, expected: torch.Tensor, case: Case
) -> None:
    """Float scales: the reference's float arithmetic is Kiln's, so the results are equal. 16-bit
    scales: the reference rounds (code - zero point) and the product to the scales' dtype before
    out's, which Kiln does once: two units of the scales' precision and one of out's apart."""
    if case.scale_dtype == torch.float32:
        assert_same(actual, expected, tolerances=EXACT)
        return
    rtol = 2 * torch.finfo(case.scale_dtype).eps + torch.finfo(case.out_dtype).eps
    tolerances = {case.out_dtype: (rtol, 1e-7)}
    assert_same(actual, expected, tolerances=tolerances)


# The cases ---------------------------------------------------------------------------------------


def _dtype_cases(bits: int) -> list[Case]:
    """Each overload over scales and out dtypes, with and without zero points, per row and in
    groups. Zero points go with out of the scales' dtype: ExecuTorch's kernels require the zero
    points to have out's dtype and read them as the scales' (its Python reference: the scales'
    dtype), so only there do both agree."""
    weight_dtypes = [torch.uint8, torch.int8] if bits == 8 else [torch.uint8]
    cases = []
    for weight_dtype in weight_dtypes:
        for scale_dtype in FLOAT_DTYPES:
            for out_dtype in FLOAT_DTYPES:
                for overload in ("out", "dtype_out"):
                    if overload == "out" and out_dtype != scale_dtype:
                        continue
                    for zero_points in (False, True) if out_dtype == scale_dtype else (False,):
                        for groups in (0, 3):
                            cases.append(
                                Case(
                                    bits,
                                    overload,
                                    scale_dtype,
                                    out_dtype,
                                    zero_points,
                                    groups,
                                    weight_dtype=weight_dtype,
                                )
                            )
    return cases


# .dtype_out without a dtype: out's dtype (any of the three) rules.
DTYPE_NONE_CASES = [
    Case(bits, "dtype_out", torch.float32, out_dtype, groups=2, dtype_argument=False)
    for bits in (8, 4, 2)
    for out_dtype in FLOAT_DTYPES
]

DTYPE_CASES = tuple(case for bits in (8, 4, 2) for case in _dtype_cases(bits)) + tuple(
    DTYPE_NONE_CASES
)

# Index dtypes and shapes: rank 0, 1, 2 and 3, empty, Int and Long.
INDEX_CASES = tuple(
    Case(bits, overload, index_shape=shape, index_dtype=index_dtype, zero_points=True, groups=2)
    for bits in (8, 4, 2)
    for overload in ("out", "dtype_out")
    for shape in [(), (7,), (2, 9), (2, 3, 4), (0,), (3, 0)]
    for index_dtype in (torch.long, torch.int32)
)

# Sizes the packing allows: odd embedding dims for 8 bits; groups of odd sizes and of one value,
# whose codes start inside a byte, for the packed tables; one row; rows of no values.
SIZE_CASES = tuple(
    Case(bits, "dtype_out", torch.float16, out_dtype, zero_points, groups, rows, dim)
    for bits, rows, dim, groups in [
        (8, 5, 0, 0),
        (8, 5, 1, 0),
        (8, 7, 7, 0),
        (8, 9, 33, 3),
        (8, 9, 21, 7),
        (8, 9, 21, 21),
        (8, 1, 16, 4),
        (4, 5, 0, 0),
        (4, 5, 2, 0),
        (4, 7, 6, 2),
        (4, 7, 6, 6),
        (4, 9, 30, 5),
        (4, 1, 14, 7),
        (2, 5, 0, 0),
        (2, 5, 4, 0),
        (2, 7, 12, 3),
        (2, 7, 12, 6),
        (2, 7, 12, 12),
        (2, 9, 36, 9),
    ]
    for zero_points, out_dtype in [(False, torch.float32), (True, torch.float16)]
)

# The Python reference takes groups of two or more values only, and for 8 bits it is the fake
# kernel ExecuTorch's exporter traces with: it cannot write those programs.
EXPORTED_SIZE_CASES = tuple(c for c in SIZE_CASES if c.bits != 8 or c.dim // max(c.groups, 1) > 1)

# ExecuTorch's kernels carry the code range as metadata: codes outside it are not clamped.
RANGE_CASES = tuple(
    Case(bits, overload, quant_range=(-1, 1), groups=4)
    for bits in (8, 4, 2)
    for overload in ("out", "dtype_out")
)

# A vocabulary-sized table read at many indices (and over the thread pool).
LARGE_CASES = tuple(
    Case(
        bits,
        "dtype_out",
        torch.float16,
        torch.float16,
        True,
        groups=8,
        rows=32000,
        dim=256,
        index_shape=(4, 1024),
    )
    for bits in (8, 4, 2)
)


def _case_id(case: Case) -> str:
    fields = [f"{case.bits}bit", case.overload]
    defaults = Case(case.bits, case.overload)
    for field in dataclasses.fields(Case)[2:]:
        value = getattr(case, field.name)
        if value != getattr(defaults, field.name):
            text = str(value).replace("torch.", "")
            fields.append(f"{field.name}={text}")
    return "-".join(fields)


def _parametrize(cases: tuple[Case, ...]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("case", cases, ids=[_case_id(c) for c in cases])


# The tests ---------------------------------------------------------------------------------------


@_parametrize(DTYPE_CASES)
def test_dtypes_match_executorch(call_op: Any, case: Case) -> None:
    out = run_kiln(call_op, case)
    assert_same(out, executorch_result(case, DTYPE_CASES), tolerances=EXACT)
    assert_within_reference_rounding(out, python_reference(case), case)


@_parametrize(INDEX_CASES)
def test_indices_match_executorch(call_op: Any, case: Case) -> None:
    out = run_kiln(call_op, case)
    assert out.shape == (*case.index_shape, case.dim)
    assert_same(out, executorch_result(case, INDEX_CASES), tolerances=EXACT)
    assert_within_reference_rounding(out, python_reference(case), case)


@_parametrize(SIZE_CASES)
def test_sizes_match_executorch(call_op: Any, case: Case) -> None:
    out = run_kiln(call_op, case)
    if case in EXPORTED_SIZE_CASES:
        assert_same(out, executorch_result(case, EXPORTED_SIZE_CASES), tolerances=EXACT)
    else:
        assert_same(out, byte_reference(case), tolerances=EXACT)
    if case.dim // max(case.groups, 1) > 1:
        assert_within_reference_rounding(out, python_reference(case), case)


@_parametrize(RANGE_CASES)
def test_quant_range_is_not_applied(call_op: Any, case: Case) -> None:
    out = run_kiln(call_op, case)
    assert_same(out, executorch_result(case, RANGE_CASES), tolerances=EXACT)
    in_range = run_kiln(call_op, dataclasses.replace(case, quant_range=None))
    assert_same(out, in_range, tolerances=EXACT)


@_parametrize(LARGE_CASES)
def test_large_table_matches_executorch(call_op: Any, case: Case) -> None:
    out = run_kiln(call_op, case)
    assert_same(out, executorch_result(case, LARGE_CASES), tolerances=EXACT)
    assert_within_reference_rounding(out, python_reference(case), case)


# Bad input ---------------------------------------------------------------------------------------


def _call(call_op: Any, bits: int, overload: str = "out", **changes: Any) -> torch.Tensor:
    """A call on a valid 11 x 24 table with grouped scales and zero points, with `changes` to its
    arguments (weight, scales, zero_points, quant_min, quant_max, indices, dtype, out)."""
    case = Case(bits, overload, zero_points=True, groups=3)
    weight, scales, zero_points, indices = case.tensors()
    quant_min, quant_max = case.quant_min_max
    arguments: dict[str, Any] = {
        "weight": weight,
        "scales": scales,
        "zero_points": zero_points,
        "quant_min": quant_min,
        "quant_max": quant_max,
        "indices": indices,
        "out": torch.empty(0),
        **changes,
    }
    args = [arguments[name] for name in ("weight", "scales", "zero_points")]
    args += [arguments["quant_min"], arguments["quant_max"], arguments["indices"]]
    kwargs = {"dtype": arguments.get("dtype")} if overload == "dtype_out" else {}
    result: torch.Tensor = call_op(case.op, *args, out=arguments["out"], **kwargs)
    return result


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_bad_input(call_op: Any, bits: int) -> None:
    weight, scales, zero_points, indices = Case(bits, "out", zero_points=True, groups=3).tensors()
    assert zero_points is not None
    name = NAMES[bits]
    if bits == 8:
        with raises(call_op, f"weight has dtype Float; {name} takes a table of Byte"):
            _call(call_op, bits, weight=weight.float())
    else:
        with raises(call_op, f"weight has dtype Char; {name} takes its {bits}-bit codes packed"):
            _call(call_op, bits, weight=weight.to(torch.int8))
    with raises(call_op, r"weight must have 2 dims, but has shape \[\d+\]"):
        _call(call_op, bits, weight=weight.reshape(-1), scales=scales[:, 0].contiguous())
    with raises(call_op, "weight_scales has dtype Double; pass a Float, Half or BFloat16"):
        _call(call_op, bits, scales=scales.double(), zero_points=None)
    with raises(call_op, r"weight_scales has shape \[10, 3\] but weight has shape \[11, "):
        _call(call_op, bits, scales=scales[:10], zero_points=zero_points[:10])
    with raises(call_op, r"weight_scales has shape \[11, 3, 1\] but weight"):
        _call(call_op, bits, scales=scales[..., None], zero_points=None)
    with raises(call_op, "its 5 groups per row must divide embedding_dim 24"):
        _call(call_op, bits, scales=torch.rand(11, 5), zero_points=None)
    with raises(call_op, "its 0 groups per row must divide embedding_dim 24"):
        _call(call_op, bits, scales=torch.rand(11, 0), zero_points=None)
    with raises(call_op, "weight_zero_points has dtype Half but weight_scales has Float"):
        _call(call_op, bits, zero_points=zero_points.half())
    with raises(call_op, r"weight_zero_points has shape \[11\] but weight_scales has shape"):
        _call(call_op, bits, zero_points=zero_points[:, 0].contiguous())
    with raises(call_op, "weight_quant_min 3 is greater than weight_quant_max 2"):
        _call(call_op, bits, quant_min=3, quant_max=2)
    with raises(call_op, "indices has dtype Float; pass an Int or Long tensor"):
        _call(call_op, bits, indices=indices.float())
    channels_last = indices.reshape(1, 3, 5, 1).contiguous(memory_format=torch.channels_last)
    with raises(call_op, "indices is not contiguous; the kernel takes only the contiguous"):
        _call(call_op, bits, indices=channels_last)
    bad = indices.clone()
    bad[1, 2] = 11
    with raises(call_op, r"indices holds 11 at flat position 7, outside weight's 11 rows"):
        _call(call_op, bits, indices=bad.int())
    bad[1, 2] = -1
    with raises(call_op, r"indices holds -1 at flat position 7, .* pass indices in \[0, 11\)"):
        _call(call_op, bits, indices=bad)
    with raises(call_op, "out has dtype Half but weight_scales' dtype, which .out returns, is"):
        _call(call_op, bits, out=torch.empty(0, dtype=torch.float16))
    with raises(call_op, "out has dtype Half but the dtype argument is Float; pass out of"):
        _call(call_op, bits, "dtype_out", dtype=torch.float32, out=torch.empty(0).half())
    with raises(call_op, "the dtype argument is Double, but the result is Float, Half or"):
        _call(call_op, bits, "dtype_out", dtype=torch.float64, out=torch.empty(0).double())
    with raises(call_op, "out has dtype Int; pass a Float, Half or BFloat16 tensor"):
        _call(call_op, bits, "dtype_out", out=torch.empty(0, dtype=torch.int32))


def test_refusal_leaves_out_alone(call_op: Any) -> None:
    out = torch.full((2, 3), 7.0)
    indices = torch.tensor([[0, 11]])
    with raises(call_op, "indices holds 11"):
        _call(call_op, 4, indices=indices, out=out)
    assert_same(out, torch.full((2, 3), 7.0), tolerances=EXACT)
