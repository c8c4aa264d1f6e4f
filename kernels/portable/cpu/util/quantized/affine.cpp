#include "kernels/portable/cpu/util/quantized/affine.h"

#include <cmath>
#include <type_traits>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "runtime/core/half.h"

namespace kiln::portable {
namespace {

// One run of elements under one channel's parameters. The product is formed in the input's
// precision for Double (ExecuTorch multiplies a double by the float inverse) and in float
// otherwise, and rounded to float before nearbyint, so every dtype rounds where ExecuTorch does.
// Adding the zero point and clamping need double only for int32: for the 8- and 16-bit dtypes
// float is exact wherever the result is not clamped (|q| < 2^23), which keeps the loop in float
// vector lanes. The clamp is written so that NaN (no comparison holds) lands on quant_min.
template <typename In, typename Q>
KILN_HOT_LOOP void quantize_run(const In* in, Q* out, int64_t n, float inv_scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  using Product = std::conditional_t<std::is_same_v<In, double>, double, float>;
  using Sum = std::conditional_t<(sizeof(Q) < 4), float, double>;
  using Whole = std::conditional_t<(sizeof(Q) < 4), int32_t, int64_t>;
  const Product factor = inv_scale;
  const Sum zero = static_cast<Sum>(zero_point);
  const Sum lo = static_cast<Sum>(quant_min);
  const Sum hi = static_cast<Sum>(quant_max);
  for (int64_t i = 0; i < n; ++i) {
    const float scaled = static_cast<float>(factor * static_cast<Product>(in[i]));
    const Sum q = static_cast<Sum>(std::nearbyint(scaled)) + zero;
    out[i] = static_cast<Q>(static_cast<Whole>(q >= lo ? (q <= hi ? q : hi) : lo));
  }
}

// q - zero_point is exact in int32 for the 8- and 16-bit dtypes; int32 values need int64. A
// fused activation's clamp (Float and Double outs only) applies to the values as stored.
template <typename Q, typename Out>
KILN_HOT_LOOP void dequantize_run(const Q* in, Out* out, int64_t n, float scale, int64_t zero_point,
                                  const Out* clamp) {
  using Difference = std::conditional_t<(sizeof(Q) < 4), int32_t, int64_t>;
  const Difference zero = static_cast<Difference>(zero_point);
  if (clamp == nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<Out>(static_cast<float>(static_cast<Difference>(in[i]) - zero) * scale);
    }
    return;
  }
  const Out lo = clamp[0];
  const Out hi = clamp[1];
  for (int64_t i = 0; i < n; ++i) {
    const Out v =
        static_cast<Out>(static_cast<float>(static_cast<Difference>(in[i]) - zero) * scale);
    out[i] = v < lo ? lo : (v > hi ? hi : v);
  }
}

// Calls f(TypeTag<T>) for a floating dtype.
template <typename F>
void dispatch_floating(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float:
      return f(TypeTag<float>{});
    case ScalarType::Double:
      return f(TypeTag<double>{});
    case ScalarType::Half:
      return f(TypeTag<Half>{});
    case ScalarType::BFloat16:
      return f(TypeTag<BFloat16>{});
    default:
      return;
  }
}

// Calls f(TypeTag<T>) for a quantized dtype.
template <typename F>
void dispatch_quantized(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte:
      return f(TypeTag<uint8_t>{});
    case ScalarType::Char:
      return f(TypeTag<int8_t>{});
    case ScalarType::Short:
      return f(TypeTag<int16_t>{});
    case ScalarType::UInt16:
      return f(TypeTag<uint16_t>{});
    case ScalarType::Int:
      return f(TypeTag<int32_t>{});
    default:
      return;
  }
}

// Calls run(channel, first, count) for every run of elements [first, first + count) that share
// one channel, over the flat range [begin, end).
template <typename Run>
void for_each_run(AffineBlocks blocks, int64_t begin, int64_t end, const Run& run) {
  const int64_t inner = blocks.inner;
  for (int64_t i = begin; i < end;) {
    const int64_t block = i / inner;
    const int64_t stop = (block + 1) * inner < end ? (block + 1) * inner : end;
    run(block % blocks.channels, i, stop - i);
    i = stop;
  }
}

}  // namespace

AffineBlocks blocks_along(const Tensor& input, int64_t axis) {
  AffineBlocks blocks{1, input.size(axis), 1};
  for (int64_t d = 0; d < axis; ++d) blocks.outer *= input.size(d);
  for (int64_t d = axis + 1; d < input.dim(); ++d) blocks.inner *= input.size(d);
  return blocks;
}

double AffineParams::scale_of(int64_t channel) const {
  return scales == nullptr ? scale : scale_at(*scales, channel);
}

int64_t AffineParams::zero_point_of(int64_t channel) const {
  return zero_points == nullptr ? zero_point : index_at(*zero_points, channel);
}

void quantize_affine(const KernelRuntimeContext& ctx, const Tensor& input,
                     const AffineParams& params, AffineBlocks blocks, int64_t quant_min,
                     int64_t quant_max, Tensor& out) {
  const int64_t numel = input.numel();
  if (numel == 0 || blocks.inner == 0) return;
  dispatch_floating(input.scalar_type(), [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    dispatch_quantized(out.scalar_type(), [&](auto q_tag) {
      using Q = typename decltype(q_tag)::type;
      const In* in = input.const_data_ptr<In>();
      Q* q = out.mutable_data_ptr<Q>();
      parallel_for(ctx, 0, numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(blocks, begin, end, [&](int64_t channel, int64_t first, int64_t count) {
          const float inv_scale = 1.0f / static_cast<float>(params.scale_of(channel));
          quantize_run(in + first, q + first, count, inv_scale, params.zero_point_of(channel),
                       quant_min, quant_max);
        });
      });
    });
  });
}

void dequantize_affine(const KernelRuntimeContext& ctx, const Tensor& input,
                       const AffineParams& params, AffineBlocks blocks,
                       const KernelRuntimeContext::OutputClamp* clamp, Tensor& out) {
  const int64_t numel = input.numel();
  if (numel == 0 || blocks.inner == 0) return;
  dispatch_quantized(input.scalar_type(), [&](auto q_tag) {
    using Q = typename decltype(q_tag)::type;
    dispatch_floating(out.scalar_type(), [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      const Q* in = input.const_data_ptr<Q>();
      Out* result = out.mutable_data_ptr<Out>();
      Out bounds[2] = {};
      if (clamp != nullptr) {
        bounds[0] = static_cast<Out>(clamp->min);
        bounds[1] = static_cast<Out>(clamp->max);
      }
      parallel_for(ctx, 0, numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(blocks, begin, end, [&](int64_t channel, int64_t first, int64_t count) {
          dequantize_run(in + first, result + first, count,
                         static_cast<float>(params.scale_of(channel)),
                         params.zero_point_of(channel), clamp != nullptr ? bounds : nullptr);
        });
      });
    });
  });
}

}  // namespace kiln::portable
