// run_matmul: device buffers padded to 32-byte rows, one launch of the cube kernel.
#include "kernels/ascend/op_matmul/matmul_run.h"

#include <cstring>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_matmul/matmul_kernels.h"
#include "runtime/core/half.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_MATMUL)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_MATMUL, launch_matmul, DeviceDtype, "matmul")

// The bias as the cube's bias table takes it: n_pitch floats, a broadcast value repeated, the
// padding zeroed. Widening half and bfloat16 to float is exact.
template <typename T>
void widen_bias(const T* src, bool broadcast, uint32_t n, uint32_t n_pitch, float* dst) {
  for (uint32_t j = 0; j < n; ++j) dst[j] = static_cast<float>(src[broadcast ? 0 : j]);
  for (uint32_t j = n; j < n_pitch; ++j) dst[j] = 0.0f;
}

bool stage_bias(KernelRuntimeContext& ctx, const Tensor& addend, const MatmulTiling& tiling,
                DeviceBuffer& bias) {
  const size_t bytes = size_t{tiling.n_pitch} * sizeof(float);
  Result<void*> memory = ctx.allocate_temp(bytes, alignof(float));
  if (!memory.ok()) {
    // The portable kernel needs no temp memory: let it serve rather than fail the call.
    ctx.reset_failure();
    return decline(ctx,
                   "a bias without temp memory to widen it to float (give the context a "
                   "temp allocator)");
  }
  float* values = static_cast<float*>(memory.get());
  const bool broadcast = addend.numel() == 1;
  switch (addend.scalar_type()) {
    case ScalarType::Half:
      widen_bias(addend.const_data_ptr<Half>(), broadcast, tiling.n, tiling.n_pitch, values);
      break;
    case ScalarType::BFloat16:
      widen_bias(addend.const_data_ptr<BFloat16>(), broadcast, tiling.n, tiling.n_pitch, values);
      break;
    default:
      widen_bias(addend.const_data_ptr<float>(), broadcast, tiling.n, tiling.n_pitch, values);
      break;
  }
  return bias.upload(ctx, values, bytes);
}

bool starts_with(const char* text, const char* prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

// The cube of the current device as the Matmul API may use it.
CubeProfile cube_profile(const Platform& device) {
  const bool is_910b =
      starts_with(device.soc_name, "Ascend910B") || starts_with(device.soc_name, "Ascend910_93");
  const bool is_310p = starts_with(device.soc_name, "Ascend310P");
  const uint64_t reserve = is_910b ? kMatmulL1Reserve910B : 0;
  return {device.l1_bytes > reserve ? device.l1_bytes - reserve : 0,
          device.l0a_bytes,
          device.l0b_bytes,
          device.l0c_bytes,
          is_310p ? device.ub_bytes : 0,
          is_910b,
          is_310p};
}

// The Matmul API's ND copies take row strides (Ka, Kb, N) of at most kMatmulMaxRowStride
// elements; Kiln's rows are k and n padded to 32 bytes.
bool accept_row_strides(KernelRuntimeContext& ctx, const MatmulProblem& problem) {
  const uint64_t c0 = elements_per_block(device_element_size(problem.dtype));
  const uint64_t k_pitch = align_up(problem.k, c0);
  const uint64_t n_pitch = align_up(problem.n, c0);
  if (k_pitch > kMatmulMaxRowStride || n_pitch > kMatmulMaxRowStride) {
    return decline(ctx,
                   "k = %u, n = %u (rows padded to %llu and %llu elements; the Matmul API's "
                   "ND row strides reach %u)",
                   problem.k, problem.n, static_cast<unsigned long long>(k_pitch),
                   static_cast<unsigned long long>(n_pitch), kMatmulMaxRowStride);
  }
  return true;
}

}  // namespace

bool accept_matmul_dtype(KernelRuntimeContext& ctx, ScalarType dtype, DeviceDtype* device_dtype) {
  if (dtype == ScalarType::Int) return decline(ctx, "dtype Int (the cube multiplies floats here)");
  if (!accept_dtype(ctx, dtype, /*int32_ok=*/false, device_dtype)) return false;
  const Platform device = platform();
  if (*device_dtype == DeviceDtype::Float && !cube_profile(device).float_inputs) {
    return decline(ctx, "Float (the %s cube multiplies half only)", device.soc_name);
  }
  return true;
}

bool run_matmul(KernelRuntimeContext& ctx, const MatmulProblem& problem,
                const MatmulOperands& operands) {
  if (!accept_row_strides(ctx, problem)) return false;
  const Platform device = platform();
  MatmulProblem staged = problem;
  staged.bias = operands.addend_kind == MatmulAddend::RowBias;
  staged.accumulate = operands.addend_kind == MatmulAddend::Full;
  const MatmulTiling tiling = matmul_tiling(staged, cube_profile(device), device.cube_cores);
  const size_t size = device_element_size(problem.dtype);
  const size_t batches = tiling.batches;
  const size_t k_row = size_t{tiling.k} * size;
  const size_t k_pitch = size_t{tiling.k_pitch} * size;
  const size_t n_row = size_t{tiling.n} * size;
  const size_t n_pitch = size_t{tiling.n_pitch} * size;
  DeviceBuffer a, b, bias, c, t;
  if (!a.upload_rows(ctx, operands.a, batches * tiling.m, k_row, k_pitch)) return false;
  uint8_t* b_data = operands.b_device;
  if (b_data == nullptr) {
    const bool b_ok = problem.trans_b
                          ? b.upload_rows(ctx, operands.b, batches * tiling.n, k_row, k_pitch)
                          : b.upload_rows(ctx, operands.b, batches * tiling.k, n_row, n_pitch);
    if (!b_ok) return false;
    b_data = b.get();
  }
  if (staged.bias && !stage_bias(ctx, *operands.addend, tiling, bias)) return false;
  // C starts as the addend (the kernel adds the product to it) or as uninitialised memory.
  const bool c_ok = staged.accumulate ? c.upload_rows(ctx, operands.addend->const_data_ptr(),
                                                      batches * tiling.m, n_row, n_pitch)
                                      : c.allocate(ctx, batches * tiling.m * n_pitch);
  if (!c_ok || !t.upload(ctx, &tiling, sizeof(tiling))) return false;
  if (!finish_launch(ctx, launch_matmul(problem.dtype, tiling.block_dim, a.get(), b_data,
                                        bias.get(), c.get(), t.get()))) {
    return false;
  }
  return c.download_rows(ctx, operands.c, batches * tiling.m, n_row, n_pitch);
}

}  // namespace kiln::ascend
