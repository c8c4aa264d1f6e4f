// The int8 convolutions and linears of load-time fusion (see int8_conv.h).
#include "kernels/portable/cpu/util/quantized/int8_conv.h"

#include <algorithm>
#include <cstring>

#include "kernels/portable/cpu/isa/pack_int8.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/quantized/int8_depthwise.h"
#include "kernels/portable/cpu/util/quantized/int8_gemm.h"

namespace kiln::portable {
namespace {

// What plan() writes: this header, then (64-byte aligned) the weights, one row of kpad per out
// channel, and the per-channel correction, scale and bias.
struct Plan {
  Int8ConvShape shape;
  int64_t k;  // in channels * kernel h * kernel w: the weights' own order, (c, kh, kw)
  int64_t kpad;
  size_t weights;  // offsets from the plan's start
  size_t correction;
  size_t scale;
  size_t bias;
  size_t bytes;
};

constexpr size_t kAlign = 64;
size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

Plan layout(const Int8ConvShape& shape) {
  Plan plan{};
  plan.shape = shape;
  // A depthwise filter spans its own channel's taps.
  plan.k = shape.kernel[0] * shape.kernel[1] * (shape.depthwise ? 1 : shape.in_channels);
  plan.kpad = (plan.k + 3) / 4 * 4;
  const auto channels = static_cast<size_t>(shape.out_channels);
  plan.weights = aligned(sizeof(Plan));
  plan.correction = plan.weights + aligned(static_cast<size_t>(plan.kpad) * channels);
  plan.scale = plan.correction + aligned(channels * sizeof(int32_t));
  plan.bias = plan.scale + aligned(channels * sizeof(float));
  plan.bytes = plan.bias + aligned(channels * sizeof(float));
  return plan;
}

size_t plan_bytes(const Int8ConvShape& shape) {
  if (shape.in_channels <= 0 || shape.out_channels <= 0 || shape.kernel[0] <= 0 ||
      shape.kernel[1] <= 0 || shape.stride[0] <= 0 || shape.stride[1] <= 0 ||
      shape.dilation[0] <= 0 || shape.dilation[1] <= 0 || shape.padding[0] < 0 ||
      shape.padding[1] < 0) {
    return 0;
  }
  // Each sum adds kpad products of at most 255 * 128 (activations + 128 times weights), and the
  // correction as much again: int32 holds them below this many terms.
  constexpr int64_t kMaxTerms = (int64_t{1} << 31) / (255 * 128 * 2) - 4;
  if (shape.kernel[0] > kMaxTerms || shape.kernel[1] > kMaxTerms || shape.in_channels > kMaxTerms ||
      shape.kernel[0] * shape.kernel[1] * shape.in_channels > kMaxTerms) {
    return 0;
  }
  // The depthwise kernel strides one index through both dims (int8_depthwise.h).
  if (shape.depthwise && shape.stride[0] != shape.stride[1]) return 0;
  return layout(shape).bytes;
}

void make_plan(const Int8ConvShape& shape, const Int8ConvWeights& weights, void* memory) {
  const Plan plan = layout(shape);
  auto* base = static_cast<char*>(memory);
  std::memcpy(base, &plan, sizeof(Plan));
  auto* packed = reinterpret_cast<int8_t*>(base + plan.weights);
  auto* correction = reinterpret_cast<int32_t*>(base + plan.correction);
  auto* scale = reinterpret_cast<float*>(base + plan.scale);
  auto* bias = reinterpret_cast<float*>(base + plan.bias);
  for (int64_t n = 0; n < shape.out_channels; ++n) {
    const int8_t* from = weights.weight + n * plan.k;
    int8_t* row = packed + n * plan.kpad;
    int32_t sum = 0;
    for (int64_t k = 0; k < plan.k; ++k) {
      row[k] = from[k];
      sum += from[k];
    }
    for (int64_t k = plan.k; k < plan.kpad; ++k) row[k] = 0;
    // The depthwise kernel sums (x - zero point) * w itself.
    correction[n] = shape.depthwise ? 0 : -(128 + shape.input_zero_point) * sum;
    // s_in * s_w rounded once; the float chain multiplies the two dequantized factors.
    scale[n] = static_cast<float>(static_cast<double>(shape.input_scale) *
                                  static_cast<double>(weights.scales[n]));
    bias[n] = weights.bias != nullptr ? weights.bias[n] : 0.0f;
  }
}

Int8GemmArgs gemm_args(const Plan& plan, const char* base) {
  const Int8ConvShape& shape = plan.shape;
  Int8GemmArgs g{};
  g.w = reinterpret_cast<const int8_t*>(base + plan.weights);
  g.kpad = plan.kpad;
  g.n = shape.out_channels;
  g.correction = reinterpret_cast<const int32_t*>(base + plan.correction);
  g.scale = reinterpret_cast<const float*>(base + plan.scale);
  g.bias = reinterpret_cast<const float*>(base + plan.bias);
  g.inv_out_scale = 1.0f / shape.output_scale;
  g.low = static_cast<float>(shape.out_min - shape.output_zero_point);
  g.high = static_cast<float>(shape.out_max - shape.output_zero_point);
  g.out_zero_point = shape.output_zero_point;
  return g;
}

// Panels packed and then multiplied at a time: their activations (up to 16 * kpad bytes each)
// stay in L2 between the two.
constexpr int64_t kPanelsPerBlock = 8;

int64_t panels_of(int64_t pixels) { return (pixels + kInt8PanelWidth - 1) / kInt8PanelWidth; }

// Panels per chunk of a parallel_for: at least kGemmGrain multiply-adds.
int64_t panel_grain(const Plan& plan) {
  const int64_t per_panel = plan.kpad * plan.shape.out_channels * kInt8PanelWidth;
  return per_panel >= kGemmGrain ? 1 : (kGemmGrain + per_panel - 1) / per_panel;
}

// Panels [begin, end) of activations given as k rows of `pixels` int8 values each (row k at
// rows + k * row_stride): k past `k` and pixels past the last are 0.
void pack_rows(const int8_t* rows, int64_t row_stride, int64_t k, int64_t kpad, int64_t pixels,
               int64_t begin, int64_t end, uint8_t* panels) {
  for (int64_t panel = begin; panel < end; ++panel) {
    uint8_t* to = panels + panel * kpad * kInt8PanelWidth;
    const int64_t first = panel * kInt8PanelWidth;
    const bool whole = first + kInt8PanelWidth <= pixels;
    for (int64_t group = 0; group < kpad; group += 4, to += 4 * kInt8PanelWidth) {
      if (whole && group + 4 <= k) {
        const int8_t* const four[4] = {
            rows + group * row_stride + first, rows + (group + 1) * row_stride + first,
            rows + (group + 2) * row_stride + first, rows + (group + 3) * row_stride + first};
        isa::interleave_int8_group(four, to);
        continue;
      }
      for (int64_t lane = 0; lane < kInt8PanelWidth; ++lane) {
        for (int64_t j = 0; j < 4; ++j) {
          const bool real = group + j < k && first + lane < pixels;
          to[lane * 4 + j] =
              real ? static_cast<uint8_t>(rows[(group + j) * row_stride + first + lane] ^ 0x80) : 0;
        }
      }
    }
  }
}

void run_linear(KernelRuntimeContext& ctx, const Plan& plan, const char* base, const Tensor& input,
                Tensor& out) {
  const int64_t in = plan.shape.in_channels, channels = plan.shape.out_channels;
  const int64_t rows = input.numel() / in;
  KILN_KERNEL_CHECK_MSG(ctx,
                        input.dim() >= 1 && input.size(input.dim() - 1) == in && out.dim() >= 1 &&
                            out.size(out.dim() - 1) == channels && out.numel() == rows * channels,
                        InvalidArgument, , "int8 linear: input or out sizes changed");
  if (rows == 0) return;
  // The rows are the gemm's pixels: panels of them, then the channels-by-rows result, which
  // goes back to the out's rows-by-channels order.
  const int64_t panels = panels_of(rows);
  const size_t panel_bytes = static_cast<size_t>(panels * plan.kpad * kInt8PanelWidth);
  Result<void*> scratch =
      ctx.allocate_temp(aligned(panel_bytes) + static_cast<size_t>(rows * channels), kAlign);
  KILN_KERNEL_CHECK_MSG(ctx, scratch.ok(), MemoryAllocationFailed, ,
                        "int8 linear: no temporary memory for its %lld activation bytes",
                        static_cast<long long>(panel_bytes));
  auto* packed = static_cast<uint8_t*>(*scratch);
  auto* result = reinterpret_cast<int8_t*>(packed + aligned(panel_bytes));
  const int8_t* x = input.const_data_ptr<int8_t>();
  for (int64_t m = 0; m < rows; ++m) {
    uint8_t* to =
        packed + (m / kInt8PanelWidth) * plan.kpad * kInt8PanelWidth + (m % kInt8PanelWidth) * 4;
    for (int64_t k = 0; k < plan.kpad; ++k) {
      to[(k / 4) * 4 * kInt8PanelWidth + k % 4] =
          k < in ? static_cast<uint8_t>(x[m * in + k] ^ 0x80) : 0;
    }
  }
  Int8GemmArgs g = gemm_args(plan, base);
  g.x = packed;
  g.pixels = rows;
  g.out = result;
  g.ldc = rows;
  parallel_for(ctx, 0, panels, panel_grain(plan),
               [&](int64_t begin, int64_t end) { int8_gemm(g, begin, end); });
  int8_t* y = out.mutable_data_ptr<int8_t>();
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t n = 0; n < channels; ++n) y[m * channels + n] = result[n * rows + m];
  }
}

