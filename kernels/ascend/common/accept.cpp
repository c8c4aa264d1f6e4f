// The Ascend wrappers' input checks: a decline names what the kernel cannot take.
#include "kernels/ascend/common/accept.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "runtime/core/dim_order.h"
#include "runtime/core/half.h"

namespace kiln::ascend {

bool decline(KernelRuntimeContext& ctx, const char* format, ...) {
  char reason[200];
  va_list args;
  va_start(args, format);
  std::vsnprintf(reason, sizeof(reason), format, args);
  va_end(args);
  ctx.fail(Error::KernelDeclined, "the Ascend kernel (%s) does not take %s", platform().soc_name,
           reason);
  return false;
}

bool refused(KernelRuntimeContext& ctx, const KernelRuntimeContext& checks) {
  return decline(ctx, "what the portable kernel refuses (%s)", checks.failure_message());
}

bool accept_dtype(KernelRuntimeContext& ctx, ScalarType dtype, bool int32_ok,
                  DeviceDtype* device_dtype) {
  switch (dtype) {
    case ScalarType::Float:
      *device_dtype = DeviceDtype::Float;
      return true;
    case ScalarType::Half:
      *device_dtype = DeviceDtype::Half;
      return true;
    case ScalarType::BFloat16:
      if (!platform().has_bfloat16) return decline(ctx, "BFloat16 (the SoC has no bfloat16)");
      *device_dtype = DeviceDtype::BFloat16;
      return true;
    case ScalarType::Int:
      if (!int32_ok) return decline(ctx, "dtype Int");
      *device_dtype = DeviceDtype::Int32;
      return true;
    default:
      return decline(ctx, "dtype %s", to_string(dtype));
  }
}

void* staging_memory(KernelRuntimeContext& ctx, size_t bytes, const char* what) {
  Result<void*> memory = ctx.allocate_temp(bytes, 32);
  if (memory.ok()) return memory.get();
  ctx.reset_failure();
  decline(ctx, "%s without temp memory to stage it (give the context a temp allocator)", what);
  return nullptr;
}

bool accept_row_view(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                     ScalarType dtype) {
  if (tensor.scalar_type() != dtype) {
    return decline(ctx, "%s of dtype %s with %s", name, to_string(tensor.scalar_type()),
                   to_string(dtype));
  }
  if (!is_default_dim_order(tensor.dim_order())) {
    return decline(ctx, "%s in a non-default dim order", name);
  }
  return true;
}

bool accept_tensor(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                   ScalarType dtype) {
  if (!accept_row_view(ctx, tensor, name, dtype)) return false;
  // A row view (rows some stride apart, kernels/portable/cpu/util/llm/arguments.h) reaches only
  // the kernels that read its stride; these copy dense memory.
  StridesType dense[kTensorDimensionLimit];
  const size_t dim = tensor.dim();
  if (dim_order_to_strides(tensor.sizes(), tensor.dim_order(), {dense, dim}) != Error::Ok ||
      !tensor.strides().equals(ArrayRef<StridesType>(dense, dim))) {
    return decline(ctx, "%s whose rows are not dense (a strided view)", name);
  }
  return true;
}

namespace {

// Atlas inference products (310P) compute floats in saturation mode only.
bool saturates_float() { return std::strncmp(platform().soc_name, "Ascend310P", 10) == 0; }

// Over dim-0 rows of the tensor's own stride, so that a row view (its dims after the first dense,
// kernels/portable/cpu/util/llm/arguments.h) is read where its elements are; a dense tensor is
// one run.
template <typename T>
bool finite_elements(const Tensor& tensor) {
  const T* data = tensor.const_data_ptr<T>();
  const int64_t rows = tensor.dim() == 0 || tensor.numel() == 0 ? 1 : tensor.size(0);
  const int64_t row_numel = rows == 0 ? 0 : tensor.numel() / rows;
  const int64_t stride = tensor.dim() == 0 ? 0 : tensor.strides()[0];
  const bool dense = rows <= 1 || stride == row_numel;
  const int64_t runs = dense ? 1 : rows;
  const int64_t run = dense ? tensor.numel() : row_numel;
  for (int64_t r = 0; r < runs; ++r) {
    const T* row = data + r * stride;
    for (int64_t i = 0; i < run; ++i) {
      if (!std::isfinite(static_cast<float>(row[i]))) return false;
    }
  }
  return true;
}

}  // namespace

bool all_finite(const Tensor& tensor) {
  switch (tensor.scalar_type()) {
    case ScalarType::Float:
      return finite_elements<float>(tensor);
    case ScalarType::Half:
      return finite_elements<Half>(tensor);
    case ScalarType::BFloat16:
      return finite_elements<BFloat16>(tensor);
    default:
      return true;  // integers are always finite
  }
}

bool accept_input(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                  ScalarType dtype, bool row_view) {
  if (!(row_view ? accept_row_view(ctx, tensor, name, dtype)
                 : accept_tensor(ctx, tensor, name, dtype))) {
    return false;
  }
  if (saturates_float() && !all_finite(tensor)) {
    return decline(ctx, "%s holding inf or NaN (the vector unit saturates them)", name);
  }
  return true;
}

}  // namespace kiln::ascend
