// torch.result_type's tiered promotion.
#include "kernels/portable/cpu/util/common/promotion.h"

namespace kiln::portable {
namespace {

// Combines a higher tier's result with a lower tier's, as ATen does: the lower tier counts only
// when it brings a higher category (or the higher tier is Bool or empty).
ScalarType combine_tiers(ScalarType higher, ScalarType lower) {
  if (is_floating_type(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating_type(lower)) {
    if (higher == ScalarType::Undefined) return lower;
    if (lower == ScalarType::Undefined) return higher;
    return promote_types(higher, lower);
  }
  return higher != ScalarType::Undefined ? higher : lower;
}

}  // namespace

void ResultType::update(ScalarType& state, ScalarType dtype) {
  state = state == ScalarType::Undefined ? dtype : promote_types(state, dtype);
}

void ResultType::add_tensor(const Tensor& tensor) {
  update(tensor.dim() > 0 ? dimensioned_ : zero_dim_, tensor.scalar_type());
}

void ResultType::add_scalar(const Scalar& scalar) {
  const ScalarType dtype = scalar.isFloatingPoint() ? ScalarType::Float : scalar.type();
  update(wrapped_, dtype);
}

ScalarType ResultType::get() const {
  return combine_tiers(dimensioned_, combine_tiers(zero_dim_, wrapped_));
}

}  // namespace kiln::portable
