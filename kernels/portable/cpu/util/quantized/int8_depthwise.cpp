// The depthwise int8 convolution (see int8_depthwise.h). A channel's plane is copied once into
// a zero-padded int32 plane of x - zero point (padding then adds nothing), Wp wide. Out pixel
// (oh, ow) at j = oh * Wp + ow then reads, for tap (kh, kw), the padded plane at
// stride * j + kh * dilation * Wp + kw * dilation: every tap is one pass over a flat range of j,
// out pixels and the (unused) columns past the out width alike, long enough for vectors
// whatever the width. Every loop holds int32 lanes (a byte in the loop would make the
// compiler take 32 or 64 pixels per vector, more than a small plane has).
#include "kernels/portable/cpu/util/quantized/int8_depthwise.h"

#include <algorithm>

#include "kernels/portable/cpu/util/common/target.h"

namespace kiln::portable {
namespace {

struct Padded {
  int64_t height, width;  // of the padded plane
  int64_t sums;           // j's range: (out height - 1) * width + out width
};

Padded padded(const Int8DepthwiseArgs& a) {
  const int64_t height = a.height + 2 * a.padding[0];
  const int64_t width = a.width + 2 * a.padding[1];
  return {height, width, (a.out_height - 1) * width + a.out_width};
}

size_t round_up(size_t bytes) { return (bytes + 63) / 64 * 64; }

// Rows are short (7 to 112 pixels): they go in blocks of 8, the last block moved back to end
// at the row's end (rewriting a few values with the same ones) rather than finishing pixel by
// pixel; a block of 8 is one vector in the compiler's AVX2 clone.
constexpr int64_t kRowBlock = 8;

// A channel's rows, x - zero point, into the padded plane (`stride` apart).
KILN_HOT_LOOP void pad_rows(const int8_t* from, int64_t rows, int64_t count, int32_t zero_point,
                            int32_t* to, int64_t stride) {
  for (int64_t row = 0; row < rows; ++row, from += count, to += stride) {
    if (count < kRowBlock) {
      for (int64_t i = 0; i < count; ++i) to[i] = from[i] - zero_point;
      continue;
    }
    for (int64_t i = 0;; i += kRowBlock) {
      if (i + kRowBlock > count) i = count - kRowBlock;
      for (int64_t k = 0; k < kRowBlock; ++k) to[i + k] = from[i + k] - zero_point;
      if (i + kRowBlock == count) break;
    }
  }
}

KILN_HOT_LOOP void add_tap(int32_t* sums, const int32_t* from, int64_t count, int64_t stride,
                           int32_t w) {
  if (stride == 1) {
    for (int64_t j = 0; j < count; ++j) sums[j] += int32_t{from[j]} * w;
  } else {
    for (int64_t j = 0; j < count; ++j) sums[j] += int32_t{from[j * stride]} * w;
  }
}

// A 3x3 filter's nine taps in one pass (kStride 1 or 2), requantized as they are summed: no
// sums go through memory.
template <int kStride>
KILN_ALWAYS_INLINE void filter_3x3(const int32_t* plane, int64_t count, const int64_t offsets[9],
                                   const int8_t* w, float scale, float bias, const Int8GemmArgs& g,
                                   int32_t* __restrict out) {
  // Locals, so that the byte stores (which may alias anything) leave them in registers.
  const Int8GemmArgs r = g;
  const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
                w7 = w[7], w8 = w[8];
  const int32_t* p0 = plane + offsets[0];
  const int32_t* p1 = plane + offsets[1];
  const int32_t* p2 = plane + offsets[2];
  const int32_t* p3 = plane + offsets[3];
  const int32_t* p4 = plane + offsets[4];
  const int32_t* p5 = plane + offsets[5];
  const int32_t* p6 = plane + offsets[6];
  const int32_t* p7 = plane + offsets[7];
  const int32_t* p8 = plane + offsets[8];
  for (int64_t j = 0; j < count; ++j) {
    const int64_t i = j * kStride;
    const int32_t sum = p0[i] * w0 + p1[i] * w1 + p2[i] * w2 + p3[i] * w3 + p4[i] * w4 +
                        p5[i] * w5 + p6[i] * w6 + p7[i] * w7 + p8[i] * w8;
    out[j] = requantize_int32(sum, scale, bias, r);
  }
}

// filter_3x3 compiled twice: bound by its arithmetic, it gains from AVX-512's width on long
// planes, but short ones (7x7) spend more in the wider vectors' scalar remainder than they gain.
template <int kStride>
KILN_MATH_LOOP void filter_3x3_long(const int32_t* plane, int64_t count, const int64_t offsets[9],
                                    const int8_t* w, float scale, float bias, const Int8GemmArgs& g,
                                    int32_t* __restrict out) {
  filter_3x3<kStride>(plane, count, offsets, w, scale, bias, g, out);
}
template <int kStride>
KILN_HOT_LOOP void filter_3x3_short(const int32_t* plane, int64_t count, const int64_t offsets[9],
                                    const int8_t* w, float scale, float bias, const Int8GemmArgs& g,
                                    int32_t* __restrict out) {
  filter_3x3<kStride>(plane, count, offsets, w, scale, bias, g, out);
}
constexpr int64_t kLongPlane = 1024;  // out pixels (with the padded columns)

KILN_HOT_LOOP void requantize_all(const int32_t* sums, int64_t count, float scale, float bias,
                                  const Int8GemmArgs& g, int32_t* __restrict out) {
  const Int8GemmArgs r = g;  // (as in filter_3x3)
  for (int64_t j = 0; j < count; ++j) out[j] = requantize_int32(sums[j], scale, bias, r);
}

// The requantized values of the out's pixels (j = oh * Wp + ow) as the out's bytes, in blocks
// as pad_rows.
KILN_HOT_LOOP void narrow_rows(const int32_t* values, int64_t rows, int64_t columns, int64_t stride,
                               int8_t* __restrict out) {
  for (int64_t row = 0; row < rows; ++row, values += stride, out += columns) {
    if (columns < kRowBlock) {
      for (int64_t i = 0; i < columns; ++i) out[i] = static_cast<int8_t>(values[i]);
      continue;
    }
    for (int64_t i = 0;; i += kRowBlock) {
      if (i + kRowBlock > columns) i = columns - kRowBlock;
      for (int64_t k = 0; k < kRowBlock; ++k) out[i + k] = static_cast<int8_t>(values[i + k]);
      if (i + kRowBlock == columns) break;
    }
  }
}

// Any other filter: one pass of the sums per tap.
void filter_any(const Int8DepthwiseArgs& a, const Padded& p, const int32_t* plane, const int8_t* w,
                int32_t* sums) {
  std::fill(sums, sums + p.sums, 0);
  for (int64_t kh = 0; kh < a.kernel[0]; ++kh) {
    for (int64_t kw = 0; kw < a.kernel[1]; ++kw) {
      const int64_t offset = kh * a.dilation[0] * p.width + kw * a.dilation[1];
      add_tap(sums, plane + offset, p.sums, a.stride[0], w[kh * a.kernel[1] + kw]);
    }
  }
}

}  // namespace

size_t int8_depthwise_scratch_bytes(const Int8DepthwiseArgs& a) {
  const Padded p = padded(a);
  const auto sums = static_cast<size_t>(p.sums);
  return round_up(static_cast<size_t>(p.height * p.width) * sizeof(int32_t)) +
         2 * round_up(sums * sizeof(int32_t));
}

void int8_depthwise(const Int8DepthwiseArgs& a, int64_t begin, int64_t end, void* scratch) {
  const Padded p = padded(a);
  auto* plane = static_cast<int32_t*>(scratch);
  auto* sums = reinterpret_cast<int32_t*>(
      static_cast<char*>(scratch) +
      round_up(static_cast<size_t>(p.height * p.width) * sizeof(int32_t)));
  int32_t* values = sums + round_up(static_cast<size_t>(p.sums) * 4) / 4;
  std::fill(plane, plane + p.height * p.width, 0);
  const int64_t taps = a.kernel[0] * a.kernel[1];
  for (int64_t c = begin; c < end; ++c) {
    const int8_t* x = a.x + c * a.height * a.width;
    pad_rows(x, a.height, a.width, a.input_zero_point,
             plane + a.padding[0] * p.width + a.padding[1], p.width);
    const int8_t* w = a.w + c * a.w_stride;
    const float scale = a.requantize.scale[c], bias = a.requantize.bias[c];
    if (taps == 9 && a.kernel[0] == 3 && (a.stride[0] == 1 || a.stride[0] == 2)) {
      int64_t offsets[9];
      for (int t = 0; t < 9; ++t) {
        offsets[t] = (t / 3) * a.dilation[0] * p.width + (t % 3) * a.dilation[1];
      }
      const bool long_plane = p.sums >= kLongPlane;
      if (a.stride[0] == 1) {
        (long_plane ? filter_3x3_long<1> : filter_3x3_short<1>)(plane, p.sums, offsets, w, scale,
                                                                bias, a.requantize, values);
      } else {
        (long_plane ? filter_3x3_long<2> : filter_3x3_short<2>)(plane, p.sums, offsets, w, scale,
                                                                bias, a.requantize, values);
      }
    } else {
      filter_any(a, p, plane, w, sums);
      requantize_all(sums, p.sums, scale, bias, a.requantize, values);
    }
    narrow_rows(values, a.out_height, a.out_width, p.width, a.out + c * a.out_height * a.out_width);
  }
}

}  // namespace kiln::portable
