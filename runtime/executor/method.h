// Method: one execution plan of a Program, loaded into caller-provided memory and run.
//
// Method::load builds every value (tensors point into the planned arenas, at the program's
// constants, or at bound inputs), resolves each KernelCall to a kernel once, for a backend
// preference list, and fails with the structured missing-operator report when one has none.
// execute() then only calls: no lookups, no allocation. Nothing here allocates from the heap.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/delegate.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/backend.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/last_error.h"

namespace kiln {

// Memory for what Method::load computes ahead of the runs (constant folding, docs/programs.md):
// the results of the instructions it folds, and its analysis's scratch. A folded result cannot
// stay in a planned arena, whose bytes the plan gives to other values during a run. The caller
// bounds it: allocate() returns nullptr past the bound, and load then leaves the instructions
// that do not fit to run at each execute().
class FoldMemory {
 public:
  // `size` bytes aligned to `alignment` (a power of two), or nullptr when they do not fit.
  virtual void* allocate(size_t size, size_t alignment) = 0;
  // Memory for the analysis's scratch, which load releases before it returns. Its size follows
  // the program's values and instructions (so its file), not its arenas: the default takes it
  // from allocate(), within the bound.
  virtual void* allocate_scratch(size_t size, size_t alignment) {
    return allocate(size, alignment);
  }
  // Gives back a block allocate() or allocate_scratch() returned (load frees its scratch and the
  // folded results that only fed other folded instructions).
  virtual void release(void* block) = 0;

 protected:
  ~FoldMemory() = default;
};

// The memory a Method lives in; the caller owns it and keeps it while the Method is used. The
// arenas keep mutable buffers' state from one execute() to the next.
struct MethodMemory {
  Span<uint8_t> metadata;           // at least MethodMeta::metadata_bytes() bytes
  Span<Span<uint8_t>> arenas;       // arena i at least MethodMeta::arena_size(i) bytes
  MemoryAllocator* temp = nullptr;  // kernels' temporaries; without it they fail cleanly
  FoldMemory* folded = nullptr;     // folded results; without it Method::load folds nothing
};

// How Method::load prepares a method.
struct LoadOptions {
  // Runs once, at load, the kernel calls whose inputs are all constants of the program (or
  // results of such calls), into MethodMemory::folded, and skips them at every execute().
  bool fold_constants = true;
  // The pool the kernels folded at load split their loops over (not owned; nullptr: the calling
  // thread alone). Their results are what a run on that pool computes.
  ThreadPool* thread_pool = nullptr;
  // Fuses, at load, an activation (relu, hardtanh, clamp with constant bounds) into the kernel
  // call before it that alone produces its input (docs/programs.md, "Fusion at load"): that call
  // writes the activation's out and is offered the clamp; when its kernel takes it, execute()
  // skips the activation. Also runs dequantize -> convolution / linear -> quantize chains as one
  // int8 call (docs/quantized.md, "Int8 calls"). Needs MethodMemory::folded for the analysis's
  // scratch.
  bool fuse = true;
};

// What constant folding and fusion did at load.
struct FoldReport {
  size_t instructions = 0;  // kernel calls folded: run at load, skipped by execute()
  size_t bytes = 0;         // folded results the Method keeps (in MethodMemory::folded)
  size_t peak_bytes = 0;    // the most folded results held at once during load
  // Foldable calls left to run at each execute() because MethodMemory::folded had no room (its
  // bound): raising the bound folds them.
  size_t over_limit = 0;
  // Activations fused at load into the call before them (LoadOptions::fuse).
  size_t fused_activations = 0;
  // Batch norms folded at load into the convolution before them (LoadOptions::fuse).
  size_t fused_batch_norms = 0;
  // dequantize -> convolution / linear [-> activation] -> quantize chains run as one int8 call
  // (LoadOptions::fuse; docs/quantized.md, "Int8 calls").
  size_t fused_int8 = 0;
};

// Receives the operators Method::load finds missing (op is the index in the program's operator
// table, as in the "Missing operator: [i] ..." log lines).
struct MissingReport {
  Span<MissingOperator> entries;  // filled in order while there is room
  size_t count = 0;               // how many are missing
};

// What one instruction is, for profiles and messages.
struct InstructionInfo {
  const char* kind;  // "KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall", "FreeCall"
  // "aten::add.out" for a KernelCall, the delegate's name ("XnnpackBackend") for a
  // DelegateCall, else nullptr.
  const char* op;
  const Kernel* served;  // the kernel that ran it last (nullptr before the first run)
  bool folded;           // run once at load (constant folding) and skipped by execute()
  // An activation fused into the call before it (LoadOptions::fuse): execute() skips it when
  // that call's kernel clamps its results, and runs it (in place on its out) otherwise.
  bool fused;
  // For the call an activation is fused into: the activation's operator ("aten::relu.out"),
  // else nullptr.
  const char* activation;
  // A convolution or linear that runs as an int8 call, its dequantize and quantize merged into
  // it (LoadOptions::fuse); they show as `fused`.
  bool int8;
};

// Movable, not copyable: a Method owns its delegates' handles (destroyed with it).
class Method {
 public:
  // `backends` is the preference list (e.g. ascend, portable): each call runs on the first
  // backend with a kernel for it, and falls back to the next when that kernel declines the
  // inputs; fallbacks are counted (fallback_count()). Errors: InvalidArgument for too little
  // memory, OperatorMissing (with `missing` filled and the log lines written), NotFound for an
  // unknown method; kiln::last_error() says what.
  //
  // With options.fold_constants and MethodMemory::folded, load runs the calls whose inputs are
  // all constants once (docs/programs.md, "Constant folding at load"); a kernel failing on them
  // fails the load with InvalidProgram, naming the instruction.
  static Result<Method> load(const Program& program, std::string_view name,
                             const MethodMemory& memory, ArrayRef<Backend> backends,
                             MissingReport* missing = nullptr, const LoadOptions& options = {});

