"""The generated C++ compiles against the runtime, and its kernel table registers and resolves."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from codegen_testing import CXX, DATA, REPO, compile_syntax, run_codegen, write

pytestmark = pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")


def test_repo_functions_yaml_compiles(tmp_path: Path) -> None:
    run = run_codegen(
        tmp_path, "--functions-yaml", str(REPO / "functions.yaml"), "--static-registration"
    )
    assert run.returncode == 0, run.stderr
    compile_syntax(tmp_path, str(tmp_path / "RegisterKernels.cpp"))


def test_every_argument_type_compiles(tmp_path: Path) -> None:
    run = run_codegen(
        tmp_path,
        "--functions-yaml",
        str(DATA / "et_functions.yaml"),
        "--custom-ops-yaml",
        str(DATA / "custom_ops.yaml"),
    )
    assert run.returncode == 0, run.stderr
    compile_syntax(tmp_path, str(tmp_path / "RegisterKernels.cpp"))


def test_empty_selection_compiles(tmp_path: Path) -> None:
    selection = write(tmp_path, "none.yaml", "operators: {}\n")
    out = tmp_path / "out"
    run = run_codegen(
        out,
        "--functions-yaml",
        str(REPO / "functions.yaml"),
        "--selected-ops",
        selection,
        "--static-registration",
    )
    assert run.returncode == 0, run.stderr
    compile_syntax(out, str(out / "RegisterKernels.cpp"))


# Stub definitions of Kiln's 12 portable kernels, written from the documented signatures: if the
# generated declarations drifted, these would not link.
STUB_KERNELS = """\
#include "NativeFunctions.h"

int g_kernel_calls = 0;

namespace kiln {
namespace portable {
namespace native {
namespace {
Tensor& touch(Tensor& out) {
  ++g_kernel_calls;
  return out;
}
}  // namespace

Tensor& add_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Scalar&, Tensor& out) {
  return touch(out);
}
Tensor& add_scalar_out(KernelRuntimeContext&, const Tensor&, const Scalar&, const Scalar&,
                       Tensor& out) {
  return touch(out);
}
Tensor& sub_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Scalar&, Tensor& out) {
  return touch(out);
}
Tensor& mul_out(KernelRuntimeContext&, const Tensor&, const Tensor&, Tensor& out) {
  return touch(out);
}
Tensor& mul_scalar_out(KernelRuntimeContext&, const Tensor&, const Scalar&, Tensor& out) {
  return touch(out);
}
Tensor& div_out(KernelRuntimeContext&, const Tensor&, const Tensor&, Tensor& out) {
  return touch(out);
}
Tensor& relu_out(KernelRuntimeContext&, const Tensor&, Tensor& out) { return touch(out); }
Tensor& clone_out(KernelRuntimeContext&, const Tensor&, std::optional<MemoryFormat>, Tensor& out) {
  return touch(out);
}
Tensor& mm_out(KernelRuntimeContext&, const Tensor&, const Tensor&, Tensor& out) {
  return touch(out);
}
Tensor& softmax_out(KernelRuntimeContext&, const Tensor&, int64_t, bool, Tensor& out) {
  return touch(out);
}
Tensor& sum_dim_out(KernelRuntimeContext&, const Tensor&, std::optional<IntArrayRef>, bool,
                    std::optional<ScalarType>, Tensor& out) {
  return touch(out);
}
Tensor& view_copy_out(KernelRuntimeContext&, const Tensor&, IntArrayRef, Tensor& out) {
  return touch(out);
}

}  // namespace native
}  // namespace portable
}  // namespace kiln

namespace test_kernels {
namespace native {
kiln::Tensor& keyed_out(kiln::KernelRuntimeContext&, const kiln::Tensor&, kiln::Tensor& out) {
  ++g_kernel_calls;
  return out;
}
kiln::Tensor& keyed_half_out(kiln::KernelRuntimeContext&, const kiln::Tensor&, kiln::Tensor& out) {
  g_kernel_calls += 100;
  return out;
}
}  // namespace native
}  // namespace test_kernels
"""

# A custom op with keyed kernels on both backends, so the table mixes hashes, backends and keys.
KEYED_OPS = """\
- func: kiln_test::keyed.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  type_alias:
    T0: [Half, BFloat16, Float]
  dim_order_alias:
    D0: [[0], [0, 1], [1, 0]]
  kernels:
    - arg_meta: null
      kernel_name: test_kernels::keyed_out
    - arg_meta: {self: [T0, D0], out: [T0, D0]}
      kernel_name: test_kernels::keyed_half_out
    - arg_meta: null
      backend: ascend
      kernel_name: test_kernels::keyed_out
    - arg_meta: {self: [T0, D0], out: [T0, D0]}
      backend: ascend
      kernel_name: test_kernels::keyed_half_out
"""

MAIN = """\
#include <cstdio>
#include <cstring>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"
#include "runtime/kernel/operator_registry.h"

extern int g_kernel_calls;

