// full and its variants' shared body: out resized and filled with a checked value.
#include "kernels/portable/cpu/util/shape/fill.h"

#include <cmath>
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/shape/copy.h"

namespace kiln::portable {
namespace {

// Whether fill_ accepts `value` for dtype `type` (ATen's checked conversion): any value for
// Bool; within the finite range for floating types (nan and inf pass); integers allow
// -max..max for unsigned types (wrapping) but floating values must lie in [min, max], never
// nan. A single Half or BFloat16 element is filled unchecked, as ATen's one-element path does.
bool fill_fits(const Scalar& value, ScalarType type, IntArrayRef size) {
  if (type == ScalarType::Bool || type == ScalarType::Double) return true;
  int64_t numel = 1;
  for (const int64_t side : size) numel *= side;
  if (numel == 1 && is_reduced_floating_type(type)) return true;
  if (is_floating_type(type)) {
    const double v = value.toDouble();
    if (std::isnan(v) || std::isinf(v)) return true;
    const double max = type == ScalarType::Half       ? 65504.0
                       : type == ScalarType::BFloat16 ? 3.3895313892515355e38
                                                      : 3.4028234663852886e38;
    return v >= -max && v <= max;
  }
  if (!value.isFloatingPoint()) return scalar_fits(value, type);
  const double v = value.toDouble();
  double lo = 0;
  double hi = 0;
  switch (type) {
    case ScalarType::Byte:
      lo = 0, hi = 255;
      break;
    case ScalarType::Char:
      lo = -128, hi = 127;
      break;
    case ScalarType::Short:
      lo = -32768, hi = 32767;
      break;
    case ScalarType::Int:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    default:  // Long: [-2^63, 2^63) as doubles
      return v >= -9223372036854775808.0 && v < 9223372036854775808.0;
  }
  return v >= lo && v <= hi;  // false for nan
}

}  // namespace

Tensor& fill_with(KernelRuntimeContext& ctx, IntArrayRef size, const Scalar& value, Tensor& out) {
  if (!check_tensor(ctx, out, "out")) return out;
  for (size_t i = 0; i < size.size(); ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, size[i] >= 0, InvalidArgument, out,
                          "Trying to create tensor with negative dimension %lld: %s",
                          static_cast<long long>(size[i]), format_shape(size).text);
  }
  KILN_KERNEL_CHECK_MSG(ctx, fill_fits(value, out.scalar_type(), size), InvalidArgument, out,
                        "value cannot be converted to type %s without overflow",
                        to_string(out.scalar_type()));
  if (!resize_or_fail(ctx, out, size)) return out;
  alignas(8) unsigned char element[8];
  scalar_to_element(value, out.scalar_type(), element);
  fill_elements(out.mutable_data_ptr(), element, out.element_size(), out.numel());
  return out;
}

}  // namespace kiln::portable
