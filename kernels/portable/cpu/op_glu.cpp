// glu.out: the gated linear unit a * sigmoid(b), where a and b are the first and second halves of
// self along dim; floating dtypes only, and out may be any floating dtype.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Elements per converted chunk (three buffers on the stack).
constexpr int64_t kGluChunk = 256;

template <typename C>
KILN_HOT_LOOP void glu_row(const C* a, const C* b, C* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * sigmoid_compute(b[i]);
}

// out's blocks of `row` elements from self's pairs of blocks (a then b), `outer` of them, computed
// in C: in place when self and out hold C, else through buffers, rounded to self's dtype (ATen
// computes Half and BFloat16 in float and rounds once) and converted to out's dtype.
template <typename C>
void glu_blocks(const Tensor& self, Tensor& out, int64_t outer, int64_t row) {
  constexpr ScalarType kComputeType = CppToScalarType<C>::value;
  const ScalarType in_type = self.scalar_type();
  const ScalarType out_type = out.scalar_type();
  const char* src = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  const size_t in_size = element_size(in_type);
  const size_t out_size = element_size(out_type);
  const bool direct = in_type == kComputeType && out_type == kComputeType;
  C a_buf[kGluChunk];
  C b_buf[kGluChunk];
  C out_buf[kGluChunk];
  for (int64_t o = 0; o < outer; ++o) {
    const char* a = src + 2 * o * row * in_size;
    const char* b = a + row * in_size;
    char* y = dst + o * row * out_size;
    if (direct) {
      glu_row(reinterpret_cast<const C*>(a), reinterpret_cast<const C*>(b), reinterpret_cast<C*>(y),
              row);
      continue;
    }
    for (int64_t start = 0; start < row; start += kGluChunk) {
      const int64_t m = row - start < kGluChunk ? row - start : kGluChunk;
      load_row<C>(a + start * in_size, in_type, 1, m, a_buf);
      load_row<C>(b + start * in_size, in_type, 1, m, b_buf);
      glu_row(a_buf, b_buf, out_buf, m);
      store_row_as<C>(out_buf, m, in_type, out_type, y + start * out_size);
    }
  }
}

}  // namespace

Tensor& glu_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype), InvalidType, out,
                        "glu is not implemented for dtype %s; pass a floating point tensor (Half, "
                        "BFloat16, Float or Double)",
                        to_string(dtype));
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, out,
                        "glu does not support 0-dimensional tensors; pass a tensor with at least "
                        "one dim");
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return out;
  const int64_t size = self.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, size % 2 == 0, InvalidArgument, out,
                        "Halving dimension must be even, but dimension %lld is size %lld",
                        static_cast<long long>(d), static_cast<long long>(size));
  if (!check_out_dtype_castable(ctx, out, dtype)) return out;
  SizesType sizes[kTensorDimensionLimit];
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t i = 0; i < self.dim(); ++i) {
    sizes[i] = self.size(i);
    if (i < d) outer *= self.size(i);
    if (i > d) inner *= self.size(i);
  }
  sizes[d] = static_cast<SizesType>(size / 2);
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(self.dim())})) return out;
  if (out.numel() == 0) return out;
  dispatch_compute_type<kFloatingTypes>(dtype, [&](auto tag) {
    glu_blocks<typename decltype(tag)::type>(self, out, outer, size / 2 * inner);
  });
  return out;
}

}  // namespace kiln::portable::native
