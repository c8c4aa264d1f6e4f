// Host wrapper of max_pool2d_with_indices.out on Ascend: stages the input -inf-padded and split
// into stride phases (window_layout.h), reduces each window on the vector unit, and turns the
// winning tap back into torch's flat h * W + w index.
#include <cstdint>
#include <cstring>
#include <tuple>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/window_stage.h"
#include "kernels/ascend/op_max_pool/max_pool_kernels.h"
#include "kernels/ascend/op_max_pool/max_pool_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_MAX_POOL)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_MAX_POOL, launch_max_pool, DeviceDtype, "max_pool")

// One pooled dim: kernel, stride, padding, dilation; input and output extents.
struct PoolDim {
  int64_t kernel, stride, padding, dilation, in, out;

  // The input position of tap `k` of output `o` (may lie in the padding).
  int64_t tap(int64_t o, int64_t k) const { return o * stride - padding + k * dilation; }
  // The first in-bounds tap position of output `o`'s window (past the end when there is none),
  // which torch reports for a window without a tap.
  int64_t first(int64_t o) const {
    int64_t position = o * stride - padding;
    while (position < 0) position += dilation;
    return position;
  }
};

// `values` as one (a single value for both dims) or two arguments; `fallback` when empty (if
// given).
bool pair_of(IntArrayRef values, const int64_t* fallback, int64_t* out) {
  if (values.empty() && fallback != nullptr) {
    out[0] = fallback[0];
    out[1] = fallback[1];
    return true;
  }
  if (values.size() != 1 && values.size() != 2) return false;
  out[0] = values[0];
  out[1] = values[values.size() - 1];
  return true;
}

