// Cache-blocked matrix multiply in portable C++, shared by mm and later bmm/addmm/linear/conv.
#pragma once

#include <cstdint>

#include "runtime/core/scalar_type.h"

namespace kiln::portable {

// A read-only matrix: element (i, j) is at data[i * row_stride + j * col_stride] (in elements),
// so transposed views need no copy.
struct GemmInput {
  const void* data;
  ScalarType dtype;
  int64_t row_stride;
  int64_t col_stride;
};

// The result matrix: element (i, j) is at data[i * row_stride + j].
struct GemmOutput {
  void* data;
  ScalarType dtype;
  int64_t row_stride;
};

// out (m x n) = a (m x k) * b (k x n). Inputs may have any supported dtype; the products are
// accumulated in out's compute type (float for Half, BFloat16 and Float; double; wrapping 64-bit
// integers for integer dtypes) and rounded to out's dtype once. k == 0 writes zeros. Uses about
// 64 KB of stack for packed blocks and no heap; `out` must not overlap the inputs.
void gemm(int64_t m, int64_t n, int64_t k, const GemmInput& a, const GemmInput& b,
          const GemmOutput& out);

}  // namespace kiln::portable
