// allclose.out / allclose.Tensor (ExecuTorch's custom_ops.yaml): whether every element of self
// is close to other's (broadcast together), |self - other| <= atol + rtol * |other|, as
// torch.allclose decides it; .out writes the answer into a one-element Bool out, .Tensor returns
// it as a new 0-dim Bool tensor taken from the context's temp memory. dummy_param only tells the
// schemas apart from ATen's allclose.
#include <cmath>
#include <new>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/elementwise/broadcast.h"
#include "runtime/core/dim_order.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// ATen's isclose for one pair, in its arithmetic: Float and Double compute in their own type
// with the tolerances converted to it; Half and BFloat16 round every step to their type (atol
// too, rtol not); integers and Bool compute in Float. With both tolerances 0 it is equality.
template <typename T>
bool is_close(T a, T b, double rtol, double atol, bool equal_nan) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const C x = static_cast<C>(a);
  const C y = static_cast<C>(b);
  // Equality in T itself (exact for wide integers, which C may round).
  if constexpr (std::is_integral_v<T>) {
    if (a == b) return true;
  } else if (x == y) {
    return true;
  }
  if constexpr (!std::is_integral_v<T>) {
    if (equal_nan && x != x && y != y) return true;
  }
  if (rtol == 0 && atol == 0) return false;
  constexpr bool kReduced = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
  // Rounds a step's result to T for the 16-bit floats; other types keep C.
  const auto step = [](C value) {
    if constexpr (kReduced) return static_cast<C>(static_cast<T>(value));
    return value;
  };
  const C tolerance = kReduced ? step(static_cast<C>(atol)) : static_cast<C>(atol);
  const C allowed = step(tolerance + std::fabs(step(y * static_cast<C>(rtol))));
  const C actual = std::fabs(step(x - y));
  return std::isfinite(actual) && actual <= allowed;
}

// Every broadcast pair of self and other is close (true for no pairs).
bool all_close(const Tensor& self, const Tensor& other, ArrayRef<SizesType> shape, double rtol,
               double atol, bool equal_nan) {
  const ArrayRef<SizesType> inputs[2] = {self.sizes(), other.sizes()};
  BroadcastPlan plan;
  make_broadcast_plan(shape, inputs, 2, &plan);
  bool close = true;
  dispatch_element_type(self.scalar_type(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = self.const_data_ptr<T>();
    const T* b = other.const_data_ptr<T>();
    const StridesType sa = plan.row_stride(0);
    const StridesType sb = plan.row_stride(1);
    for_each_row(plan, [&](const int64_t* offsets, int64_t, int64_t n) {
      for (int64_t i = 0; close && i < n; ++i) {
        close = is_close(a[offsets[0] + i * sa], b[offsets[1] + i * sb], rtol, atol, equal_nan);
      }
    });
  });
  return close;
}

// Checks the arguments as ATen's isclose does; the broadcast shape goes into `shape` / `dim`.
bool check_allclose(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, double rtol,
                    double atol, SizesType* shape, size_t* dim) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, other, "other")) return false;
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() == other.scalar_type(), InvalidArgument, false,
                        "%s did not match %s; pass self and other of one dtype",
                        to_string(self.scalar_type()), to_string(other.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, rtol >= 0, InvalidArgument, false,
                        "rtol must be greater than or equal to zero, but got %g", rtol);
  KILN_KERNEL_CHECK_MSG(ctx, atol >= 0, InvalidArgument, false,
                        "atol must be greater than or equal to zero, but got %g", atol);
  KILN_KERNEL_CHECK_MSG(ctx, broadcast_shapes(self.sizes(), other.sizes(), shape, dim),
                        InvalidArgument, false,
                        "self and other shapes %s and %s are not broadcastable: sizes must match "
                        "or be 1 in each trailing dim",
                        format_shape(self.sizes()).text, format_shape(other.sizes()).text);
  return true;
}

template <typename T>
T* temp_array(KernelRuntimeContext& ctx, size_t count) {
  Result<void*> memory = ctx.allocate_temp(count * sizeof(T), alignof(T));
  return memory.ok() ? static_cast<T*>(*memory) : nullptr;
}

}  // namespace

Tensor& allclose_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     double rtol, double atol, bool equal_nan, bool dummy_param, Tensor& out) {
  (void)dummy_param;
  SizesType shape[kTensorDimensionLimit];
  size_t dim = 0;
  if (!check_allclose(ctx, self, other, rtol, atol, shape, &dim) ||
      !check_supported_dtype(ctx, out.scalar_type(), "out") ||
      !check_out_dtype_is(ctx, out, ScalarType::Bool)) {
    return out;
  }
  // A one-element out keeps its shape; any other becomes 0-dim.
  if (out.numel() != 1 && !resize_or_fail(ctx, out, {})) return out;
  *out.mutable_data_ptr<bool>() = all_close(self, other, {shape, dim}, rtol, atol, equal_nan);
  return out;
}

Tensor allclose_tensor(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                       double rtol, double atol, bool equal_nan, bool dummy_param) {
  (void)dummy_param;
  SizesType shape[kTensorDimensionLimit];
  size_t dim = 0;
  if (!check_allclose(ctx, self, other, rtol, atol, shape, &dim)) return Tensor();
  // A 0-dim Bool tensor, metadata and data in temp memory: it lives as long as the caller's
  // temp memory does. (A 0-dim impl reads no size, dim order or stride.)
  bool* data = temp_array<bool>(ctx, 1);
  void* impl = temp_array<TensorImpl>(ctx, 1);
  if (data == nullptr || impl == nullptr) return Tensor();
  *data = all_close(self, other, {shape, dim}, rtol, atol, equal_nan);
  return Tensor(new (impl) TensorImpl(ScalarType::Bool, 0, nullptr, data, nullptr, nullptr));
}

}  // namespace kiln::portable::native
