// _upsample_bilinear2d_aa.out: NCHW bilinear resampling with antialiasing (a triangle filter
// widened by the downscale factor, as Pillow resizes), with ATen's math: the width pass first,
// then the height pass, a dim whose size does not change is copied. Float and Double weigh in
// their own type; Byte in ATen's 16-bit fixed point, rounding and saturating after each pass.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/spatial/upsample.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Values handled per step of the height pass, so a row's accumulators live on the stack.
constexpr int64_t kColumns = 256;

// The input span [start, start + count) and the weights of each output position along one dim;
// W is the weight type (A, or int16_t fixed point for Byte).
template <typename W>
struct Taps {
  int64_t width = 0;  // weights per output position (the widest span)
  int64_t* start = nullptr;
  int64_t* count = nullptr;
  W* weights = nullptr;    // [out][width]
  unsigned precision = 0;  // fixed point: the weights' fraction bits
};

// ATen's area_pixel_compute_scale: input pixels per output pixel.
template <typename A>
A aa_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
  return scale_of<A>(scale, in, out);
}

template <typename A>
A triangle(A x) {
  x = std::fabs(x);
  return x < A(1) ? A(1) - x : A(0);
}

// The filter's support (half width, in input pixels) and the weights per output position.
template <typename A>
int64_t taps_width(A scale) {
  const A support = scale >= A(1) ? scale : A(1);
  return static_cast<int64_t>(std::ceil(static_cast<float>(support))) * 2 + 1;
}

// Fills taps (allocated for `out` positions of taps.width) with normalised weights; returns the
// largest weight. A given scale can place a span past the input: it gets no taps (ATen reads the
// element past the end there and multiplies it by 0; Kiln writes 0).
template <typename A>
A fill_taps(int64_t in, int64_t out, A scale, Taps<A>& taps) {
  const A support = scale >= A(1) ? scale : A(1);
  const A invscale = scale >= A(1) ? A(1) / scale : A(1);
  A largest = 0;
  for (int64_t i = 0; i < out; ++i) {
    const A center = static_cast<A>(scale * (static_cast<double>(i) + 0.5));
    int64_t lo = static_cast<int64_t>(center - support + 0.5);
    lo = lo > 0 ? lo : 0;
    const int64_t hi = static_cast<int64_t>(center + support + 0.5);
    int64_t count = (hi < in ? hi : in) - lo;
    count = count < 0 ? 0 : (count > taps.width ? taps.width : count);
    A* w = taps.weights + i * taps.width;
    A total = 0;
    for (int64_t j = 0; j < count; ++j) {
      w[j] = triangle<A>(
          static_cast<A>((static_cast<A>(j + lo) - center + 0.5) * static_cast<double>(invscale)));
      total += w[j];
    }
    if (total != A(0)) {
      for (int64_t j = 0; j < count; ++j) {
        w[j] /= total;
        largest = w[j] > largest ? w[j] : largest;
      }
    }
    for (int64_t j = count; j < taps.width; ++j) w[j] = 0;
    taps.start[i] = lo;
    taps.count[i] = count;
  }
  return largest;
}

// ATen's fixed point for Byte: as many fraction bits as keep twice the largest weight in int16.
void to_fixed_point(const Taps<double>& real, int64_t out, double largest, Taps<int16_t>& fixed) {
  unsigned precision = 0;
  for (; precision < 22; ++precision) {
    if (static_cast<int>(0.5 + largest * static_cast<double>(1 << (precision + 1))) >= (1 << 15)) {
      break;
    }
  }
  fixed.precision = precision;
  for (int64_t k = 0; k < out * real.width; ++k) {
    const double v = real.weights[k] * static_cast<double>(1 << precision);
    fixed.weights[k] =
        static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
}

// Sum of value * weight over a span, in ATen's order; Byte accumulates fixed point from a half
// unit and saturates.
template <typename T, typename W>
struct Accumulator {
  using Acc = std::conditional_t<std::is_same_v<T, uint8_t>, int64_t, T>;
  static Acc first(T value, W weight, unsigned precision) {
    if constexpr (std::is_same_v<T, uint8_t>) {
      return (int64_t{1} << (precision - 1)) + int64_t{value} * weight;
    } else {
      (void)precision;
      return value * weight;
    }
  }
  static Acc add(Acc acc, T value, W weight) { return acc + Acc(value) * Acc(weight); }
  static T finish(Acc acc, unsigned precision) {
    if constexpr (std::is_same_v<T, uint8_t>) {
      const int64_t v = acc >> precision;
      return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
    } else {
      (void)precision;
      return acc;
    }
  }
};

// Resamples the last dim: rows of in_w values into rows of out_w.
template <typename T, typename W>
void width_pass(const T* src, T* dst, int64_t rows, int64_t in_w, int64_t out_w,
                const Taps<W>& taps) {
  using Acc = Accumulator<T, W>;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = src + r * in_w;
    for (int64_t o = 0; o < out_w; ++o) {
      if (taps.count[o] == 0) {  // the span lies past the input (a small given scale)
        dst[r * out_w + o] = T(0);
        continue;
      }
      const W* w = taps.weights + o * taps.width;
      const T* x = row + taps.start[o];
      auto acc = Acc::first(x[0], w[0], taps.precision);
      for (int64_t j = 1; j < taps.count[o]; ++j) acc = Acc::add(acc, x[j], w[j]);
      dst[r * out_w + o] = Acc::finish(acc, taps.precision);
    }
  }
}

