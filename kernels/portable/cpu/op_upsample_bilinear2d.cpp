// upsample_bilinear2d.out and .vec_out: NCHW bilinear resampling with ATen's index math (Byte
// rounds and saturates); .vec_out takes an output size or scale factors.
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/spatial/upsample.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// One source position of linear interpolation: indices i0, i1 and weights l0, l1.
template <typename A>
struct Tap {
  int64_t i0, i1;
  A l0, l1;
};

template <typename A>
Tap<A> linear_tap(int64_t o, int64_t in, int64_t out, bool align_corners, A scale) {
  if (in == out) return {o, o, A(1), A(0)};
  A real =
      align_corners ? scale * static_cast<A>(o) : scale * (static_cast<A>(o) + A(0.5)) - A(0.5);
  if (!align_corners && real < A(0)) real = A(0);
  int64_t i0 = static_cast<int64_t>(real);
  i0 = i0 < in - 1 ? i0 : in - 1;
  A l1 = real - static_cast<A>(i0);
  l1 = l1 < A(0) ? A(0) : (l1 > A(1) ? A(1) : l1);
  return {i0, i0 + (i0 < in - 1 ? 1 : 0), A(1) - l1, l1};
}

template <typename T>
void bilinear_planes(const T* in, T* out, int64_t planes, int64_t in_h, int64_t in_w, int64_t out_h,
                     int64_t out_w, bool align_corners, std::optional<double> scales_h,
                     std::optional<double> scales_w) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const auto area_scale = [&](int64_t in_size, int64_t out_size, std::optional<double> s) {
    if (align_corners) {
      return out_size > 1 ? static_cast<A>(in_size - 1) / static_cast<A>(out_size - 1) : A(0);
    }
    return scale_of<A>(s, in_size, out_size);
  };
  const A scale_h = area_scale(in_h, out_h, scales_h);
  const A scale_w = area_scale(in_w, out_w, scales_w);
  Tap<A> columns[kUpsampleColumns];
  for (int64_t c0 = 0; c0 < out_w; c0 += kUpsampleColumns) {
    const int64_t nc = out_w - c0 < kUpsampleColumns ? out_w - c0 : kUpsampleColumns;
    for (int64_t j = 0; j < nc; ++j) {
      columns[j] = linear_tap<A>(c0 + j, in_w, out_w, align_corners, scale_w);
    }
    for (int64_t plane = 0; plane < planes; ++plane) {
      for (int64_t oh = 0; oh < out_h; ++oh) {
        const Tap<A> row = linear_tap<A>(oh, in_h, out_h, align_corners, scale_h);
        const T* top = in + (plane * in_h + row.i0) * in_w;
        const T* bottom = in + (plane * in_h + row.i1) * in_w;
        T* dst = out + (plane * out_h + oh) * out_w + c0;
        for (int64_t j = 0; j < nc; ++j) {
          const Tap<A>& c = columns[j];
          const A value =
              row.l0 * (c.l0 * static_cast<A>(top[c.i0]) + c.l1 * static_cast<A>(top[c.i1])) +
              row.l1 * (c.l0 * static_cast<A>(bottom[c.i0]) + c.l1 * static_cast<A>(bottom[c.i1]));
          if constexpr (std::is_same_v<T, uint8_t>) {
            const A rounded = std::nearbyint(value);
            dst[j] = static_cast<uint8_t>(rounded < 0 ? 0 : (rounded > 255 ? 255 : rounded));
          } else {
            dst[j] = static_cast<T>(value);
          }
        }
      }
    }
  }
}

KILN_HOT_LOOP void bilinear_float(const float* in, float* out, int64_t planes, int64_t in_h,
                                  int64_t in_w, int64_t out_h, int64_t out_w, bool align_corners,
                                  std::optional<double> scales_h, std::optional<double> scales_w) {
  bilinear_planes(in, out, planes, in_h, in_w, out_h, out_w, align_corners, scales_h, scales_w);
}

}  // namespace

Tensor& upsample_bilinear2d_out(KernelRuntimeContext& ctx, const Tensor& self,
                                IntArrayRef output_size, bool align_corners,
                                std::optional<double> scales_h, std::optional<double> scales_w,
                                Tensor& out) {
  SizesType sizes[4];
  if (!check_upsample(ctx, self, output_size, "upsample_bilinear2d", out, sizes)) return out;
  if (!resize_or_fail(ctx, out, {sizes, 4})) return out;
  const int64_t planes = sizes[0] * sizes[1];
  const int64_t in_h = self.size(2), in_w = self.size(3);
  if (self.scalar_type() == ScalarType::Float) {
    bilinear_float(self.const_data_ptr<float>(), out.mutable_data_ptr<float>(), planes, in_h, in_w,
                   sizes[2], sizes[3], align_corners, scales_h, scales_w);
    return out;
  }
  dispatch_upsample(self.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    bilinear_planes<T>(self.const_data_ptr<T>(), out.mutable_data_ptr<T>(), planes, in_h, in_w,
                       sizes[2], sizes[3], align_corners, scales_h, scales_w);
  });
  return out;
}

Tensor& upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                    std::optional<IntArrayRef> output_size, bool align_corners,
                                    std::optional<ArrayRef<double>> scale_factors, Tensor& out) {
  SizesType size[2];
  std::optional<double> scales[2];
  if (!upsample_vec_size(ctx, input, output_size, scale_factors, size, scales)) return out;
  return upsample_bilinear2d_out(ctx, input, {size, 2}, align_corners, scales[0], scales[1], out);
}

}  // namespace kiln::portable::native
