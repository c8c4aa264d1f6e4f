// roll.out: self cyclically shifted along dims (or flattened), as strided block copies.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& roll_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef shifts,
                 IntArrayRef dims, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, shifts.size() > 0, InvalidArgument, out, "`shifts` required");
  KILN_KERNEL_CHECK_MSG(
      ctx, (dims.empty() && shifts.size() == 1) || shifts.size() == dims.size(), InvalidArgument,
      out, "shifts and dimensions must align. shifts: %zu, dims:%zu", shifts.size(), dims.size());
  // ATen rolls one dim at a time and returns an empty self before looking at the dim.
  if (self.numel() == 0) {
    (void)prepare_copy_out(ctx, self, out, self.sizes());
    return out;
  }
  const int64_t rank = self.dim();
  // Without dims, roll the flattened tensor: one dim of numel elements.
  int64_t sizes[kTensorDimensionLimit];
  int64_t strides[kTensorDimensionLimit];
  int64_t ndim = rank;
  int64_t shift[kTensorDimensionLimit] = {};
  if (dims.empty()) {
    ndim = 1;
    sizes[0] = self.numel();
    shift[0] = shifts[0];
  } else {
    KILN_KERNEL_CHECK_MSG(ctx, rank > 0, InvalidArgument, out,
                          "Dimension specified as %lld but tensor has no dimensions",
                          static_cast<long long>(dims[0]));
    for (int64_t i = 0; i < rank; ++i) sizes[i] = self.size(i);
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t d = 0;
      if (!wrap_dim(ctx, dims[i], rank, &d)) return out;
      // Repeated dims roll again; the shifts add up modulo the size.
      if (sizes[d] > 0) shift[d] = (shift[d] + shifts[i] % sizes[d]) % sizes[d];
    }
  }
  if (!prepare_copy_out(ctx, self, out, self.sizes())) return out;
  contiguous_strides({sizes, static_cast<size_t>(ndim)}, strides);
  int64_t rolled[kTensorDimensionLimit];
  int64_t nrolled = 0;
  for (int64_t i = 0; i < ndim; ++i) {
    shift[i] = ((shift[i] % sizes[i]) + sizes[i]) % sizes[i];
    if (shift[i] != 0) rolled[nrolled++] = i;
  }
  // Each rolled dim splits into two blocks (out [s, n) from self [0, n - s), out [0, s) from
  // self [n - s, n)); every combination of blocks is one strided copy.
  const int64_t es = static_cast<int64_t>(self.element_size());
  for (int64_t mask = 0; mask < (int64_t{1} << nrolled); ++mask) {
    CopyView view;
    int64_t dst_offset = 0;
    int64_t src_offset = 0;
    for (int64_t i = 0; i < ndim; ++i) view.push(sizes[i], strides[i], strides[i]);
    for (int64_t r = 0; r < nrolled; ++r) {
      const int64_t d = rolled[r];
      const int64_t s = shift[d];
      if ((mask >> r) & 1) {
        view.sizes[d] = s;
        src_offset += (sizes[d] - s) * strides[d];
      } else {
        view.sizes[d] = sizes[d] - s;
        dst_offset += s * strides[d];
      }
    }
    copy_view(ctx, out.mutable_data_ptr<char>() + dst_offset * es,
              self.const_data_ptr<char>() + src_offset * es, view, static_cast<size_t>(es));
  }
  return out;
}

}  // namespace kiln::portable::native
