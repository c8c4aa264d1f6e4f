// Constant folding and fusion at load (see load_optimizer.h).
#include "runtime/executor/load_optimizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "runtime/core/tensor_impl.h"
#include "runtime/executor/fusion.h"
#include "runtime/executor/int8_fusion.h"
#include "runtime/executor/limits.h"
#include "runtime/executor/method_step.h"
#include "runtime/executor/program_generated.h"
#include "runtime/executor/stored_tensor.h"
#include "runtime/kernel/random_generator.h"
#include "runtime/platform/last_error.h"

namespace kiln {

using pte_format::KernelTypes;

// Constant folding (docs/programs.md, "Constant folding at load"). A kernel call folds when it
// comes before the method's first JumpFalseCall (so every run executes it, once, before any
// later instruction), is a plain out-variant call (no return slots, no argument it both reads
// and writes), reads only constants of the program or results of calls folded before it (and
// scalars no instruction writes), and writes only planned tensors that no other instruction
// writes or moves and that nothing reads before it. Such a call computes the same bytes on
// every run: it runs once here, its results in FoldMemory, and execute() skips it. Its planned
// bytes then stay unwritten, which changes nothing unless a view (a planned tensor no
// instruction writes, on the bytes of the tensor it views) reads them while they hold the
// call's result: a view on the result's bytes must find them rewritten by the tensor it views
// between the call and its reads (see view_reads_result()). Results that only fed
// other folded calls are released after their last reader; a call that draws random numbers is
// put back to run at each execute().
class ConstantFolder {
 public:
  ConstantFolder(const pte_format::ExecutionPlan& plan, const MethodMemory& method_memory,
                 Method& method, FoldMemory& memory)
      : plan_(plan), method_memory_(method_memory), method_(method), memory_(memory) {}

  // Folds (with `fold`), then fuses (with `fuse`) on the same analysis of the program.
  Error run(ThreadPool* pool, bool fold, bool fuse) {
    fold_ = fold;
    const size_t values = method_.num_values_;
    state_ = scratch<ValueState>(values);
    outputs_ = scratch<uint32_t>(values);
    if ((state_ == nullptr || outputs_ == nullptr) && values > 0) return give_up();
    for (size_t v = 0; v < values; ++v) state_[v] = {0, kNever, kNever, kNever, kNever, 0, 0};
    for (size_t i = 0; i < method_.num_inputs_; ++i) state_[method_.inputs_[i]].flags |= kInput;
    for (size_t i = 0; i < method_.num_outputs_; ++i) {
      state_[method_.outputs_[i]].flags |= kOutput;
    }
    first_jump_ = method_.num_steps_;
    for (size_t s = 0; s < method_.num_steps_; ++s) {
      if (method_.steps_[s].kind == StepKind::JumpFalse && first_jump_ == method_.num_steps_) {
        first_jump_ = s;
      }
      visit_accesses(s, [&](uint32_t v, bool read, bool written) {
        ValueState& value = state_[v];
        if (read && value.first_read == kNever) value.first_read = static_cast<uint32_t>(s);
        if (read) value.last_read = static_cast<uint32_t>(s);
        if (written && value.last_writer != s) {
          ++value.writers;
          value.last_writer = static_cast<uint32_t>(s);
        }
      });
    }
    if (!collect_bytes_groups() || !collect_views()) return give_up();
    const Error error = fold ? fold_calls(pool) : Error::Ok;
    if (error == Error::Ok && fuse) {
      find_landings();
      moved_ = scratch<Bytes>(method_.num_values_);
      for (size_t v = 0; moved_ != nullptr && v < method_.num_values_; ++v) moved_[v] = {};
      if (landing_ != nullptr) {
        // First: the activation fusion would otherwise take the activations of its chains.
        fuse_int8_chains();
        fuse_batch_norms();
        fuse_activations();
      }
    }
    release_scratch();
    return error;
  }

 private:
  Error fold_calls(ThreadPool* pool) {
    RandomGenerator generator;  // a kernel drawing from it is not folded
    method_.ctx_.set_random_generator(&generator);
    method_.ctx_.set_thread_pool(pool);
    Error error = Error::Ok;
    for (size_t s = 0; s < method_.num_steps_ && error == Error::Ok; ++s) {
      bool folded = false;
      if (s < first_jump_ && method_.steps_[s].kind == StepKind::Kernel && foldable(s)) {
        error = fold_step(s, generator, &folded);
      }
      if (!folded) {
        visit_accesses(s, [&](uint32_t v, bool read, bool) {
          if (read) state_[v].flags |= kNeeded;
        });
      } else {
        release_dead(s);
      }
    }
    method_.ctx_.set_random_generator(nullptr);
    method_.ctx_.set_thread_pool(nullptr);
    method_.ctx_.reset_failure();
    return error;
  }

  static constexpr uint32_t kNever = UINT32_MAX;
  enum Flag : uint8_t {
    kInput = 1,    // a method input
    kOutput = 2,   // a method output: its folded result is kept
    kNeeded = 4,   // read by an instruction that runs at execute(): its folded result is kept
    kFolded = 8,   // holds a folded result
    kClaimed = 16  // already among the outputs of the call being folded
  };
  struct ValueState {
    uint32_t writers;      // instructions writing the value (each counted once) or moving it
    uint32_t last_writer;  // the last of them, so that each counts once
    uint32_t first_read;   // kNever when nothing reads it
    uint32_t last_read;
    uint32_t bytes_group;  // a written planned tensor: its index in groups_, else kNever
    size_t bytes;          // its folded block's size while it holds one
    uint8_t flags;
  };
  // Planned bytes [begin, end) of memory arena `arena`.
  struct Bytes {
    uint32_t arena;
    uint64_t begin;
    uint64_t end;
    bool operator<(const Bytes& other) const {
      if (arena != other.arena) return arena < other.arena;
      return begin != other.begin ? begin < other.begin : end < other.end;
    }
    bool operator==(const Bytes& other) const {
      return arena == other.arena && begin == other.begin && end == other.end;
    }
  };
  // A view: a planned tensor no instruction writes, not an input.
  struct View {
    Bytes bytes;
    uint64_t end_so_far;  // the largest end of the views of its arena up to this one
    uint32_t value;
    uint32_t bytes_group;  // the written tensors on exactly its bytes (groups_), or kNever
    bool input_fed;        // on exactly a copied input's bytes: written as each run starts
  };

  // Scratch of the analysis, sized by the program's values and instructions (so by its file):
  // FoldMemory::allocate_scratch, outside the bound on folded results.
  template <typename T>
  T* scratch(size_t count) {
    if (count == 0) count = 1;
    if (count > SIZE_MAX / sizeof(T) || num_scratch_ == kMaxScratch) return nullptr;
    void* block = memory_.allocate_scratch(count * sizeof(T), alignof(T) < 16 ? 16 : alignof(T));
    if (block == nullptr) return nullptr;
    scratch_[num_scratch_++] = block;
    return static_cast<T*>(block);
  }
  void release_scratch() {
    while (num_scratch_ > 0) memory_.release(scratch_[--num_scratch_]);
  }
  void hold(size_t bytes) {
    held_ += bytes;
    if (held_ > method_.fold_report_.peak_bytes) method_.fold_report_.peak_bytes = held_;
  }

  // The analysis's scratch could not be allocated: nothing folds, and every kernel call that
  // might have is counted as left over.
  Error give_up() {
    release_scratch();
    for (size_t s = 0; s < method_.num_steps_ && fold_; ++s) {
      if (method_.steps_[s].kind == StepKind::JumpFalse) break;
      if (method_.steps_[s].kind == StepKind::Kernel) ++method_.fold_report_.over_limit;
    }
    return Error::Ok;
  }

