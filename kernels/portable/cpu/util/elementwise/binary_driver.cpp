// Non-template parts of the elementwise drivers.
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"

namespace kiln::portable::detail {

void promote_single_element(ElementwiseInput& input, ScalarType common, ScalarSlot& slot) {
  if (input.dtype == common || compute_numel(input.sizes) != 1) return;
  convert_element(input.data, input.dtype, slot.bytes, common);
  input.data = slot.bytes;
  input.dtype = common;
}

}  // namespace kiln::portable::detail
