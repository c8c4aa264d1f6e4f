// grid_sampler_2d.out: samples input [N, C, H, W] at the locations grid [N, Ho, Wo, 2] holds ((x,
// y), -1 and 1 being the input's edges) into out [N, C, Ho, Wo], with ATen's CPU math:
// interpolation 0 bilinear, 1 nearest (ties to even), 2 bicubic (A = -0.75); padding 0 zeros,
// 1 border, 2 reflection; computed in float (double for Double).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
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

  // [-1, 1] onto [0, size - 1] (align_corners) or [-0.5, size - 0.5], the latter in one fused
  // multiply-add as ATen's vectorised kernel computes it.
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

// One input position per tap: the element offset (0 when outside the input) and whether it is
// inside. An outside tap reads 0, which its weight still multiplies (NaN and infinite weights
// give NaN, as ATen's masked gathers do).
template <typename A>
KILN_ALWAYS_INLINE A tap(const A* plane, int64_t offset, bool inside) {
  const A value = plane[offset];
  return inside ? value : A(0);
}

// One image: the geometry, the grid of its batch entry, and the padding rules.
template <typename T, typename A>
struct Sampler {
  const T* in;    // [C, H, W]
  const T* grid;  // [points, 2]
  T* out;         // [C, points]
  int64_t channels, height, width, points;
  GridAxis<A> ax, ay;

  // Copies channel c of the input as A (in place when T is A).
  const A* plane_of(int64_t c, A* buffer) const {
    const T* plane = in + c * height * width;
    if constexpr (std::is_same_v<T, A>) {
      (void)buffer;
      return plane;
    } else {
      for (int64_t i = 0; i < height * width; ++i) buffer[i] = static_cast<A>(plane[i]);
      return buffer;
    }
  }

  // Points whose 4 taps are all inside (most) read them as two pairs of neighbours from one
  // offset; the others check each tap.
  KILN_ALWAYS_INLINE void bilinear(A* buffer) const {
    int64_t inner_points[kBlock], inner_offsets[kBlock];
    A inner_weights[4][kBlock];
    int64_t edge_points[kBlock], edge_offsets[4][kBlock];
    bool edge_inside[4][kBlock];
    A edge_weights[4][kBlock];
    for (int64_t p0 = 0; p0 < points; p0 += kBlock) {
      const int64_t m = points - p0 < kBlock ? points - p0 : kBlock;
      int64_t inner = 0, edge = 0;
      for (int64_t j = 0; j < m; ++j) {
        const A x = ax.source(static_cast<A>(grid[2 * (p0 + j)]));
        const A y = ay.source(static_cast<A>(grid[2 * (p0 + j) + 1]));
        const A x_w = std::floor(x), y_n = std::floor(y);
        const A w = x - x_w, e = A(1) - w, n = y - y_n, s = A(1) - n;
        const A weights[4] = {s * e, s * w, n * e, n * w};
        const bool west = ax.contains(x_w), east = ax.contains(x_w + A(1));
        const bool north = ay.contains(y_n), south = ay.contains(y_n + A(1));
        if (west && east && north && south) {
          inner_points[inner] = j;
          inner_offsets[inner] = static_cast<int64_t>(y_n) * width + static_cast<int64_t>(x_w);
          for (int t = 0; t < 4; ++t) inner_weights[t][inner] = weights[t];
          ++inner;
          continue;
        }
        edge_points[edge] = j;
        const bool inside[4] = {north && west, north && east, south && west, south && east};
        for (int t = 0; t < 4; ++t) {
          const A tx = x_w + A(t & 1), ty = y_n + A(t >> 1);
          edge_inside[t][edge] = inside[t];
          edge_offsets[t][edge] =
              inside[t] ? static_cast<int64_t>(ty) * width + static_cast<int64_t>(tx) : 0;
          edge_weights[t][edge] = weights[t];
        }
        ++edge;
      }
      for (int64_t c = 0; c < channels; ++c) {
        const A* plane = plane_of(c, buffer);
        T* dst = out + c * points + p0;
        for (int64_t i = 0; i < inner; ++i) {
          const A* top = plane + inner_offsets[i];
          const A* bottom = top + width;
          dst[inner_points[i]] =
              static_cast<T>(top[0] * inner_weights[0][i] + top[1] * inner_weights[1][i] +
                             bottom[0] * inner_weights[2][i] + bottom[1] * inner_weights[3][i]);
        }
        for (int64_t i = 0; i < edge; ++i) {
          A sum = tap(plane, edge_offsets[0][i], edge_inside[0][i]) * edge_weights[0][i];
          for (int t = 1; t < 4; ++t) {
            sum += tap(plane, edge_offsets[t][i], edge_inside[t][i]) * edge_weights[t][i];
          }
          dst[edge_points[i]] = static_cast<T>(sum);
        }
      }
    }
  }

