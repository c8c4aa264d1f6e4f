// Shared argument handling for the matrix-multiply kernels.
#include "kernels/portable/cpu/util/matmul.h"

#include "kernels/portable/cpu/util/checks.h"

namespace kiln::portable {

bool expand_strides(KernelRuntimeContext& ctx, ArrayRef<SizesType> sizes,
                    ArrayRef<SizesType> target, int64_t* strides) {
  const int64_t rank = static_cast<int64_t>(target.size());
  const int64_t own = static_cast<int64_t>(sizes.size());
  if (own > rank) {
    ctx.fail(Error::InvalidArgument,
             "expand(%s, size=%s): the number of sizes provided (%lld) must be greater or equal "
             "to the number of dimensions in the tensor",
             format_shape(sizes).text, format_shape(target).text, static_cast<long long>(rank));
    return false;
  }
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    const int64_t s = d - (rank - own);
    if (s < 0) {
      strides[d] = 0;
      continue;
    }
    const SizesType size = sizes[static_cast<size_t>(s)];
    if (size != target[static_cast<size_t>(d)] && size != 1) {
      ctx.fail(Error::InvalidArgument,
               "The expanded size of the tensor (%lld) must match the existing size (%lld) at "
               "non-singleton dimension %lld.  Target sizes: %s.  Tensor sizes: %s",
               static_cast<long long>(target[static_cast<size_t>(d)]), static_cast<long long>(size),
               static_cast<long long>(d), format_shape(target).text, format_shape(sizes).text);
      return false;
    }
    strides[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
  return true;
}

bool check_not_bool(KernelRuntimeContext& ctx, ScalarType dtype, const char* op) {
  if (dtype != ScalarType::Bool) return true;
  ctx.fail(Error::InvalidType,
           "\"%s\" not implemented for 'Bool'; convert the operands to a numeric dtype", op);
  return false;
}

}  // namespace kiln::portable
