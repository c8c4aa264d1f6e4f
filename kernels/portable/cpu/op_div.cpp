// div.out, div.out_mode, div.Scalar_out and div.Scalar_mode_out: true, truncating or floor
// division; integer and bool inputs divide as Float unless a rounding mode is given.
#include <cmath>
#include <optional>
#include <string_view>

#include "kernels/portable/cpu/util/elementwise/binary_driver.h"
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

enum class Rounding : uint8_t { kNone, kTrunc, kFloor };

bool parse_rounding(KernelRuntimeContext& ctx, std::optional<std::string_view> mode,
                    Rounding* rounding) {
  *rounding = Rounding::kNone;
  if (!mode.has_value()) return true;
  if (*mode == "trunc") {
    *rounding = Rounding::kTrunc;
  } else if (*mode == "floor") {
    *rounding = Rounding::kFloor;
  } else {
    ctx.fail(Error::InvalidArgument,
             "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
             "'%.*s'",
             static_cast<int>(mode->size()), mode->data());
    return false;
  }
  return true;
}

// Divides once the inputs are known: `common` is the promoted dtype (before true division's
// promotion to Float) and out has been checked and resized.
Tensor& divide(KernelRuntimeContext& ctx, const ElementwiseInput& self,
               const ElementwiseInput& other, ScalarType common, Rounding rounding, Tensor& out) {
  if (rounding == Rounding::kNone) {
    // ATen reads a single-element divisor of a Half or BFloat16 division straight into float.
    apply_binary_op<kFloatingTypes, ScalarOther::kExact>(ctx, self, other, common, out,
                                                         [](auto zero) {
                                                           using T = decltype(zero);
                                                           return [](T a, T b) { return a / b; };
                                                         });
    return out;
  }
  // Truncating float division is a divide and a truncation: its own loop, without the floor
  // mode's scan for inputs its fast formula gets wrong, which dominated when the loop was shared.
  // Half and BFloat16 with a tensor divisor round each step and stay with rounding_divide.
  const bool round_steps = is_reduced_floating_type(common) && compute_numel(other.sizes) != 1;
  if (rounding == Rounding::kTrunc && is_floating_type(common) && !round_steps) {
    apply_binary_op<kFloatingTypes, ScalarOther::kExact>(
        ctx, self, other, common, out, [](auto zero) {
          using T = decltype(zero);
          return [](T a, T b) { return trunc_value(a / b); };
        });
    return out;
  }
  return rounding_divide(
      ctx,
      rounding == Rounding::kTrunc ? "div (rounding_mode='trunc')" : "div (rounding_mode='floor')",
      self, other, common, rounding == Rounding::kTrunc, out);
}

// True division promotes integers (and bool) to the default floating dtype, Float.
Promotion promotion_of(Rounding rounding) {
  return rounding == Rounding::kNone ? Promotion::kToFloat : Promotion::kCommon;
}

// Checks the arguments and divides, for a Tensor or a Scalar `other`.
template <typename Other>
Tensor& div_other(KernelRuntimeContext& ctx, const Tensor& self, const Other& other,
                  Rounding rounding, Tensor& out) {
  const ScalarType common =
      prepare_binary(ctx, self, other, out, kArithmeticOut<Other>, promotion_of(rounding));
  if (common == ScalarType::Undefined) return out;
  ScalarStorage storage;
  return divide(ctx, ElementwiseInput::of(self), input_of(other, storage), common, rounding, out);
}

// The rounding_mode overloads: parses the mode first.
template <typename Other>
Tensor& div_other_mode(KernelRuntimeContext& ctx, const Tensor& self, const Other& other,
                       std::optional<std::string_view> rounding_mode, Tensor& out) {
  Rounding rounding;
  if (!parse_rounding(ctx, rounding_mode, &rounding)) return out;
  return div_other(ctx, self, other, rounding, out);
}

}  // namespace

Tensor& div_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return div_other(ctx, self, other, Rounding::kNone, out);
}

Tensor& div_out_mode(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     std::optional<std::string_view> rounding_mode, Tensor& out) {
  return div_other_mode(ctx, self, other, rounding_mode, out);
}

Tensor& div_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  return div_other(ctx, self, other, Rounding::kNone, out);
}

Tensor& div_scalar_mode_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                            std::optional<std::string_view> rounding_mode, Tensor& out) {
  return div_other_mode(ctx, self, other, rounding_mode, out);
}

}  // namespace kiln::portable::native
