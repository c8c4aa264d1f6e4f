// The kernels of tests/native/op_forms/custom_ops.yaml, one per operator form, for Float tensors.
#include <cstddef>
#include <new>
#include <optional>

#include "runtime/core/dim_order.h"
#include "runtime/kernel/kernel_runtime_context.h"

#if KILN_ATEN_MODE
#include <ATen/ops/empty_like.h>
#endif

namespace forms_kernels::native {
namespace {

bool is_float(const kiln::Tensor& t) { return t.scalar_type() == kiln::ScalarType::Float; }

#if !KILN_ATEN_MODE
template <typename T>
T* temp_array(kiln::KernelRuntimeContext& ctx, size_t count) {
  kiln::Result<void*> memory = ctx.allocate_temp(count * sizeof(T), alignof(T));
  return memory.ok() ? static_cast<T*>(*memory) : nullptr;
}
#endif

// A new contiguous tensor shaped like `like`. Lean mode takes it (metadata and data) from the
// context's temp allocator, so it lives as long as the caller's temp memory; ATen mode asks
// libtorch. An undefined tensor when there is no memory (the context records why).
kiln::Tensor new_like(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& like) {
#if KILN_ATEN_MODE
  (void)ctx;
  return at::empty_like(like);
#else
  const size_t dim = static_cast<size_t>(like.dim());
  const size_t slots = dim == 0 ? 1 : dim;
  auto* sizes = temp_array<kiln::SizesType>(ctx, slots);
  auto* order = temp_array<kiln::DimOrderType>(ctx, slots);
  auto* strides = temp_array<kiln::StridesType>(ctx, slots);
  auto* data = temp_array<float>(ctx, like.numel() == 0 ? 1 : static_cast<size_t>(like.numel()));
  void* impl = temp_array<kiln::TensorImpl>(ctx, 1);
  if (!sizes || !order || !strides || !data || !impl) return kiln::Tensor();
  for (size_t i = 0; i < dim; ++i) sizes[i] = like.sizes()[i];
  kiln::fill_default_dim_order({order, dim});
  (void)kiln::dim_order_to_strides({sizes, dim}, {order, dim}, {strides, dim});
  return kiln::Tensor(new (impl)
                          kiln::TensorImpl(like.scalar_type(), dim, sizes, data, order, strides));
#endif
}

}  // namespace

// self *= factor, in place.
kiln::Tensor& scale_(kiln::KernelRuntimeContext& ctx, kiln::Tensor& self, double factor) {
  KILN_KERNEL_CHECK_MSG(ctx, is_float(self), InvalidArgument, self, "scale_ takes Float only");
  float* data = self.mutable_data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i) data[i] *= static_cast<float>(factor);
  return self;
}

// Writes `value` into the flat `cache` from element `start_pos` on, as a KV cache update does.
void update_cache(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& value, kiln::Tensor& cache,
                  int64_t start_pos) {
  KILN_KERNEL_CHECK_MSG(ctx, is_float(value) && is_float(cache), InvalidArgument, ,
                        "update_cache takes Float only");
  KILN_KERNEL_CHECK_MSG(ctx, start_pos >= 0 && start_pos + value.numel() <= cache.numel(),
                        InvalidArgument, , "%lld values from position %lld overrun a cache of %lld",
                        static_cast<long long>(value.numel()), static_cast<long long>(start_pos),
                        static_cast<long long>(cache.numel()));
  const float* from = value.const_data_ptr<float>();
  float* to = cache.mutable_data_ptr<float>() + start_pos;
  for (int64_t i = 0; i < value.numel(); ++i) to[i] = from[i];
}

// out (one element) = sum of self, each element times its weight when weights are given.
kiln::Tensor& weighted_sum_out(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& self,
                               std::optional<kiln::ArrayRef<double>> weights, kiln::Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, is_float(self) && is_float(out) && out.numel() == 1, InvalidArgument,
                        out, "weighted_sum takes Float tensors and a one-element out");
  KILN_KERNEL_CHECK_MSG(ctx, !weights || static_cast<int64_t>(weights->size()) == self.numel(),
                        InvalidArgument, out, "weighted_sum needs one weight per element");
  const float* data = self.const_data_ptr<float>();
  double sum = 0;
  for (int64_t i = 0; i < self.numel(); ++i) {
    sum += data[i] * (weights ? (*weights)[static_cast<size_t>(i)] : 1.0);
  }
  *out.mutable_data_ptr<float>() = static_cast<float>(sum);
  return out;
}

// A new tensor holding 2 * self.
kiln::Tensor doubled(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& self) {
  KILN_KERNEL_CHECK_MSG(ctx, is_float(self), InvalidArgument, kiln::Tensor(),
                        "doubled takes Float only");
  kiln::Tensor result = new_like(ctx, self);
  if (!result.defined()) return result;
  const float* from = self.const_data_ptr<float>();
  float* to = result.mutable_data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i) to[i] = 2 * from[i];
  return result;
}

}  // namespace forms_kernels::native