  const pte_format::EValue& plan_value(uint32_t v) const {
    return *plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(v));
  }
  const flatbuffers::Vector<int32_t>* list_items(uint32_t v) const {
    const pte_format::EValue& value = plan_value(v);
    if (value.val_type() == KernelTypes::TensorList) return value.val_as_TensorList()->items();
    if (value.val_type() == KernelTypes::OptionalTensorList) {
      return value.val_as_OptionalTensorList()->items();
    }
    return nullptr;
  }
  bool is_value(const EValue* value) const {
    return value >= method_.values_ && value < method_.values_ + method_.num_values_;
  }
  uint32_t index_of(const EValue* value) const {
    return static_cast<uint32_t>(value - method_.values_);
  }
  Span<EValue*> program_stack(const Method::Step& step) const {
    return {step.stack.data(), step.stack.size() + (step.trimmed ? 1 : 0)};
  }

  // Which positions of kernel call `step` it writes (written) and reads (read: every position
  // not written, and a written one the kernel may also read: an in-place self, a buffer it
  // updates). False when its kernels do not say (a table without the schema's argument count,
  // or kernels of one operator disagreeing): every position is then read and written.
  bool call_positions(const Method::Step& step, bool* written, bool* read) const {
    const Span<EValue*> stack = program_stack(step);
    const Kernel& first = *step.kernels[0];
    bool known = first.arguments > 0 || stack.size() == 0;
    for (uint8_t k = 1; k < step.num_kernels; ++k) {
      known = known && step.kernels[k]->arguments == first.arguments &&
              step.kernels[k]->writes == first.writes &&
              step.kernels[k]->return_slots == first.return_slots;
    }
    if (!known) {
      for (size_t p = 0; p < stack.size(); ++p) written[p] = read[p] = true;
      return false;
    }
    for (size_t p = 0; p < stack.size(); ++p) written[p] = false;
    const char* name = method_.op_names_[step.op_index];
    mark_written(name, stack, first, written);
    // Outs are the trailing arguments of an out overload; any other written argument (an
    // in-place self, a buffer in the middle of the signature) is read as well.
    const size_t arguments = first.arguments < stack.size() ? first.arguments : stack.size();
    size_t outs_begin = arguments;
    const bool out_overload = is_out_overload(std::strchr(name, '.')) && first.return_slots == 0;
    while (out_overload && outs_begin > 0 && written[outs_begin - 1]) --outs_begin;
    for (size_t p = 0; p < stack.size(); ++p) {
      read[p] = !written[p] || (p < outs_begin);
    }
    return true;
  }

  // Calls visit(value, read, written) for each value instruction s touches; a list's tensors
  // are visited along with it.
  template <typename Visit>
  void visit_accesses(size_t s, Visit&& visit) const {
    const Method::Step& step = method_.steps_[s];
    auto with_items = [&](uint32_t v, bool read, bool written) {
      visit(v, read, written);
      if (const auto* items = list_items(v)) {
        for (int32_t item : *items) {
          if (item >= 0) visit(static_cast<uint32_t>(item), read, written);
        }
      }
    };
    switch (step.kind) {
      case StepKind::Kernel: {
        bool written[kMaxCallArguments + 1];
        bool read[kMaxCallArguments + 1];
        call_positions(step, written, read);
        const Span<EValue*> stack = program_stack(step);
        for (size_t p = 0; p < stack.size(); ++p) {
          // (A batch-norm fusion's weight and bias are not values of the program.)
          if (is_value(stack[p])) with_items(index_of(stack[p]), read[p], written[p]);
        }
        return;
      }
      case StepKind::Move:
        // The destination then shares the source's tensor: a write through it would change
        // the source, so both count as written.
        with_items(static_cast<uint32_t>(step.a), true, true);
        with_items(static_cast<uint32_t>(step.b), false, true);
        return;
      case StepKind::JumpFalse:
        visit(static_cast<uint32_t>(step.a), true, false);
        return;
      case StepKind::Free:
        return;
      case StepKind::Delegate:
        // What a delegate reads and writes is its own: every argument counts as both.
        for (EValue* arg : step.stack) with_items(index_of(arg), true, true);
        return;
    }
  }

  // Where a planned tensor's bytes are; false for any other value or a tensor without bytes.
  bool placement(uint32_t v, Bytes* bytes) const {
    if (moved_ != nullptr && moved_[v].arena != 0) {  // given other bytes by fusion
      *bytes = moved_[v];
      return true;
    }
    const auto* tensor = plan_value(v).val_as_Tensor();
    if (tensor == nullptr || tensor->allocation_info() == nullptr) return false;
    const size_t nbytes = method_.values_[v].toTensor().nbytes();
    if (nbytes == 0) return false;
    const auto* allocation = tensor->allocation_info();
    bytes->arena = allocation->memory_id();
    bytes->begin = uint64_t{allocation->memory_offset_low()} |
                   uint64_t{allocation->memory_offset_high()} << 32;
    bytes->end = bytes->begin + nbytes;
    return true;
  }
  void* planned_data(uint32_t v) const {
    const auto* allocation = plan_value(v).val_as_Tensor()->allocation_info();
    if (allocation == nullptr) return nullptr;
    const uint64_t offset = uint64_t{allocation->memory_offset_low()} |
                            uint64_t{allocation->memory_offset_high()} << 32;
    return method_memory_.arenas[allocation->memory_id() - 1].data() + offset;
  }

  // The written planned tensors grouped by their exact bytes (groups_, sorted), and each
  // group's writes in instruction order (group_writes_ from group_begin_[g] to group_end_[g]).
  bool collect_bytes_groups() {
    size_t count = 0;
    Bytes bytes;
    for (uint32_t v = 0; v < method_.num_values_; ++v) {
      if (state_[v].writers > 0 && placement(v, &bytes)) ++count;
    }
    groups_ = scratch<Bytes>(count);
    group_begin_ = scratch<uint32_t>(count);
    group_end_ = scratch<uint32_t>(count);
    if (groups_ == nullptr || group_begin_ == nullptr || group_end_ == nullptr) return false;
    for (uint32_t v = 0; v < method_.num_values_; ++v) {
      if (state_[v].writers > 0 && placement(v, &bytes)) groups_[num_groups_++] = bytes;
    }
    std::sort(groups_, groups_ + num_groups_);
    num_groups_ = static_cast<size_t>(std::unique(groups_, groups_ + num_groups_) - groups_);
    for (size_t g = 0; g < num_groups_; ++g) group_begin_[g] = 0;
    size_t writes = 0;
    for (uint32_t v = 0; v < method_.num_values_; ++v) {
      if (state_[v].writers == 0 || !placement(v, &bytes)) continue;
      state_[v].bytes_group = group_of(bytes);
      group_begin_[state_[v].bytes_group] += state_[v].writers;  // a count, for now
      writes += state_[v].writers;
    }
    group_writes_ = scratch<uint32_t>(writes);
    if (group_writes_ == nullptr) return false;
    uint32_t next = 0;
    for (size_t g = 0; g < num_groups_; ++g) {
      const uint32_t writes_of_group = group_begin_[g];
      group_begin_[g] = group_end_[g] = next;
      next += writes_of_group;
    }
    // In instruction order, so each group's list is sorted; a call writing a group twice is
    // listed once (a value counts one write per call).
    for (size_t s = 0; s < method_.num_steps_; ++s) {
      visit_accesses(s, [&](uint32_t v, bool, bool written) {
        const uint32_t g = state_[v].bytes_group;
        if (!written || g == kNever) return;
        if (group_end_[g] > group_begin_[g] && group_writes_[group_end_[g] - 1] == s) return;
        group_writes_[group_end_[g]++] = static_cast<uint32_t>(s);
      });
    }
    return true;
  }
  uint32_t group_of(const Bytes& bytes) const {
    const Bytes* found = std::lower_bound(groups_, groups_ + num_groups_, bytes);
    if (found == groups_ + num_groups_ || !(*found == bytes)) return kNever;
    return static_cast<uint32_t>(found - groups_);
  }
  // The first write of group g after instruction `after`, or kNever.
  uint32_t group_write_after(uint32_t g, uint32_t after) const {
    const uint32_t* begin = group_writes_ + group_begin_[g];
    const uint32_t* end = group_writes_ + group_end_[g];
    const uint32_t* next = std::upper_bound(begin, end, after);
    return next == end ? kNever : *next;
  }
  // The last write of group g before instruction `before`, or kNever.
  uint32_t group_write_before(uint32_t g, uint32_t before) const {
    const uint32_t* begin = group_writes_ + group_begin_[g];
    const uint32_t* end = group_writes_ + group_end_[g];
    const uint32_t* next = std::lower_bound(begin, end, before);
    return next == begin ? kNever : *(next - 1);
  }

