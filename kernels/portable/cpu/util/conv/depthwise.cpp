// Depthwise convolution computed directly (see depthwise.h).
#include "kernels/portable/cpu/util/conv/depthwise.h"

#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/conv/strided_copy.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"

namespace kiln::portable {
namespace {

// The strip of padded input rows one output plane is computed from lives on the stack.
constexpr int64_t kStripBytes = 32 * 1024;
// Taps precomputed per convolution (larger kernels take the gemm path).
constexpr int64_t kMaxTaps = 64;
// Column phases (the width's stride) precomputed per convolution (larger strides take the gemm
// path).
constexpr int64_t kMaxPhases = 8;

// The widest block of outputs accumulated together (two 32-byte vectors): the last block of a
// row is computed whole and its lanes past the row dropped, so a block reads up to kBlock
// elements past the row's last tap.
template <typename T>
constexpr int64_t kBlock = 64 / sizeof(T);

// The padded input rows as `stride_w` phases: phase p of a row holds padded columns p,
// p + stride_w, p + 2 * stride_w, ..., so the columns a tap reads for consecutive outputs are
// consecutive whatever the stride.
struct Layout {
  int64_t phase_length;  // elements per phase of a row
  int64_t row_elements;  // stride_w phases
  int64_t rows;          // output rows per strip (0: the kernel's rows do not fit)
  int64_t taps;
  int64_t tap_offset[kMaxTaps];  // where tap (kh, kw) reads for output column 0, in the strip
  // Entry j of phase p holds input column j * stride_w + p - pad_w: inside the row for j in
  // [phase_begin[p], phase_end[p]), padding elsewhere. The same for every row: computed once, as
  // their divisions would cost a small plane more than its products.
  int64_t phase_begin[kMaxPhases];
  int64_t phase_end[kMaxPhases];
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The strip holds `capacity` elements of rows and kBlock more that blocks may read past them.
template <typename T>
constexpr int64_t kCapacity = kStripBytes / sizeof(T) - kBlock<T>;

Layout layout_of(const ConvShape& c, int64_t capacity) {
  Layout layout;
  layout.phase_length = ceil_div(c.width + 2 * c.padding[1], c.stride[1]);
  layout.row_elements = layout.phase_length * c.stride[1];
  layout.taps = c.kernel_h * c.kernel_w;
  const int64_t kernel_rows = (c.kernel_h - 1) * c.dilation[0] + 1;
  const int64_t fitting_rows = capacity / layout.row_elements;
  // Rows for r outputs: (r - 1) * stride_h + kernel_rows.
  layout.rows = fitting_rows < kernel_rows ? 0 : (fitting_rows - kernel_rows) / c.stride[0] + 1;
  if (layout.rows > c.out_h) layout.rows = c.out_h;
  if (layout.taps > kMaxTaps || c.stride[1] > kMaxPhases) layout.rows = 0;
  for (int64_t phase = 0; phase < c.stride[1] && layout.rows > 0; ++phase) {
    const int64_t shift = phase - c.padding[1];
    int64_t begin = shift >= 0 ? 0 : ceil_div(-shift, c.stride[1]);
    int64_t end = ceil_div(c.width - shift, c.stride[1]);
    if (end > layout.phase_length) end = layout.phase_length;
    if (begin > end) begin = end;
    layout.phase_begin[phase] = begin;
    layout.phase_end[phase] = end;
  }
  for (int64_t t = 0; t < layout.taps && layout.rows > 0; ++t) {
    const int64_t column = t % c.kernel_w * c.dilation[1];
    layout.tap_offset[t] = t / c.kernel_w * c.dilation[0] * layout.row_elements +
                           column % c.stride[1] * layout.phase_length + column / c.stride[1];
  }
  return layout;
}

template <typename T>
struct Plane {
  const ConvShape* shape;
  const Layout* layout;
  const T* input;   // the input channel
  const T* weight;  // kernel_h * kernel_w taps
  T bias;
  bool clamp;  // a fused activation: results clamped to [low, high]
  T low, high;
  T* out;  // the output plane
};

// Fills the strip with padded input rows first_row .. first_row + count (padded coordinates),
// and zeroes the kBlock elements after them. A row inside the input writes only its columns:
// its padding columns are the same in every row and every strip, zeroed once before the first
// (zero_strip), and nothing else writes them; a padding row is zeroed whole.
template <typename T, int kBytes>
KILN_ALWAYS_INLINE void fill_strip(const Plane<T>& p, int64_t first_row, int64_t count, T* strip) {
  const ConvShape& c = *p.shape;
  const int64_t stride = c.stride[1], pad = c.padding[1], length = p.layout->phase_length;
  const int64_t row_elements = p.layout->row_elements;
  for (int64_t r = 0; r < count; ++r) {
    T* row = strip + r * row_elements;
    const int64_t ih = first_row + r - c.padding[0];
    if (ih < 0 || ih >= c.height) {
      zero_elements<kBytes>(row, row_elements);
      continue;
    }
    const T* in = p.input + ih * c.width;
    for (int64_t phase = 0; phase < stride; ++phase) {
      T* dst = row + phase * length;
      const int64_t lo = p.layout->phase_begin[phase], hi = p.layout->phase_end[phase];
      copy_strided<T, kBytes>(in + lo * stride + phase - pad, stride, hi - lo, dst + lo);
    }
  }
  zero_elements<kBytes>(strip + count * row_elements, kBlock<T>);
}

// Output rows row .. row + kRows of the plane, from their strip rows (`rows`, the first's;
// `row_step` elements apart): blocks of kVectors vectors of kBytes per row accumulate every tap
// in registers. kRows x kVectors independent sums keep the FMA unit busy: one or two alone wait
// on each other's latency at every tap. Its loops over rows and vectors are unrolled whole
// (KILN_UNROLL), so that the sums stay in registers: a loop left rolled keeps them in memory.
template <typename T, int kBytes, int kVectors, int kRows>
KILN_ALWAYS_INLINE void compute_row_group(const Plane<T>& p, int64_t row, const T* rows,
                                          int64_t row_step) {
  using V = Vector<T, kBytes>;
  constexpr int64_t lanes = kBytes / sizeof(T);
  constexpr int64_t block = kVectors * lanes;
  static_assert(block <= kBlock<T>, "the strip's slack covers a block");
  const int64_t out_w = p.shape->out_w;
  const Layout& layout = *p.layout;
  const V bias = V{} + p.bias, low = V{} + p.low, high = V{} + p.high;
  for (int64_t ow = 0; ow < out_w; ow += block) {
    V acc[kRows][kVectors];
    KILN_UNROLL for (int i = 0; i < kRows; ++i) {
      KILN_UNROLL for (int j = 0; j < kVectors; ++j) acc[i][j] = bias;
    }
    for (int64_t t = 0; t < layout.taps; ++t) {
      const T* src = rows + layout.tap_offset[t] + ow;
      const T w = p.weight[t];
      KILN_UNROLL for (int i = 0; i < kRows; ++i) {
        KILN_UNROLL for (int j = 0; j < kVectors; ++j) {
          V x;
          std::memcpy(&x, src + i * row_step + j * lanes, sizeof(V));
          acc[i][j] += w * x;
        }
      }
    }
    KILN_UNROLL for (int i = 0; i < kRows; ++i) {
      T* out = p.out + (row + i) * out_w + ow;
      KILN_UNROLL for (int j = 0; j < kVectors; ++j) {
        if (p.clamp) {
          acc[i][j] = acc[i][j] < low ? low : acc[i][j];
          acc[i][j] = acc[i][j] > high ? high : acc[i][j];
        }
      }
      if (ow + block <= out_w) {
        KILN_UNROLL for (int j = 0; j < kVectors; ++j)
            std::memcpy(out + j * lanes, &acc[i][j], sizeof(V));
      } else {
        T last[block];
        KILN_UNROLL for (int j = 0; j < kVectors; ++j)
            std::memcpy(last + j * lanes, &acc[i][j], sizeof(V));
        copy_elements<kBytes>(out, last, out_w - ow);
      }
    }
  }
}

// Output rows first .. first + count of the plane, from the strip that starts at padded row
// first * stride_h: four rows at a time, then one (one vector per block for rows that fit in
// one: the small planes of a network's last layers).
template <typename T, int kBytes, int kVectors>
KILN_ALWAYS_INLINE void compute_rows(const Plane<T>& p, int64_t first, int64_t count,
                                     const T* strip) {
  constexpr int kGroup = 4;
  const int64_t row_step = p.shape->stride[0] * p.layout->row_elements;
  int64_t r = 0;
  for (; r + kGroup <= count; r += kGroup) {
    compute_row_group<T, kBytes, kVectors, kGroup>(p, first + r, strip + r * row_step, row_step);
  }
  for (; r < count; ++r) {
    compute_row_group<T, kBytes, kVectors, 1>(p, first + r, strip + r * row_step, row_step);
  }
}

template <typename T, int kBytes>
KILN_ALWAYS_INLINE void compute_plane(const Plane<T>& p, T* strip) {
  const ConvShape& c = *p.shape;
  const int64_t kernel_rows = (c.kernel_h - 1) * c.dilation[0] + 1;
  const int64_t rows = p.layout->rows;
  for (int64_t first = 0; first < c.out_h; first += rows) {
    const int64_t count = c.out_h - first < rows ? c.out_h - first : rows;
    fill_strip<T, kBytes>(p, first * c.stride[0], (count - 1) * c.stride[0] + kernel_rows, strip);
    if (c.out_w <= static_cast<int64_t>(kBytes / sizeof(T))) {
      compute_rows<T, kBytes, 1>(p, first, count, strip);
    } else {
      compute_rows<T, kBytes, 2>(p, first, count, strip);
    }
  }
}

// The rows a strip holds (and the slack after them), zeroed before its first plane.
template <typename T>
void zero_strip(const ConvShape& c, const Layout& layout, T* strip) {
  const int64_t kernel_rows = (c.kernel_h - 1) * c.dilation[0] + 1;
  const int64_t rows = (layout.rows - 1) * c.stride[0] + kernel_rows;
  std::memset(strip, 0, (rows * layout.row_elements + kBlock<T>)*sizeof(T));
}

// A plane's loops over vectors of kBytes, for the ISA room's dispatch (isa/row_loops.h).
template <typename T>
struct PlaneLoop {
  template <int kBytes>
  KILN_ALWAYS_INLINE static void run(const Plane<T>& p, T* strip) {
    compute_plane<T, kBytes>(p, strip);
  }
};

template <typename T>
KILN_NOINLINE void run_plane(const Plane<T>& p, T* strip) {
  isa::vector_loop<PlaneLoop<T>, kBaselineVectorBytes>(p, strip);
}

template <typename T>
void convolve(const KernelRuntimeContext& ctx, const ConvShape& c, const Tensor& input,
              const Tensor& weight, const std::optional<Tensor>& bias,
              const KernelRuntimeContext::OutputClamp* clamp, Tensor& out) {
  const T low = clamp != nullptr ? static_cast<T>(clamp->min) : T(0);
  const T high = clamp != nullptr ? static_cast<T>(clamp->max) : T(0);
  const Layout layout = layout_of(c, kCapacity<T>);
  const T* in = static_cast<const T*>(input.const_data_ptr());
  const T* w = static_cast<const T*>(weight.const_data_ptr());
  const T* b = bias.has_value() ? static_cast<const T*>(bias->const_data_ptr()) : nullptr;
  T* o = static_cast<T*>(out.mutable_data_ptr());
  const int64_t plane_in = c.height * c.width, plane_out = c.out_h * c.out_w;
  // Item: one output plane (image, output channel); its input channel is channel / group_out.
  parallel_for(ctx, 0, c.batches * c.out_channels, items_grain(plane_out * layout.taps),
               [&](int64_t begin, int64_t end) {
                 alignas(64) T strip[kStripBytes / sizeof(T)];
                 zero_strip(c, layout, strip);
                 for (int64_t item = begin; item < end; ++item) {
                   const int64_t batch = item / c.out_channels, channel = item % c.out_channels;
                   const int64_t source = batch * c.in_channels + channel / c.group_out;
                   run_plane(Plane<T>{&c, &layout, in + source * plane_in,
                                      w + channel * layout.taps, b == nullptr ? T(0) : b[channel],
                                      clamp != nullptr, low, high, o + item * plane_out},
                             strip);
                 }
               });
}

}  // namespace

bool depthwise_applies(const ConvShape& c, ScalarType dtype, const std::optional<Tensor>& bias) {
  if (c.group_in != 1 || (dtype != ScalarType::Float && dtype != ScalarType::Double)) return false;
  if (bias.has_value() && bias->scalar_type() != dtype) return false;
  const int64_t capacity = dtype == ScalarType::Float ? kCapacity<float> : kCapacity<double>;
  return layout_of(c, capacity).rows > 0;
}

void depthwise_convolution(const KernelRuntimeContext& ctx, const ConvShape& shape,
                           const Tensor& input, const Tensor& weight,
                           const std::optional<Tensor>& bias,
                           const KernelRuntimeContext::OutputClamp* clamp, Tensor& out) {
  if (input.scalar_type() == ScalarType::Float) {
    convolve<float>(ctx, shape, input, weight, bias, clamp, out);
  } else {
    convolve<double>(ctx, shape, input, weight, bias, clamp, out);
  }
}

}  // namespace kiln::portable
