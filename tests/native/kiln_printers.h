// GoogleTest printers for Kiln's enums, so that a failed EXPECT_EQ names the value
// ("NotSupported") instead of dumping its bytes. Found by argument-dependent lookup.
#pragma once

#include <ostream>

#include "runtime/core/error.h"
#include "runtime/kernel/backend.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln {

// NOLINTNEXTLINE(readability-identifier-naming): GoogleTest looks for PrintTo by this name.
inline void PrintTo(Error error, std::ostream* os) { *os << to_string(error); }
inline void PrintTo(Backend backend, std::ostream* os) { *os << to_string(backend); }
inline void PrintTo(MissingCause cause, std::ostream* os) { *os << to_string(cause); }

}  // namespace kiln
