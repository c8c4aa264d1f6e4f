// Host wrapper of convolution.out on Ascend (2-d, not transposed): im2col on the vector unit,
// then the convolution as one batched matmul on the cube, C[n, g] = W[g] x cols[n, g], with the
// bias folded into the product.
//
// The host stages the input zero-padded and split into stride phases (window_layout.h), and the
// im2col kernel lays out the columns from it. With a bias, W[g] gains a column holding it and
// cols a row of ones, so the cube adds the bias inside its float accumulation and rounds once.
// C[n, g] is the out tensor's [Cout / groups, OH x OW] block of sample n and group g, with each
// output row padded to 32 bytes; the host drops the padding.
#include <cstdint>
#include <cstring>
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/window_stage.h"
#include "kernels/ascend/op_conv/conv_kernels.h"
#include "kernels/ascend/op_conv/conv_tiling.h"
#include "kernels/ascend/op_matmul/matmul_run.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_IM2COL)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_IM2COL, launch_im2col, DeviceDtype, "im2col")

// One value per spatial dim: a single value for both, or two.
bool pair_of(IntArrayRef values, uint64_t* out) {
  if (values.size() != 1 && values.size() != 2) return false;
  for (const int64_t value : values) {
    if (value < 0 || value > INT32_MAX) return false;
  }
  out[0] = static_cast<uint64_t>(values[0]);
  out[1] = static_cast<uint64_t>(values[values.size() - 1]);
  return true;
}