  // The views, sorted by their bytes, for view_reads_result().
  bool collect_views() {
    size_t count = 0;
    Bytes bytes;
    for (uint32_t v = 0; v < method_.num_values_; ++v) {
      if (state_[v].writers == 0 && !(state_[v].flags & kInput) && placement(v, &bytes)) ++count;
    }
    views_ = scratch<View>(count);
    copied_inputs_ = scratch<Bytes>(method_.num_inputs_);
    if (views_ == nullptr || copied_inputs_ == nullptr) return false;
    for (size_t i = 0; i < method_.num_inputs_; ++i) {
      if (method_.copied_inputs_[i] &&
          placement(static_cast<uint32_t>(method_.inputs_[i]), &bytes)) {
        copied_inputs_[num_copied_inputs_++] = bytes;
      }
    }
    std::sort(copied_inputs_, copied_inputs_ + num_copied_inputs_);
    for (uint32_t v = 0; v < method_.num_values_; ++v) {
      if (state_[v].writers == 0 && !(state_[v].flags & kInput) && placement(v, &bytes)) {
        const bool input_fed =
            std::binary_search(copied_inputs_, copied_inputs_ + num_copied_inputs_, bytes);
        views_[num_views_++] = {bytes, bytes.end, v, group_of(bytes), input_fed};
      }
    }
    std::sort(views_, views_ + num_views_,
              [](const View& a, const View& b) { return a.bytes < b.bytes; });
    for (size_t i = 1; i < num_views_; ++i) {
      if (views_[i].bytes.arena == views_[i - 1].bytes.arena &&
          views_[i - 1].end_so_far > views_[i].end_so_far) {
        views_[i].end_so_far = views_[i - 1].end_so_far;
      }
    }
    return true;
  }

  // Whether a view may read the bytes of `result`, written by call s, while they hold it (so
  // that folding s would change what the view reads). A view reading them is safe when every
  // read finds its bytes written, after s, by a tensor on exactly the view's bytes (the tensor
  // it views): its first read after s must follow such a write, its reads before s must follow
  // one in the same run (or they read what the last run left there), and when it is an output
  // the run's last write of its bytes must follow s. Reads on both sides of s are refused.
  bool view_reads_result(const Bytes& result, uint32_t s) const {
    const View* last = std::lower_bound(
        views_, views_ + num_views_, result, [](const View& view, const Bytes& bytes) {
          return view.bytes.arena != bytes.arena ? view.bytes.arena < bytes.arena
                                                 : view.bytes.begin < bytes.end;
        });
    // The views of the result's arena starting before its end, latest first, while one of
    // them may still reach past its start.
    while (last != views_) {
      --last;
      if (last->bytes.arena != result.arena || last->end_so_far <= result.begin) break;
      if (last->bytes.end <= result.begin) continue;
      const ValueState& view = state_[last->value];
      const bool output = (view.flags & kOutput) != 0;
      if (view.first_read == kNever && !output) continue;  // never read
      // A copied input's bytes are written before the run's first instruction: every read
      // before s follows that write.
      const uint32_t g = last->bytes_group;
      if (g == kNever && !last->input_fed) return true;
      if (view.first_read != kNever && !last->input_fed &&
          group_write_before(g, view.first_read) == kNever) {
        return true;
      }
      const uint32_t rewrite = g == kNever ? kNever : group_write_after(g, s);
      if (output && rewrite == kNever) return true;
      if (view.first_read == kNever || view.last_read < s) continue;
      if (view.first_read <= s) return true;
      if (rewrite == kNever || rewrite >= view.first_read) return true;
    }
    return false;
  }

  bool is_constant_tensor(uint32_t v) const {
    const auto* tensor = plan_value(v).val_as_Tensor();
    return tensor != nullptr && is_constant(*tensor);
  }

  // A value instruction s may read and still fold.
  bool constant_ready(uint32_t v) const {
    const ValueState& value = state_[v];
    if (value.flags & kInput) return false;
    switch (plan_value(v).val_type()) {
      case KernelTypes::Null:
        return true;
      case KernelTypes::Tensor:
        if (is_constant_tensor(v) || (value.flags & kFolded)) return true;
        return value.writers == 0 && method_.values_[v].toTensor().nbytes() == 0;
      case KernelTypes::TensorList:
      case KernelTypes::OptionalTensorList:
        if (value.writers != 0) return false;
        if (const auto* items = list_items(v)) {
          for (int32_t item : *items) {
            if (item >= 0 && !constant_ready(static_cast<uint32_t>(item))) return false;
          }
        }
        return true;
      case KernelTypes::IntList:
        // Its items are Int values, which an instruction (a prim operator) may compute.
        if (value.writers != 0) return false;
        if (const auto* items = plan_value(v).val_as_IntList()->items()) {
          for (int64_t item : *items) {
            if (!constant_ready(static_cast<uint32_t>(item))) return false;
          }
        }
        return true;
      default:
        // Scalars and scalar lists: fixed unless an instruction writes them.
        return value.writers == 0;
    }
  }

  // A value call s may write and still fold (see the class comment).
  bool write_ok(uint32_t v, uint32_t s) const {
    const ValueState& value = state_[v];
    const auto* tensor = plan_value(v).val_as_Tensor();
    if (tensor == nullptr) return plan_value(v).val_type() == KernelTypes::Null;
    if ((value.flags & (kInput | kFolded)) || value.writers != 1 || value.last_writer != s) {
      return false;
    }
    if (value.first_read != kNever && value.first_read <= s) return false;
    if (is_constant(*tensor) || has_initial_data(*tensor)) return false;
    Bytes bytes;
    if (!placement(v, &bytes)) return method_.values_[v].toTensor().nbytes() == 0;
    return !view_reads_result(bytes, s);
  }

  bool foldable(size_t s) {
    const Method::Step& step = method_.steps_[s];
    for (uint8_t k = 0; k < step.num_kernels; ++k) {
      if (step.kernels[k]->return_slots != 0) return false;
    }
    bool written[kMaxCallArguments + 1];
    bool read[kMaxCallArguments + 1];
    if (!call_positions(step, written, read)) return false;
    const Span<EValue*> stack = program_stack(step);
    num_outputs_ = 0;
    bool ok = true;
    for (size_t p = 0; p < stack.size() && ok; ++p) {
      const uint32_t v = index_of(stack[p]);
      if (read[p] && written[p]) ok = false;
      if (read[p]) ok = ok && constant_ready(v);
      if (!written[p] || !ok) continue;
      if (const auto* items = list_items(v)) {
        for (int32_t item : *items) {
          if (item >= 0) ok = ok && claim(static_cast<uint32_t>(item), s);
        }
      } else {
        ok = claim(v, s);
      }
    }
    for (size_t o = 0; o < num_outputs_; ++o) state_[outputs_[o]].flags &= ~kClaimed;
    return ok;
  }
  // Adds written value v to the outputs of call s, once.
  bool claim(uint32_t v, size_t s) {
    if (state_[v].flags & kClaimed) return true;
    if (!write_ok(v, static_cast<uint32_t>(s))) return false;
    if (plan_value(v).val_type() != KernelTypes::Tensor) return true;  // None
    state_[v].flags |= kClaimed;
    outputs_[num_outputs_++] = v;
    return true;
  }

