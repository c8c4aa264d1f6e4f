// Host wrappers of the last-dim reductions on Ascend: sum.IntList_out, mean.out, amax.out.
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_reduce/reduce_kernels.h"
#include "kernels/ascend/op_reduce/reduce_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_REDUCE)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_REDUCE, launch_reduce, DeviceDtype, "reduce")

// Whether `dims` names the last dim only: [-1] or [rank - 1] (rank 0 takes 0 and -1, as torch
// does). Every dim (None or []) is the last one for a tensor of rank 0 or 1.
bool last_dim_only(const std::optional<IntArrayRef>& dims, int64_t rank) {
  if (!dims.has_value() || dims->empty()) return rank <= 1;
  if (dims->size() != 1) return false;
  const int64_t d = (*dims)[0];
  const int64_t last = rank == 0 ? 0 : rank - 1;
  return d == -1 || d == last;
}

const char* op_name(ReduceOp op) {
  return op == ReduceOp::Sum ? "sum" : op == ReduceOp::Mean ? "mean" : "amax";
}

// out = op(self) over its last dim, in self's dtype; declines everything else.
Tensor& run_reduce(KernelRuntimeContext& ctx, ReduceOp op, const Tensor& self,
                   const std::optional<IntArrayRef>& dims, bool keepdim,
                   const std::optional<ScalarType>& dtype, Tensor& out) {
  DeviceDtype device_dtype;
  if (!accept_dtype(ctx, self.scalar_type(), /*int32_ok=*/op == ReduceOp::Amax, &device_dtype) ||
      !accept_input(ctx, self, "self", self.scalar_type())) {
    return out;
  }
  if (dtype.has_value() && *dtype != self.scalar_type()) {
    decline(ctx, "%s with dtype=%s (only the input's dtype)", op_name(op), to_string(*dtype));
    return out;
  }
  if (!accept_tensor(ctx, out, "out", self.scalar_type())) return out;
  const int64_t rank = self.dim();
  if (!last_dim_only(dims, rank)) {
    decline(ctx, "%s over dims other than the last one alone", op_name(op));
    return out;
  }
  const int64_t row_len = rank == 0 ? 1 : self.size(-1);
  if (row_len == 0) {
    decline(ctx, "%s over an empty last dim", op_name(op));
    return out;
  }
  SizesType sizes[kTensorDimensionLimit];
  size_t out_rank = 0;
  for (int64_t d = 0; d + 1 < rank; ++d) sizes[out_rank++] = self.size(d);
  if (keepdim && rank > 0) sizes[out_rank++] = 1;
  if (!resize_or_fail(ctx, out, {sizes, out_rank}) || out.numel() == 0) return out;

  const uint64_t rows = static_cast<uint64_t>(self.numel() / row_len);
  const Platform device = platform();
  const ReduceTiling tiling = reduce_tiling(op, device_dtype, rows, static_cast<uint64_t>(row_len),
                                            device.ub_bytes, device.vector_cores);
  const size_t size = device_element_size(device_dtype);
  DeviceBuffer x, y, t;
  if (!x.upload_rows(ctx, self.const_data_ptr(), rows, row_len * size, tiling.split.pitch * size) ||
      !y.allocate(ctx, rows * kReduceOutPitchBytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(
          ctx, launch_reduce(device_dtype, tiling.split.block_dim, x.get(), y.get(), t.get()))) {
    (void)y.download_rows(ctx, out.mutable_data_ptr(), rows, size, kReduceOutPitchBytes);
  }
  return out;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& sum_dim_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                    bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  return run_reduce(ctx, ReduceOp::Sum, self, dim, keepdim, dtype, out);
}

Tensor& mean_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                 bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  return run_reduce(ctx, ReduceOp::Mean, self, dim, keepdim, dtype, out);
}

Tensor& amax_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                 Tensor& out) {
  return run_reduce(ctx, ReduceOp::Amax, self, dim, keepdim, std::nullopt, out);
}

}  // namespace kiln::ascend::native
