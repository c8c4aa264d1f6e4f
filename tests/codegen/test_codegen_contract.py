"""Declared mutation and functional ops: what the contract accepts, and the code it generates.

Out variants are the norm; an in-place op writes and returns its self, any argument marked (a!)
may be written, and a functional op returns new tensors. Refusals are in test_codegen_errors.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from codegen_testing import REPO, compile_syntax, run_codegen, write

FORMS = """\
- func: my_ops::scale_(Tensor(a!) self, float factor) -> Tensor(a!)
  kernels: [{arg_meta: null, kernel_name: my_kernels::scale_}]
- func: my_ops::accumulate.out(Tensor x, Tensor(a!) total, *, Tensor(b!) out) -> Tensor(b!)
  kernels: [{arg_meta: null, kernel_name: my_kernels::accumulate_out}]
- func: my_ops::update_cache(Tensor value, Tensor(a!) cache, SymInt start_pos) -> Tensor
  kernels: [{arg_meta: null, kernel_name: my_kernels::update_cache}]
- func: my_ops::write_rows(Tensor(a!) cache, Tensor value) -> ()
  kernels: [{arg_meta: null, kernel_name: my_kernels::write_rows}]
- func: my_ops::zero_all(Tensor(a!)[] tensors) -> ()
  kernels: [{arg_meta: null, kernel_name: my_kernels::zero_all}]
- func: my_ops::twice(Tensor self) -> Tensor
  kernels: [{arg_meta: null, kernel_name: my_kernels::twice}]
- func: my_ops::halves(Tensor self) -> (Tensor, Tensor)
  kernels: [{arg_meta: null, kernel_name: my_kernels::halves}]
- func: my_ops::resize.out(Tensor self, float[]? scales, *, Tensor(a!) out) -> Tensor(a!)
  kernels: [{arg_meta: null, kernel_name: my_kernels::resize_out}]
"""

ATEN_FORMS = """\
- op: add_.Tensor
  kernels: [{arg_meta: null, kernel_name: my_kernels::add_}]
- op: add.Tensor
  kernels: [{arg_meta: null, kernel_name: my_kernels::add}]
- op: _native_batch_norm_legit.out
  kernels: [{arg_meta: null, kernel_name: my_kernels::batch_norm_out}]
- op: upsample_nearest2d.vec_out
  kernels: [{arg_meta: null, kernel_name: my_kernels::upsample_out}]
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("forms")
    run = run_codegen(
        tmp / "out",
        "--functions-yaml",
        write(tmp, "functions.yaml", ATEN_FORMS),
        "--custom-ops-yaml",
        write(tmp, "custom_ops.yaml", FORMS),
    )
    assert run.returncode == 0, run.stderr
    return tmp / "out"


def _text(out: Path, name: str) -> str:
    """The file on one line: how the generator wraps long lines does not matter here."""
    return re.sub(r"\(\s+", "(", " ".join((out / name).read_text().split()))


@pytest.mark.parametrize(
    "declaration",
    [
        # in-place: self by non-const reference, returned by reference
        "kiln::Tensor& scale_(kiln::KernelRuntimeContext& ctx, kiln::Tensor& self, double factor);",
        # a written input beside the out argument
        "kiln::Tensor& accumulate_out(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& x, "
        "kiln::Tensor& total, kiln::Tensor& out);",
        # a KV cache written, a new tensor returned by value
        "kiln::Tensor update_cache(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& value, "
        "kiln::Tensor& cache, int64_t start_pos);",
        "void write_rows(kiln::KernelRuntimeContext& ctx, kiln::Tensor& cache, "
        "const kiln::Tensor& value);",
        "void zero_all(kiln::KernelRuntimeContext& ctx, kiln::ArrayRef<kiln::Tensor> tensors);",
        "kiln::Tensor twice(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& self);",
        "std::tuple<kiln::Tensor, kiln::Tensor> halves(kiln::KernelRuntimeContext& ctx, "
        "const kiln::Tensor& self);",
        "std::optional<kiln::ArrayRef<double>> scales, kiln::Tensor& out);",
        # ATen's in-place and functional add, and batch norm's running stats
        "kiln::Tensor& add_(kiln::KernelRuntimeContext& ctx, kiln::Tensor& self, "
        "const kiln::Tensor& other, const kiln::Scalar& alpha);",
        "kiln::Tensor add(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& self, "
        "const kiln::Tensor& other, const kiln::Scalar& alpha);",
        "kiln::Tensor& running_mean, kiln::Tensor& running_var, bool training,",
        "std::optional<kiln::ArrayRef<double>> scale_factors, kiln::Tensor& out);",
    ],
)
def test_native_functions_declare_written_and_returned_tensors(
    generated: Path, declaration: str
) -> None:
    assert declaration in _text(generated, "NativeFunctions.h")


