// Host wrappers of kiln::silu_and_mul.out and kiln::gelu_and_mul.out on Ascend; input and out may
// be row views.
#include <string_view>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/row_image.h"
#include "kernels/ascend/op_gated/gated_kernels.h"
#include "kernels/ascend/op_gated/gated_tiling.h"
#include "kernels/portable/cpu/util/llm/arguments.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_GATED)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_GATED, launch_gated, DeviceDtype, "gated")

// out [..., d] = act(x) * y for input [..., 2d] = [x, y]. Input and out may be row views
// (arguments.h), which the kernel reads and writes where they lie (row_image.h); what the
// portable kernel refuses declines, and the portable kernel reports it.
Tensor& run_gated(KernelRuntimeContext& ctx, GatedOp op, const Tensor& input, Tensor& out) {
  const ScalarType dtype = input.scalar_type();
  DeviceDtype device_dtype;
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, &device_dtype)) return out;
  // The portable kernel's own checks (shared with it), on a scratch context.
  KernelRuntimeContext checks;
  int64_t d = 0;
  const char* name = op == GatedOp::Silu ? "silu_and_mul" : "gelu_and_mul";
  if (!portable::check_gated_input(checks, input, name, &d, /*row_views=*/true)) {
    refused(ctx, checks);
    return out;
  }
  if (!accept_input(ctx, input, "input", dtype, /*row_view=*/true) ||
      !accept_row_view(ctx, out, "out", dtype)) {
    return out;
  }
  const int64_t rank = input.dim();
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) sizes[i] = input.size(i);
  sizes[rank - 1] = static_cast<SizesType>(d);
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)})) return out;
  if (!portable::check_row_activation(checks, out, "out", /*is_out=*/true)) {
    refused(ctx, checks);
    return out;
  }
  if (out.numel() == 0) return out;

  const uint64_t half = static_cast<uint64_t>(d);
  const uint64_t rows = static_cast<uint64_t>(out.numel()) / half;
  const Platform device = platform();
  GatedTiling tiling =
      gated_tiling(op, device_dtype, rows, half, device.ub_bytes, device.vector_cores);
  // The kernel copies whole rows of x and of y (from element d) padded to the pitch, or chunks
  // of them up to it.
  const uint64_t pitch = tiling.split.pitch;
  RowImage in_image{};
  RowImage out_image{};
  if (!plan_row_image(ctx, input, "input", 2 * half, RowAccess{pitch, half + pitch, false},
                      &in_image) ||
      !plan_row_image(ctx, out, "out", half, RowAccess{pitch, pitch, true}, &out_image)) {
    return out;
  }
  tiling.input = in_image.rows;
  tiling.out = out_image.rows;
  DeviceBuffer x, y, t;
  if (!upload_row_image(ctx, x, input, in_image) || !y.allocate(ctx, out_image.bytes) ||
      !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(
          ctx, launch_gated(device_dtype, tiling.split.block_dim, x.get(), y.get(), t.get()))) {
    (void)download_row_image(ctx, y, out, out_image);
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