  // Runs call s (foldable) with its outputs in FoldMemory. Sets *folded unless the memory has
  // no room or the kernel drew random numbers; a kernel failure is the load's error.
  Error fold_step(size_t s, RandomGenerator& generator, bool* folded) {
    Method::Step& step = method_.steps_[s];
    size_t placed = 0;
    for (; placed < num_outputs_; ++placed) {
      const uint32_t v = outputs_[placed];
      TensorImpl& impl = *method_.values_[v].toTensor().unsafeGetTensorImpl();
      const size_t bytes = impl.nbytes();  // a dynamic tensor's planned (largest) size
      void* block = bytes == 0 ? nullptr : memory_.allocate(bytes, kFoldedAlignment);
      if (block == nullptr && bytes > 0) break;
      impl.set_storage(block, bytes);
      state_[v].bytes = bytes;
      hold(bytes);
    }
    if (placed < num_outputs_) {
      unplace(placed);
      ++method_.fold_report_.over_limit;
      return Error::Ok;
    }
    method_.ctx_.reset_failure();
    const Error error = method_.run_kernel(step);
    const Error failure = error != Error::Ok ? error : method_.ctx_.failure_state();
    if (failure != Error::Ok) {
      const char* message = method_.ctx_.failure_message();
      KILN_SET_ERROR(
          "method '%s': instruction %zu (%s) fails at load on the program's constants "
          "(constant folding), with %s: %s",
          method_.name_, s, method_.op_names_[step.op_index], to_string(failure),
          message[0] != '\0' ? message : to_string(failure));
      unplace(placed);
      return Error::InvalidProgram;
    }
    if (generator.offset() != 0) {  // random numbers differ on every run: not a constant
      generator.set_offset(0);
      unplace(placed);
      return Error::Ok;
    }
    for (size_t o = 0; o < num_outputs_; ++o) {
      state_[outputs_[o]].flags |= kFolded;
      method_.fold_report_.bytes += state_[outputs_[o]].bytes;
    }
    step.folded = true;
    ++method_.fold_report_.instructions;
    *folded = true;
    return Error::Ok;
  }

  // Points the first `count` outputs of the call being folded back at their planned bytes.
  void unplace(size_t count) {
    for (size_t o = 0; o < count; ++o) put_back(outputs_[o]);
  }
  void put_back(uint32_t v) {
    TensorImpl& impl = *method_.values_[v].toTensor().unsafeGetTensorImpl();
    if (state_[v].bytes > 0) memory_.release(impl.mutable_data());
    impl.set_storage(planned_data(v), state_[v].bytes);
    held_ -= state_[v].bytes;
    state_[v].bytes = 0;
  }

  // After folded call s: releases the folded results nothing that runs at execute() reads and
  // that no later call reads (those s read for the last time, and its own unread outputs).
  void release_dead(size_t s) {
    auto release_if_dead = [&](uint32_t v) {
      ValueState& value = state_[v];
      if (!(value.flags & kFolded) || (value.flags & (kNeeded | kOutput))) return;
      if (value.last_read != kNever && value.last_read > s) return;
      method_.fold_report_.bytes -= value.bytes;
      put_back(v);
      value.flags &= ~kFolded;
    };
    visit_accesses(s, [&](uint32_t v, bool, bool) { release_if_dead(v); });
  }

  // Activation fusion (docs/programs.md, "Fusion at load"): kernel call P, then activation A
  // (fusion.h) in the same chain, no jump landing on A, neither folded. P's out O is a planned
  // tensor that P alone writes (only as an out) and A alone reads (only as its self), neither
  // a method input nor output, and no view reads its bytes while they hold P's result (as
  // for a folded call): O's bytes then matter to no one once P writes A's out R instead. R is a
  // planned tensor of O's dtype, sizes and dim order whose bytes none of P's other arguments
  // touch, so P may write R while it reads them (else R may move onto O's bytes: can_move_onto).
  // P then writes R and is offered A's clamp; A reads R: when P's kernel takes the clamp
  // execute() skips A, else A runs in place on R, elementwise, and leaves what it computed from
  // O.
  void fuse_activations() {
    for (size_t c = 0, begin = 0; c < method_.num_chains_; begin = method_.chain_ends_[c++]) {
      for (size_t s = begin; s + 1 < method_.chain_ends_[c]; ++s) {
        // A follows P, or the batch norm folded into P (then P writes what A reads).
        const size_t t = method_.steps_[s + 1].merged ? s + 2 : s + 1;
        if (t >= method_.chain_ends_[c] || landing_[s + 1] || landing_[t]) continue;
        if (fuse_pair(s, t)) s = t;  // A is not the next pair's P
      }
    }
  }

  // landing_[s]: a jump lands on step s (nullptr when the scratch could not be had).
  void find_landings() {
    landing_ = scratch<bool>(method_.num_steps_);
    if (landing_ == nullptr) return;
    for (size_t s = 0; s < method_.num_steps_; ++s) landing_[s] = false;
    for (size_t c = 0, begin = 0; c < method_.num_chains_; begin = method_.chain_ends_[c++]) {
      for (size_t s = begin; s < method_.chain_ends_[c]; ++s) {
        const Method::Step& step = method_.steps_[s];
        if (step.kind != StepKind::JumpFalse || step.b < 0) continue;
        const size_t target = begin + static_cast<size_t>(step.b);
        if (target < method_.chain_ends_[c]) landing_[target] = true;
      }
    }
  }

  // Whether P (step s) writes value o only as an out and none of its other arguments (nor
  // their lists' tensors) is o or touches `bytes`, where P is to write instead.
  bool writes_only_as_out(size_t s, uint32_t o, const Bytes& bytes) const {
    const Method::Step& p = method_.steps_[s];
    for (uint8_t k = 0; k < p.num_kernels; ++k) {
      if (p.kernels[k]->return_slots != 0) return false;
    }
    bool written[kMaxCallArguments + 1];
    bool read[kMaxCallArguments + 1];
    if (!call_positions(p, written, read)) return false;
    const Span<EValue*> p_stack = program_stack(p);
    for (size_t q = 0; q < p_stack.size(); ++q) {
      // A convolution's weight and bias from batch-norm fusion live in FoldMemory, not among
      // the program's values, and are no planned tensors.
      if (!is_value(p_stack[q])) continue;
      const uint32_t v = index_of(p_stack[q]);
      if (v == o) {
        if (!written[q] || read[q]) return false;
        continue;
      }
      if (touches(v, bytes)) return false;
      if (const auto* items = list_items(v)) {
        for (int32_t item : *items) {
          if (item < 0) continue;
          if (static_cast<uint32_t>(item) == o) return false;
          if (touches(static_cast<uint32_t>(item), bytes)) return false;
        }
      }
    }
    return true;
  }
  // Points P's (step s) arguments that are value o at value r.
  void redirect(size_t s, uint32_t o, uint32_t r) {
    const Span<EValue*> p_stack = program_stack(method_.steps_[s]);
    for (size_t q = 0; q < p_stack.size(); ++q) {
      if (p_stack[q] == &method_.values_[o]) p_stack[q] = &method_.values_[r];
    }
  }
  // Value v is a scalar (or None) no instruction writes, not an input.
  bool fixed_scalar(uint32_t v) const {
    return !method_.values_[v].isTensor() && state_[v].writers == 0 && !(state_[v].flags & kInput);
  }

