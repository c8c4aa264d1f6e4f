// Host wrappers of kiln::silu_and_mul.out and kiln::gelu_and_mul.out on Ascend.
#include <string_view>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_gated/gated_kernels.h"
#include "kernels/ascend/op_gated/gated_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_GATED)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_GATED, launch_gated, DeviceDtype, "gated")

// out [..., d] = act(x) * y for input [..., 2d] = [x, y]; the checks mirror the portable
// kernels', whose messages serve a declined call.
Tensor& run_gated(KernelRuntimeContext& ctx, GatedOp op, const Tensor& input, Tensor& out) {
  const ScalarType dtype = input.scalar_type();
  DeviceDtype device_dtype;
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, &device_dtype) ||
      !accept_input(ctx, input, "input", dtype) || !accept_tensor(ctx, out, "out", dtype)) {
    return out;
  }
  const int64_t rank = input.dim();
  if (rank == 0 || input.size(rank - 1) % 2 != 0) {
    decline(ctx, "an input whose last dim is missing or odd");
    return out;
  }
  const int64_t d = input.size(rank - 1) / 2;
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) sizes[i] = input.size(i);
  sizes[rank - 1] = static_cast<SizesType>(d);
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)}) || out.numel() == 0) {
    return out;
  }

  const uint64_t rows = static_cast<uint64_t>(out.numel() / d);
  const Platform device = platform();
  const GatedTiling tiling = gated_tiling(op, device_dtype, rows, static_cast<uint64_t>(d),
                                          device.ub_bytes, device.vector_cores);
  const size_t size = device_element_size(device_dtype);
  const size_t row_bytes = d * size;
  const size_t pitch_bytes = tiling.split.pitch * size;
  DeviceBuffer x, y, t;
  // The input's rows of 2d are 2 * rows rows of d (x, then y), each padded to the pitch.
  if (!x.upload_rows(ctx, input.const_data_ptr(), 2 * rows, row_bytes, pitch_bytes) ||
      !y.allocate(ctx, rows * pitch_bytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(
          ctx, launch_gated(device_dtype, tiling.split.block_dim, x.get(), y.get(), t.get()))) {
    (void)y.download_rows(ctx, out.mutable_data_ptr(), rows, row_bytes, pitch_bytes);
  }
  return out;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& silu_and_mul_out(KernelRuntimeContext& ctx, const Tensor& input, Tensor& out) {
  return run_gated(ctx, GatedOp::Silu, input, out);
}

Tensor& gelu_and_mul_out(KernelRuntimeContext& ctx, const Tensor& input,
                         std::string_view approximate, Tensor& out) {
  if (approximate != "none" && approximate != "tanh") {
    decline(ctx, "approximate='%.*s'", static_cast<int>(approximate.size()), approximate.data());
    return out;
  }
  return run_gated(ctx, approximate == "tanh" ? GatedOp::GeluTanh : GatedOp::GeluErf, input, out);
}

}  // namespace kiln::ascend::native
