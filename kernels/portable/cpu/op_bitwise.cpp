// bitwise_and, bitwise_or and bitwise_xor (.Tensor_out and .Scalar_out) on integers and bool.
#include "kernels/portable/cpu/util/binary_ops.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

enum class Bitwise : uint8_t { kAnd, kOr, kXor };

constexpr const char* kNames[] = {"bitwise_and", "bitwise_or", "bitwise_xor"};

template <Bitwise kBitwise, typename Other>
Tensor& bitwise(KernelRuntimeContext& ctx, const Tensor& self, const Other& other, Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  if (is_floating_type(common)) {
    fail_dtype(ctx, kNames[static_cast<int>(kBitwise)], common);
    return out;
  }
  ElementwiseInput other_input;
  ScalarStorage storage;
  if constexpr (std::is_same_v<Other, Scalar>) {
    other_input = scalar_input(other, storage);
  } else {
    other_input = ElementwiseInput::of(other);
  }
  apply_binary_op<kIntegralTypes>(ElementwiseInput::of(self), other_input, common, out,
                                  [](auto zero) {
                                    using T = decltype(zero);
                                    return [](T a, T b) {
                                      if constexpr (kBitwise == Bitwise::kAnd) return T(a & b);
                                      if constexpr (kBitwise == Bitwise::kOr) return T(a | b);
                                      if constexpr (kBitwise == Bitwise::kXor) return T(a ^ b);
                                    };
                                  });
  return out;
}

}  // namespace

Tensor& bitwise_and_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                               Tensor& out) {
  return bitwise<Bitwise::kAnd>(ctx, self, other, out);
}

Tensor& bitwise_and_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                               Tensor& out) {
  return bitwise<Bitwise::kAnd>(ctx, self, other, out);
}

Tensor& bitwise_or_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                              Tensor& out) {
  return bitwise<Bitwise::kOr>(ctx, self, other, out);
}

Tensor& bitwise_or_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                              Tensor& out) {
  return bitwise<Bitwise::kOr>(ctx, self, other, out);
}

Tensor& bitwise_xor_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                               Tensor& out) {
  return bitwise<Bitwise::kXor>(ctx, self, other, out);
}

Tensor& bitwise_xor_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                               Tensor& out) {
  return bitwise<Bitwise::kXor>(ctx, self, other, out);
}

}  // namespace kiln::portable::native
