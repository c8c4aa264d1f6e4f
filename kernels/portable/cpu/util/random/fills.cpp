// Random fills: Philox blocks from the context's generator, turned into uniform, normal and
// Bernoulli values chunk by chunk on the stack.
#include "kernels/portable/cpu/util/random/fills.h"

#include <cmath>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable {
namespace {

constexpr int64_t kChunkBlocks = 64;
constexpr int64_t kChunkWords = 4 * kChunkBlocks;

// words[4 * i + j] = word j of the stream's block `first + i`, for i < blocks.
KILN_HOT_LOOP void draw_words(const RandomStream& stream, uint64_t first, int64_t blocks,
                              uint32_t* words) {
  for (int64_t i = 0; i < blocks; ++i) {
    const RandomBlock block = philox4x32(stream.key, stream.first + first + i);
    for (int j = 0; j < 4; ++j) words[4 * i + j] = block.word[j];
  }
}

// out[i] = the top `bits` bits of words[i] as a fraction: k / 2^bits, exact in float for
// bits <= 24.
KILN_HOT_LOOP void unit_floats(const uint32_t* words, int64_t n, int bits, float* out) {
  const float scale = std::ldexp(1.0f, -bits);
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(words[i] >> (32 - bits)) * scale;
}

// out[i] = 53 bits of words[2i], words[2i + 1] as a fraction in [0, 1).
KILN_HOT_LOOP void unit_doubles(const uint32_t* words, int64_t n, double* out) {
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t bits = (uint64_t{words[2 * i]} << 21) ^ (words[2 * i + 1] >> 11);
    out[i] = static_cast<double>(bits) * 0x1p-53;
  }
}

// sin and cos of 2 pi u for u in [0, 1), within a few float ulp: the nearest quarter turn q is
// split off, the rest (|t| <= pi / 4) goes through Taylor polynomials, and q rotates the result.
KILN_ALWAYS_INLINE void sincos_turns(float u, float* sin_out, float* cos_out) {
  constexpr float kTwoPi = 6.28318530717958647692f;
  const int32_t q = static_cast<int32_t>(u * 4.0f + 0.5f);
  const float t = (u - static_cast<float>(q) * 0.25f) * kTwoPi;
  const float t2 = t * t;
  float s = 1.0f / 362880.0f;
  s = s * t2 - 1.0f / 5040.0f;
  s = s * t2 + 1.0f / 120.0f;
  s = s * t2 - 1.0f / 6.0f;
  s = t + t * t2 * s;
  float c = -1.0f / 3628800.0f;
  c = c * t2 + 1.0f / 40320.0f;
  c = c * t2 - 1.0f / 720.0f;
  c = c * t2 + 1.0f / 24.0f;
  c = c * t2 - 0.5f;
  c = 1.0f + t2 * c;
  const bool swap = (q & 1) != 0;
  const float sin_value = select(swap, c, s);
  const float cos_value = select(swap, s, c);
  *sin_out = select((q & 2) != 0, -sin_value, sin_value);
  *cos_out = select(((q + 1) & 2) != 0, -cos_value, cos_value);
}

// Box-Muller in float: words (2p, 2p + 1) give u1 in (0, 1] and u2 in [0, 1), and out[2p],
// out[2p + 1] = r cos(2 pi u2), r sin(2 pi u2) with r = sqrt(-2 log u1).
KILN_HOT_LOOP void normal_floats(const uint32_t* words, int64_t pairs, float* out) {
  constexpr float kScale = 0x1p-24f;
  for (int64_t p = 0; p < pairs; ++p) {
    const float u1 = static_cast<float>((words[2 * p] >> 8) + 1) * kScale;
    const float u2 = static_cast<float>(words[2 * p + 1] >> 8) * kScale;
    const float squared = -2.0f * log_float(u1);
    // Never negative (the select makes that visible); random.cmake drops sqrt's errno path.
    const float r = std::sqrt(select(squared > 0.0f, squared, 0.0f));
    float s, c;
    sincos_turns(u2, &s, &c);
    out[2 * p] = r * c;
    out[2 * p + 1] = r * s;
  }
}

