// Limits the executor enforces on programs, so that its fixed-size buffers always suffice.
#pragma once

#include <cstddef>

namespace kiln {

// "aten::upsample_bilinear2d" + "." + "vec_out", without the terminating NUL.
constexpr size_t kMaxOperatorNameLength = 255;
// Values one KernelCall passes (arguments and returns).
constexpr size_t kMaxCallArguments = 255;

}  // namespace kiln
