// grid_sampler_2d.out: samples input [N, C, H, W] at the locations grid [N, Ho, Wo, 2] holds ((x,
// y), -1 and 1 being the input's edges) into out [N, C, Ho, Wo], with ATen's CPU math:
// interpolation 0 bilinear, 1 nearest (ties to even), 2 bicubic (A = -0.75); padding 0 zeros,
// 1 border, 2 reflection; computed in float (double for Double).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/dtype_util.h"
#include "kernels/portable/cpu/util/target.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

enum Interpolation : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// Output points whose taps are found before the channel loop reuses them.
constexpr int64_t kBlock = 64;

// One input axis: grid coordinates to input positions, and the padding rule.
template <typename A>
class GridAxis {
 public:
  GridAxis(int64_t size, int64_t padding, bool align_corners)
      : size_(size),
        padding_(padding),
        align_corners_(align_corners),
        scale_(align_corners ? static_cast<A>(size - 1) / 2 : static_cast<A>(size) / 2),
        max_(static_cast<A>(size - 1)),
        twice_span_(align_corners ? static_cast<A>(size - 1) * 2 : static_cast<A>(size) * 2) {}

  // [-1, 1] onto [0, size - 1] (align_corners) or [-0.5, size - 0.5].
  A unnormalize(A g) const {
    return align_corners_ ? (g + A(1)) * scale_ : std::fma(g + A(1), scale_, A(-0.5));
  }

  // Border clamps to [0, size - 1] (NaN to 0, as ATen's clamp gives); reflection folds about the
  // edges (align_corners: the edge pixels' centres, else their outer sides), then clamps.
  A pad(A v) const {
    if (padding_ == kZeros) return v;
    if (padding_ == kReflection) v = reflect(v);
    return v > A(0) ? (v < max_ ? v : max_) : A(0);
  }

  A source(A g) const { return pad(unnormalize(g)); }

  // Whether an integral position v (NaN: no) lies inside the axis.
  bool contains(A v) const { return v > A(-1) && v < static_cast<A>(size_); }

 private:
  A reflect(A v) const {
    if (twice_span_ == A(0)) return A(0);
    const A shift = align_corners_ ? A(0) : A(0.5);
    const A folded = std::fabs(v + shift);
    const A extra = folded - std::trunc(folded / twice_span_) * twice_span_;
    const A mirrored = twice_span_ - extra;
    return (extra < mirrored ? extra : mirrored) - shift;
  }

  int64_t size_;
  int64_t padding_;
  bool align_corners_;
  A scale_, max_, twice_span_;
};

// The cubic convolution weights of the 4 taps around a position with fraction t.
template <typename A>
void cubic_weights(A t, A* w) {
  const A a = A(-0.75);
  const auto outer = [a](A x) { return ((a * x - A(5) * a) * x + A(8) * a) * x - A(4) * a; };
  const auto inner = [a](A x) { return ((a + A(2)) * x - (a + A(3))) * x * x + A(1); };
  w[0] = outer(t + A(1));
  w[1] = inner(t);
  w[2] = inner(A(1) - t);
  w[3] = outer(A(2) - t);
}

// One image: the geometry, the grid of its batch entry, and the padding rules.
template <typename T, typename A>
struct Sampler {
  const T* in;    // [C, H, W]
  const T* grid;  // [points, 2]
  T* out;         // [C, points]
  int64_t channels, height, width, points;
  GridAxis<A> ax, ay;

  // An input element as A; a tap outside the input (offset -1) reads 0, so its weight still
  // multiplies it (NaN and infinite weights give NaN, as ATen's masked gathers do).
  static A at(const T* plane, int64_t offset) {
    return offset >= 0 ? static_cast<A>(plane[offset]) : A(0);
  }

  int64_t offset_of(A x, A y) const {
    if (!ax.contains(x) || !ay.contains(y)) return -1;
    return static_cast<int64_t>(y) * width + static_cast<int64_t>(x);
  }

