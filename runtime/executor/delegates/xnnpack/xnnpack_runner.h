// What Kiln's XNNPACK delegate builds at init from a graph and runs at each execute: a list of
// kernel calls on tensors allocated once, plus the call's arguments bound to the graph's
// external values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/kernel/backend.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::xnnpack {

struct RunStep {
  // A kernel call (kernels[0..num_kernels)), or, when num_kernels is 0, a view: `view` takes
  // `base`'s bytes (a reshape or a layout change that moves none), whose address an external
  // value may change from run to run.
  const Kernel* kernels[kNumBackends];
  uint8_t num_kernels;
  uint8_t served;
  bool offers_clamp;     // the node's fused activation is offered to the kernel
  bool skip_if_clamped;  // the activation after such a call: skipped when its kernel took it
  KernelRuntimeContext::OutputClamp clamp;
  Span<EValue*> stack;
  uint32_t node;     // the graph node it runs, for messages
  const char* kind;  // the node's kind ("Conv2d")
  TensorImpl* view;  // views only
  TensorImpl* base;
};

// A value the delegate call passes: args[arg] binds `tensor` (the value's own dims and dtype).
struct ExternalBinding {
  uint32_t arg;
  TensorImpl* tensor;
};

struct Runner {
  RunStep* steps;
  size_t num_steps;
  ExternalBinding* externals;
  size_t num_externals;
  Backend first_backend;
};

}  // namespace kiln::xnnpack