  size_t num_inputs() const { return num_inputs_; }
  size_t num_outputs() const { return num_outputs_; }
  // The method's input `index` as the program declares it (a tensor's dtype, shape, dim order).
  const EValue& input(size_t index) const { return values_[inputs_[index]]; }
  // The largest sizes tensor input `index` takes: a dynamic input's bounds (the program's sizes,
  // each dimension's maximum), a static one's sizes. Empty for a scalar input.
  ArrayRef<SizesType> input_max_sizes(size_t index) const;
  // Binds input `index`. A tensor must match the declared dtype, rank and dim order, and the
  // declared sizes (or fit them when the program marks the input dynamic); its data is used in
  // place when the program lets it (it must then stay valid through execute()), or copied into
  // the input's planned memory when other values of the program share those bytes. A tensor
  // with bytes must have data (a non-null data pointer). Scalars must match the tag.
  // InvalidArgument otherwise, with kiln::last_error() saying what differs.
  Error set_input(size_t index, const EValue& value);

  // Runs every instruction. After each kernel call the context's failure state is checked; a
  // failure stops the run and kiln::last_error() names the instruction, the operator and the
  // kernel's message. When `instruction_ns` is not empty (num_instructions() entries) it
  // receives each instruction's time in nanoseconds (0 for those not run).
  //
  // A run is bounded: it stops with InvalidState, naming the method and the instruction, once it
  // has run more instructions than its budget (a program's backward JumpFalseCall may loop
  // forever) or when the cancellation flag reads true between two instructions.
  Error execute(Span<uint64_t> instruction_ns = {});

  // The instruction budget of each execute(): 0 (the default) is kDefaultRunsPerInstruction
  // times num_instructions(), which a program without backward jumps never reaches.
  void set_instruction_budget(uint64_t budget) { instruction_budget_ = budget; }
  uint64_t instruction_budget() const;
  // A flag another thread may set to stop execute() between instructions (not owned; nullptr,
  // the default, for none). It is only read: the caller clears it before the next run.
  void set_cancel_flag(const std::atomic<bool>* cancel) { cancel_ = cancel; }
  static constexpr uint64_t kDefaultRunsPerInstruction = 1000000;

  const EValue& output(size_t index) const { return values_[outputs_[index]]; }

  // The pool the kernels of execute() split large loops over (not owned; it must outlive the
  // runs that use it). nullptr, the default, runs everything on the calling thread. Results do
  // not depend on the pool but for the documented reductions (docs/threads.md).
  void set_thread_pool(ThreadPool* pool) { ctx_.set_thread_pool(pool); }
  ThreadPool* thread_pool() const { return ctx_.thread_pool(); }

  // The method's operator table as qualified names ("aten::add.out"), in table order (what
  // "Missing operator: [i]" indexes).
  size_t num_operators() const { return num_operators_; }
  const char* operator_name(size_t index) const { return op_names_[index]; }

  size_t num_instructions() const { return num_steps_; }
  InstructionInfo instruction_info(size_t index) const;

  // What constant folding did at load (all zero when it was off).
  const FoldReport& fold_report() const { return fold_report_; }

 private:
  friend class MethodBuilder;
  friend class ConstantFolder;
  friend class MethodMeta;
  struct Step;
  // An int list whose items the run computes (symbolic sizes from prim operators, Int inputs):
  // refresh_int_lists() re-reads `ints` from the items' values.
  struct RuntimeIntList {
    int64_t* ints;
    const int64_t* items;  // value indices
    size_t size;
  };

  Method() = default;
  Error run_kernel(Step& step);
  void refresh_int_lists();
  Error match_fused_out(const Step& step, size_t pc);
  Error run_int8(Step& step);
  Error check_input_bounds(size_t index, const Tensor& given, const TensorImpl& declared);
  Error fail(Error error, const char* format, ...) __attribute__((format(printf, 3, 4)));

  EValue* values_ = nullptr;
  size_t num_values_ = 0;
  const int32_t* inputs_ = nullptr;
  size_t num_inputs_ = 0;
  const bool* copied_inputs_ = nullptr;  // per input: copied into its planned bytes
  // Per input: a dynamic tensor's bounds (the program's sizes, each dimension's maximum), else
  // nullptr.
  const SizesType* const* input_bounds_ = nullptr;
  RuntimeIntList* runtime_lists_ = nullptr;
  size_t num_runtime_lists_ = 0;
  const int32_t* outputs_ = nullptr;
  size_t num_outputs_ = 0;
  Step* steps_ = nullptr;
  size_t num_steps_ = 0;
  const uint32_t* chain_ends_ = nullptr;  // steps of chain c end at chain_ends_[c]
  size_t num_chains_ = 0;
  const char* const* op_names_ = nullptr;
  size_t num_operators_ = 0;
  Backend first_backend_ = Backend{};
  KernelRuntimeContext ctx_;
  const char* name_ = "";
  uint64_t instruction_budget_ = 0;
  bool clamp_taken_ = false;  // the last kernel call run took the clamp offered to it
  // A call of this run returned tensors (a functional op), which live in temporary memory: the
  // temporaries stay until the next run instead of being reused after each call.
  bool temps_held_ = false;
  const std::atomic<bool>* cancel_ = nullptr;
  FoldReport fold_report_;
  // Destroys the delegates' handles with the Method (declared last: destroyed first).
  DelegateHandles delegates_;
};

}  // namespace kiln
