// The int8 gemm of the fused int8 convolutions and linears (int8_conv.h): s8 weights times u8
// activations summed exactly in int32, each sum requantized to int8 as it is stored, out
// channels in rows and pixels along the vectors, so that a convolution stores NCHW directly.
// The plain C++ version is here; AVX2 and AVX-512 VNNI versions in isa/x86/, picked by
// isa/gemm_int8.h.
#pragma once

#include <algorithm>
#include <cstdint>

namespace kiln::portable {

// Activations are packed in panels of kInt8PanelWidth pixels: for each group of four k, the
// four values of each of its pixels ([kpad / 4][16][4] bytes), the layout AVX-512 VNNI's
// vpdpbusd reads a vector of; pixels past the last are whatever the packing left.
constexpr int64_t kInt8PanelWidth = 16;

// out[n][p] = requantize(sum_k W[n][k] * X[k][p] + correction[n], n) for every out channel n
// and the pixels of panels [panel_begin, panel_end).
struct Int8GemmArgs {
  const int8_t* w;   // [n][kpad] (k past the weights' own zero)
  const uint8_t* x;  // panels of int8 activations + 128 (so that vpdpbusd reads them unsigned)
  int64_t kpad;      // a multiple of 4
  int64_t n;         // out channels
  int64_t pixels;    // pixels in all (the last panel may hold fewer than 16)
  // Per out channel: -(128 + input zero point) * the channel's weight sum (the exact sum then
  // is that of (x - zero point) * w), the scale s_in * s_w[n], the bias (0 without one).
  const int32_t* correction;
  const float* scale;
  const float* bias;
  float inv_out_scale;  // 1 / the out's scale, as the quantize kernel forms it
  float low;            // out_min - zero point, out_max - zero point: the clamp before rounding
  float high;
  int32_t out_zero_point;
  int8_t* out;  // [n][ldc]: pixel p of channel n at out[n * ldc + p]
  int64_t ldc;
};

// The requantization every version computes, in this order of float operations (no fused
// multiply-add: the sources that compute it compile with -ffp-contract=off): y = (float(sum) *
// scale + bias) * inv_out_scale, clamped to [low, high] (whole numbers, so clamping before rounding
// equals clamping after), rounded half to even. Adding and subtracting 1.5 * 2^23 rounds a float
// below 2^22 in magnitude to an integer as nearbyint does (in the default rounding mode), in two
// additions a compiler vectorises, with no libm call.
inline int32_t requantize_int32(int32_t sum, float scale, float bias, const Int8GemmArgs& g) {
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  float y = static_cast<float>(sum) * scale;
  y = y + bias;
  y = y * g.inv_out_scale;
  y = std::min(std::max(y, g.low), g.high);
  const float rounded = (y + kRound) - kRound;
  return static_cast<int32_t>(rounded) + g.out_zero_point;
}
// The same, as the int8 it is (requantize_int32 keeps int32 for loops whose vectors should
// hold int32 lanes, not 64 bytes).
inline int8_t requantize_int8(int32_t sum, float scale, float bias, const Int8GemmArgs& g) {
  return static_cast<int8_t>(requantize_int32(sum, scale, bias, g));
}

// Panels [panel_begin, panel_end) of `g`, on the widest version the process runs
// (isa/gemm_int8.h).
void int8_gemm(const Int8GemmArgs& g, int64_t panel_begin, int64_t panel_end);

// The plain version, which every machine runs (and KILN_CPU_ISA=baseline chooses).
void int8_gemm_plain(const Int8GemmArgs& g, int64_t panel_begin, int64_t panel_end);

}  // namespace kiln::portable
