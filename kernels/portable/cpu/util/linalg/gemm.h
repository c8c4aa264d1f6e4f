// Cache-blocked matrix multiply in portable C++, shared by mm, bmm, addmm, linear and conv.
#pragma once

#include <cstdint>

#include "runtime/core/scalar.h"
#include "runtime/core/scalar_type.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Writes elements (row, col0 .. col0 + n - 1) of a virtual matrix into `dst`, which holds n
// values of the compute type of the gemm's output dtype (float, double or int64_t). Lets conv
// feed im2col columns straight into the packed blocks without materialising them.
using GemmRowLoader = void (*)(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);

// A read-only matrix: element (i, j) is at data[i * row_stride + j * col_stride] (in elements),
// so transposed views need no copy. With `loader` set, rows come from loader(user, ...) instead
// and data/dtype/strides are ignored.
struct GemmInput {
  const void* data;
  ScalarType dtype;
  int64_t row_stride;
  int64_t col_stride;
  GemmRowLoader loader = nullptr;
  const void* user = nullptr;
};

// The result matrix: element (i, j) is at data[i * row_stride + j].
struct GemmOutput {
  void* data;
  ScalarType dtype;
  int64_t row_stride;
};

// out = alpha * (a b) + beta * c, where c (when `c.data` is set) is read with its strides (0
// broadcasts a row or column). beta == 0 ignores c entirely, as ATen's addmm does; alpha and beta
// are converted like ATen converts them for out's dtype.
// With `clamp` set (a fused activation, KernelRuntimeContext::take_output_clamp), results are
// then clamped to [clamp->min, clamp->max] (floating outs; NaN stays NaN).
struct GemmEpilogue {
  Scalar alpha = Scalar(int64_t{1});
  Scalar beta = Scalar(int64_t{0});
  GemmInput c = {nullptr, ScalarType::Float, 0, 0};
  const KernelRuntimeContext::OutputClamp* clamp = nullptr;
};

// out (m x n) = a (m x k) * b (k x n), then the epilogue. Inputs may have any supported dtype;
// the products are accumulated in out's compute type (float for Half, BFloat16 and Float;
// double; wrapping 64-bit integers for integer dtypes) and rounded to out's dtype once. k == 0
// gives beta * c (or zeros). Uses up to 140 KB of stack (per thread) for packed blocks and no
// heap; `out` must not overlap the inputs. Large products are split over ctx's thread pool in
// whole cache blocks, which leaves every result bit-identical; a loader (GemmRowLoader) is then
// called from several threads at once.
void gemm(const KernelRuntimeContext& ctx, int64_t m, int64_t n, int64_t k, const GemmInput& a,
          const GemmInput& b, const GemmOutput& out, const GemmEpilogue& epilogue = {});

// A dtype-selective build compiles gemm only for the compute types its dtypes need. Kernels
// call this before gemm: it fails `ctx` with NotSupported, naming `op`, when out dtype `dtype`
// was left out, and returns false.
bool check_gemm_dtype(KernelRuntimeContext& ctx, ScalarType dtype, const char* op);

}  // namespace kiln::portable