// to[i] = from[2 * i]: a stride known here, which the compiler's AVX2 clone gathers with
// shuffles (a stride-2 stem's im2col is most of its time).
KILN_HOT_LOOP void gather_even(const int8_t* from, int64_t count, int8_t* __restrict to) {
  for (int64_t i = 0; i < count; ++i) to[i] = from[2 * i];
}

struct ConvGeometry {
  int64_t height, width, out_height, out_width;
};

// Pixels [begin, end) of the im2col rows of one image x [c][h][w]: row (c, kh, kw) holds, for
// each out pixel, the input value under tap (kh, kw), or the input zero point outside.
void im2col(const Plan& plan, const ConvGeometry& geo, const int8_t* x, int64_t begin, int64_t end,
            int8_t* rows, int64_t row_stride) {
  const Int8ConvShape& s = plan.shape;
  const auto padding = static_cast<int8_t>(s.input_zero_point);
  int64_t k = 0;
  for (int64_t c = 0; c < s.in_channels; ++c) {
    const int8_t* plane = x + c * geo.height * geo.width;
    for (int64_t kh = 0; kh < s.kernel[0]; ++kh) {
      for (int64_t kw = 0; kw < s.kernel[1]; ++kw, ++k) {
        int8_t* row = rows + k * row_stride;
        for (int64_t p = begin; p < end;) {
          const int64_t oh = p / geo.out_width, ow0 = p % geo.out_width;
          const int64_t run = std::min(end - p, geo.out_width - ow0);
          const int64_t ih = oh * s.stride[0] - s.padding[0] + kh * s.dilation[0];
          int8_t* to = row + p;
          if (ih < 0 || ih >= geo.height) {
            std::memset(to, padding, static_cast<size_t>(run));
          } else {
            // Out pixels ow0 + [low, high) read inside the line: iw = ow * stride + offset.
            const int8_t* line = plane + ih * geo.width;
            const int64_t stride = s.stride[1];
            const int64_t offset = kw * s.dilation[1] - s.padding[1];
            int64_t low = offset >= 0 ? 0 : (-offset + stride - 1) / stride - ow0;
            int64_t high =
                geo.width - offset <= 0 ? 0 : (geo.width - offset + stride - 1) / stride - ow0;
            low = std::min(std::max<int64_t>(low, 0), run);
            high = std::min(std::max(high, low), run);
            std::memset(to, padding, static_cast<size_t>(low));
            const int8_t* from = line + (ow0 + low) * stride + offset;
            if (stride == 1) {
              std::memcpy(to + low, from, static_cast<size_t>(high - low));
            } else if (stride == 2) {
              gather_even(from, high - low, to + low);
            } else {
              for (int64_t i = low; i < high; ++i) to[i] = from[(i - low) * stride];
            }
            std::memset(to + high, padding, static_cast<size_t>(run - high));
          }
          p += run;
        }
      }
    }
  }
}

