// Scalar conversion through a dtype, and ATen's overflow rules for scalar arguments.
#include "kernels/portable/cpu/util/common/scalars.h"

#include <cmath>
#include <limits>

#include "kernels/portable/cpu/util/elementwise/binary_driver.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable {
namespace {

template <typename T>
bool fits_range(double value) {
  return value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
         value <= static_cast<double>(std::numeric_limits<T>::max());
}

template <typename T>
bool integer_fits(int64_t value) {
  using Limits = std::numeric_limits<T>;
  if constexpr (!Limits::is_signed) {
    // Unsigned targets take -max..max: ATen lets negative values wrap (x - 1 == x + 255).
    const uint64_t magnitude =
        value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    return magnitude <= static_cast<uint64_t>(Limits::max());
  } else {
    return value >= static_cast<int64_t>(Limits::lowest()) &&
           value <= static_cast<int64_t>(Limits::max());
  }
}

// Calls f(T{}) with the C++ type of integer dtype `type` (int64_t for Long and any other dtype).
template <typename F>
bool with_integer_type(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::Byte:
      return f(uint8_t{});
    case ScalarType::Char:
      return f(int8_t{});
    case ScalarType::Short:
      return f(int16_t{});
    case ScalarType::Int:
      return f(int32_t{});
    default:
      return f(int64_t{});
  }
}

}  // namespace

template <typename C>
C scalar_to(const Scalar& scalar, ScalarType common) {
  C value{};
  if (scalar.isBoolean()) {
    const bool b = scalar.toBool();
    load_row_as<C>(&b, ScalarType::Bool, 0, 1, common, &value);
  } else if (scalar.isIntegral(false)) {
    const int64_t i = scalar.toInt();
    load_row_as<C>(&i, ScalarType::Long, 0, 1, common, &value);
  } else {
    const double d = scalar.toDouble();
    load_row_as<C>(&d, ScalarType::Double, 0, 1, common, &value);
  }
  return value;
}

bool scalar_fits(const Scalar& scalar, ScalarType type) {
  if (is_floating_type(type)) {
    const double value = scalar.toDouble();
    if (std::isnan(value) || std::isinf(value)) return true;
    switch (type) {
      case ScalarType::Half:
        return fits_range<Half>(value);
      case ScalarType::BFloat16:
        return fits_range<BFloat16>(value);
      case ScalarType::Float:
        return fits_range<float>(value);
      default:
        return true;
    }
  }
  if (scalar.isFloatingPoint()) return false;  // a fractional value never fits an integer type
  const int64_t value = scalar.toInt();
  if (type == ScalarType::Bool) return integer_fits<bool>(value);
  return with_integer_type(type, [&](auto zero) { return integer_fits<decltype(zero)>(value); });
}

bool fill_value_fits(const Scalar& value, ScalarType dtype) {
  if (dtype == ScalarType::Bool) return true;
  if (is_floating_type(dtype) || !value.isFloatingPoint()) return scalar_fits(value, dtype);
  const double v = value.toDouble();  // NaN fails every comparison of fits_range
  return with_integer_type(dtype, [&](auto zero) { return fits_range<decltype(zero)>(v); });
}

void store_fill_value(const Scalar& value, ScalarType dtype, void* dst) {
  if (dtype == ScalarType::Bool) {
    *static_cast<bool*>(dst) =
        value.isFloatingPoint() ? value.toDouble() != 0.0 : value.toInt() != 0;
    return;
  }
  ScalarStorage storage;
  const ElementwiseInput scalar = scalar_input(value, storage);
  convert_element(scalar.data, scalar.dtype, dst, dtype);
}

template float scalar_to<float>(const Scalar&, ScalarType);
template double scalar_to<double>(const Scalar&, ScalarType);
template int64_t scalar_to<int64_t>(const Scalar&, ScalarType);

}  // namespace kiln::portable
