// Scalars as kernels use them: converted like a tensor of the op's dtype, and range-checked.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/util/common/dtypes.h"
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

// Whether a fill value (masked_fill, scatter's value, constant_pad_nd's value) converts to `dtype`
// without overflow, with ATen's rules: anything converts to Bool, floating values truncate into
// integer types when in range (NaN and infinities do not fit them), negative integers wrap into
// unsigned types.
bool fill_value_fits(const Scalar& value, ScalarType dtype);

// Writes `value` as one element of `dtype` into `dst` (room for 8 bytes), converted as ATen
// converts a fill value (Bool takes the nonzero test, so 0.5 is true).
void store_fill_value(const Scalar& value, ScalarType dtype, void* dst);

extern template float scalar_to<float>(const Scalar&, ScalarType);
extern template double scalar_to<double>(const Scalar&, ScalarType);
extern template int64_t scalar_to<int64_t>(const Scalar&, ScalarType);

}  // namespace kiln::portable
