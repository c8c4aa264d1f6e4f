// Host wrapper of convolution.out on Ascend (2-d, not transposed): the convolution as one batched
// matmul on the cube, C[n, g] = W[g] x cols[n, g], with the bias folded into the product.
//
// The host lays each input out as im2col columns while staging it for device memory: row
// (c, kh, kw) of cols[n, g] holds, for every output pixel, the input tap it multiplies (0 in the
// padding). With a bias, W[g] gains a column holding it and cols a row of ones, so the cube adds
// the bias inside its float accumulation and rounds once. C[n, g] is the out tensor's
// [Cout / groups, OH * OW] block of sample n and group g, so the product lands in place.
#include <cstdint>
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_matmul/matmul_run.h"
#include "runtime/core/half.h"

namespace kiln::ascend {
namespace {

// The geometry of a 2-d convolution.
struct ConvShape {
  int64_t batch, groups, in_per_group, out_per_group;
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  bool bias;

  int64_t reduce() const { return in_per_group * kernel[0] * kernel[1] + (bias ? 1 : 0); }
  int64_t pixels() const { return out_h * out_w; }
};

// One value per spatial dim: a single value for both, or two.
bool pair_of(IntArrayRef values, int64_t* out) {
  if (values.size() != 1 && values.size() != 2) return false;
  out[0] = values[0];
  out[1] = values[values.size() - 1];
  return true;
}

// The arguments torch accepts, as a ConvShape; false for anything else (the portable kernel then
// reports the error).
bool conv_shape(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                IntArrayRef output_padding, int64_t groups, ConvShape* c) {
  if (groups < 1 || !pair_of(stride, c->stride) || !pair_of(padding, c->padding) ||
      !pair_of(dilation, c->dilation)) {
    return false;
  }
  for (const int64_t extra : output_padding) {
    if (extra != 0) return false;
  }
  const int64_t in_channels = input.size(1);
  const int64_t out_channels = weight.size(0);
  if (in_channels % groups != 0 || out_channels % groups != 0 || out_channels == 0 ||
      weight.size(1) != in_channels / groups || weight.size(1) == 0) {
    return false;
  }
  if (bias.has_value() && (bias->dim() != 1 || bias->size(0) != out_channels)) return false;
  c->batch = input.size(0);
  c->groups = groups;
  c->in_per_group = in_channels / groups;
  c->out_per_group = out_channels / groups;
  c->in_h = input.size(2);
  c->in_w = input.size(3);
  c->bias = bias.has_value();
  int64_t out[2];
  for (int d = 0; d < 2; ++d) {
    c->kernel[d] = weight.size(2 + d);
    const int64_t in = input.size(2 + d);
    if (c->stride[d] <= 0 || c->dilation[d] <= 0 || c->padding[d] < 0 || c->stride[d] > INT32_MAX ||
        c->dilation[d] > INT32_MAX || c->padding[d] > INT32_MAX || in > INT32_MAX ||
        c->kernel[d] > INT32_MAX || c->kernel[d] == 0) {
      return false;
    }
    const int64_t span = c->dilation[d] * (c->kernel[d] - 1) + 1;
    if (in + 2 * c->padding[d] < span) return false;
    out[d] = (in + 2 * c->padding[d] - span) / c->stride[d] + 1;
  }
  c->out_h = out[0];
  c->out_w = out[1];
  return true;
}

// A: per sample and group, W[g] as [out_per_group, reduce] (with the bias column).
template <typename T>
void stage_weights(const ConvShape& c, const T* weight, const T* bias, T* a) {
  const int64_t k = c.in_per_group * c.kernel[0] * c.kernel[1];
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t g = 0; g < c.groups; ++g) {
      for (int64_t o = 0; o < c.out_per_group; ++o) {
        const int64_t channel = g * c.out_per_group + o;
        const T* src = weight + channel * k;
        for (int64_t i = 0; i < k; ++i) *a++ = src[i];
        if (c.bias) *a++ = bias[channel];
      }
    }
  }
}

