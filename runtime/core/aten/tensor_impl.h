// ATen mode's tensor metadata types: libtorch's TensorImpl, plus the metadata types Kiln's API
// shares with lean mode (tensor_types.h). Included by tensor_impl.h.
#pragma once

#include <c10/core/TensorImpl.h>

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor_types.h"

namespace kiln {

using TensorImpl = c10::TensorImpl;

}  // namespace kiln
