// KernelRuntimeContext: what a kernel may use besides its arguments (failure reporting, temp
// memory, random numbers, worker threads).
#pragma once

#include <cstddef>

#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/random_generator.h"
#include "runtime/kernel/thread_pool.h"

namespace kiln {

class KernelRuntimeContext {
 public:
  // `temp_allocator` (not owned) serves allocate_temp; without one, allocate_temp fails cleanly.
  explicit KernelRuntimeContext(MemoryAllocator* temp_allocator = nullptr)
      : temp_allocator_(temp_allocator) {}

  // Records the first failure with a printf-style message; later failures are ignored so the
  // root cause is what the caller sees. The message is prefixed with the current op name. It is
  // not logged: the caller gets the Error and decides (the Python binding raises it).
  void fail(Error error, const char* format, ...) __attribute__((format(printf, 3, 4)));
  void fail(Error error);

  Error failure_state() const { return failure_; }
  // The message of the first failure, or "" when none.
  const char* failure_message() const { return message_; }
  // Clears the failure so the context can serve another call.
  void reset_failure() {
    failure_ = Error::Ok;
    message_[0] = '\0';
  }

  // Set by the unboxing wrappers so messages name the operator; not owned.
  void set_op_name(const char* name) { op_name_ = name; }
  const char* op_name() const { return op_name_; }

  Result<void*> allocate_temp(size_t size, size_t alignment = 16);
  // Temporary memory for a faster path that has a slower one without it: nullptr, and no
  // failure, when the context has no temp allocator or it is exhausted.
  void* try_allocate_temp(size_t size, size_t alignment = 16) {
    return temp_allocator_ != nullptr ? temp_allocator_->allocate(size, alignment) : nullptr;
  }
  // Frees every temporary. The executor calls it after each kernel call: a kernel's
  // temporaries last for its call only.
  void reset_temp() {
    if (temp_allocator_ != nullptr) temp_allocator_->reset();
  }

  // The generator random kernels draw from: the one set here (not owned; nullptr restores the
  // default), else the process's default_random_generator(). A context per thread with its own
  // generator keeps threads' streams apart and reproducible.
  void set_random_generator(RandomGenerator* generator) { random_generator_ = generator; }
  RandomGenerator& random_generator() {
    return random_generator_ != nullptr ? *random_generator_ : default_random_generator();
  }

  // The pool kernels split large loops over (not owned; the caller keeps it alive while kernels
  // run). nullptr, the default, runs every kernel on the calling thread alone.
  void set_thread_pool(ThreadPool* pool) { thread_pool_ = pool; }
  ThreadPool* thread_pool() const { return thread_pool_; }

  // Activation fusion (docs/programs.md): the executor offers a clamp of the call's out to
  // [min, max] (relu: [0, inf]); a kernel that can clamp its results as it stores them takes it
  // and applies it, and the executor then skips the activation, else it runs it. Results equal
  // the activation's on the stored values: offers are taken for Float and Double outs only,
  // whose kernels clamp values already in the out's dtype. NaN stays NaN, as torch's clamp.
  struct OutputClamp {
    double min;
    double max;
  };
  void offer_output_clamp(const OutputClamp& clamp) {
    clamp_ = clamp;
    clamp_state_ = ClampState::Offered;
  }
  void withdraw_output_clamp() { clamp_state_ = ClampState::None; }
  // The offered clamp, now taken, or nullptr (none offered, or out's dtype is not Float/Double).
  const OutputClamp* take_output_clamp(ScalarType out_dtype) {
    if (clamp_state_ != ClampState::Offered) return nullptr;
    if (out_dtype != ScalarType::Float && out_dtype != ScalarType::Double) return nullptr;
    clamp_state_ = ClampState::Taken;
    return &clamp_;
  }
  bool output_clamp_taken() const { return clamp_state_ == ClampState::Taken; }

 private:
  Error failure_ = Error::Ok;
  const char* op_name_ = nullptr;
  MemoryAllocator* temp_allocator_;
  RandomGenerator* random_generator_ = nullptr;
  ThreadPool* thread_pool_ = nullptr;
  enum class ClampState { None, Offered, Taken };
  ClampState clamp_state_ = ClampState::None;
  OutputClamp clamp_ = {0.0, 0.0};
  char message_[256] = {};
};

// Resizes `out` to `sizes`, reporting a failure through `ctx` naming the shapes. Returns false
// on failure; the kernel should then return without writing.
[[nodiscard]] bool resize_or_fail(KernelRuntimeContext& ctx, Tensor& out,
                                  ArrayRef<SizesType> sizes);
#if KILN_ATEN_MODE
// ATen mode: at::Tensor::sizes() is a c10::IntArrayRef.
[[nodiscard]] bool resize_or_fail(KernelRuntimeContext& ctx, Tensor& out, c10::IntArrayRef sizes);
#endif

}  // namespace kiln

// Kernel-side check: on failure records `error` with a message and returns `retval`.
#define KILN_KERNEL_CHECK_MSG(ctx, cond, error, retval, ...) \
  do {                                                       \
    if (!(cond)) {                                           \
      (ctx).fail(::kiln::Error::error, __VA_ARGS__);         \
      return retval;                                         \
    }                                                        \
  } while (0)
