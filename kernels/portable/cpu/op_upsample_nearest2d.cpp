// upsample_nearest2d.out and .vec_out: NCHW nearest-neighbour resampling with ATen's index math;
// .vec_out takes an output size or scale factors.
#include <cmath>
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/spatial/upsample.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

int64_t nearest_index(int64_t o, int64_t in, int64_t out, float scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const int64_t i = static_cast<int64_t>(std::floor(static_cast<float>(o) * scale));
  return i < in - 1 ? i : in - 1;
}

template <typename T>
void nearest_planes(const T* in, T* out, int64_t planes, int64_t in_h, int64_t in_w, int64_t out_h,
                    int64_t out_w, float scale_h, float scale_w) {
  int64_t columns[kUpsampleColumns];
  for (int64_t c0 = 0; c0 < out_w; c0 += kUpsampleColumns) {
    const int64_t nc = out_w - c0 < kUpsampleColumns ? out_w - c0 : kUpsampleColumns;
    for (int64_t j = 0; j < nc; ++j) columns[j] = nearest_index(c0 + j, in_w, out_w, scale_w);
    for (int64_t plane = 0; plane < planes; ++plane) {
      for (int64_t oh = 0; oh < out_h; ++oh) {
        const T* src = in + (plane * in_h + nearest_index(oh, in_h, out_h, scale_h)) * in_w;
        T* dst = out + (plane * out_h + oh) * out_w + c0;
        for (int64_t j = 0; j < nc; ++j) dst[j] = src[columns[j]];
      }
    }
  }
}

}  // namespace

Tensor& upsample_nearest2d_out(KernelRuntimeContext& ctx, const Tensor& self,
                               IntArrayRef output_size, std::optional<double> scales_h,
                               std::optional<double> scales_w, Tensor& out) {
  SizesType sizes[4];
  if (!check_upsample(ctx, self, output_size, "upsample_nearest2d", out, sizes)) return out;
  if (!resize_or_fail(ctx, out, {sizes, 4})) return out;
  const int64_t planes = sizes[0] * sizes[1];
  const int64_t in_h = self.size(2), in_w = self.size(3);
  const float scale_h = scale_of<float>(scales_h, in_h, sizes[2]);
  const float scale_w = scale_of<float>(scales_w, in_w, sizes[3]);
  dispatch_upsample(self.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    nearest_planes<T>(self.const_data_ptr<T>(), out.mutable_data_ptr<T>(), planes, in_h, in_w,
                      sizes[2], sizes[3], scale_h, scale_w);
  });
  return out;
}

Tensor& upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   std::optional<IntArrayRef> output_size,
                                   std::optional<ArrayRef<double>> scale_factors, Tensor& out) {
  SizesType size[2];
  std::optional<double> scales[2];
  if (!upsample_vec_size(ctx, input, output_size, scale_factors, size, scales)) return out;
  return upsample_nearest2d_out(ctx, input, {size, 2}, scales[0], scales[1], out);
}

}  // namespace kiln::portable::native
