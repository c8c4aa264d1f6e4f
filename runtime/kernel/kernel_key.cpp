// Builds kernel keys from the tensors on a boxed stack.
#include "runtime/kernel/kernel_key.h"

#include <cstdio>

namespace kiln {

Error build_kernel_key(Span<EValue*> stack, char* buffer, size_t capacity) {
  size_t used = 0;
  auto append = [&](const char* format, int value) {
    if (used >= capacity) return;
    used += static_cast<size_t>(std::snprintf(buffer + used, capacity - used, format, value));
  };
  if (capacity < 4) return Error::InvalidArgument;
  used = static_cast<size_t>(std::snprintf(buffer, capacity, "v1/"));
  bool first_tensor = true;
  for (EValue* value : stack) {
    if (!value->isTensor()) continue;
    const Tensor& tensor = value->toTensor();
    append(first_tensor ? "%d;" : "|%d;", static_cast<int>(tensor.scalar_type()));
    first_tensor = false;
#if KILN_ATEN_MODE
    DimOrderType order_storage[kTensorDimensionLimit];
    const size_t rank = static_cast<size_t>(tensor.dim());
    if (get_dim_order(tensor, {order_storage, rank}) != Error::Ok) return Error::InvalidArgument;
    const ArrayRef<DimOrderType> order(order_storage, rank);
#else
    const ArrayRef<DimOrderType> order = tensor.dim_order();
#endif
    for (size_t i = 0; i < order.size(); ++i) {
      append(i == 0 ? "%d" : ",%d", static_cast<int>(order[i]));
    }
  }
  return used < capacity ? Error::Ok : Error::InvalidArgument;
}

}  // namespace kiln