  void bilinear() const {
    int64_t offsets[kBlock][4];
    A weights[kBlock][4];
    for (int64_t p0 = 0; p0 < points; p0 += kBlock) {
      const int64_t m = points - p0 < kBlock ? points - p0 : kBlock;
      for (int64_t j = 0; j < m; ++j) {
        const A x = ax.source(static_cast<A>(grid[2 * (p0 + j)]));
        const A y = ay.source(static_cast<A>(grid[2 * (p0 + j) + 1]));
        const A x_w = std::floor(x), y_n = std::floor(y);
        const A w = x - x_w, e = A(1) - w, n = y - y_n, s = A(1) - n;
        weights[j][0] = s * e;
        weights[j][1] = s * w;
        weights[j][2] = n * e;
        weights[j][3] = n * w;
        offsets[j][0] = offset_of(x_w, y_n);
        offsets[j][1] = offset_of(x_w + A(1), y_n);
        offsets[j][2] = offset_of(x_w, y_n + A(1));
        offsets[j][3] = offset_of(x_w + A(1), y_n + A(1));
      }
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = in + c * height * width;
        T* dst = out + c * points + p0;
        for (int64_t j = 0; j < m; ++j) {
          const int64_t* o = offsets[j];
          const A* k = weights[j];
          dst[j] = static_cast<T>(at(plane, o[0]) * k[0] + at(plane, o[1]) * k[1] +
                                  at(plane, o[2]) * k[2] + at(plane, o[3]) * k[3]);
        }
      }
    }
  }

  void nearest() const {
    int64_t offsets[kBlock];
    for (int64_t p0 = 0; p0 < points; p0 += kBlock) {
      const int64_t m = points - p0 < kBlock ? points - p0 : kBlock;
      for (int64_t j = 0; j < m; ++j) {
        const A x = ax.source(static_cast<A>(grid[2 * (p0 + j)]));
        const A y = ay.source(static_cast<A>(grid[2 * (p0 + j) + 1]));
        offsets[j] = offset_of(std::nearbyint(x), std::nearbyint(y));
      }
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = in + c * height * width;
        T* dst = out + c * points + p0;
        for (int64_t j = 0; j < m; ++j) dst[j] = static_cast<T>(at(plane, offsets[j]));
      }
    }
  }

  // Padding applies to each of the 16 taps, not to the position (a position just inside an
  // edge still reaches taps beyond it).
  void bicubic() const {
    for (int64_t p = 0; p < points; ++p) {
      const A x = ax.unnormalize(static_cast<A>(grid[2 * p]));
      const A y = ay.unnormalize(static_cast<A>(grid[2 * p + 1]));
      const A ix = std::floor(x), iy = std::floor(y);
      A wx[4], wy[4];
      cubic_weights(x - ix, wx);
      cubic_weights(y - iy, wy);
      int64_t offsets[4][4];
      for (int r = 0; r < 4; ++r) {
        const A row = ay.pad(iy - A(1) + static_cast<A>(r));
        for (int k = 0; k < 4; ++k) {
          offsets[r][k] = offset_of(ax.pad(ix - A(1) + static_cast<A>(k)), row);
        }
      }
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = in + c * height * width;
        A rows[4];
        for (int r = 0; r < 4; ++r) {
          rows[r] = wx[0] * at(plane, offsets[r][0]) + wx[1] * at(plane, offsets[r][1]) +
                    wx[2] * at(plane, offsets[r][2]) + wx[3] * at(plane, offsets[r][3]);
        }
        out[c * points + p] =
            static_cast<T>(wy[0] * rows[0] + wy[1] * rows[1] + wy[2] * rows[2] + wy[3] * rows[3]);
      }
    }
  }

  void run(int64_t interpolation) const {
    if (interpolation == kBilinear) return bilinear();
    if (interpolation == kNearest) return nearest();
    return bicubic();
  }
};

template <typename T>
void sample_all(const Tensor& input, const Tensor& grid, Tensor& out, int64_t interpolation,
                int64_t padding, bool align_corners) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t channels = input.size(1), height = input.size(2), width = input.size(3);
  const int64_t points = grid.size(1) * grid.size(2);
  const GridAxis<A> ax(width, padding, align_corners), ay(height, padding, align_corners);
  for (int64_t n = 0; n < input.size(0); ++n) {
    const Sampler<T, A> sampler{input.const_data_ptr<T>() + n * channels * height * width,
                                grid.const_data_ptr<T>() + n * points * 2,
                                out.mutable_data_ptr<T>() + n * channels * points,
                                channels,
                                height,
                                width,
                                points,
                                ax,
                                ay};
    sampler.run(interpolation);
  }
}

KILN_HOT_LOOP void sample_float(const Tensor& input, const Tensor& grid, Tensor& out,
                                int64_t interpolation, int64_t padding, bool align_corners) {
  sample_all<float>(input, grid, out, interpolation, padding, align_corners);
}

}  // namespace

Tensor& grid_sampler_2d_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& grid,
                            int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                            Tensor& out) {
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, grid, "grid") ||
      !check_tensor(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() == 4 && grid.dim() == 4, InvalidArgument, out,
                        "grid_sampler(): expected 4D input and grid with same number of "
                        "dimensions, but got input with sizes %s and grid with sizes %s",
                        format_shape(input.sizes()).text, format_shape(grid.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, input.size(0) == grid.size(0), InvalidArgument, out,
                        "grid_sampler(): expected grid and input to have same batch size, but got "
                        "input with sizes %s and grid with sizes %s",
                        format_shape(input.sizes()).text, format_shape(grid.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, grid.size(3) == 2, InvalidArgument, out,
                        "grid_sampler(): expected grid to have size 2 in last dimension, but got "
                        "grid with sizes %s",
                        format_shape(grid.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, input.size(2) > 0 && input.size(3) > 0, InvalidArgument, out,
                        "grid_sampler(): expected input to have non-empty spatial dimensions, "
                        "but input has sizes %s",
                        format_shape(input.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, interpolation_mode >= kBilinear && interpolation_mode <= kBicubic,
                        InvalidArgument, out,
                        "grid_sampler(): interpolation_mode must be 0 (bilinear), 1 (nearest) or "
                        "2 (bicubic), but got %lld",
                        static_cast<long long>(interpolation_mode));
  KILN_KERNEL_CHECK_MSG(ctx, padding_mode >= kZeros && padding_mode <= kReflection, InvalidArgument,
                        out,
                        "grid_sampler(): padding_mode must be 0 (zeros), 1 (border) or 2 "
                        "(reflection), but got %lld",
                        static_cast<long long>(padding_mode));
  const ScalarType dtype = input.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype), InvalidType, out,
                        "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for '%s'; pass a "
                        "floating input",
                        to_string(dtype));
  KILN_KERNEL_CHECK_MSG(ctx, grid.scalar_type() == dtype, InvalidType, out,
                        "expected scalar type %s but found %s: grid must have the input's dtype",
                        to_string(dtype), to_string(grid.scalar_type()));
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  const SizesType sizes[4] = {input.size(0), input.size(1), grid.size(1), grid.size(2)};
  if (!resize_or_fail(ctx, out, {sizes, 4})) return out;
  if (out.numel() == 0) return out;
  if (dtype == ScalarType::Float) {
    sample_float(input, grid, out, interpolation_mode, padding_mode, align_corners);
    return out;
  }
  dispatch_element_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (!std::is_integral_v<T>) {
      sample_all<T>(input, grid, out, interpolation_mode, padding_mode, align_corners);
    }
  });
  return out;
}

}  // namespace kiln::portable::native