def test_results_go_to_return_slots_after_the_arguments(generated: Path) -> None:
    source = _text(generated, "RegisterKernels.cpp")
    # in-place: one slot after the two arguments, holding self
    assert (
        'kiln::check_arguments(ctx, "my_ops::scale_", stack, kArgs_my_ops_scale_, 1));'
        " kiln::Tensor& result = my_kernels::native::scale_(ctx, stack[0]->toTensor(),"
        " stack[1]->toDouble()); *stack[2] = kiln::EValue(result); return ctx.failure_state();"
    ) in source
    # functional, two new tensors: two slots after the one argument
    assert (
        "std::tuple<kiln::Tensor, kiln::Tensor> result = my_kernels::native::halves(ctx,"
        " stack[0]->toTensor()); *stack[1] = kiln::EValue(std::get<0>(result));"
        " *stack[2] = kiln::EValue(std::get<1>(result));"
    ) in source
    assert (
        "kiln::Tensor result = my_kernels::native::update_cache(ctx, stack[0]->toTensor(),"
        " stack[1]->toTensor(), stack[2]->toInt()); *stack[3] = kiln::EValue(result);"
    ) in source
    # out variants and ops returning nothing keep a stack of arguments only
    assert "kArgs_my_ops_accumulate_out));" in source
    assert "kArgs_my_ops_write_rows));" in source
    rows = {
        line.split(",")[0].strip(' {"'): line
        for line in (generated / "RegisterKernels.cpp").read_text().splitlines()
        if line.startswith('    {"')
    }
    # the table row counts the return slots and the arguments, and names the written arguments'
    # mask (the origin is the kernel's line)
    assert rows["my_ops::scale_"].endswith('"custom_ops.yaml:2", 1, 2, kWrites_my_ops_scale_},')
    assert rows["my_ops::halves"].endswith('"custom_ops.yaml:14", 2, 1, kWrites_my_ops_halves},')
    assert rows["my_ops::accumulate.out"].endswith(
        '"custom_ops.yaml:4", 0, 3, kWrites_my_ops_accumulate_out},'
    )


def test_typed_api_returns_what_the_kernel_returns(generated: Path) -> None:
    functions = _text(generated, "Functions.h")
    assert (
        "inline kiln::Tensor& scale_(kiln::KernelRuntimeContext& ctx, kiln::Tensor& self,"
        " double factor) { return ::my_kernels::native::scale_(ctx, self, factor); }"
    ) in functions
    assert (
        "inline kiln::Tensor twice(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& self) {"
        " return ::my_kernels::native::twice(ctx, self); }"
    ) in functions
    assert "inline void zero_all(kiln::KernelRuntimeContext& ctx," in functions


def test_manifest_lists_the_written_arguments_types(generated: Path) -> None:
    manifest = json.loads((generated / "test_lib.manifest.json").read_text())
    ops = {op["name"]: op for op in manifest["operators"]}
    assert len(ops) == 12
    scales = ops["my_ops::resize.out"]["arguments"][1]
    assert (scales["type"], scales["kind"]) == ("float[]?", "OptionalDoubleList")


def test_generated_code_compiles(generated: Path) -> None:
    compile_syntax(generated, str(generated / "RegisterKernels.cpp"))


def _writes_masks(source: str) -> dict[str, int]:
    return {
        name: int(mask, 16)
        for name, mask in re.findall(
            r"constexpr uint64_t kWrites_(\w+) = 0x([0-9a-f]+)ull;", source
        )
    }


def test_the_table_names_the_arguments_each_kernel_writes(generated: Path) -> None:
    source = _text(generated, "RegisterKernels.cpp")
    masks = _writes_masks((generated / "RegisterKernels.cpp").read_text())
    # an out op writes its out; an in-place op its self; a functional op none of its arguments
    assert masks["my_ops_resize_out"] == 1 << 2
    assert masks["aten_add__Tensor"] == 1 << 0
    assert masks["my_ops_scale_"] == 1 << 0
    assert masks["aten_add_Tensor"] == 0
    assert masks["my_ops_halves"] == 0
    # mutable arguments in the middle of a signature, outs after them
    assert masks["my_ops_accumulate_out"] == (1 << 1) | (1 << 2)
    assert masks["my_ops_update_cache"] == 1 << 1
    assert masks["my_ops_zero_all"] == 1 << 0
    assert masks["aten__native_batch_norm_legit_out"] == sum(1 << i for i in (3, 4, 8, 9, 10))
    assert (
        "// Writes running_mean (3), running_var (4), out (8), save_mean (9), save_invstd (10)."
        in source
    )


def test_reshape_and_cache_writes_its_two_caches(tmp_path: Path) -> None:
    run = run_codegen(
        tmp_path, "--custom-ops-yaml", str(REPO / "custom_ops.yaml"), lib_name="kiln_ops"
    )
    assert run.returncode == 0, run.stderr
    text = run.file("RegisterKernels.cpp")
    # kiln::reshape_and_cache(Tensor key, Tensor value, Tensor(a!) key_cache,
    #                         Tensor(b!) value_cache, Tensor slot_mapping) -> ()
    assert _writes_masks(text)["kiln_reshape_and_cache"] == (1 << 2) | (1 << 3)
    assert "// Writes key_cache (2), value_cache (3)." in text
    assert re.search(
        r'\{"kiln::reshape_and_cache", .*, 0, 5, kWrites_kiln_reshape_and_cache\}', text
    )


def test_aten_mode_tables_carry_the_masks_too(tmp_path: Path) -> None:
    run = run_codegen(
        tmp_path, "--aten-mode", "--functions-yaml", write(tmp_path, "f.yaml", ATEN_FORMS)
    )
    assert run.returncode == 0, run.stderr
    masks = _writes_masks(run.file("RegisterKernels.cpp"))
    assert masks["aten_add__Tensor"] == 1 << 0
    assert masks["aten_upsample_nearest2d_vec_out"] == 1 << 3
    assert masks["aten__native_batch_norm_legit_out"] == sum(1 << i for i in (3, 4, 8, 9, 10))