  bool fuse_pair(size_t s, size_t t) {
    Method::Step& p = method_.steps_[s];
    Method::Step& a = method_.steps_[t];
    if (p.kind != StepKind::Kernel || a.kind != StepKind::Kernel) return false;
    if (p.folded || a.folded || p.fused || p.merged || a.merged || p.clamps || p.int8) return false;
    ActivationCall activation;
    if (!activation_of(method_.op_names_[a.op_index], a.stack, &activation)) return false;
    for (size_t q = 0; q < a.stack.size(); ++q) {  // the bounds: scalars no one writes
      if (q != activation.self && q != activation.out && !fixed_scalar(index_of(a.stack[q]))) {
        return false;
      }
    }
    const uint32_t o = index_of(a.stack[activation.self]);
    const uint32_t r = index_of(a.stack[activation.out]);
    if (o == r || !same_layout(o, r)) return false;
    const ValueState& out = state_[o];
    if ((out.flags & (kInput | kOutput)) || (state_[r].flags & kInput)) return false;
    if (out.writers != 1 || out.last_writer != s || out.first_read != t || out.last_read != t) {
      return false;
    }
    const Span<EValue*> a_stack = program_stack(a);
    for (size_t q = 0; q < a_stack.size(); ++q) {
      if (q != activation.self && index_of(a_stack[q]) == o) return false;
    }
    Bytes o_bytes, r_bytes;
    if (!placement(o, &o_bytes) || !placement(r, &r_bytes)) return false;
    // O's bytes stay unwritten, as a folded call's do (view_reads_result).
    if (view_reads_result(o_bytes, static_cast<uint32_t>(s))) return false;
    const bool direct = writes_only_as_out(s, o, r_bytes);
    if (!direct && !(writes_only_as_out(s, o, o_bytes) && can_move_onto(r, o, o_bytes, t))) {
      return false;
    }
    if (direct) {
      redirect(s, o, r);
      a.stack[activation.self] = &method_.values_[r];
    } else {
      move_onto(r, o, o_bytes);
    }
    p.clamps = true;
    p.clamp = activation.clamp;
    a.fused = true;
    a.a = static_cast<int32_t>(activation.self);
    a.b = static_cast<int32_t>(activation.out);
    ++method_.fold_report_.fused_activations;
    return true;
  }

  // Convolution + batch norm (inference; docs/programs.md, "Fusion at load"): kernel call C,
  // aten::convolution.out (not transposed) on a weight and bias that are constants (or folded
  // results), then B, aten::_native_batch_norm_legit_no_training.out of C's out Y on constant
  // statistics and affine parameters, with B's other two outs never read. Y must be as an
  // activation's O is (C alone writes it, only as an out; B alone reads it), and B's out0 Z
  // as an activation's R. C then convolves with weight' and bias' (fusion.h), computed here
  // into FoldMemory (counted in the fold report's bytes), writes Z, and B never runs.
  void fuse_batch_norms() {
    for (size_t c = 0, begin = 0; c < method_.num_chains_; begin = method_.chain_ends_[c++]) {
      for (size_t s = begin; s + 1 < method_.chain_ends_[c]; ++s) {
        if (!landing_[s + 1] && fuse_batch_norm(s)) ++s;
      }
    }
  }

  bool fuse_batch_norm(size_t s) {
    Method::Step& conv = method_.steps_[s];
    Method::Step& norm = method_.steps_[s + 1];
    if (conv.kind != StepKind::Kernel || norm.kind != StepKind::Kernel) return false;
    if (conv.folded || norm.folded || conv.int8 || norm.merged) return false;
    if (std::strcmp(method_.op_names_[conv.op_index], "aten::convolution.out") != 0 ||
        std::strcmp(method_.op_names_[norm.op_index],
                    "aten::_native_batch_norm_legit_no_training.out") != 0 ||
        conv.stack.size() != 10 || norm.stack.size() != 10) {
      return false;
    }
    // Its kernels were chosen for the stack's dtypes: a bias where there was None must not
    // change the choice.
    for (uint8_t k = 0; k < conv.num_kernels; ++k) {
      if (conv.kernels[k]->key[0] != '\0') return false;
    }
    auto value = [&](const Method::Step& step, size_t q) { return index_of(step.stack[q]); };
    // convolution.out(input, weight, bias?, stride, padding, dilation, transposed,
    // output_padding, groups, *, out)
    const EValue& transposed = method_.values_[value(conv, 6)];
    if (!transposed.isBool() || transposed.toBool() || !fixed_scalar(value(conv, 6))) {
      return false;
    }
    // _native_batch_norm_legit_no_training.out(input, weight?, bias?, running_mean,
    // running_var, momentum, eps, *, out0, out1, out2)
    const uint32_t y = value(conv, 9), z = value(norm, 7);
    if (value(norm, 0) != y || !fixed_scalar(value(norm, 6)) ||
        !method_.values_[value(norm, 6)].isDouble()) {
      return false;
    }
    const uint32_t params[6] = {value(conv, 1), value(conv, 2), value(norm, 1),
                                value(norm, 2), value(norm, 3), value(norm, 4)};
    const Tensor* tensors[6] = {};
    for (size_t i = 0; i < 6; ++i) {
      const EValue& param = method_.values_[params[i]];
      if (param.isNone() && (i == 1 || i == 2 || i == 3)) continue;
      if (!param.isTensor() || !constant_ready(params[i])) return false;
      tensors[i] = &param.toTensor();
    }
    const BatchNormFold fold = {tensors[0],
                                tensors[1],
                                tensors[2],
                                tensors[3],
                                tensors[4],
                                tensors[5],
                                method_.values_[value(norm, 6)].toDouble()};
    if (tensors[0] == nullptr || !batch_norm_folds(fold)) return false;
    if (y == z || !same_layout(y, z)) return false;
    const ValueState& out = state_[y];
    if ((out.flags & (kInput | kOutput)) || (state_[z].flags & kInput)) return false;
    if (out.writers != 1 || out.last_writer != s || out.first_read != s + 1 ||
        out.last_read != s + 1) {
      return false;
    }
    const ValueState& result = state_[z];
    if (result.writers != 1 || result.last_writer != s + 1 ||
        (result.first_read != kNever && result.first_read <= s + 1)) {
      return false;
    }
    const Span<EValue*> norm_stack = program_stack(norm);
    for (size_t q = 1; q < norm_stack.size(); ++q) {
      if (index_of(norm_stack[q]) == y) return false;
    }
    for (size_t q = 8; q < 10; ++q) {  // the saved statistics: empty, and never read
      const uint32_t v = value(norm, q);
      Bytes bytes;
      if (v == z || v == y || state_[v].first_read != kNever || (state_[v].flags & kOutput)) {
        return false;
      }
      if (placement(v, &bytes) && view_reads(bytes)) return false;
    }
    Bytes y_bytes, z_bytes;
    if (!placement(y, &y_bytes) || !placement(z, &z_bytes) ||
        view_reads_result(y_bytes, static_cast<uint32_t>(s))) {
      return false;
    }
    // Z on the convolution's input (as an activation's R, see fuse_pair): Z moves onto Y's
    // bytes.
    const bool direct = writes_only_as_out(s, y, z_bytes);
    if (!direct && !(writes_only_as_out(s, y, y_bytes) && can_move_onto(z, y, y_bytes, s + 1))) {
      return false;
    }
    EValue* folded = fold_parameters(fold);
    if (folded == nullptr) return false;
    if (!direct) move_onto(z, y, y_bytes);
    redirect(s, y, z);
    conv.stack[1] = &folded[0];
    conv.stack[2] = &folded[1];
    norm.merged = true;
    state_[y].writers = 0;
    state_[y].first_read = state_[y].last_read = kNever;
    state_[z].last_writer = static_cast<uint32_t>(s);
    ++method_.fold_report_.fused_batch_norms;
    return true;
  }

  // Int8 chains (docs/quantized.md, "Int8 calls"): D = dequantize_per_tensor.out(XQ) at step d,
  // then M, a convolution, linear or addmm reading D with a weight folded from a constant int8
  // weight's dequantize_per_channel.out (through the transpose an exported linear puts before
  // its addmm), then optionally an activation A (Y to R), then quantize_per_tensor.out(R) into
  // Q. M becomes one int8 call reading XQ and writing Q (Int8ConvKernels, packed here into
  // FoldMemory), and D, A and the quantize never run. Conditions: int8 and Float tensors as
  // int8_fusion.h says, static shapes, every number argument a value no instruction writes; D,
  // Y and R each written by one call and read by the next link alone, none a method input or
  // output nor read by a view; Q written by the quantize alone and read after it; the method
  // has no jumps; nothing writes XQ's bytes between d and M (M now reads them), and nothing
  // touches Q's bytes from M to the quantize (M now writes them); Q may share XQ's bytes only
  // where the kernels read what they overwrite first (Int8ConvKernels::run). A dequantize ->
  // activation -> quantize with Q's parameters after it is taken too (requantized_activation).
  void fuse_int8_chains() {
    const Int8ConvKernels* kernels = int8_conv_kernels();
    if (kernels == nullptr || first_jump_ != method_.num_steps_) return;
    for (size_t c = 0, begin = 0; c < method_.num_chains_; begin = method_.chain_ends_[c++]) {
      for (size_t s = begin; s < method_.chain_ends_[c]; ++s) {
        fuse_int8(*kernels, s, begin, method_.chain_ends_[c]);
      }
    }
  }

