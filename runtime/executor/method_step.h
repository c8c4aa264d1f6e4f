// A method's instructions as the executor holds them, shared by Method's load and run
// (method.cpp) and the constant folding and fusion at load (load_optimizer.cpp). Private to the
// executor.
#pragma once

#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/executor/delegate.h"
#include "runtime/executor/method.h"
#include "runtime/kernel/backend.h"
#include "runtime/kernel/int8_conv.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln {

enum class StepKind : uint8_t { Kernel, Move, JumpFalse, Free, Delegate };

struct Method::Step {
  StepKind kind;
  uint8_t num_kernels;  // candidates in backend preference order
  uint8_t served;       // index of the kernel that ran last, kNumBackends before any run
  bool trimmed;         // the program's trailing result value was dropped from the stack
  bool folded;          // run at load (constant folding); execute() skips it
  bool fused;           // an activation fused into the call before it (LoadOptions::fuse)
  bool merged;          // a batch norm folded into the convolution before it: never run
  bool clamps;          // the call an activation is fused into: `clamp` is offered to its kernel
  bool updates_ints;    // writes an Int that runtime int lists read (a prim operator, a move)
  KernelRuntimeContext::OutputClamp clamp;
  uint32_t op_index;  // a Kernel's operator; a Delegate's index in the plan's delegates
  // Move source, jump condition, freed value; a fused activation's input position.
  int32_t a;
  // Move destination, jump destination (within the chain); a fused activation's out position.
  int32_t b;
  Span<EValue*> stack;
  const Kernel* kernels[kNumBackends];
  // A DelegateCall: the delegate, its handle from init, and its name.
  const Delegate* delegate;
  void* handle;
  const char* delegate_id;
  // A convolution or linear fused with the dequantize before it and the quantize after it
  // (load_optimizer.cpp): runs int8->run(plan) from value a (int8) into value b (int8) in
  // place of its kernel; the dequantize, the quantize and an activation between are merged.
  const Int8ConvKernels* int8;
  const void* int8_plan;
};

// ".out", ".Tensor_out": ATen's names for the overloads that write their trailing arguments.
bool is_out_overload(const char* overload);

// Sets written[p] for each position of `stack` (the call's values as the program lists them)
// that `kernel` writes: the values after the schema's arguments, the arguments its writes mask
// names (or, without the mask, the name rule's), and every argument that is one of the values
// after the arguments. `kernel` knows its schema's argument count.
void mark_written(const char* name, Span<EValue*> stack, const Kernel& kernel, bool* written);

}  // namespace kiln