// The arguments torch accepts, as a ConvGeometry; false for anything else (the portable kernel
// then reports the error).
bool conv_geometry(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                   IntArrayRef output_padding, int64_t groups, ConvGeometry* c) {
  WindowGeometry& w = c->window;
  if (groups < 1 || groups > INT32_MAX || !pair_of(stride, w.stride) ||
      !pair_of(padding, w.padding) || !pair_of(dilation, w.dilation)) {
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
  c->batch = static_cast<uint64_t>(input.size(0));
  c->groups = static_cast<uint64_t>(groups);
  c->in_per_group = static_cast<uint64_t>(in_channels / groups);
  c->out_per_group = static_cast<uint64_t>(out_channels / groups);
  c->bias = bias.has_value();
  w.planes = c->batch * static_cast<uint64_t>(in_channels);
  w.in_h = static_cast<uint64_t>(input.size(2));
  w.in_w = static_cast<uint64_t>(input.size(3));
  uint64_t out[2];
  for (int d = 0; d < 2; ++d) {
    const int64_t kernel = weight.size(2 + d);
    const int64_t in = input.size(2 + d);
    if (w.stride[d] == 0 || w.dilation[d] == 0 || kernel == 0 || kernel > INT32_MAX ||
        in > INT32_MAX) {
      return false;
    }
    w.kernel[d] = static_cast<uint64_t>(kernel);
    const uint64_t span = w.dilation[d] * (w.kernel[d] - 1) + 1;
    const uint64_t padded = static_cast<uint64_t>(in) + 2 * w.padding[d];
    if (padded < span) return false;
    out[d] = (padded - span) / w.stride[d] + 1;
  }
  w.out_h = out[0];
  w.out_w = out[1];
  return true;
}

// A (the weights), per sample and group: W[g] as [out_per_group, reduce], the bias last.
void stage_weights(const ConvGeometry& c, const uint8_t* weight, const uint8_t* bias, size_t size,
                   uint8_t* a) {
  const uint64_t k = c.in_per_group * c.window.kernel[0] * c.window.kernel[1];
  for (uint64_t n = 0; n < c.batch; ++n) {
    for (uint64_t channel = 0; channel < c.groups * c.out_per_group; ++channel) {
      std::memcpy(a, weight + channel * k * size, k * size);
      a += k * size;
      if (bias != nullptr) {
        std::memcpy(a, bias + channel * size, size);
        a += size;
      }
    }
  }
}

// product (batches x m x out_rows * pitch) = a (batches x m x k) x the columns (batches x k x
// out_rows * pitch, rows 32-byte aligned) that im2col left in device memory, on the cube. The
// Matmul API's ND rows reach kMatmulMaxRowStride elements, so a wider product runs in chunks of
// whole output rows: the columns come back to host memory and each chunk is gathered there.
bool multiply_columns(KernelRuntimeContext& ctx, DeviceDtype dtype, uint64_t batches, uint64_t m,
                      uint64_t k, uint64_t out_rows, uint64_t pitch, const uint8_t* a,
                      const DeviceBuffer& cols_device, uint8_t* product) {
  MatmulProblem problem{};
  problem.dtype = dtype;
  problem.batches = static_cast<uint32_t>(batches);
  problem.m = static_cast<uint32_t>(m);
  problem.k = static_cast<uint32_t>(k);
  const size_t size = device_element_size(dtype);
  const uint64_t block = 32 / size;
  const uint64_t widest = kMatmulMaxRowStride / block * block;
  const uint64_t rows_per_chunk = widest / pitch;
  if (out_rows * pitch <= widest) {
    problem.n = static_cast<uint32_t>(out_rows * pitch);
    return run_matmul(ctx, problem,
                      {a, nullptr, MatmulAddend::None, nullptr, product, cols_device.get()});
  }
  if (rows_per_chunk == 0) {
    return decline(ctx, "an output row wider than the Matmul API's %u-element ND rows",
                   kMatmulMaxRowStride);
  }
  const uint64_t total = out_rows * pitch;
  const uint64_t chunk = rows_per_chunk * pitch;
  uint8_t* cols = static_cast<uint8_t*>(
      staging_memory(ctx, batches * (k * total + (k + m) * chunk) * size, "a wide product"));
  if (cols == nullptr || !cols_device.download(ctx, cols, batches * k * total * size)) {
    return false;
  }
  uint8_t* chunk_cols = cols + batches * k * total * size;
  uint8_t* chunk_product = chunk_cols + batches * k * chunk * size;
  for (uint64_t start = 0; start < total; start += chunk) {
    const uint64_t width = total - start < chunk ? total - start : chunk;
    for (uint64_t row = 0; row < batches * k; ++row) {
      std::memcpy(chunk_cols + row * width * size, cols + (row * total + start) * size,
                  width * size);
    }
    problem.n = static_cast<uint32_t>(width);
    if (!run_matmul(ctx, problem, {a, chunk_cols, MatmulAddend::None, nullptr, chunk_product})) {
      return false;
    }
    for (uint64_t row = 0; row < batches * m; ++row) {
      std::memcpy(product + (row * total + start) * size, chunk_product + row * width * size,
                  width * size);
    }
  }
  return true;
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
      !accept_input(ctx, input, "input", dtype) || !accept_input(ctx, weight, "weight", dtype) ||
      (bias.has_value() && !accept_input(ctx, *bias, "bias", dtype)) ||
      !accept_tensor(ctx, out, "out", dtype)) {
    return out;
  }
  ConvGeometry c;
  if (!conv_geometry(input, weight, bias, stride, padding, dilation, output_padding, groups, &c)) {
    decline(ctx, "convolution arguments torch refuses (the portable kernel reports them)");
    return out;
  }
  const SizesType sizes[4] = {
      static_cast<SizesType>(c.batch), static_cast<SizesType>(c.groups * c.out_per_group),
      static_cast<SizesType>(c.window.out_h), static_cast<SizesType>(c.window.out_w)};
  if (c.batch == 0) {
    (void)resize_or_fail(ctx, out, {sizes, 4});
    return out;
  }
  const Platform device = platform();
  if (!im2col_fits(c, device_dtype, device.ub_bytes)) {
    decline(ctx, "an input row too long for the im2col kernel's UB tiles");
    return out;
  }
  const Im2colTiling tiling = im2col_tiling(c, device_dtype, device.ub_bytes, device.vector_cores);
  const uint64_t batches = c.batch * c.groups;
  const WindowLayout& layout = tiling.window;
  const uint64_t pixels = uint64_t{layout.out_h} * layout.segment_pitch;
  if (batches > INT32_MAX || tiling.reduce > kMatmulMaxDim || pixels > kMatmulMaxDim ||
      c.out_per_group > kMatmulMaxDim) {
    decline(ctx, "a convolution past the matmul's %u-element dims", kMatmulMaxDim);
    return out;
  }
  if (!resize_or_fail(ctx, out, {sizes, 4})) return out;
  const size_t size = device_element_size(device_dtype);
  const size_t staged_bytes = layout.staged_elems * size;
  const size_t a_bytes = batches * c.out_per_group * tiling.reduce * size;
  const size_t cols_bytes = tiling.rows * pixels * size;
  const size_t c_bytes = batches * c.out_per_group * pixels * size;
  uint8_t* staged =
      static_cast<uint8_t*>(staging_memory(ctx, staged_bytes + a_bytes + c_bytes, "an input"));
  if (staged == nullptr) return out;
  uint8_t* a = staged + staged_bytes;
  uint8_t* product = a + a_bytes;
  const uint8_t zero[4] = {0, 0, 0, 0};
  stage_windows(c.window, layout, static_cast<const uint8_t*>(input.const_data_ptr()), size, zero,
                staged);
  DeviceBuffer cols_device;
  {
    DeviceBuffer x, t;
    if (!x.upload(ctx, staged, staged_bytes) || !cols_device.allocate(ctx, cols_bytes) ||
        !t.upload(ctx, &tiling, sizeof(tiling)) ||
        !finish_launch(ctx, launch_im2col(device_dtype, tiling.block_dim, x.get(),
                                          cols_device.get(), t.get()))) {
      return out;
    }
  }
  stage_weights(c, static_cast<const uint8_t*>(weight.const_data_ptr()),
                bias.has_value() ? static_cast<const uint8_t*>(bias->const_data_ptr()) : nullptr,
                size, a);
  if (multiply_columns(ctx, device_dtype, batches, c.out_per_group, tiling.reduce, layout.out_h,
                       layout.segment_pitch, a, cols_device, product)) {
    drop_row_padding(batches * c.out_per_group * layout.out_h, c.window.out_w, layout.segment_pitch,
                     size, product, static_cast<uint8_t*>(out.mutable_data_ptr()));
  }
  return out;
}

}  // namespace kiln::ascend::native