  const char* op_of(const Method::Step& step) const { return method_.op_names_[step.op_index]; }
  bool plain_call(const Method::Step& step) const {
    return step.kind == StepKind::Kernel && !step.folded && !step.merged && !step.fused &&
           !step.clamps && step.int8 == nullptr;
  }
  // Every argument of `step` but those in `skip` is a value no instruction writes.
  bool fixed_arguments(const Method::Step& step, std::initializer_list<size_t> skip) const {
    for (size_t q = 0; q < step.stack.size(); ++q) {
      if (std::find(skip.begin(), skip.end(), q) != skip.end()) continue;
      if (!is_value(step.stack[q]) || !constant_ready(index_of(step.stack[q]))) return false;
    }
    return true;
  }
  // Value v is written by step `writer` alone and read by step `reader` alone, once among its
  // arguments, and is no method input or output.
  bool links(uint32_t v, size_t writer, size_t reader) const {
    const ValueState& value = state_[v];
    if ((value.flags & (kInput | kOutput)) || value.writers != 1 || value.last_writer != writer ||
        value.first_read != reader || value.last_read != reader) {
      return false;
    }
    size_t uses = 0;
    for (EValue* argument : method_.steps_[reader].stack) uses += index_of(argument) == v ? 1 : 0;
    return uses == 1;
  }
  // Value v's bytes, no longer written by step `writer`, are read by no view while they would
  // have held its result (view_reads_result).
  bool unread_by_views(uint32_t v, size_t writer) const {
    Bytes bytes;
    return !placement(v, &bytes) || !view_reads_result(bytes, static_cast<uint32_t>(writer));
  }
  bool static_shape(uint32_t v) const {
    const auto* tensor = plan_value(v).val_as_Tensor();
    return tensor != nullptr && tensor->shape_dynamism() == pte_format::TensorShapeDynamism::STATIC;
  }

  // The int8 weight and scales that folded value w was dequantized from (transposed: through a
  // folded 2-D transpose), both constants of the program.
  bool int8_weight_source(uint32_t w, bool transposed, ChannelWeights* weights) const {
    // The transposed weight's source is released once folded (only its writer matters here).
    auto folded_writer = [&](uint32_t v, bool held) -> const Method::Step* {
      if ((held && !(state_[v].flags & kFolded)) || state_[v].writers != 1) return nullptr;
      const Method::Step& step = method_.steps_[state_[v].last_writer];
      return step.kind == StepKind::Kernel && step.folded ? &step : nullptr;
    };
    const Method::Step* step = folded_writer(w, true);
    if (step == nullptr) return false;
    if (transposed) {
      if (!is_transpose(op_of(*step), step->stack) || index_of(step->stack[2]) != w) return false;
      w = index_of(step->stack[0]);
      step = folded_writer(w, false);
      if (step == nullptr) return false;
    }
    return int8_weights_of(op_of(*step), step->stack, weights) &&
           index_of(step->stack[weights->out]) == w &&
           is_constant_tensor(index_of(step->stack[0])) &&
           is_constant_tensor(index_of(step->stack[1])) &&
           (step->stack[2]->isNone() || is_constant_tensor(index_of(step->stack[2])));
  }

  // Some step in (first, last) that runs, other than the `skipped` ones (to be merged), writes
  // (or, with `any_access`, touches) bytes overlapping `bytes`.
  bool touched_between(size_t first, size_t last, Span<const size_t> skipped, const Bytes& bytes,
                       bool any_access) const {
    bool touched = false;
    for (size_t u = first + 1; u < last && !touched; ++u) {
      // Folded calls and those merged into an int8 call never run.
      if (method_.steps_[u].folded || method_.steps_[u].merged ||
          std::find(skipped.begin(), skipped.end(), u) != skipped.end()) {
        continue;
      }
      visit_accesses(u, [&](uint32_t v, bool, bool written) {
        if ((written || any_access) && touches(v, bytes)) touched = true;
      });
    }
    return touched;
  }

  // An int8 chain's quantize at step q writing `result`, followed by dequantize -> relu /
  // hardtanh / clamp -> quantize with the same parameters (PT2E quantizes an activation's out
  // as its input): that quantize's out (*next at step *next_q) equals `result` clamped to the
  // activation's quantized bounds (dequantizing and quantizing again with one scale gives the
  // same integer back), so the int8 call may write it, its range narrowed in `shape`. The three
  // steps go to `merged`.
  bool requantized_activation(uint32_t result, size_t q, size_t end, const PerTensorCall& out,
                              Int8ConvShape* shape, uint32_t* next, size_t* next_q,
                              size_t merged[3]) const {
    const size_t d = state_[result].first_read;
    if (d == kNever || d >= end || !links(result, q, d)) return false;
    const Method::Step& dequantize = method_.steps_[d];
    PerTensorCall in;
    if (!plain_call(dequantize) || !int8_dequantize_of(op_of(dequantize), dequantize.stack, &in) ||
        index_of(dequantize.stack[in.input]) != result ||
        !fixed_arguments(dequantize, {in.input, in.out}) || !same_grid(in, out)) {
      return false;
    }
    const uint32_t x = index_of(dequantize.stack[in.out]);
    const size_t t = state_[x].first_read;
    if (t == kNever || t >= end || !links(x, d, t)) return false;
    const Method::Step& a = method_.steps_[t];
    ActivationCall activation;
    if (!plain_call(a) || !activation_of(op_of(a), a.stack, &activation) ||
        index_of(a.stack[activation.self]) != x ||
        !fixed_arguments(a, {activation.self, activation.out})) {
      return false;
    }
    const uint32_t r = index_of(a.stack[activation.out]);
    const size_t q2 = state_[r].first_read;
    if (r == x || q2 == kNever || q2 >= end || !links(r, t, q2)) return false;
    const Method::Step& quantize = method_.steps_[q2];
    PerTensorCall again;
    if (!plain_call(quantize) || !int8_quantize_of(op_of(quantize), quantize.stack, &again) ||
        index_of(quantize.stack[again.input]) != r ||
        !fixed_arguments(quantize, {again.input, again.out}) || !same_grid(again, out)) {
      return false;
    }
    const uint32_t result2 = index_of(quantize.stack[again.out]);
    const ValueState& state = state_[result2];
    if ((state.flags & kInput) || state.writers != 1 || state.last_writer != q2 ||
        (state.first_read != kNever && state.first_read <= q2) || !static_shape(result2) ||
        !unread_by_views(result, q) || !unread_by_views(x, d) || !unread_by_views(r, t)) {
      return false;
    }
    Int8ConvShape narrowed = *shape;
    if (!narrow_to_clamp(activation.clamp, out, &narrowed.out_min, &narrowed.out_max)) {
      return false;
    }
    *shape = narrowed;
    *next = result2;
    *next_q = q2;
    merged[0] = d;
    merged[1] = t;
    merged[2] = q2;
    return true;
  }