// B: per sample and group, cols[n, g] as [reduce, pixels] (with the row of ones).
template <typename T>
void stage_columns(const ConvShape& c, const T* input, T* b) {
  const T zero(0.0f);
  const T one(1.0f);
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t g = 0; g < c.groups; ++g) {
      for (int64_t ci = 0; ci < c.in_per_group; ++ci) {
        const int64_t channel = g * c.in_per_group + ci;
        const T* plane = input + (n * c.groups * c.in_per_group + channel) * c.in_h * c.in_w;
        for (int64_t kh = 0; kh < c.kernel[0]; ++kh) {
          for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
            for (int64_t oh = 0; oh < c.out_h; ++oh) {
              const int64_t ih = oh * c.stride[0] - c.padding[0] + kh * c.dilation[0];
              const bool row_in = ih >= 0 && ih < c.in_h;
              for (int64_t ow = 0; ow < c.out_w; ++ow) {
                const int64_t iw = ow * c.stride[1] - c.padding[1] + kw * c.dilation[1];
                *b++ = row_in && iw >= 0 && iw < c.in_w ? plane[ih * c.in_w + iw] : zero;
              }
            }
          }
        }
      }
      if (c.bias) {
        for (int64_t p = 0; p < c.pixels(); ++p) *b++ = one;
      }
    }
  }
}

template <typename T>
void stage(const ConvShape& c, const Tensor& input, const Tensor& weight,
           const std::optional<Tensor>& bias, T* a, T* b) {
  stage_weights(c, weight.const_data_ptr<T>(),
                bias.has_value() ? bias->const_data_ptr<T>() : nullptr, a);
  stage_columns(c, input.const_data_ptr<T>(), b);
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                        IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                        int64_t groups, Tensor& out) {
  if (transposed) {
    decline(ctx, "a transposed convolution");
    return out;
  }
  if (input.dim() != 4 || weight.dim() != 4) {
    decline(ctx, "a convolution that is not 2-d");
    return out;
  }
  const ScalarType dtype = input.scalar_type();
  DeviceDtype device_dtype;
  if (!accept_matmul_dtype(ctx, dtype, &device_dtype) ||
      !accept_tensor(ctx, input, "input", dtype) || !accept_tensor(ctx, weight, "weight", dtype) ||
      (bias.has_value() && !accept_tensor(ctx, *bias, "bias", dtype)) ||
      !accept_tensor(ctx, out, "out", dtype)) {
    return out;
  }
  ConvShape c;
  if (!conv_shape(input, weight, bias, stride, padding, dilation, output_padding, groups, &c)) {
    decline(ctx, "convolution arguments torch refuses (the portable kernel reports them)");
    return out;
  }
  const SizesType sizes[4] = {static_cast<SizesType>(c.batch),
                              static_cast<SizesType>(c.groups * c.out_per_group),
                              static_cast<SizesType>(c.out_h), static_cast<SizesType>(c.out_w)};
  if (!resize_or_fail(ctx, out, {sizes, 4}) || out.numel() == 0) return out;
  const int64_t batches = c.batch * c.groups;
  if (batches > INT32_MAX || c.reduce() > kMatmulMaxDim || c.pixels() > kMatmulMaxDim ||
      c.out_per_group > kMatmulMaxDim) {
    decline(ctx, "a convolution past the matmul's %u-element dims", kMatmulMaxDim);
    return out;
  }
  const size_t size = device_element_size(device_dtype);
  const size_t a_elems = static_cast<size_t>(batches * c.out_per_group * c.reduce());
  const size_t b_elems = static_cast<size_t>(batches * c.reduce() * c.pixels());
  Result<void*> memory = ctx.allocate_temp((a_elems + b_elems) * size, 32);
  if (!memory.ok()) {
    // The portable kernel needs no temp memory: let it serve rather than fail the call.
    ctx.reset_failure();
    decline(ctx,
            "an input without temp memory to lay out its columns (give the context a temp "
            "allocator)");
    return out;
  }
  uint8_t* a = static_cast<uint8_t*>(memory.get());
  uint8_t* b = a + a_elems * size;
  switch (device_dtype) {
    case DeviceDtype::Half:
      stage(c, input, weight, bias, reinterpret_cast<Half*>(a), reinterpret_cast<Half*>(b));
      break;
    case DeviceDtype::BFloat16:
      stage(c, input, weight, bias, reinterpret_cast<BFloat16*>(a), reinterpret_cast<BFloat16*>(b));
      break;
    default:
      stage(c, input, weight, bias, reinterpret_cast<float*>(a), reinterpret_cast<float*>(b));
      break;
  }
  MatmulProblem problem{};
  problem.dtype = device_dtype;
  problem.batches = static_cast<uint32_t>(batches);
  problem.m = static_cast<uint32_t>(c.out_per_group);
  problem.n = static_cast<uint32_t>(c.pixels());
  problem.k = static_cast<uint32_t>(c.reduce());
  const MatmulOperands operands{a, b, MatmulAddend::None, nullptr, out.mutable_data_ptr()};
  (void)run_matmul(ctx, problem, operands);
  return out;
}

}  // namespace kiln::ascend::native
