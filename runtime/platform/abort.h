// Process abort for broken internal invariants only; user input never reaches this.
#pragma once

namespace kiln {

[[noreturn]] void platform_abort(const char* reason);

}  // namespace kiln
