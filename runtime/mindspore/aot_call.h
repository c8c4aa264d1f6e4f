// Runs a Kiln operator as a MindSpore AOT custom operator (ops.Custom(func_type="aot"), CPU).
//
// MindSpore calls `extern "C" int f(int nparam, void** params, int* ndims, int64_t** shapes,
// const char** dtypes, void* stream, void* extra)` with the inputs then the outputs, each a
// buffer MindSpore owns, its shape and its dtype name ("float32", "int64", ...; "none" for an
// input passed as None). The codegen's --mindspore-aot file defines one such entry point per
// operator that writes tensors (its outs, or arguments it updates in place); each describes its
// schema with an AotOp and calls run_aot_op, which views the buffers as Kiln tensors and calls
// the operator through the registry, as kiln.call_op and programs do.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"

namespace kiln::mindspore {

// How one schema argument arrives. MindSpore's AOT operators take tensors only, so a scalar
// argument is a one-element tensor and a string a uint8 tensor of its UTF-8 bytes. An AOT
// operator writes only its outputs: an argument the operator updates in place (a KV cache)
// comes in as an input and goes out, updated, as an output of its own.
enum class AotArg : uint8_t {
  Tensor,          // Tensor, or an out
  OptionalTensor,  // Tensor?: a tensor, or None (dtype "none")
  Int,             // int: an int32/int64 tensor of one element
  Double,          // float: a float32/float64 tensor of one element
  Bool,            // bool: a bool tensor of one element
  Scalar,          // Scalar: one element of any dtype; its kind follows the dtype
  String,          // str: a uint8/int8 tensor of the bytes
  WrittenTensor,   // Tensor(a!) before the outs: an input, and an output of its shape and
                   // dtype that receives a copy of it, which the operator then updates
};

struct AotOp {
  const char* name;    // "kiln::rms_norm.out"
  const AotArg* args;  // in schema order; the outs come last
  size_t arguments;    // schema arguments, outs included
  size_t outs;         // schema outs: the last `outs` arguments
  Error registration;  // the library's register_<lib>_kernels() result
};

// Runs `op` on MindSpore's buffers on the portable backend. MindSpore's inputs are the schema's
// arguments before its outs, in schema order; its outputs the WrittenTensor arguments' updated
// copies, in schema order, then the outs. Returns 0 on success; otherwise records the reason
// for last_error() below and returns 1. Never aborts. Unless a reporting caller has a call in
// flight (begin_reported_call), the failure is also written to the failing thread's
// kiln::last_error() and so logged: for a user of ops.Custom, whose RuntimeError does not carry
// it, the log is where the reason shows.
int run_aot_op(const AotOp& op, int nparam, void** params, const int* ndims, int64_t* const* shapes,
               const char* const* dtypes);

// For the generated entry points (kiln_mindspore_last_error): the message of the last failed
// run_aot_op on any thread, since MindSpore runs kernels on its own threads and the caller asks
// from Python's, and its Error's name ("InvalidArgument"; "" while there is none).
// clear_last_error() clears both and the calling thread's kiln::last_error().
const char* last_error();
const char* last_error_code();
void clear_last_error();

// A caller that raises each failure itself (kiln.mindspore raises KilnError with last_error())
// brackets its call with these, so that the failure is not logged as well: its message then
// appears once, in the exception. Calls may overlap across threads; a count keeps them apart.
void begin_reported_call();
void end_reported_call();

}  // namespace kiln::mindspore
