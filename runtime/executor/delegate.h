// Backend delegates: a program's DelegateCall hands its arguments to a delegate named by the
// program (ExecuTorch's backend interface: init with the payload the exporter lowered for it,
// execute with the call's arguments, destroy). Kiln's own delegate, XnnpackBackend, runs
// XNNPACK's serialized graphs on Kiln's kernels; users register theirs by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/backend.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln {

class FoldMemory;

// One compile spec of a delegate (key and value as the exporter wrote them).
struct CompileSpec {
  std::string_view key;
  ConstantSpan value;
};

// What a delegate's init sees: its payload, compile specs and call arguments, the program's named
// data, and memory that lives as long as the Method. Valid during init only. Every byte of the
// payload, the specs and the named data is the program file's: untrusted, to be checked.
class DelegateInitContext {
 public:
  DelegateInitContext(const Program& program, const void* delegate, const char* method,
                      size_t instruction, ConstantSpan payload, Span<EValue*> args,
                      ArrayRef<Backend> backends, FoldMemory* memory, ThreadPool* pool)
      : program_(program),
        delegate_(delegate),
        method_(method),
        instruction_(instruction),
        payload_(payload),
        args_(args),
        backends_(backends),
        memory_(memory),
        pool_(pool) {}

  // The delegate's name in the program ("XnnpackBackend").
  std::string_view id() const;
  ConstantSpan payload() const { return payload_; }
  size_t num_compile_specs() const;
  CompileSpec compile_spec(size_t index) const;  // index < num_compile_specs()

  // The call's arguments, as execute() will get them (inputs are bound before each run, so
  // their data may change; their dtype and shape may not, but for dynamic inputs).
  Span<EValue*> args() const { return args_; }
  // Declares that execute() writes argument `index` (an output): Method::load then refuses a
  // call that would write a constant of the program or a method input through it.
  void mark_written(size_t index);
  bool written(size_t index) const { return index < 64 && ((written_ >> index) & 1u); }

  // The program's named data of `key` (ExecuTorch's NamedDataStore: the program's own segments,
  // then its data file). NotFound when neither has it (no message is set); InvalidProgram, with
  // a message, once the lookups have done more work than the file's size allows.
  Result<ConstantSpan> named_data(std::string_view key);

  // `size` bytes aligned to `alignment`, kept while the Method lives (MethodMemory::folded,
  // within its bound), or nullptr when they do not fit.
  void* allocate(size_t size, size_t alignment);

  // The method's backend preference list and thread pool, for delegates that run Kiln kernels.
  ArrayRef<Backend> backends() const { return backends_; }
  ThreadPool* thread_pool() const { return pool_; }
  // For messages: "method 'forward': instruction 3".
  const char* method_name() const { return method_; }
  size_t instruction() const { return instruction_; }

 private:
  const Program& program_;
  const void* delegate_;  // the pte_format::BackendDelegate
  const char* method_;
  size_t instruction_;
  ConstantSpan payload_;
  Span<EValue*> args_;
  ArrayRef<Backend> backends_;
  FoldMemory* memory_;
  ThreadPool* pool_;
  uint64_t written_ = 0;
  uint32_t named_next_ = 0;  // where the next named-data lookup starts
  uint64_t named_work_ = 0;
};

// A delegate. Its methods must not abort on any payload: init refuses a payload it cannot run
// with an Error (InvalidProgram for a malformed one, NotSupported for one it does not run) and
// sets kiln::last_error() naming what is wrong.
class Delegate {
 public:
  // Prepares one DelegateCall: returns the handle execute() and destroy() get (nullptr is a
  // valid handle).
  virtual Result<void*> init(DelegateInitContext& context) const = 0;
  // Runs the call on its arguments, reading its inputs and writing its outputs in place, with
  // the method's kernel context (temp allocator, thread pool). The delegate may reset the temp
  // allocator between the kernels it calls only when `may_reset_temp` is true (otherwise tensors
  // an earlier call of the run returned live there). A failure returns an Error with
  // kiln::last_error() set.
  virtual Error execute(void* handle, KernelRuntimeContext& ctx, Span<EValue*> args,
                        bool may_reset_temp) const = 0;
  // Releases what init acquired beyond DelegateInitContext::allocate() (which the Method's
  // memory owner frees). Called once per successful init, when the Method is destroyed.
  virtual void destroy(void* handle) const { (void)handle; }

 protected:
  ~Delegate() = default;
};

// Delegates registered at once in a process, Kiln's own included.
constexpr size_t kMaxDelegates = 16;

// Registers `delegate` (static storage duration) under `name` (copied up to 63 bytes), for the
// programs loaded afterwards. Kiln's XnnpackBackend is always registered. InvalidArgument for an
// empty or too long name, RegistrationAlreadyRegistered for a name already taken,
// RegistrationExceedingMaxKernels past kMaxDelegates; kiln::last_error() says which.
Error register_delegate(std::string_view name, const Delegate& delegate);

// The delegate registered under `name`, or nullptr.
const Delegate* find_delegate(std::string_view name);

// Delegates initialized by a Method, destroyed with it.
class DelegateHandles {
 public:
  struct Entry {
    const Delegate* delegate;
    void* handle;
  };
  DelegateHandles() = default;
  DelegateHandles(Entry* entries, size_t capacity) : entries_(entries), capacity_(capacity) {}
  DelegateHandles(DelegateHandles&& other) noexcept { *this = std::move(other); }
  DelegateHandles& operator=(DelegateHandles&& other) noexcept;
  DelegateHandles(const DelegateHandles&) = delete;
  DelegateHandles& operator=(const DelegateHandles&) = delete;
  ~DelegateHandles() { destroy(); }

  void add(const Delegate& delegate, void* handle) {
    if (count_ < capacity_) entries_[count_++] = {&delegate, handle};
  }

 private:
  void destroy();
  Entry* entries_ = nullptr;
  size_t capacity_ = 0;
  size_t count_ = 0;
};

}  // namespace kiln