  KILN_ALWAYS_INLINE void nearest(A* buffer) const {
    int64_t offsets[kBlock];
    bool inside[kBlock];
    for (int64_t p0 = 0; p0 < points; p0 += kBlock) {
      const int64_t m = points - p0 < kBlock ? points - p0 : kBlock;
      for (int64_t j = 0; j < m; ++j) {
        const A x = std::nearbyint(ax.source(static_cast<A>(grid[2 * (p0 + j)])));
        const A y = std::nearbyint(ay.source(static_cast<A>(grid[2 * (p0 + j) + 1])));
        inside[j] = ax.contains(x) && ay.contains(y);
        offsets[j] = inside[j] ? static_cast<int64_t>(y) * width + static_cast<int64_t>(x) : 0;
      }
      for (int64_t c = 0; c < channels; ++c) {
        const A* plane = plane_of(c, buffer);
        T* dst = out + c * points + p0;
        for (int64_t j = 0; j < m; ++j) dst[j] = static_cast<T>(tap(plane, offsets[j], inside[j]));
      }
    }
  }

  // Padding applies to each tap, not to the position (a position just inside an edge still
  // reaches taps beyond it); the 4 x 4 taps are the 4 columns times the 4 rows.
  KILN_ALWAYS_INLINE void bicubic(A* buffer) const {
    int64_t columns[4][kBlock], rows[4][kBlock];
    bool column_inside[4][kBlock], row_inside[4][kBlock];
    A wx[4][kBlock], wy[4][kBlock];
    for (int64_t p0 = 0; p0 < points; p0 += kBlock) {
      const int64_t m = points - p0 < kBlock ? points - p0 : kBlock;
      for (int64_t j = 0; j < m; ++j) {
        const A x = ax.unnormalize(static_cast<A>(grid[2 * (p0 + j)]));
        const A y = ay.unnormalize(static_cast<A>(grid[2 * (p0 + j) + 1]));
        const A ix = std::floor(x), iy = std::floor(y);
        A cx[4], cy[4];
        cubic_weights(x - ix, cx);
        cubic_weights(y - iy, cy);
        KILN_UNROLL
        for (int k = 0; k < 4; ++k) {
          wx[k][j] = cx[k];
          wy[k][j] = cy[k];
          const A tx = ax.pad(ix - A(1) + static_cast<A>(k));
          const A ty = ay.pad(iy - A(1) + static_cast<A>(k));
          column_inside[k][j] = ax.contains(tx);
          row_inside[k][j] = ay.contains(ty);
          columns[k][j] = column_inside[k][j] ? static_cast<int64_t>(tx) : 0;
          rows[k][j] = row_inside[k][j] ? static_cast<int64_t>(ty) * width : 0;
        }
      }
      for (int64_t c = 0; c < channels; ++c) {
        const A* plane = plane_of(c, buffer);
        T* dst = out + c * points + p0;
        for (int64_t j = 0; j < m; ++j) {
          A across[4];
          KILN_UNROLL
          for (int r = 0; r < 4; ++r) {
            const A* row = plane + rows[r][j];
            const bool in_row = row_inside[r][j];
            across[r] = wx[0][j] * tap(row, columns[0][j], in_row && column_inside[0][j]) +
                        wx[1][j] * tap(row, columns[1][j], in_row && column_inside[1][j]) +
                        wx[2][j] * tap(row, columns[2][j], in_row && column_inside[2][j]) +
                        wx[3][j] * tap(row, columns[3][j], in_row && column_inside[3][j]);
          }
          dst[j] = static_cast<T>(wy[0][j] * across[0] + wy[1][j] * across[1] +
                                  wy[2][j] * across[2] + wy[3][j] * across[3]);
        }
      }
    }
  }

  KILN_ALWAYS_INLINE void run(int64_t interpolation, A* buffer) const {
    if (interpolation == kBilinear) return bilinear(buffer);
    if (interpolation == kNearest) return nearest(buffer);
    return bicubic(buffer);
  }
};

// `buffer` holds one channel as A when T is not A (Half, BFloat16), else is unused.
template <typename T>
KILN_ALWAYS_INLINE void sample_all(const Tensor& input, const Tensor& grid, Tensor& out,
                                   int64_t interpolation, int64_t padding, bool align_corners,
                                   void* buffer) {
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
    sampler.run(interpolation, static_cast<A*>(buffer));
  }
}

KILN_HOT_LOOP void sample_float(const Tensor& input, const Tensor& grid, Tensor& out,
                                int64_t interpolation, int64_t padding, bool align_corners) {
  sample_all<float>(input, grid, out, interpolation, padding, align_corners, nullptr);
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
  void* buffer = nullptr;
  if (is_reduced_floating_type(dtype)) {  // a channel widened to float at a time
    const int64_t plane = input.size(2) * input.size(3);
    Result<void*> memory = ctx.allocate_temp(static_cast<size_t>(plane) * sizeof(float), 16);
    KILN_KERNEL_CHECK_MSG(ctx, memory.ok(), MemoryAllocationFailed, out,
                          "grid_sampler_2d needs %lld bytes of temp memory to widen a %s channel, "
                          "which the context's temp allocator could not provide",
                          static_cast<long long>(plane * 4), to_string(dtype));
    buffer = memory.get();
  }
  dispatch_element_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (!std::is_integral_v<T>) {
      sample_all<T>(input, grid, out, interpolation_mode, padding_mode, align_corners, buffer);
    }
  });
  return out;
}

}  // namespace kiln::portable::native