void run_depthwise(KernelRuntimeContext& ctx, const Plan& plan, const char* base,
                   const Tensor& input, Tensor& out) {
  const Int8ConvShape& s = plan.shape;
  Int8DepthwiseArgs a{};
  a.height = input.size(2);
  a.width = input.size(3);
  a.out_height = out.size(2);
  a.out_width = out.size(3);
  for (int d = 0; d < 2; ++d) {
    a.kernel[d] = s.kernel[d];
    a.stride[d] = s.stride[d];
    a.padding[d] = s.padding[d];
    a.dilation[d] = s.dilation[d];
  }
  a.input_zero_point = s.input_zero_point;
  a.w = reinterpret_cast<const int8_t*>(base + plan.weights);
  a.w_stride = plan.kpad;
  a.requantize = gemm_args(plan, base);
  const int64_t channels = s.in_channels;
  // One scratch per worker: the pool's threads, when the image is worth splitting.
  const int64_t work = channels * a.out_height * a.out_width * plan.k;
  const ThreadPool* pool = ctx.thread_pool();
  int64_t workers = pool != nullptr && work >= 2 * kGemmGrain
                        ? std::min<int64_t>(static_cast<int64_t>(pool->num_threads()), channels)
                        : 1;
  // An out on the input's bytes (Int8ConvKernels::run) is written channel after channel, each
  // once its plane is read: one worker, in order.
  const auto* in_begin = input.const_data_ptr<int8_t>();
  const int8_t* out_begin = out.const_data_ptr<int8_t>();
  if (out_begin < in_begin + input.numel() && in_begin < out_begin + out.numel()) workers = 1;
  workers = std::max<int64_t>(workers, 1);
  const size_t per_worker = (int8_depthwise_scratch_bytes(a) + kAlign - 1) / kAlign * kAlign;
  Result<void*> scratch = ctx.allocate_temp(per_worker * static_cast<size_t>(workers), kAlign);
  KILN_KERNEL_CHECK_MSG(ctx, scratch.ok(), MemoryAllocationFailed, ,
                        "int8 depthwise convolution: no temporary memory for its padded planes");
  for (int64_t image = 0; image < input.size(0); ++image) {
    a.x = input.const_data_ptr<int8_t>() + image * channels * a.height * a.width;
    a.out = out.mutable_data_ptr<int8_t>() + image * channels * a.out_height * a.out_width;
    parallel_for(ctx, 0, workers, 1, [&](int64_t first, int64_t last) {
      for (int64_t worker = first; worker < last; ++worker) {
        int8_depthwise(a, worker * channels / workers, (worker + 1) * channels / workers,
                       static_cast<char*>(*scratch) + static_cast<size_t>(worker) * per_worker);
      }
    });
  }
}