// Resamples the second-to-last dim: planes of [in_h, width] into [out_h, width].
template <typename T, typename W>
void height_pass(const T* src, T* dst, int64_t planes, int64_t in_h, int64_t out_h, int64_t width,
                 const Taps<W>& taps) {
  using Acc = Accumulator<T, W>;
  typename Acc::Acc acc[kColumns];
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o = 0; o < out_h; ++o) {
      T* to = dst + (p * out_h + o) * width;
      if (taps.count[o] == 0) {  // the span lies past the input (a small given scale)
        for (int64_t c = 0; c < width; ++c) to[c] = T(0);
        continue;
      }
      const W* w = taps.weights + o * taps.width;
      const T* rows = src + (p * in_h + taps.start[o]) * width;
      for (int64_t c0 = 0; c0 < width; c0 += kColumns) {
        const int64_t nc = width - c0 < kColumns ? width - c0 : kColumns;
        for (int64_t c = 0; c < nc; ++c) acc[c] = Acc::first(rows[c0 + c], w[0], taps.precision);
        for (int64_t j = 1; j < taps.count[o]; ++j) {
          const T* row = rows + j * width + c0;
          for (int64_t c = 0; c < nc; ++c) acc[c] = Acc::add(acc[c], row[c], w[j]);
        }
        for (int64_t c = 0; c < nc; ++c) to[c0 + c] = Acc::finish(acc[c], taps.precision);
      }
    }
  }
}

// Temp memory for the taps of one dim (weights of type W) or for an intermediate image.
template <typename U>
U* take(KernelRuntimeContext& ctx, int64_t n) {
  Result<void*> memory = ctx.allocate_temp(static_cast<size_t>(n > 0 ? n : 1) * sizeof(U), 16);
  return memory.ok() ? static_cast<U*>(memory.get()) : nullptr;
}

// The taps of one dim, in the weight type the element type T computes with; false when temp
// memory ran out.
template <typename T, typename W>
bool make_taps(KernelRuntimeContext& ctx, int64_t in, int64_t out, bool align_corners,
               std::optional<double> scale, Taps<W>* taps) {
  using A = std::conditional_t<std::is_same_v<T, uint8_t>, double, T>;
  const A s = aa_scale<A>(in, out, align_corners, scale);
  Taps<A> real;
  real.width = taps_width<A>(s);
  real.start = take<int64_t>(ctx, out);
  real.count = take<int64_t>(ctx, out);
  real.weights = take<A>(ctx, out * real.width);
  if (real.start == nullptr || real.count == nullptr || real.weights == nullptr) return false;
  const A largest = fill_taps<A>(in, out, s, real);
  if constexpr (std::is_same_v<T, uint8_t>) {
    taps->width = real.width;
    taps->start = real.start;
    taps->count = real.count;
    taps->weights = take<int16_t>(ctx, out * real.width);
    if (taps->weights == nullptr) return false;
    to_fixed_point(real, out, largest, *taps);
  } else {
    (void)largest;
    *taps = real;
  }
  return true;
}

template <typename T>
bool resample(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, bool align_corners,
              std::optional<double> scales_h, std::optional<double> scales_w) {
  using W = std::conditional_t<std::is_same_v<T, uint8_t>, int16_t, T>;
  const int64_t planes = self.size(0) * self.size(1);
  const int64_t in_h = self.size(2), in_w = self.size(3);
  const int64_t out_h = out.size(2), out_w = out.size(3);
  const T* src = self.const_data_ptr<T>();
  T* dst = out.mutable_data_ptr<T>();
  if (in_h == out_h && in_w == out_w) {
    std::memcpy(dst, src, static_cast<size_t>(planes * in_h * in_w) * sizeof(T));
    return true;
  }
  if (in_w != out_w) {
    Taps<W> taps;
    if (!make_taps<T>(ctx, in_w, out_w, align_corners, scales_w, &taps)) return false;
    T* to = dst;
    if (in_h != out_h) {
      to = take<T>(ctx, planes * in_h * out_w);
      if (to == nullptr) return false;
    }
    width_pass(src, to, planes * in_h, in_w, out_w, taps);
    src = to;
  }
  if (in_h != out_h) {
    Taps<W> taps;
    if (!make_taps<T>(ctx, in_h, out_h, align_corners, scales_h, &taps)) return false;
    height_pass(src, dst, planes, in_h, out_h, out_w, taps);
  }
  return true;
}

}  // namespace

Tensor& _upsample_bilinear2d_aa_out(KernelRuntimeContext& ctx, const Tensor& self,
                                    IntArrayRef output_size, bool align_corners,
                                    std::optional<double> scales_h, std::optional<double> scales_w,
                                    Tensor& out) {
  SizesType sizes[4];
  if (!check_upsample(ctx, self, output_size, "_upsample_bilinear2d_aa", out, sizes)) return out;
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, !is_reduced_floating_type(dtype), InvalidType, out,
                        "\"compute_index_ranges_weights\" not implemented for '%s'; pass Float, "
                        "Double or Byte",
                        to_string(dtype));
  if (!resize_or_fail(ctx, out, {sizes, 4})) return out;
  if (out.numel() == 0) return out;
  bool done = true;
  if (dtype == ScalarType::Float) {
    done = resample<float>(ctx, self, out, align_corners, scales_h, scales_w);
  } else if (dtype == ScalarType::Double) {
    done = resample<double>(ctx, self, out, align_corners, scales_h, scales_w);
  } else {
    done = resample<uint8_t>(ctx, self, out, align_corners, scales_h, scales_w);
  }
  KILN_KERNEL_CHECK_MSG(ctx, done, MemoryAllocationFailed, out,
                        "_upsample_bilinear2d_aa needs temp memory for its filter weights and "
                        "intermediate image, which the context's temp allocator could not "
                        "provide");
  return out;
}

}  // namespace kiln::portable::native
