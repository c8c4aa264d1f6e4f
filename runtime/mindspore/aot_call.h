// Runs a Kiln operator as a MindSpore AOT custom operator (ops.Custom(func_type="aot"), CPU).
//
// MindSpore calls `extern "C" int f(int nparam, void** params, int* ndims, int64_t** shapes,
// const char** dtypes, void* stream, void* extra)` with the inputs then the outputs, each a
// buffer MindSpore owns, its shape and its dtype name ("float32", "int64", ...). The codegen's
// --mindspore-aot file defines one such entry point per out-variant operator; each describes its
// schema with an AotOp and calls run_aot_op, which views the buffers as Kiln tensors and calls
// the operator through the registry, as kiln.call_op and programs do.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"

namespace kiln::mindspore {

// How one schema argument arrives. MindSpore's AOT operators take tensors only, so a scalar
// argument is a one-element tensor and a string a uint8 tensor of its UTF-8 bytes.
enum class AotArg : uint8_t {
  Tensor,          // Tensor, or an out
  OptionalTensor,  // Tensor?: always given (MindSpore has no None input)
  Int,             // int: an int32/int64 tensor of one element
  Double,          // float: a float32/float64 tensor of one element
  Bool,            // bool: a bool tensor of one element
  Scalar,          // Scalar: one element of any dtype; its kind follows the dtype
  String,          // str: a uint8/int8 tensor of the bytes
};

struct AotOp {
  const char* name;    // "kiln::rms_norm.out"
  const AotArg* args;  // in schema order; the outs come last
  size_t arguments;    // schema arguments, outs included
  size_t outs;         // MindSpore outputs: the last `outs` arguments
  Error registration;  // the library's register_<lib>_kernels() result
};

// Runs `op` on MindSpore's buffers on the portable backend. Returns 0 on success; otherwise
// records the reason in kiln::last_error(), logs it and returns 1. Never aborts.
int run_aot_op(const AotOp& op, int nparam, void** params, const int* ndims, int64_t* const* shapes,
               const char* const* dtypes);

// For the generated entry points (kiln_mindspore_last_error): the message of the last failed
// run_aot_op on any thread, since MindSpore runs kernels on its own threads and the caller asks
// from Python's. run_aot_op writes it through kiln::last_error() (on the failing thread, logged)
// and hands a copy over here; clear_last_error() clears both.
const char* last_error();
void clear_last_error();

}  // namespace kiln::mindspore
