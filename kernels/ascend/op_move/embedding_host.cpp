// Host wrapper of embedding.out on Ascend: the kernel gathers weight rows at the indices, which
// it reads from device memory. An index out of range declines (the portable kernel reports it).
#include <cstdint>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/op_move/move_host.h"

namespace kiln::ascend {
namespace {

// The first index outside [0, rows), or -1.
template <typename I>
int64_t first_out_of_range(const Tensor& indices, int64_t rows) {
  const I* data = indices.const_data_ptr<I>();
  for (int64_t i = 0; i < indices.numel(); ++i) {
    if (data[i] < 0 || data[i] >= rows) return i;
  }
  return -1;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& embedding_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& indices,
                      int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/, bool /*sparse*/,
                      Tensor& out) {
  size_t width = 0;
  if (!accept_move_tensor(ctx, weight, "weight", &width) ||
      !accept_tensor(ctx, weight, "weight", weight.scalar_type()) ||
      !accept_tensor(ctx, out, "out", weight.scalar_type())) {
    return out;
  }
  const bool int64 = indices.scalar_type() == ScalarType::Long;
  if (!int64 && indices.scalar_type() != ScalarType::Int) {
    decline(ctx, "indices of dtype %s", to_string(indices.scalar_type()));
    return out;
  }
  if (!accept_tensor(ctx, indices, "indices", indices.scalar_type())) return out;
  if (weight.dim() != 2 || indices.dim() + 1 > static_cast<int64_t>(MoveShape::kMaxRank)) {
    decline(ctx, "a %lld-dim weight with %lld-dim indices", static_cast<long long>(weight.dim()),
            static_cast<long long>(indices.dim()));
    return out;
  }
  const int64_t rows = weight.size(0);
  const int64_t bad = int64 ? first_out_of_range<int64_t>(indices, rows)
                            : first_out_of_range<int32_t>(indices, rows);
  if (bad >= 0) {
    decline(ctx, "an index out of range (at position %lld)", static_cast<long long>(bad));
    return out;
  }
  SizesType sizes[MoveShape::kMaxRank];
  for (int64_t i = 0; i < indices.dim(); ++i) sizes[i] = indices.size(i);
  sizes[indices.dim()] = weight.size(1);
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(indices.dim() + 1)}) ||
      out.numel() == 0) {
    return out;
  }
  // Outer dim 0 runs over the indices; the kernel replaces each by the index stored there.
  const int64_t width_elems = weight.size(1);
  MoveShape shape;
  shape.gathered = true;
  shape.add(indices.numel(), width_elems, width_elems);
  shape.add(width_elems, 1, 1);
  MoveTiling tiling;
  MoveSource src;
  MoveSource index;
  MoveDestination dst;
  if (!src.upload(ctx, weight) ||
      !plan_move_or_decline(ctx, shape, static_cast<uint64_t>(width_elems),
                            static_cast<uint64_t>(indices.numel()), width, src.elems(), &tiling)) {
    return out;
  }
  tiling.index = static_cast<uint32_t>(int64 ? MoveIndex::Int64 : MoveIndex::Int32);
  if (index.upload(ctx, indices) &&
      dst.allocate(ctx, tiling.dst_rows, tiling.row_len, tiling.pitch, width) &&
      launch_move(ctx, width, tiling, src.get(), index.get(), dst.get())) {
    (void)dst.download(ctx, out);
  }
  return out;
}

}  // namespace kiln::ascend::native
