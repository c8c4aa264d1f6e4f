// Scalar-argument checks of the unary kernels.
#include "kernels/portable/cpu/util/elementwise/unary_driver.h"

#include <cmath>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/scalars.h"

namespace kiln::portable {
namespace {

// The range of an integer dtype as doubles: [lowest, limit) (limit is max + 1, exact in double).
void integer_range(ScalarType type, double* lowest, double* limit) {
  switch (type) {
    case ScalarType::Byte:
      *lowest = 0, *limit = 256.0;
      return;
    case ScalarType::Char:
      *lowest = -128.0, *limit = 128.0;
      return;
    case ScalarType::Short:
      *lowest = -32768.0, *limit = 32768.0;
      return;
    case ScalarType::Int:
      *lowest = -2147483648.0, *limit = 2147483648.0;
      return;
    case ScalarType::Bool:
      *lowest = 0, *limit = 2.0;
      return;
    default:
      *lowest = -9223372036854775808.0, *limit = 9223372036854775808.0;
      return;
  }
}

}  // namespace

bool check_scalar_converts(KernelRuntimeContext& ctx, const Scalar& scalar, ScalarType type,
                           const char* name) {
  bool fits = true;
  if (is_floating_type(type) || !scalar.isFloatingPoint()) {
    fits = scalar_fits(scalar, type);
  } else {
    const double value = scalar.toDouble();
    double lowest = 0, limit = 0;
    integer_range(type, &lowest, &limit);
    // Fractions truncate toward zero, so anything above lowest - 1 and below limit fits.
    fits = value > lowest - 1.0 && value < limit;  // false for NaN
  }
  if (fits) return true;
  ctx.fail(Error::InvalidArgument,
           "%s value %s cannot be converted to type %s without overflow; pass a value in the "
           "range of %s",
           name, format_scalar(scalar).text, to_string(type), to_string(type));
  return false;
}

}  // namespace kiln::portable
