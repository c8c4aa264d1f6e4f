// Shared helpers of the indexing kernels (see index_util.h).
#include "kernels/portable/cpu/util/index_util.h"

#include <limits>

#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "kernels/portable/cpu/util/scalar_util.h"

namespace kiln::portable {

bool check_index_dtype(KernelRuntimeContext& ctx, const Tensor& index, const char* op,
                       const char* name) {
  const ScalarType t = index.scalar_type();
  if (t != ScalarType::Long && t != ScalarType::Int) {
    ctx.fail(Error::InvalidArgument, "%s(): Expected dtype int32 or int64 for %s (got %s)", op,
             name, to_string(t));
    return false;
  }
  return true;
}

namespace {

template <typename T>
bool double_fits(double value) {
  return value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
         value <= static_cast<double>(std::numeric_limits<T>::max());
}

}  // namespace

bool fill_value_fits(const Scalar& value, ScalarType dtype) {
  if (dtype == ScalarType::Bool) return true;
  if (is_floating_type(dtype) || !value.isFloatingPoint()) return scalar_fits(value, dtype);
  const double v = value.toDouble();  // NaN fails every comparison below
  switch (dtype) {
    case ScalarType::Byte:
      return double_fits<uint8_t>(v);
    case ScalarType::Char:
      return double_fits<int8_t>(v);
    case ScalarType::Short:
      return double_fits<int16_t>(v);
    case ScalarType::Int:
      return double_fits<int32_t>(v);
    default:
      return double_fits<int64_t>(v);
  }
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

}  // namespace kiln::portable