// Box-Muller in double: each block (four words) gives one pair from 53-bit u1, u2.
void normal_doubles(const uint32_t* words, int64_t blocks, double* out) {
  constexpr double kTwoPi = 6.28318530717958647692;
  for (int64_t b = 0; b < blocks; ++b) {
    const uint32_t* w = words + 4 * b;
    const uint64_t bits1 = (uint64_t{w[0]} << 21) ^ (w[1] >> 11);
    const uint64_t bits2 = (uint64_t{w[2]} << 21) ^ (w[3] >> 11);
    const double u1 = static_cast<double>(bits1 + 1) * 0x1p-53;
    const double angle = static_cast<double>(bits2) * 0x1p-53 * kTwoPi;
    const double r = std::sqrt(-2.0 * std::log(u1));
    out[2 * b] = r * std::cos(angle);
    out[2 * b + 1] = r * std::sin(angle);
  }
}

// Draws ceil(numel / per_block) blocks and fills `out` chunk by chunk: convert(words, blocks,
// values) writes per_block values of compute type C for each block, stored to out's dtype.
template <typename C, typename Convert>
void fill_blocks(KernelRuntimeContext& ctx, Tensor& out, int64_t per_block, Convert&& convert) {
  const int64_t n = out.numel();
  const int64_t blocks = (n + per_block - 1) / per_block;
  const RandomStream stream = ctx.random_generator().reserve(static_cast<uint64_t>(blocks));
  const ScalarType dtype = out.scalar_type();
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  const size_t size = element_size(dtype);
  uint32_t words[kChunkWords];
  C values[kChunkWords];
  for (int64_t b = 0; b < blocks; b += kChunkBlocks) {
    const int64_t count = blocks - b < kChunkBlocks ? blocks - b : kChunkBlocks;
    draw_words(stream, static_cast<uint64_t>(b), count, words);
    convert(words, count, values);
    const int64_t first = b * per_block;
    const int64_t made = n - first < count * per_block ? n - first : count * per_block;
    store_row<C>(values, made, dtype, dst + static_cast<size_t>(first) * size);
  }
}

// Significand bits of a floating dtype other than Double.
int float_bits_of(ScalarType dtype) {
  return dtype == ScalarType::Half ? 11 : dtype == ScalarType::BFloat16 ? 8 : 24;
}

}  // namespace

bool check_random_sizes(KernelRuntimeContext& ctx, IntArrayRef size) {
  for (size_t i = 0; i < size.size(); ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, size[i] >= 0, InvalidArgument, false,
                          "Trying to create tensor with negative dimension %lld: %s",
                          static_cast<long long>(size[i]), format_shape(size).text);
  }
  return true;
}

void fill_uniform(KernelRuntimeContext& ctx, Tensor& out) {
  if (out.scalar_type() == ScalarType::Double) {
    fill_blocks<double>(ctx, out, 2, [](const uint32_t* words, int64_t blocks, double* values) {
      unit_doubles(words, 2 * blocks, values);
    });
    return;
  }
  const int bits = float_bits_of(out.scalar_type());
  fill_blocks<float>(ctx, out, 4, [bits](const uint32_t* words, int64_t blocks, float* values) {
    unit_floats(words, 4 * blocks, bits, values);
  });
}

void fill_normal(KernelRuntimeContext& ctx, Tensor& out) {
  if (out.scalar_type() == ScalarType::Double) {
    fill_blocks<double>(ctx, out, 2, normal_doubles);
    return;
  }
  fill_blocks<float>(ctx, out, 4, [](const uint32_t* words, int64_t blocks, float* values) {
    normal_floats(words, 2 * blocks, values);
  });
}

void fill_bernoulli(KernelRuntimeContext& ctx, double keep_probability, bool* keep, int64_t n) {
  // P(word < threshold) = threshold / 2^32: 0 keeps none, 2^32 keeps all.
  const uint64_t threshold = static_cast<uint64_t>(keep_probability * 4294967296.0);
  const int64_t blocks = (n + 3) / 4;
  const RandomStream stream = ctx.random_generator().reserve(static_cast<uint64_t>(blocks));
  uint32_t words[kChunkWords];
  for (int64_t b = 0; b < blocks; b += kChunkBlocks) {
    const int64_t count = blocks - b < kChunkBlocks ? blocks - b : kChunkBlocks;
    draw_words(stream, static_cast<uint64_t>(b), count, words);
    const int64_t first = 4 * b;
    const int64_t made = n - first < 4 * count ? n - first : 4 * count;
    for (int64_t i = 0; i < made; ++i) keep[first + i] = words[i] < threshold;
  }
}

}  // namespace kiln::portable
