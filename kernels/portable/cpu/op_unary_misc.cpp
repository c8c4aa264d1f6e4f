// abs, neg, sign, logical_not, bitwise_not, isnan and isinf: ATen's dtype rules (abs and neg
// reject Bool, bitwise_not takes integers and Bool, the predicates write Bool).
#include <cmath>
#include <type_traits>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/math.h"
#include "kernels/portable/cpu/util/unary.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

bool check_tensors(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return check_tensor(ctx, self, "self") && check_tensor(ctx, out, "out");
}

// For ops whose out has self's dtype.
bool prepare_same_dtype(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return check_tensors(ctx, self, out) && check_out_dtype_is(ctx, out, self.scalar_type()) &&
         resize_or_fail(ctx, out, self.sizes());
}

// isnan / isinf: a Bool out; integers are never NaN or infinite.
template <typename Predicate>
Tensor& predicate_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out,
                      Predicate predicate) {
  if (!check_tensors(ctx, self, out) || !check_out_dtype_is(ctx, out, ScalarType::Bool) ||
      !resize_or_fail(ctx, out, self.sizes())) {
    return out;
  }
  apply_unary(self, self.scalar_type(), out, [&](auto zero) {
    using T = decltype(zero);
    return [predicate](T x) { return static_cast<T>(predicate(x)); };
  });
  return out;
}

}  // namespace

Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, out,
                        "abs is not implemented for Bool; convert self to a numeric dtype");
  if (!prepare_same_dtype(ctx, self, out)) return out;
  apply_unary(self, self.scalar_type(), out, [](auto zero) {
    using T = decltype(zero);
    return [](T x) {
      if constexpr (std::is_floating_point_v<T>) {
        return std::fabs(x);
      } else if constexpr (std::is_unsigned_v<T>) {
        return x;
      } else {
        return x < T(0) ? wrapping_neg(x) : x;  // the most negative value stays put, as in ATen
      }
    };
  });
  return out;
}

Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, out,
                        "Negation, the `-` operator, on a bool tensor is not supported; use "
                        "logical_not to invert a mask");
  if (!prepare_same_dtype(ctx, self, out)) return out;
  apply_unary(self, self.scalar_type(), out, [](auto zero) {
    using T = decltype(zero);
    return [](T x) { return wrapping_neg(x); };
  });
  return out;
}

Tensor& sign_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!prepare_same_dtype(ctx, self, out)) return out;
  // (0 < x) - (x < 0): NaN gives 0 as in ATen; Bool values are their own sign.
  apply_unary(self, self.scalar_type(), out, [](auto zero) {
    using T = decltype(zero);
    return [](T x) { return static_cast<T>(static_cast<T>(T(0) < x) - static_cast<T>(x < T(0))); };
  });
  return out;
}

Tensor& logical_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  // Any out dtype: the Bool result converts to it.
  if (!check_tensors(ctx, self, out) || !resize_or_fail(ctx, out, self.sizes())) return out;
  apply_unary(self, self.scalar_type(), out, [](auto zero) {
    using T = decltype(zero);
    return [](T x) { return static_cast<T>(x == T(0)); };
  });
  return out;
}

Tensor& bitwise_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, !is_floating_type(dtype), InvalidType, out,
                        "bitwise_not is not implemented for dtype %s; pass an integer or Bool "
                        "tensor",
                        to_string(dtype));
  if (!prepare_same_dtype(ctx, self, out)) return out;
  const bool is_bool = dtype == ScalarType::Bool;
  apply_unary<kIntegralTypes>(self, dtype, out, [is_bool](auto zero) {
    using T = decltype(zero);
    // Bool computes in int64 holding 0 or 1, where ~ would set every bit.
    return [is_bool](T x) { return is_bool ? static_cast<T>(x == T(0)) : static_cast<T>(~x); };
  });
  return out;
}

Tensor& isnan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return predicate_out(ctx, self, out, [](auto x) { return x != x; });
}

Tensor& isinf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return predicate_out(ctx, self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x) == static_cast<T>(INFINITY);
    } else {
      return false;
    }
  });
}

}  // namespace kiln::portable::native