  bool fuse_int8(const Int8ConvKernels& kernels, size_t s, size_t begin, size_t end) {
    Method::Step& mm = method_.steps_[s];
    MatmulCall call;
    if (!plain_call(mm) || !int8_matmul_of(op_of(mm), mm.stack, &call) ||
        !fixed_arguments(mm, {call.input, call.weight, call.bias, call.out})) {
      return false;
    }
    // The dequantize before it.
    const uint32_t x = index_of(mm.stack[call.input]);
    const size_t d = state_[x].last_writer;
    if (state_[x].writers != 1 || d < begin || d >= s || !links(x, d, s)) return false;
    Method::Step& dequantize = method_.steps_[d];
    PerTensorCall in;
    if (!plain_call(dequantize) || !int8_dequantize_of(op_of(dequantize), dequantize.stack, &in) ||
        index_of(dequantize.stack[in.out]) != x ||
        !fixed_arguments(dequantize, {in.input, in.out})) {
      return false;
    }
    const uint32_t xq = index_of(dequantize.stack[in.input]);
    // The weight and the bias: constants, or results folded from them.
    ChannelWeights weights;
    const uint32_t w = index_of(mm.stack[call.weight]);
    if (!int8_weight_source(w, call.weight_transposed, &weights)) return false;
    const Tensor& weight = *weights.weight;
    const Tensor& folded_weight = method_.values_[w].toTensor();
    if (weight.numel() != folded_weight.numel() || weight.size(0) != call.shape.out_channels) {
      return false;
    }
    const float* bias = nullptr;
    if (call.bias != kNoBias) {
      const uint32_t b = index_of(mm.stack[call.bias]);
      if (!constant_ready(b)) return false;
      bias = method_.values_[b].toTensor().const_data_ptr<float>();
      for (int64_t c = 0; c < call.shape.out_channels; ++c) {
        if (!std::isfinite(bias[c])) return false;  // the float chain's NaN and inf stay its own
      }
    }
    // The activation and the quantize after it.
    const uint32_t y = index_of(mm.stack[call.out]);
    const size_t t = state_[y].first_read;
    if (t == kNever || t >= end || !links(y, s, t)) return false;
    size_t activation_step = kNever;
    ActivationCall activation;
    uint32_t r = y;
    size_t q = t;
    if (activation_of(op_of(method_.steps_[t]), method_.steps_[t].stack, &activation)) {
      const Method::Step& a = method_.steps_[t];
      if (!plain_call(a) || index_of(a.stack[activation.self]) != y ||
          !fixed_arguments(a, {activation.self, activation.out})) {
        return false;
      }
      activation_step = t;
      r = index_of(a.stack[activation.out]);
      q = state_[r].first_read;
      if (r == y || q == kNever || q >= end || !links(r, t, q)) return false;
    }
    Method::Step& quantize = method_.steps_[q];
    PerTensorCall out;
    if (!plain_call(quantize) || !int8_quantize_of(op_of(quantize), quantize.stack, &out) ||
        index_of(quantize.stack[out.input]) != r ||
        !fixed_arguments(quantize, {out.input, out.out})) {
      return false;
    }
    const uint32_t result = index_of(quantize.stack[out.out]);
    const ValueState& result_state = state_[result];
    if ((result_state.flags & kInput) || result_state.writers != 1 ||
        result_state.last_writer != q ||
        (result_state.first_read != kNever && result_state.first_read <= q)) {
      return false;
    }
    // Shapes, and where the bytes are.
    // (A view reading Q's bytes between M and the quantize is refused with the other accesses
    // there, below.)
    if (!static_shape(xq) || !static_shape(result) || !unread_by_views(x, d) ||
        !unread_by_views(y, s) || (r != y && !unread_by_views(r, t))) {
      return false;
    }
    // The int8 call.
    Int8ConvShape shape = call.shape;
    shape.input_scale = in.scale;
    shape.input_zero_point = in.zero_point;
    shape.output_scale = out.scale;
    shape.output_zero_point = out.zero_point;
    shape.out_min = out.quant_min;
    shape.out_max = out.quant_max;
    if (activation_step != kNever &&
        !narrow_to_clamp(activation.clamp, out, &shape.out_min, &shape.out_max)) {
      return false;
    }
    // The steps merged into it, and a requantized activation after its quantize.
    size_t merged[6] = {d, q, activation_step, 0, 0, 0};
    size_t num_merged = activation_step != kNever ? 3 : 2;
    uint32_t final_result = result;
    size_t final_q = q;
    if (requantized_activation(result, q, end, out, &shape, &final_result, &final_q,
                               merged + num_merged)) {
      num_merged += 3;
    }
    const Span<const size_t> skipped(merged, num_merged);
    Bytes result_bytes, xq_bytes;
    if (!placement(final_result, &result_bytes)) return false;
    if (placement(xq, &xq_bytes)) {
      // The plan may give Q the bytes of XQ, dead after the dequantize: the kernels read all of
      // XQ before they write Q when it is a linear's or one image's (Int8ConvKernels::run).
      const Tensor& input = method_.values_[xq].toTensor();
      const Tensor& output = method_.values_[final_result].toTensor();
      const bool one_image = input.dim() == 4 && input.size(0) == 1;
      // Or the out starts where XQ does and is no larger: the convolutions read each image (a
      // depthwise one each channel) before they write it, in order.
      const bool reads_first =
          call.shape.linear || (!call.shape.depthwise && one_image) ||
          (result_bytes.begin == xq_bytes.begin && output.numel() <= input.numel());
      if ((touches(final_result, xq_bytes) && !reads_first) ||
          touched_between(d, s, skipped, xq_bytes, false)) {
        return false;
      }
    } else if (state_[xq].writers != 0 ||
               (!(state_[xq].flags & kInput) && !is_constant_tensor(xq))) {
      return false;
    }
    if (touched_between(s, final_q, skipped, result_bytes, true)) return false;
    if (!plan_int8(kernels, shape, weights, bias, &mm.int8_plan)) return false;
    mm.int8 = &kernels;
    mm.a = static_cast<int32_t>(xq);
    mm.b = static_cast<int32_t>(final_result);
    // Later analyses see what the call now reads and writes.
    mm.stack[call.input] = &method_.values_[xq];
    mm.stack[call.out] = &method_.values_[final_result];
    for (size_t i = 0; i < num_merged; ++i) method_.steps_[merged[i]].merged = true;
    for (uint32_t v : {x, y, r}) {
      state_[v].writers = 0;
      state_[v].first_read = state_[v].last_read = kNever;
    }
    if (final_result != result) {  // (the requantized activation's values, likewise)
      state_[result].writers = 0;
      state_[result].first_read = state_[result].last_read = kNever;
    }
    state_[xq].last_read = std::max<uint32_t>(state_[xq].last_read, static_cast<uint32_t>(s));
    state_[final_result].last_writer = static_cast<uint32_t>(s);
    ++method_.fold_report_.fused_int8;
    return true;
  }

  // Packs the int8 call's weights into FoldMemory (counted in the fold report's bytes); false
  // when the kernels cannot run `shape` or the memory has no room.
  bool plan_int8(const Int8ConvKernels& kernels, const Int8ConvShape& shape,
                 const ChannelWeights& weights, const float* bias, const void** plan) {
    const size_t bytes = kernels.plan_bytes(shape);
    if (bytes == 0) return false;
    const Tensor& scales = *weights.scales;
    const size_t channels = static_cast<size_t>(scales.numel());
    // The dequantize kernel multiplies by each scale as a float.
    float* float_scales = nullptr;
    if (scales.scalar_type() == ScalarType::Double) {
      float_scales = static_cast<float*>(memory_.allocate(channels * sizeof(float), 64));
      if (float_scales == nullptr) return false;
      const double* from = scales.const_data_ptr<double>();
      for (size_t c = 0; c < channels; ++c) float_scales[c] = static_cast<float>(from[c]);
    }
    void* block = memory_.allocate(bytes, kFoldedAlignment);
    if (block != nullptr) {
      const float* scale_data =
          float_scales != nullptr ? float_scales : scales.const_data_ptr<float>();
      kernels.plan(shape, {weights.weight->const_data_ptr<int8_t>(), scale_data, bias}, block);
      hold(bytes);
      method_.fold_report_.bytes += bytes;
      *plan = block;
    }
    if (float_scales != nullptr) memory_.release(float_scales);
    return block != nullptr;
  }