// ATen's pooling_output_shape, for arguments below 2^31.
int64_t pooled_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  const int64_t numerator =
      in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (numerator >= 0 ? numerator / stride : -((-numerator + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// The geometry of valid arguments (those torch accepts), or false for anything else: the
// portable kernel then reports the error.
bool pool_dims(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
               IntArrayRef dilation, bool ceil_mode, PoolDim* dims) {
  static const int64_t kOnes[2] = {1, 1};
  int64_t k[2], s[2], p[2], d[2];
  if (!pair_of(kernel_size, nullptr, k) || !pair_of(stride, k, s) ||
      !pair_of(padding, nullptr, p) || !pair_of(dilation, kOnes, d)) {
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    const int64_t in = self.size(self.dim() - 2 + i);
    if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || p[i] < 0 || k[i] > INT32_MAX || s[i] > INT32_MAX ||
        p[i] > INT32_MAX || d[i] > INT32_MAX || in > INT32_MAX || in == 0 || p[i] > k[i] / 2 ||
        p[i] > ((k[i] - 1) * d[i] + 1) / 2) {
      return false;
    }
    dims[i] = {k[i], s[i], p[i], d[i], in, pooled_size(in, k[i], p[i], s[i], d[i], ceil_mode)};
    if (dims[i].out < 1) return false;
  }
  return true;
}

// The bytes of -inf in a 2- or 4-byte float dtype (Half, BFloat16 or Float).
void negative_infinity(DeviceDtype dtype, uint8_t* bytes) {
  const uint32_t bits = dtype == DeviceDtype::Float  ? 0xff800000u
                        : dtype == DeviceDtype::Half ? 0xfc00u
                                                     : 0xff80u;
  std::memcpy(bytes, &bits, device_element_size(dtype));  // little-endian host
}

// torch's flat index (ih * W + iw) of tap `tap` of output (oh, ow). A maximum left at a padding
// tap means no in-bounds tap took over (all are -inf, or there is none): torch then reports the
// window's first in-bounds position.
int64_t tap_index(const PoolDim* dims, int64_t oh, int64_t ow, int64_t tap) {
  const PoolDim& h = dims[0];
  const PoolDim& w = dims[1];
  const int64_t ih = h.tap(oh, tap / w.kernel);
  const int64_t iw = w.tap(ow, tap % w.kernel);
  if (ih >= 0 && ih < h.in && iw >= 0 && iw < w.in) return ih * w.in + iw;
  return h.first(oh) * w.in + w.first(ow);
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(
    KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
    IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, Tensor& out, Tensor& indices) {
  std::tuple<Tensor&, Tensor&> result(out, indices);
  const ScalarType dtype = self.scalar_type();
  DeviceDtype device_dtype;
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, &device_dtype) ||
      !accept_input(ctx, self, "self", dtype) || !accept_tensor(ctx, out, "out", dtype) ||
      !accept_tensor(ctx, indices, "indices", ScalarType::Long)) {
    return result;
  }
  PoolDim dims[2];
  if ((self.dim() != 3 && self.dim() != 4) || self.size(self.dim() - 3) == 0 ||
      !pool_dims(self, kernel_size, stride, padding, dilation, ceil_mode, dims)) {
    decline(ctx, "pooling arguments torch refuses (the portable kernel reports them)");
    return result;
  }
  const uint64_t taps = static_cast<uint64_t>(dims[0].kernel * dims[1].kernel);
  if (taps > kMaxPoolMaxTaps) {
    decline(ctx, "a window of more than %u taps", kMaxPoolMaxTaps);
    return result;
  }
  SizesType sizes[4];
  const int64_t rank = self.dim();
  for (int64_t d = 0; d < rank - 2; ++d) sizes[d] = self.size(d);
  sizes[rank - 2] = dims[0].out;
  sizes[rank - 1] = dims[1].out;
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)}) ||
      !resize_or_fail(ctx, indices, {sizes, static_cast<size_t>(rank)}) || out.numel() == 0) {
    return result;
  }

  WindowGeometry g{};
  g.planes = static_cast<uint64_t>(self.numel() / (dims[0].in * dims[1].in));
  g.in_h = static_cast<uint64_t>(dims[0].in);
  g.in_w = static_cast<uint64_t>(dims[1].in);
  g.out_h = static_cast<uint64_t>(dims[0].out);
  g.out_w = static_cast<uint64_t>(dims[1].out);
  for (int d = 0; d < 2; ++d) {
    g.kernel[d] = static_cast<uint64_t>(dims[d].kernel);
    g.stride[d] = static_cast<uint64_t>(dims[d].stride);
    g.padding[d] = static_cast<uint64_t>(dims[d].padding);
    g.dilation[d] = static_cast<uint64_t>(dims[d].dilation);
  }
  const Platform device = platform();
  if (!max_pool_fits(g, device_dtype, device.ub_bytes)) {
    decline(ctx, "an input row too long for the max pool kernel's UB tiles");
    return result;
  }
  const MaxPoolTiling tiling =
      max_pool_tiling(g, device_dtype, device.ub_bytes, device.vector_cores);
  const WindowLayout& layout = tiling.window;
  const size_t size = device_element_size(device_dtype);
  const size_t staged_bytes = layout.staged_elems * size;
  const uint64_t padded = tiling.rows * layout.segment_pitch;
  uint8_t* staged = static_cast<uint8_t*>(
      staging_memory(ctx, staged_bytes + padded * (size + sizeof(float)), "an input"));
  if (staged == nullptr) return result;
  float* slots = reinterpret_cast<float*>(staged + staged_bytes);
  uint8_t* values = staged + staged_bytes + padded * sizeof(float);
  uint8_t filler[4];
  negative_infinity(device_dtype, filler);
  stage_windows(g, layout, static_cast<const uint8_t*>(self.const_data_ptr()), size, filler,
                staged);
  DeviceBuffer x, y, slot, t;
  if (!x.upload(ctx, staged, staged_bytes) || !y.allocate(ctx, padded * size) ||
      !slot.allocate(ctx, padded * sizeof(float)) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return result;
  }
  if (!finish_launch(ctx, launch_max_pool(device_dtype, tiling.block_dim, x.get(), y.get(),
                                          slot.get(), t.get())) ||
      !y.download(ctx, values, padded * size) ||
      !slot.download(ctx, slots, padded * sizeof(float))) {
    return result;
  }
  drop_row_padding(tiling.rows, g.out_w, layout.segment_pitch, size, values,
                   static_cast<uint8_t*>(out.mutable_data_ptr()));
  int64_t* index = indices.mutable_data_ptr<int64_t>();
  for (uint64_t row = 0; row < tiling.rows; ++row) {
    const int64_t oh = static_cast<int64_t>(row % g.out_h);
    const float* slot_row = slots + row * layout.segment_pitch;
    for (int64_t ow = 0; ow < dims[1].out; ++ow) {
      *index++ = tap_index(dims, oh, ow, static_cast<int64_t>(slot_row[ow]));
    }
  }
  return result;
}

}  // namespace kiln::ascend::native
