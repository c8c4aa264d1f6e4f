// native_dropout.out: in training, out0 = input * mask / (1 - p) with mask (out1, Bool) keeping
// each element with probability 1 - p, drawn from the context's random generator; otherwise out0
// is a copy of input and the mask is all true.
#include <optional>
#include <tuple>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/random/fills.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// ATen's arithmetic: input * mask in T (exact: x, a signed zero or NaN), then times the scale
// rounded to T, computed in C and rounded once.
template <typename T>
void scale_kept(const T* in, const bool* keep, T scale, int64_t n, T* out) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const C factor = static_cast<C>(scale);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<T>(static_cast<C>(in[i]) * static_cast<C>(keep[i]) * factor);
  }
}

KILN_HOT_LOOP void scale_kept_float(const float* in, const bool* keep, float scale, int64_t n,
                                    float* out) {
  scale_kept(in, keep, scale, n, out);
}

}  // namespace

std::tuple<Tensor&, Tensor&> native_dropout_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                double p, std::optional<bool> train, Tensor& out0,
                                                Tensor& out1) {
  std::tuple<Tensor&, Tensor&> result(out0, out1);
  if (!check_tensor(ctx, input, "input") || !check_tensor(ctx, out0, "out0") ||
      !check_tensor(ctx, out1, "out1") || !check_out_dtype_is(ctx, out0, input.scalar_type())) {
    return result;
  }
  // ATen returns an empty input's mask as an empty tensor of input's dtype; Bool is fine too.
  const bool empty = input.numel() == 0;
  if (!(empty && out1.scalar_type() == input.scalar_type()) &&
      !check_out_dtype_is(ctx, out1, ScalarType::Bool)) {
    return result;
  }
  if (!resize_or_fail(ctx, out0, input.sizes()) || !resize_or_fail(ctx, out1, input.sizes())) {
    return result;
  }
  if (empty) return result;
  const int64_t n = input.numel();
  bool* keep = out1.mutable_data_ptr<bool>();
  if (train.has_value() && !*train) {
    copy_bytes(ctx, input, out0);
    for (int64_t i = 0; i < n; ++i) keep[i] = true;
    return result;
  }
  KILN_KERNEL_CHECK_MSG(ctx, p >= 0.0 && p <= 1.0, InvalidArgument, result,
                        "dropout probability has to be between 0 and 1, but got p=%g", p);
  // ATen scales in input's dtype, which only the floating dtypes can hold.
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(input.scalar_type()), InvalidType, result,
                        "result type Float can't be cast to the desired output type %s; dropout "
                        "in training takes a floating input",
                        to_string(input.scalar_type()));
  const double keep_probability = 1.0 - p;
  fill_bernoulli(ctx, keep_probability, keep, n);
  const double scale = keep_probability == 0.0 ? 0.0 : 1.0 / keep_probability;
  dispatch_element_type(input.scalar_type(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, float>) {
      scale_kept_float(input.const_data_ptr<float>(), keep, static_cast<float>(scale), n,
                       out0.mutable_data_ptr<float>());
    } else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, Half> ||
                         std::is_same_v<T, BFloat16>) {
      // The scale rounds to T first (through float for the 16-bit types, as ATen's does).
      const T factor = std::is_same_v<T, double> ? static_cast<T>(scale)
                                                 : static_cast<T>(static_cast<float>(scale));
      scale_kept(input.const_data_ptr<T>(), keep, factor, n, out0.mutable_data_ptr<T>());
    }
  });
  return result;
}

}  // namespace kiln::portable::native
