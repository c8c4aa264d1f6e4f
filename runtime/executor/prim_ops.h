// The prim operators ExecuTorch's exporter emits for symbolic sizes: aten::sym_size.int,
// aten::sym_numel, executorch_prim::<scalar arithmetic and comparisons>.Scalar, et_view and
// et_copy_index. They are part of the executor, as in ExecuTorch's runtime: every method can
// call them whatever operator libraries were selected, and they take no backend (they read
// tensor metadata and Int/Double/Bool values, and et_copy_index copies bytes on the host).
#pragma once

#include <cstddef>

#include "runtime/kernel/operator_registry.h"

namespace kiln {

// The prim operator named `name` ("aten::sym_size.int"), or nullptr. Its Kernel has the stack
// layout of a registered one: the schema's arguments, then one return slot for an operator
// that returns a value (every one but et_copy_index, which writes its first argument).
const Kernel* find_prim_op(const char* name);

// Whether `kernel` is one of the prim operators, and whether it returns an Int, Double or Bool
// (a value later instructions may read, as a scalar or as an item of an int list).
bool is_prim_op(const Kernel& kernel);
bool prim_op_returns_scalar(const Kernel& kernel);

// Every prim operator, for listings (kiln.prim_operators(), the selection tools' cross-check).
size_t prim_op_count();
const Kernel& prim_op(size_t index);

}  // namespace kiln