void run_conv(KernelRuntimeContext& ctx, const Plan& plan, const char* base, const Tensor& input,
              Tensor& out) {
  const Int8ConvShape& s = plan.shape;
  KILN_KERNEL_CHECK_MSG(ctx,
                        input.dim() == 4 && out.dim() == 4 && input.size(1) == s.in_channels &&
                            out.size(1) == s.out_channels && out.size(0) == input.size(0),
                        InvalidArgument, , "int8 convolution: input or out sizes changed");
  const ConvGeometry geo{input.size(2), input.size(3), out.size(2), out.size(3)};
  const int64_t span_h = s.dilation[0] * (s.kernel[0] - 1) + 1;
  const int64_t span_w = s.dilation[1] * (s.kernel[1] - 1) + 1;
  KILN_KERNEL_CHECK_MSG(
      ctx,
      geo.height + 2 * s.padding[0] >= span_h && geo.width + 2 * s.padding[1] >= span_w &&
          geo.out_height == (geo.height + 2 * s.padding[0] - span_h) / s.stride[0] + 1 &&
          geo.out_width == (geo.width + 2 * s.padding[1] - span_w) / s.stride[1] + 1,
      InvalidArgument, , "int8 convolution: out sizes do not follow the input's");
  const int64_t pixels = geo.out_height * geo.out_width;
  const int64_t in_pixels = geo.height * geo.width;
  if (pixels == 0 || input.size(0) == 0) return;
  if (s.depthwise) return run_depthwise(ctx, plan, base, input, out);
  // A pointwise convolution's im2col rows are the input's planes themselves.
  const bool pointwise = s.kernel[0] == 1 && s.kernel[1] == 1 && s.stride[0] == 1 &&
                         s.stride[1] == 1 && s.padding[0] == 0 && s.padding[1] == 0;
  const int64_t panels = panels_of(pixels);
  const size_t panel_bytes = static_cast<size_t>(panels * plan.kpad * kInt8PanelWidth);
  const size_t row_bytes = pointwise ? 0 : static_cast<size_t>(plan.k * pixels);
  Result<void*> scratch = ctx.allocate_temp(aligned(panel_bytes) + row_bytes, kAlign);
  KILN_KERNEL_CHECK_MSG(ctx, scratch.ok(), MemoryAllocationFailed, ,
                        "int8 convolution: no temporary memory for %lld activation bytes",
                        static_cast<long long>(aligned(panel_bytes) + row_bytes));
  auto* packed = static_cast<uint8_t*>(*scratch);
  auto* rows = reinterpret_cast<int8_t*>(packed + aligned(panel_bytes));
  Int8GemmArgs g = gemm_args(plan, base);
  g.x = packed;
  g.pixels = pixels;
  g.ldc = pixels;
  const int8_t* x = input.const_data_ptr<int8_t>();
  int8_t* y = out.mutable_data_ptr<int8_t>();
  // An out on the input's bytes (Int8ConvKernels::run) waits until all of its image is read.
  const bool shared = y < x + input.numel() && x < y + out.numel();
  for (int64_t image = 0; image < input.size(0); ++image) {
    const int8_t* x_image = x + image * s.in_channels * in_pixels;
    g.out = y + image * s.out_channels * pixels;
    auto pack = [&](int64_t begin, int64_t end) {
      if (pointwise) {
        pack_rows(x_image, pixels, plan.k, plan.kpad, pixels, begin, end, packed);
      } else {
        im2col(plan, geo, x_image, begin * kInt8PanelWidth, std::min(end * kInt8PanelWidth, pixels),
               rows, pixels);
        pack_rows(rows, pixels, plan.k, plan.kpad, pixels, begin, end, packed);
      }
    };
    if (shared) {
      // All the activations are packed before any out is written (Int8ConvKernels::run).
      parallel_for(ctx, 0, panels, panel_grain(plan), pack);
      parallel_for(ctx, 0, panels, panel_grain(plan),
                   [&](int64_t begin, int64_t end) { int8_gemm(g, begin, end); });
      continue;
    }
    // Else a few panels at a time are packed and multiplied while they are in cache, in one
    // hand-off to the pool.
    parallel_for(ctx, 0, panels, panel_grain(plan), [&](int64_t begin, int64_t end) {
      for (int64_t block = begin; block < end; block += kPanelsPerBlock) {
        const int64_t block_end = std::min(block + kPanelsPerBlock, end);
        pack(block, block_end);
        int8_gemm(g, block, block_end);
      }
    });
  }
}

void run(KernelRuntimeContext& ctx, const void* memory, const Tensor& input, Tensor& out) {
  const auto* base = static_cast<const char*>(memory);
  Plan plan;
  std::memcpy(&plan, base, sizeof(Plan));
  KILN_KERNEL_CHECK_MSG(
      ctx, input.scalar_type() == ScalarType::Char && out.scalar_type() == ScalarType::Char,
      InvalidArgument, , "int8 convolution: input and out must be Char (int8), but are %s and %s",
      to_string(input.scalar_type()), to_string(out.scalar_type()));
  if (plan.shape.linear) {
    run_linear(ctx, plan, base, input, out);
  } else {
    run_conv(ctx, plan, base, input, out);
  }
}

const Int8ConvKernels kKernels = {&plan_bytes, &make_plan, &run};

}  // namespace

const Int8ConvKernels& portable_int8_conv_kernels() { return kKernels; }

}  // namespace kiln::portable