namespace {
const char* const kOperators[] = {
#include "operators.inc"
};

int fail(const char* what) {
  std::printf("FAIL %s\\n", what);
  return 1;
}
}  // namespace

int main() {
  if (register_kiln_test_kernels() != kiln::Error::Ok) {
    std::printf("FAIL register: %s\\n", kiln::last_error());
    return 1;
  }
  if (register_kiln_test_kernels() != kiln::Error::Ok) return fail("second registration");

  const kiln::Backend portable[] = {kiln::Backend::Portable};
  const kiln::Backend ascend[] = {kiln::Backend::Ascend};
  for (const char* name : kOperators) {
    if (!kiln::find_kernel(name, "", portable).ok()) {
      std::printf("FAIL find_kernel %s\\n", name);
      return 1;
    }
  }
  const char* key = "v1/5;0,1|5;0,1";
  kiln::Result<const kiln::Kernel*> keyed = kiln::find_kernel("kiln_test::keyed.out", key, ascend);
  if (!keyed.ok() || std::strcmp((*keyed)->key, key) != 0 ||
      (*keyed)->backend != kiln::Backend::Ascend) {
    return fail("keyed ascend lookup");
  }
  kiln::Result<const kiln::Kernel*> fallback =
      kiln::find_kernel("kiln_test::keyed.out", "v1/7;0|7;0", portable);
  if (!fallback.ok() || (*fallback)->key[0] != '\\0') return fail("default fallback");

  float a_data[4] = {1, 2, 3, 4};
  float out_data[4] = {};
  kiln::DenseTensor<1> a(kiln::ScalarType::Float, {4}, a_data);
  kiln::DenseTensor<1> out(kiln::ScalarType::Float, {4}, out_data);
  kiln::Result<const kiln::Kernel*> add = kiln::find_kernel("aten::add.out", "", portable);
  kiln::EValue values[] = {kiln::EValue(a.tensor()), kiln::EValue(a.tensor()),
                           kiln::EValue(int64_t{1}), kiln::EValue(out.tensor())};
  kiln::EValue* stack_values[] = {&values[0], &values[1], &values[2], &values[3]};
  // A named Span: g++ decays a raw array passed through a function pointer.
  const kiln::Span<kiln::EValue*> stack(stack_values);
  kiln::KernelRuntimeContext ctx;
  if ((*add)->function(ctx, stack) != kiln::Error::Ok || g_kernel_calls != 1) {
    return fail("boxed call");
  }
  values[1] = kiln::EValue(int64_t{3});  // a wrong tag: Int where a Tensor belongs
  kiln::KernelRuntimeContext bad_ctx;
  if ((*add)->function(bad_ctx, stack) != kiln::Error::InvalidProgram || g_kernel_calls != 1) {
    return fail("wrong tag must be InvalidProgram without calling the kernel");
  }
  kiln::Tensor a_tensor = a.tensor();
  kiln::Tensor out_tensor = out.tensor();
  kiln::aten::add_outf(ctx, a_tensor, a_tensor, kiln::Scalar(int64_t{2}), out_tensor);
  kiln::aten::add_outf(ctx, a_tensor, kiln::Scalar(1.5), kiln::Scalar(int64_t{1}), out_tensor);
  if (g_kernel_calls != 3) return fail("typed API");
  std::printf("OK %zu\\n", kiln::registered_kernel_count());
  return 0;
}
"""


def test_generated_table_registers_and_resolves(tmp_path: Path) -> None:
    assert CXX is not None
    custom = write(tmp_path, "keyed_ops.yaml", KEYED_OPS)
    out = tmp_path / "gen"
    run = run_codegen(
        out,
        "--functions-yaml",
        str(DATA / "twelve_ops.yaml"),
        "--custom-ops-yaml",
        custom,
        lib_name="kiln_test",
    )
    assert run.returncode == 0, run.stderr
    manifest = json.loads((out / "kiln_test.manifest.json").read_text())
    names = [op["name"] for op in manifest["operators"]]
    kernel_count = sum(len(op["kernels"]) for op in manifest["operators"])
    assert kernel_count == 12 + 2 + 2 * 9
    (out / "operators.inc").write_text("".join(f'"{name}",\n' for name in names))
    (tmp_path / "stubs.cpp").write_text(STUB_KERNELS)
    (tmp_path / "main.cpp").write_text(MAIN)
    # The runtime's lean layers: not the executor (it needs a flatc-generated reader) nor the
    # MindSpore call support built on it.
    layers = ("platform", "core", "kernel")
    runtime = sorted(str(p) for layer in layers for p in (REPO / "runtime" / layer).glob("*.cpp"))
    binary = tmp_path / "registry_check"
    compiled = subprocess.run(
        [
            CXX,
            "-std=c++17",
            "-O0",
            f"-I{REPO}",
            f"-I{out}",
            str(out / "RegisterKernels.cpp"),
            str(tmp_path / "stubs.cpp"),
            str(tmp_path / "main.cpp"),
            *runtime,
            "-o",
            str(binary),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr[-6000:]
    result = subprocess.run([str(binary)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == f"OK {kernel_count}"
