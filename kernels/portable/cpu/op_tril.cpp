// tril and triu: the lower or upper triangle of each matrix in self's last two dims, rest zero.
#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Row i of each matrix keeps columns [0, i + diagonal] (lower) or [i + diagonal, cols) (upper);
// zero bytes are zero in every dtype.
Tensor& triangle(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, bool lower,
                 const char* name, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() >= 2, InvalidArgument, out,
                        "%s: input tensor must have at least 2 dimensions", name);
  if (!prepare_copy_out(ctx, self, out, self.sizes())) return out;
  const int64_t rows = self.size(-2);
  const int64_t cols = self.size(-1);
  if (self.numel() == 0) return out;
  const int64_t matrices = self.numel() / (rows * cols);
  const size_t es = self.element_size();
  const char* src = self.const_data_ptr<char>();
  char* dst = out.mutable_data_ptr<char>();
  // Clamp the diagonal so i + diagonal cannot overflow.
  const int64_t diag = diagonal < -rows ? -rows : (diagonal > cols ? cols : diagonal);
  for (int64_t m = 0; m < matrices * rows; ++m) {
    const int64_t i = m % rows;
    int64_t split = lower ? i + diag + 1 : i + diag;
    split = split < 0 ? 0 : (split > cols ? cols : split);
    const size_t head = static_cast<size_t>(split) * es;
    const size_t row = static_cast<size_t>(cols) * es;
    char* d = dst + static_cast<size_t>(m) * row;
    const char* s = src + static_cast<size_t>(m) * row;
    if (lower) {
      if (d != s) std::memcpy(d, s, head);
      std::memset(d + head, 0, row - head);
    } else {
      std::memset(d, 0, head);
      if (d != s) std::memcpy(d + head, s + head, row - head);
    }
  }
  return out;
}

}  // namespace

Tensor& tril_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle(ctx, self, diagonal, true, "tril", out);
}

Tensor& triu_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle(ctx, self, diagonal, false, "triu", out);
}

}  // namespace kiln::portable::native
