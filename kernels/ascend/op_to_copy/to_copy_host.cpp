// Host wrapper of _to_copy.out on Ascend: casts between Float, Half, BFloat16 and Int.
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_to_copy/to_copy_kernels.h"
#include "kernels/ascend/op_to_copy/to_copy_tiling.h"
#include "runtime/core/tensor_options.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_TO_COPY)

namespace kiln::ascend {
namespace {

// torch's CPU float -> int32 conversion is the host's instruction: on x86 NaN, +-inf and
// out-of-range values all give INT32_MIN; elsewhere (aarch64) it saturates, NaN giving 0, as
// the vector unit's Cast does.
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
constexpr bool kInvalidToIntMin = true;
#else
constexpr bool kInvalidToIntMin = false;
#endif

KILN_ASCEND_DEFINE_LAUNCH(KILN_TO_COPY, launch_to_copy, DeviceDtype, "to_copy")

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& _to_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                     std::optional<MemoryFormat> memory_format, Tensor& out) {
  DeviceDtype src, dst;
  if (!accept_dtype(ctx, self.scalar_type(), /*int32_ok=*/true, &src) ||
      !accept_dtype(ctx, out.scalar_type(), /*int32_ok=*/true, &dst) ||
      !accept_input(ctx, self, "self", self.scalar_type()) ||
      !accept_tensor(ctx, out, "out", out.scalar_type())) {
    return out;
  }
  // Preserve and Contiguous both give the default dim order a contiguous self already has.
  if (memory_format.has_value() && *memory_format != MemoryFormat::Preserve &&
      *memory_format != MemoryFormat::Contiguous) {
    decline(ctx, "memory_format code %d", static_cast<int>(*memory_format));
    return out;
  }
  if (non_blocking) {
    decline(ctx, "non_blocking=True");
    return out;
  }
  if (!resize_or_fail(ctx, out, self.sizes()) || self.numel() == 0) return out;
  const Platform device = platform();
  const uint64_t count = static_cast<uint64_t>(self.numel());
  const ToCopyTiling tiling =
      to_copy_tiling(src, dst, kInvalidToIntMin, count, device.ub_bytes, device.vector_cores);
  const size_t src_size = device_element_size(src);
  const size_t dst_size = device_element_size(dst);
  DeviceBuffer x, y, t;
  if (!x.upload(ctx, self.const_data_ptr(), count * src_size, tiling.total * src_size) ||
      !y.allocate(ctx, tiling.total * dst_size) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(ctx, launch_to_copy(src, tiling.block_dim, x.get(), y.get(), t.get()))) {
    (void)y.download(ctx, out.mutable_data_ptr(), count * dst_size);
  }
  return out;
}

}  // namespace kiln::ascend::native
