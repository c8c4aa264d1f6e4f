#include "runtime/executor/tensor_bytes.h"

#include <cstdio>
#include <limits>

#include "runtime/core/dim_order.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor_types.h"
#include "runtime/executor/program_generated.h"

namespace kiln {

Result<TensorBytes> tensor_bytes(const pte_format::Tensor& tensor, char* why, size_t why_size) {
  const auto code = static_cast<int64_t>(tensor.scalar_type());
  if (!is_valid_scalar_type(code)) {
    std::snprintf(why, why_size, "scalar type %lld is not one Kiln supports",
                  static_cast<long long>(code));
    return Error::InvalidProgram;
  }
  const size_t dim = tensor.sizes() == nullptr ? 0 : tensor.sizes()->size();
  if (dim > kTensorDimensionLimit) {
    std::snprintf(why, why_size, "%zu dimensions (at most %zu)", dim, kTensorDimensionLimit);
    return Error::InvalidProgram;
  }
  const size_t order_dim = tensor.dim_order() == nullptr ? 0 : tensor.dim_order()->size();
  if (order_dim != dim && !(order_dim == 0 && dim == 0)) {
    std::snprintf(why, why_size, "a dim order of %zu entries for %zu dimensions", order_dim, dim);
    return Error::InvalidProgram;
  }
  if (dim > 0 && !is_valid_dim_order({tensor.dim_order()->data(), dim})) {
    std::snprintf(why, why_size, "its dim order is not a permutation of 0..%zu", dim - 1);
    return Error::InvalidProgram;
  }
  const size_t element = element_size(static_cast<ScalarType>(code));
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / element;
  // Strides multiply the sizes other than 0 (dim_order_to_strides counts a 0 as 1), so their
  // product must fit even when a 0 makes the element count small.
  uint64_t span = 1;
  bool empty = false;
  for (size_t d = 0; d < dim; ++d) {
    const int32_t size = tensor.sizes()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (size < 0) {
      std::snprintf(why, why_size, "size %d in dimension %zu", size, d);
      return Error::InvalidProgram;
    }
    if (size > 1 && span > limit / static_cast<uint64_t>(size)) {
      std::snprintf(why, why_size, "its element count or strides overflow");
      return Error::InvalidProgram;
    }
    span *= size > 1 ? static_cast<uint64_t>(size) : 1;
    empty = empty || size == 0;
  }
  const uint64_t numel = empty ? 0 : span;
  if (numel * element > std::numeric_limits<size_t>::max()) {
    std::snprintf(why, why_size, "its byte size overflows");
    return Error::InvalidProgram;
  }
  return TensorBytes{dim, static_cast<int64_t>(numel), static_cast<size_t>(numel * element)};
}

}  // namespace kiln