  // Two values in FoldMemory, the weight and bias `fold` computes, or nullptr when the memory
  // has no room for them.
  EValue* fold_parameters(const BatchNormFold& fold) {
    const Tensor& weight = *fold.weight;
    const Tensor& mean = *fold.mean;
    const size_t weight_bytes = weight.nbytes(), bias_bytes = mean.nbytes();
    const size_t header = 2 * sizeof(EValue) + 2 * sizeof(TensorImpl);
    const size_t offset = (header + kFoldedAlignment - 1) / kFoldedAlignment * kFoldedAlignment;
    const size_t bias_offset = offset + (weight_bytes + 63) / 64 * 64;
    const size_t total = bias_offset + bias_bytes;
    auto* block = static_cast<char*>(memory_.allocate(total, kFoldedAlignment));
    if (block == nullptr) return nullptr;
    hold(total);
    method_.fold_report_.bytes += total;
    char* weight_data = block + offset;
    char* bias_data = block + bias_offset;
    fold_batch_norm(fold, weight_data, bias_data);
    // The shapes' arrays are the weight's and the mean's, which live as long as the method.
    auto* impls = reinterpret_cast<TensorImpl*>(block + 2 * sizeof(EValue));
    const TensorImpl& w = *weight.unsafeGetTensorImpl();
    const TensorImpl& m = *mean.unsafeGetTensorImpl();
    new (&impls[0])
        TensorImpl(weight.scalar_type(), w.dim(), const_cast<SizesType*>(w.sizes().data()),
                   weight_data, const_cast<DimOrderType*>(w.dim_order().data()),
                   const_cast<StridesType*>(w.strides().data()));
    new (&impls[1])
        TensorImpl(mean.scalar_type(), m.dim(), const_cast<SizesType*>(m.sizes().data()), bias_data,
                   const_cast<DimOrderType*>(m.dim_order().data()),
                   const_cast<StridesType*>(m.strides().data()));
    auto* values = reinterpret_cast<EValue*>(block);
    new (&values[0]) EValue(Tensor(&impls[0]));
    new (&values[1]) EValue(Tensor(&impls[1]));
    return values;
  }

  // The plan put R on bytes P reads (its dead input, typically): R moves onto O's bytes
  // instead, when nothing else touches them while R lives (A at step t, to R's last read, or
  // to the end for an output) and no view reads R's planned bytes while they would have held
  // R (view_reads_result). P keeps writing O, and A runs
  // (or is skipped) in place. Programs that jump are left alone: their order of steps is not
  // the order of the run.
  bool can_move_onto(uint32_t r, uint32_t o, const Bytes& o_bytes, size_t t) const {
    if (first_jump_ != method_.num_steps_ || moved_ == nullptr) return false;
    const ValueState& value = state_[r];
    if (value.writers != 1 || value.last_writer != t) return false;
    const auto& result = *plan_value(r).val_as_Tensor();
    if (is_constant(result) || has_initial_data(result)) return false;
    Bytes r_bytes;
    // R's planned bytes are no longer written at t.
    if (!placement(r, &r_bytes) || view_reads_result(r_bytes, static_cast<uint32_t>(t))) {
      return false;
    }
    size_t end = value.last_read == kNever ? t : value.last_read;
    if (value.flags & kOutput) end = method_.num_steps_ - 1;
    if (end - t > kMaxMoveSteps) return false;  // bounds the load's work
    bool clear = true;
    for (size_t u = t + 1; u <= end && clear; ++u) {
      if (u == value.last_read && in_place_activation(u, r, o_bytes)) continue;
      visit_accesses(u, [&](uint32_t v, bool, bool) {
        if (v != r && v != o && touches(v, o_bytes)) clear = false;
      });
    }
    return clear;
  }
  // Step u is an activation reading r and writing a tensor of r's layout on exactly `bytes`
  // (memory planning's in-place relu after a batch norm): once r is there, it runs in place.
  bool in_place_activation(size_t u, uint32_t r, const Bytes& bytes) const {
    const Method::Step& step = method_.steps_[u];
    ActivationCall activation;
    if (step.kind != StepKind::Kernel ||
        !activation_of(method_.op_names_[step.op_index], step.stack, &activation)) {
      return false;
    }
    const uint32_t out = index_of(step.stack[activation.out]);
    Bytes out_bytes;
    if (index_of(step.stack[activation.self]) != r || !same_layout(r, out) ||
        !placement(out, &out_bytes) || !(out_bytes == bytes)) {
      return false;
    }
    // Its other arguments are scalars (activation_of), which touch no bytes.
    return true;
  }
  void move_onto(uint32_t r, uint32_t o, const Bytes& o_bytes) {
    // O's bytes as they are now: O may itself have moved (a batch norm's out0).
    const TensorImpl& from = *method_.values_[o].toTensor().unsafeGetTensorImpl();
    TensorImpl& impl = *method_.values_[r].toTensor().unsafeGetTensorImpl();
    impl.set_storage(from.mutable_data(), from.nbytes());
    moved_[r] = o_bytes;
  }

  // Tensors o and r hold the same dtype, sizes and dim order.
  bool same_layout(uint32_t o, uint32_t r) const {
    if (!method_.values_[o].isTensor() || !method_.values_[r].isTensor()) return false;
    const Tensor& x = method_.values_[o].toTensor();
    const Tensor& y = method_.values_[r].toTensor();
    return x.scalar_type() == y.scalar_type() && x.sizes().equals(y.sizes()) &&
           x.dim_order().equals(y.dim_order());
  }
  // Value v is a planned tensor on some of `bytes`, or is the tensor there.
  bool touches(uint32_t v, const Bytes& bytes) const {
    Bytes own;
    if (!placement(v, &own)) return false;
    return own.arena == bytes.arena && own.begin < bytes.end && bytes.begin < own.end;
  }
  // A view on some of `bytes` is read, or is a method output.
  bool view_reads(const Bytes& bytes) const {
    for (size_t i = 0; i < num_views_; ++i) {
      const View& view = views_[i];
      if (view.bytes.arena != bytes.arena || view.bytes.begin >= bytes.end ||
          bytes.begin >= view.bytes.end) {
        continue;
      }
      const ValueState& value = state_[view.value];
      if (value.first_read != kNever || (value.flags & kOutput)) return true;
    }
    return false;
  }

  static constexpr size_t kFoldedAlignment = 64;
  static constexpr size_t kMaxScratch = 11;

  const pte_format::ExecutionPlan& plan_;
  const MethodMemory& method_memory_;  // its arenas
  Method& method_;
  FoldMemory& memory_;
  ValueState* state_ = nullptr;
  uint32_t* outputs_ = nullptr;  // the tensors the call being folded writes
  size_t num_outputs_ = 0;
  View* views_ = nullptr;
  size_t num_views_ = 0;
  // The bytes of the inputs set_input copies (a view on them reads the caller's input), sorted.
  Bytes* copied_inputs_ = nullptr;
  size_t num_copied_inputs_ = 0;
  Bytes* groups_ = nullptr;
  uint32_t* group_begin_ = nullptr;
  uint32_t* group_end_ = nullptr;
  uint32_t* group_writes_ = nullptr;
  size_t num_groups_ = 0;
  size_t first_jump_ = 0;
  void* scratch_[kMaxScratch] = {};
  size_t num_scratch_ = 0;
  size_t held_ = 0;  // bytes of folded results held now
  bool fold_ = false;
  bool* landing_ = nullptr;  // per step: a jump lands on it (find_landings)
  Bytes* moved_ = nullptr;   // per value: the bytes fusion moved it onto (arena 0: none)
  static constexpr size_t kMaxMoveSteps = 4096;
};

Error optimize_at_load(Method& method, const pte_format::ExecutionPlan& plan,
                       const MethodMemory& memory, ThreadPool* pool, bool fold, bool fuse) {
  return ConstantFolder(plan, memory, method, *memory.folded).run(pool, fold, fuse);
}

}  // namespace kiln
