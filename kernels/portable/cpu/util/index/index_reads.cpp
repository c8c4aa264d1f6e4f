// Shared helpers of the indexing kernels (see index/index_reads.h).
#include "kernels/portable/cpu/util/index/index_reads.h"

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

}  // namespace kiln::portable
