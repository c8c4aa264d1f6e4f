// The checked element count and byte size of a tensor value in a program.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"

namespace kiln {

namespace pte_format {
struct Tensor;
}

struct TensorBytes {
  size_t dim;
  int64_t numel;
  size_t nbytes;
};

// InvalidProgram, with the reason in `why`, for a dtype Kiln does not know, more dimensions than
// kTensorDimensionLimit, a negative size, a dim order that is not a permutation of the
// dimensions, or an element count, stride or byte size that overflows.
Result<TensorBytes> tensor_bytes(const pte_format::Tensor& tensor, char* why, size_t why_size);

}  // namespace kiln
