// Failure recording and temp allocation for kernels.
#include "runtime/kernel/kernel_runtime_context.h"

#include <cstdarg>
#include <cstdio>

namespace kiln {

void KernelRuntimeContext::fail(Error error, const char* format, ...) {
  if (failure_ != Error::Ok) return;
  failure_ = error;
  int used = 0;
  if (op_name_ != nullptr) {
    used = std::snprintf(message_, sizeof(message_), "%s: ", op_name_);
  }
  va_list args;
  va_start(args, format);
  std::vsnprintf(message_ + used, sizeof(message_) - static_cast<size_t>(used), format, args);
  va_end(args);
}

void KernelRuntimeContext::fail(Error error) { fail(error, "%s", to_string(error)); }

Result<void*> KernelRuntimeContext::allocate_temp(size_t size, size_t alignment) {
  if (temp_allocator_ == nullptr) {
    fail(Error::MemoryAllocationFailed,
         "kernel needs %zu bytes of temporary memory but the context has no temp allocator", size);
    return Error::MemoryAllocationFailed;
  }
  void* memory = temp_allocator_->allocate(size, alignment);
  if (memory == nullptr) {
    fail(Error::MemoryAllocationFailed, "temp allocator exhausted: %zu bytes requested", size);
    return Error::MemoryAllocationFailed;
  }
  return memory;
}

namespace {

// "[2, 3]" into `buffer`.
void format_shape(ArrayRef<SizesType> sizes, char* buffer, size_t capacity) {
  size_t used = static_cast<size_t>(std::snprintf(buffer, capacity, "["));
  for (size_t i = 0; i < sizes.size() && used < capacity; ++i) {
    used +=
        static_cast<size_t>(std::snprintf(buffer + used, capacity - used, "%s%lld",
                                          i == 0 ? "" : ", ", static_cast<long long>(sizes[i])));
  }
  if (used < capacity) std::snprintf(buffer + used, capacity - used, "]");
}

}  // namespace

#if KILN_ATEN_MODE
bool resize_or_fail(KernelRuntimeContext& ctx, Tensor& out, ArrayRef<SizesType> sizes) {
  return resize_or_fail(ctx, out, c10::IntArrayRef(sizes.data(), sizes.size()));
}

bool resize_or_fail(KernelRuntimeContext& ctx, Tensor& out, c10::IntArrayRef sizes) {
  if (out.sizes().equals(sizes)) return true;
  char have[96];
  format_shape({out.sizes().data(), out.sizes().size()}, have, sizeof(have));
  char want[96];
  format_shape({sizes.data(), sizes.size()}, want, sizeof(want));
  try {
    out.resize_(sizes);
    return true;
  } catch (const std::exception&) {
    ctx.fail(Error::NotSupported, "out tensor of shape %s cannot be resized to the result shape %s",
             have, want);
  }
  return false;
}
#else
bool resize_or_fail(KernelRuntimeContext& ctx, Tensor& out, ArrayRef<SizesType> sizes) {
  TensorImpl* impl = out.unsafeGetTensorImpl();
  const Error error = impl->resize(sizes);
  if (error == Error::Ok) return true;
  char have[96];  // a failed resize leaves the tensor unchanged
  format_shape(impl->sizes(), have, sizeof(have));
  char want[96];
  format_shape(sizes, want, sizeof(want));
  ctx.fail(error, "out tensor of shape %s cannot be resized to the result shape %s; %s", have, want,
           impl->shape_dynamism() == TensorShapeDynamism::Static
               ? "pass an out tensor of the result shape"
               : "pass an out tensor with enough capacity and the same rank");
  return false;
}
#endif

}  // namespace kiln
