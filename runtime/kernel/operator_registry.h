// The operator registry: static kernel tables, looked up by name, kernel key and backend.
//
// Each operator library contributes one KernelTable that the codegen emits sorted by
// (name_hash, name, backend, key). The registry stores only pointers to those tables, so its
// kernel capacity is exactly what was selected, it never allocates, and lookup is a hash plus a
// binary search per table. Registration is meant for program start-up and is not thread-safe;
// after it, lookups and the fallback statistics may be used from any number of threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/kernel/backend.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "runtime/platform/last_error.h"

namespace kiln {

// A boxed kernel: checks and unboxes `stack` (arguments in schema order, outs included, then one
// return slot per returned tensor that is not an out argument), calls the typed kernel, stores
// its results in the return slots, and returns the unboxing error or the kernel's
// failure_state().
using OpFunction = Error (*)(KernelRuntimeContext& ctx, Span<EValue*> stack);

// Kernel::writes of a table that does not say which arguments its kernels write (a table built by
// hand): the executor then infers them from the operator's name (docs/programs.md, "Invariants").
constexpr uint64_t kUnknownWrites = ~uint64_t{0};

struct Kernel {
  const char* name;    // "aten::add.out"
  uint64_t name_hash;  // hash_operator_name(name)
  const char* key;     // "" for the default kernel, else "v1/<dtype>;<dim order>|..."
  Backend backend;
  OpFunction function;
  const char* origin;  // where it was declared, e.g. "functions.yaml:12"
  // Stack values after the arguments that receive results (in-place and functional ops); the
  // kernel key is built from the arguments only.
  uint8_t return_slots = 0;
  // The schema's arguments (outs included): the stack holds these, then the return slots.
  uint8_t arguments = 0;
  // Bit p set: the kernel writes stack argument p (schema order, outs included), one the schema
  // marks Tensor(a!): an out, an in-place self, a buffer such as kiln::reshape_and_cache's caches.
  // The codegen emits it; kUnknownWrites when not given. Return slots are always written.
  uint64_t writes = kUnknownWrites;

  // Runs the kernel on a boxed stack (see OpFunction).
  Error call(KernelRuntimeContext& ctx, Span<EValue*> stack) const { return function(ctx, stack); }
};

struct KernelTable {
  const char* library;  // the operator library that registered it
  const Kernel* kernels;
  size_t size;
  // The library's manifest ("KILN_MANIFEST_V1\n" + JSON) when built with --embed-manifest.
  const char* manifest = nullptr;
};

// Distinct operator libraries one process can register.
constexpr size_t kMaxKernelTables = 32;

// FNV-1a, 64 bit. The codegen computes the same values for its sorted tables.
constexpr uint64_t hash_operator_name(std::string_view name) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : name) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// Registers `table`, which must have static storage duration. Fails without registering anything:
// InvalidArgument when the table is unsorted or a hash is wrong, RegistrationAlreadyRegistered
// when a (name, backend, key) is already registered (the log and kiln::last_error() name both
// origins), RegistrationExceedingMaxKernels past kMaxKernelTables tables. Registering the same
// table twice is a no-op, so repeated register_<lib>_kernels() calls are harmless.
Error register_kernels(const KernelTable& table);

// Total registered kernels, and the i-th of them in registration order (i < count).
size_t registered_kernel_count();
const Kernel& registered_kernel(size_t index);

// Finds the kernel for `name` taking backends in preference order; within a backend an exact
// `key` match wins over the default kernel. When the first backend has no kernel and a later one
// does, that fallback is counted (see fallback_count). NotFound when no backend has one.
Result<const Kernel*> find_kernel(std::string_view name, std::string_view key,
                                  ArrayRef<Backend> backends);

// Same, deriving the key from the tensors on `stack` (only when the op has keyed kernels).
Result<const Kernel*> find_kernel_for_stack(std::string_view name, Span<EValue*> stack,
                                            ArrayRef<Backend> backends);

// True when some backend in `backends` has a kernel for `name` (any key).
bool has_operator(std::string_view name, ArrayRef<Backend> backends);

// Runs operator `name` on `stack` on the first backend of `backends` with a kernel for it (see
// find_kernel_for_stack). When that kernel declines the inputs (Error::KernelDeclined: a dtype,
// layout or broadcast pattern its backend cannot take), the next backend with a kernel runs it
// and the fallback is recorded with the decline's message. With `allow_fallback` false only the
// first backend is searched, and a missing kernel (OperatorMissing) or a decline (NotSupported)
// is the result. `served`, when given, receives the kernel that ran.
Error call_operator(KernelRuntimeContext& ctx, std::string_view name, Span<EValue*> stack,
                    ArrayRef<Backend> backends, bool allow_fallback = true,
                    const Kernel** served = nullptr);

// The fallback record: how many calls fell back, and per operator which backend served it.
struct FallbackRecord {
  const char* name;   // operator
  Backend requested;  // first preference
  Backend served_by;  // backend that ran it
  uint64_t count;
  char reason[256];  // the first decline's message, or "no kernel" when the backend has none
};
// Records that `kernel` served a call whose first preference was `requested`, and why (the
// decline's message, or "no kernel"). call_operator and the executor record through it.
void record_fallback(const Kernel& kernel, Backend requested, const char* reason);
uint64_t fallback_count();
// Copies up to records.size() distinct fallback records; returns how many exist.
size_t fallback_records(Span<FallbackRecord> records);
void reset_fallback_stats();

// ---- Missing operators ----

struct OperatorRequest {
  const char* name;  // "aten::add.out"
  const char* key;   // nullptr or "" for any kernel
  // Served outside the registry (the executor's prim operators): never missing.
  bool served_elsewhere = false;
};

// Why a requested operator cannot run.
enum class MissingCause : uint8_t {
  NotRegistered,       // no kernel for the name on any backend
  NoKernelForBackend,  // kernels exist, but only on backends not searched
  NoKernelForKey,      // kernels exist on the backends, but none for this kernel key (dtype)
};

// "not registered", "no kernel for the searched backends", "no kernel for this kernel key"
const char* to_string(MissingCause cause);

struct MissingOperator {
  size_t index;  // position in the request list
  const char* name;
  const char* key;
  BackendMask backends_searched;
  MissingCause cause;
};

// Resolves every request against `backends`. Each miss is logged (always, also in release
// builds) as "Missing operator: [<index>] <name>" with its key and cause, followed by a summary
// line, and written to `missing` in request order while it has room. Returns the number missing.
size_t find_missing_operators(ArrayRef<OperatorRequest> requests, ArrayRef<Backend> backends,
                              Span<MissingOperator> missing);

// Test hook: forgets every table and statistic.
void reset_registry_for_testing();

}  // namespace kiln
