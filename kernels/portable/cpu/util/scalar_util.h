// Scalars as kernels use them: converted like a tensor of the op's dtype, and range-checked.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/util/dtype_util.h"
#include "runtime/core/scalar.h"
#include "runtime/core/scalar_type.h"

namespace kiln::portable {

// The value of `scalar` as a tensor of dtype `common` would hold it, in compute type C.
template <typename C>
C scalar_to(const Scalar& scalar, ScalarType common);

// The value of `scalar` as element type T of dtype `common` (T's compute type must match).
template <typename T>
inline T scalar_as(const Scalar& scalar, ScalarType common) {
  return static_cast<T>(scalar_to<compute_type_t<T>>(scalar, common));
}

// False when converting `scalar` to dtype `type` overflows, with ATen's rules for arguments such
// as alpha: infinities and NaN fit floating types, unsigned types accept -max..max (so negative
// values wrap), and finite values beyond the type's range do not fit.
bool scalar_fits(const Scalar& scalar, ScalarType type);

extern template float scalar_to<float>(const Scalar&, ScalarType);
extern template double scalar_to<double>(const Scalar&, ScalarType);
extern template int64_t scalar_to<int64_t>(const Scalar&, ScalarType);

}  // namespace kiln::portable
