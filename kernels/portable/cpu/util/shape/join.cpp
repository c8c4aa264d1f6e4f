// cat and stack's shared checks and block copies.
#include "kernels/portable/cpu/util/shape/join.h"

#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/promotion.h"
#include "kernels/portable/cpu/util/shape/copy.h"

namespace kiln::portable {

bool skipped_by_cat(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

void join_blocks(ArrayRef<Tensor> tensors, int64_t outer, int64_t inner, int64_t joined, bool stack,
                 int64_t dim, Tensor& out) {
  if (out.numel() == 0) return;
  const ScalarType out_type = out.scalar_type();
  const int64_t es = static_cast<int64_t>(out.element_size());
  char* dst = out.mutable_data_ptr<char>();
  bool same_dtype = true;
  for (const Tensor& t : tensors) same_dtype = same_dtype && t.scalar_type() == out_type;
  const auto rows_of = [&](const Tensor& t) {
    return stack ? int64_t{1} : (skipped_by_cat(t) ? int64_t{0} : t.size(dim));
  };
  if (same_dtype) {
    // Out row by out row, so the destination is written front to back.
    const int64_t out_row = joined * inner * es;
    for (int64_t o = 0; o < outer; ++o) {
      char* d = dst + o * out_row;
      for (const Tensor& t : tensors) {
        const int64_t width = rows_of(t) * inner * es;
        if (width > 0) std::memcpy(d, t.const_data_ptr<char>() + o * width, width);
        d += width;
      }
    }
    return;
  }
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    const int64_t rows = rows_of(t);
    const int64_t width = rows * inner;
    const char* src = t.const_data_ptr<char>();
    const int64_t src_es = static_cast<int64_t>(t.element_size());
    for (int64_t o = 0; o < outer && width > 0; ++o) {
      convert_copy(dst + (o * joined + offset) * inner * es, out_type, src + o * width * src_es,
                   t.scalar_type(), width);
    }
    offset += rows;
  }
}

bool check_join_dtypes(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, const Tensor& out) {
  if (!check_tensor(ctx, out, "out")) return false;
  ResultType result;
  for (const Tensor& t : tensors) {
    if (!check_tensor(ctx, t, "tensors")) return false;
    result.add_tensor(t);
  }
  const ScalarType common = result.get();
  KILN_KERNEL_CHECK_MSG(ctx, common != ScalarType::Undefined, InvalidArgument, false,
                        "torch.cat(): the input dtypes cannot be promoted together");
  KILN_KERNEL_CHECK_MSG(ctx, can_cast(common, out.scalar_type()), InvalidArgument, false,
                        "torch.cat(): input types can't be cast to the desired output type %s",
                        to_string(out.scalar_type()));
  return true;
}

}  // namespace kiln::portable
