#include "runtime/executor/method.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>

#include "runtime/core/dim_order.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/kernel_fallback.h"
#include "runtime/executor/limits.h"
#include "runtime/executor/load_optimizer.h"
#include "runtime/executor/method_step.h"
#include "runtime/executor/prim_ops.h"
#include "runtime/executor/program_generated.h"
#include "runtime/executor/stored_tensor.h"
#include "runtime/executor/tensor_bytes.h"
#include "runtime/kernel/kernel_key.h"
#include "runtime/platform/clock.h"
#include "runtime/platform/last_error.h"

namespace kiln {

using pte_format::KernelTypes;

namespace {

// Operator names are stored once as "ns::op.overload"; request keys are truncated to this.
constexpr size_t kReportedKeyLength = 64;
constexpr size_t kAllocationSlack = 16;  // the metadata allocator's alignment

const char* kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::Kernel:
      return "KernelCall";
    case StepKind::Move:
      return "MoveCall";
    case StepKind::JumpFalse:
      return "JumpFalseCall";
    case StepKind::Free:
      return "FreeCall";
    case StepKind::Delegate:
      return "DelegateCall";
  }
  return "?";
}

size_t count_steps(const pte_format::ExecutionPlan& plan) {
  size_t steps = 0;
  if (plan.chains() == nullptr) return 0;
  for (const auto* chain : *plan.chains()) {
    if (chain->instructions() != nullptr) steps += chain->instructions()->size();
  }
  return steps;
}

size_t tensor_dim(const pte_format::Tensor& tensor) {
  return tensor.sizes() == nullptr ? 0 : tensor.sizes()->size();
}

}  // namespace

// Every allocation MethodBuilder makes, in the same order; metadata_bytes() is their sum.
size_t MethodMeta::metadata_bytes() const {
  size_t total = 0;
  auto add = [&total](size_t bytes) { total += bytes + kAllocationSlack; };
  const size_t values = plan_->values() == nullptr ? 0 : plan_->values()->size();
  add(values * sizeof(EValue));
  size_t int_lists = 0;
  for (size_t i = 0; i < values; ++i) {
    const auto* value = plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(i));
    switch (value->val_type()) {
      case KernelTypes::Tensor: {
        const size_t dim = tensor_dim(*value->val_as_Tensor());
        add(sizeof(TensorImpl));
        add(dim * sizeof(SizesType));
        add(dim * sizeof(DimOrderType));
        add(dim * sizeof(StridesType));
        break;
      }
      case KernelTypes::IntList: {
        const auto* items = value->val_as_IntList()->items();
        add((items ? items->size() : 0) * sizeof(int64_t));
        ++int_lists;
        break;
      }
      case KernelTypes::TensorList: {
        const auto* items = value->val_as_TensorList()->items();
        add((items ? items->size() : 0) * sizeof(Tensor));
        break;
      }
      case KernelTypes::OptionalTensorList: {
        const auto* items = value->val_as_OptionalTensorList()->items();
        add((items ? items->size() : 0) * sizeof(std::optional<Tensor>));
        break;
      }
      default:
        break;
    }
  }
  const size_t operators = num_operators();
  add(operators * sizeof(const char*));
  for (size_t i = 0; i < operators; ++i) {
    const auto* op = plan_->operators()->Get(static_cast<flatbuffers::uoffset_t>(i));
    add(op->name()->size() + (op->overload() ? op->overload()->size() : 0) + 2);
  }
  add(operators * sizeof(OperatorRequest));
  add(operators * kReportedKeyLength);
  const size_t chains = plan_->chains() == nullptr ? 0 : plan_->chains()->size();
  add(chains * sizeof(uint32_t));
  add(count_steps(*plan_) * sizeof(Method::Step));
  add(num_inputs() * sizeof(bool));
  add(values * sizeof(bool));
  add(values * sizeof(bool));  // variable Ints
  add(int_lists * sizeof(Method::RuntimeIntList));
  add(num_inputs() * sizeof(SizesType*));
  for (size_t i = 0; i < num_inputs(); ++i) {
    const auto* value = plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(
        plan_->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i))));
    const auto* tensor = value->val_as_Tensor();
    if (tensor != nullptr) add(tensor_dim(*tensor) * sizeof(SizesType));
  }
  if (plan_->chains() != nullptr) {
    for (const auto* chain : *plan_->chains()) {
      if (chain->instructions() == nullptr) continue;
      for (const auto* instruction : *chain->instructions()) {
        const auto* call = instruction->instr_args_as_KernelCall();
        if (call != nullptr && call->args() != nullptr) add(call->args()->size() * sizeof(EValue*));
        const auto* delegate = instruction->instr_args_as_DelegateCall();
        if (delegate != nullptr) {
          add((delegate->args() ? delegate->args()->size() : 0) * sizeof(EValue*));
          add(sizeof(DelegateHandles::Entry));
        }
      }
    }
  }
  return total;
}

std::string_view MethodMeta::name() const { return plan_->name()->string_view(); }
size_t MethodMeta::num_inputs() const { return plan_->inputs() ? plan_->inputs()->size() : 0; }
size_t MethodMeta::num_outputs() const { return plan_->outputs() ? plan_->outputs()->size() : 0; }
size_t MethodMeta::num_memory_arenas() const {
  const auto* sizes = plan_->non_const_buffer_sizes();
  return sizes == nullptr || sizes->size() == 0 ? 0 : sizes->size() - 1;
}
size_t MethodMeta::arena_size(size_t arena) const {
  return static_cast<size_t>(
      plan_->non_const_buffer_sizes()->Get(static_cast<flatbuffers::uoffset_t>(arena + 1)));
}
size_t MethodMeta::num_instructions() const { return count_steps(*plan_); }
size_t MethodMeta::num_operators() const {
  return plan_->operators() == nullptr ? 0 : plan_->operators()->size();
}

// Builds a Method's tables in its metadata memory. The plan passed check_plan at Program::load,
// so indices, tags and sizes need no checks here.
bool is_out_overload(const char* overload) {
  if (overload == nullptr) return false;
  const size_t length = std::strlen(overload);
  return std::strcmp(overload, ".out") == 0 ||
         (length > 4 && std::strcmp(overload + length - 4, "_out") == 0);
}

void mark_written(const char* name, Span<EValue*> stack, const Kernel& kernel, bool* written) {
  const size_t size = stack.size();
  const size_t arguments = kernel.arguments < size ? kernel.arguments : size;
  for (size_t p = arguments; p < size; ++p) written[p] = true;
  const char* overload = std::strchr(name, '.');
  const size_t base = overload == nullptr ? std::strlen(name) : size_t(overload - name);
  if (kernel.writes != kUnknownWrites) {
    for (size_t p = 0; p < arguments && p < 64; ++p) written[p] = (kernel.writes >> p) & 1u;
  } else {
    const bool in_place = base > 0 && name[base - 1] == '_';
    if (is_out_overload(overload) && kernel.return_slots == 0 && arguments > 0) {
      written[arguments - 1] = true;
    }
    if (in_place && size > 0) written[0] = true;
  }
  for (size_t p = 0; p < size; ++p) {
    if (written[p]) continue;
    for (size_t q = 0; q < size && !written[p]; ++q) {
      written[p] = written[q] && q != p && stack[q] == stack[p] && q >= arguments;
    }
  }
}

class MethodBuilder {
 public:
  MethodBuilder(const Program& program, const pte_format::ExecutionPlan& plan,
                const MethodMemory& memory, ArrayRef<Backend> backends)
      : program_(program),
        plan_(plan),
        memory_(memory),
        backends_(backends),
        allocator_(memory.metadata.data(), memory.metadata.size()) {}

  Error build(Method& method, MissingReport* missing, const LoadOptions& options) {
    method.ctx_ = KernelRuntimeContext(memory_.temp);
    method.first_backend_ = backends_.size() > 0 ? backends_[0] : Backend{};
    method.name_ = plan_.name()->c_str();
    KILN_RETURN_IF_ERROR(check_arenas());
    KILN_RETURN_IF_ERROR(build_operator_names(method));
    KILN_RETURN_IF_ERROR(mark_variable_ints(method));
    KILN_RETURN_IF_ERROR(build_values(method));
    KILN_RETURN_IF_ERROR(build_steps(method));
    KILN_RETURN_IF_ERROR(resolve_kernels(method, missing));
    KILN_RETURN_IF_ERROR(init_delegates(method, options));
    // Every check above has passed: only now may a kernel run on the program's values.
    const bool fold = options.fold_constants, fuse = options.fuse;
    if (!(fold || fuse) || memory_.folded == nullptr) return Error::Ok;
    return optimize_at_load(method, plan_, memory_, options.thread_pool, fold, fuse);
  }

 private:
  template <typename T>
  T* allocate(size_t count) {
    void* memory = allocator_.allocate(count * sizeof(T), kAllocationSlack);
    if (memory == nullptr) {
      KILN_SET_ERROR(
          "method '%s': the metadata memory (%zu bytes) is too small; give "
          "MethodMeta::metadata_bytes() bytes",
          plan_.name()->c_str(), memory_.metadata.size());
    }
    return static_cast<T*>(memory);
  }

  Error check_arenas() {
    const MethodMeta meta = *program_.method_meta(plan_.name()->string_view());
    if (memory_.arenas.size() < meta.num_memory_arenas()) {
      KILN_SET_ERROR("method '%s': the program plans %zu memory arenas, %zu were given",
                     plan_.name()->c_str(), meta.num_memory_arenas(), memory_.arenas.size());
      return Error::InvalidArgument;
    }
    for (size_t i = 0; i < meta.num_memory_arenas(); ++i) {
      if (memory_.arenas[i].size() < meta.arena_size(i)) {
        KILN_SET_ERROR("method '%s': memory arena %zu has %zu bytes, the program needs %zu",
                       plan_.name()->c_str(), i, memory_.arenas[i].size(), meta.arena_size(i));
        return Error::InvalidArgument;
      }
      // Buffers the program mutates start from zeros unless it stores their initial data.
      if (meta.arena_size(i) > 0) std::memset(memory_.arenas[i].data(), 0, meta.arena_size(i));
    }
    return Error::Ok;
  }

  // The Int values a run may change, which int lists must be re-read for: method inputs, the
  // results of prim operators (sym_size.int, the executorch_prim:: arithmetic) and the
  // destinations of moves. Also makes room for the runtime int lists.
  Error mark_variable_ints(Method& method) {
    const size_t count = plan_.values() == nullptr ? 0 : plan_.values()->size();
    variable_ints_ = allocate<bool>(count);
    if (variable_ints_ == nullptr && count > 0) return Error::InvalidArgument;
    size_t int_lists = 0;
    for (size_t i = 0; i < count; ++i) {
      variable_ints_[i] = false;
      const auto* value = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (value->val_type() == KernelTypes::IntList) ++int_lists;
    }
    method.runtime_lists_ = allocate<Method::RuntimeIntList>(int_lists);
    if (method.runtime_lists_ == nullptr && int_lists > 0) return Error::InvalidArgument;
    if (plan_.inputs() != nullptr) {
      for (int32_t input : *plan_.inputs()) variable_ints_[input] = true;
    }
    if (plan_.chains() == nullptr) return Error::Ok;
    for (const auto* chain : *plan_.chains()) {
      if (chain->instructions() == nullptr) continue;
      for (const auto* instruction : *chain->instructions()) {
        // (Indices were verified with the program.)
        if (const auto* move = instruction->instr_args_as_MoveCall()) {
          variable_ints_[move->move_to()] = true;
        }
        const auto* call = instruction->instr_args_as_KernelCall();
        if (call == nullptr || call->args() == nullptr || call->args()->size() == 0) continue;
        const Kernel* prim = find_prim_op(method.op_names_[call->op_index()]);
        if (prim != nullptr && prim_op_returns_scalar(*prim)) {
          variable_ints_[call->args()->Get(call->args()->size() - 1)] = true;
        }
      }
    }
    return Error::Ok;
  }

  Error build_values(Method& method) {
    const size_t count = plan_.values() == nullptr ? 0 : plan_.values()->size();
    method.values_ = allocate<EValue>(count);
    if (method.values_ == nullptr && count > 0) return Error::InvalidArgument;
    method.num_values_ = count;
    for (size_t i = 0; i < count; ++i) new (&method.values_[i]) EValue();
    // Scalars and tensors first: the lists refer to them.
    for (size_t pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < count; ++i) {
        const auto* value = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(i));
        const bool is_list = value->val_type() == KernelTypes::IntList ||
                             value->val_type() == KernelTypes::TensorList ||
                             value->val_type() == KernelTypes::OptionalTensorList;
        if (is_list != (pass == 1)) continue;
        KILN_RETURN_IF_ERROR(build_value(method, *value, method.values_[i]));
      }
    }
    method.inputs_ = plan_.inputs() ? plan_.inputs()->data() : nullptr;
    method.num_inputs_ = plan_.inputs() ? plan_.inputs()->size() : 0;
    method.outputs_ = plan_.outputs() ? plan_.outputs()->data() : nullptr;
    method.num_outputs_ = plan_.outputs() ? plan_.outputs()->size() : 0;
    KILN_RETURN_IF_ERROR(record_input_bounds(method));
    return mark_copied_inputs(method);
  }

  // A dynamic input's sizes in the program are its bounds: kept, since set_input resizes it.
  Error record_input_bounds(Method& method) {
    auto** bounds = allocate<SizesType*>(method.num_inputs_);
    if (bounds == nullptr && method.num_inputs_ > 0) return Error::InvalidArgument;
    for (size_t i = 0; i < method.num_inputs_; ++i) {
      bounds[i] = nullptr;
      const EValue& input = method.values_[method.inputs_[i]];
      if (!input.isTensor()) continue;
      const TensorImpl& impl = *input.toTensor().unsafeGetTensorImpl();
      SizesType* sizes = allocate<SizesType>(impl.dim());
      if (sizes == nullptr && impl.dim() > 0) return Error::InvalidArgument;
      if (impl.shape_dynamism() == TensorShapeDynamism::Static) continue;
      for (size_t d = 0; d < impl.dim(); ++d) sizes[d] = impl.sizes()[d];
      bounds[i] = sizes;
    }
    method.input_bounds_ = bounds;
    return Error::Ok;
  }

  // An input planned on bytes that another value also uses (a view left on the input's bytes,
  // or memory the plan reuses) is copied into its planned bytes at set_input; any other input
  // is bound in place, without a copy.
  Error mark_copied_inputs(Method& method) {
    bool* copied = allocate<bool>(method.num_inputs_);
    if (copied == nullptr && method.num_inputs_ > 0) return Error::InvalidArgument;
    for (size_t i = 0; i < method.num_inputs_; ++i) {
      const EValue& input = method.values_[method.inputs_[i]];
      copied[i] = input.isTensor() && shares_bytes(method, static_cast<size_t>(method.inputs_[i]));
    }
    method.copied_inputs_ = copied;
    return Error::Ok;
  }

  static bool shares_bytes(const Method& method, size_t index) {
    const Tensor& tensor = method.values_[index].toTensor();
    const auto* begin = static_cast<const uint8_t*>(tensor.const_data_ptr());
    if (begin == nullptr || tensor.nbytes() == 0) return false;
    const uint8_t* end = begin + tensor.nbytes();
    for (size_t v = 0; v < method.num_values_; ++v) {
      if (v == index || !method.values_[v].isTensor()) continue;
      const Tensor& other = method.values_[v].toTensor();
      const auto* other_begin = static_cast<const uint8_t*>(other.const_data_ptr());
      if (other_begin == nullptr || other.nbytes() == 0) continue;
      if (other_begin < end && begin < other_begin + other.nbytes()) return true;
    }
    return false;
  }

  Error build_value(Method& method, const pte_format::EValue& value, EValue& out) {
    switch (value.val_type()) {
      case KernelTypes::Int:
        out = EValue(static_cast<int64_t>(value.val_as_Int()->int_val()));
        return Error::Ok;
      case KernelTypes::Bool:
        out = EValue(value.val_as_Bool()->bool_val());
        return Error::Ok;
      case KernelTypes::Double:
        out = EValue(value.val_as_Double()->double_val());
        return Error::Ok;
      case KernelTypes::String: {
        const auto* text = value.val_as_String()->string_val();
        out = EValue(text == nullptr ? std::string_view() : text->string_view());
        return Error::Ok;
      }
      case KernelTypes::DoubleList: {
        const auto* items = value.val_as_DoubleList()->items();
        out = EValue(items == nullptr ? ArrayRef<double>()
                                      : ArrayRef<double>(items->data(), items->size()));
        return Error::Ok;
      }
      case KernelTypes::BoolList: {
        // Checked to hold only 0 and 1 bytes, which are valid bools.
        const auto* items = value.val_as_BoolList()->items();
        out = EValue(items == nullptr ? ArrayRef<bool>()
                                      : ArrayRef<bool>(reinterpret_cast<const bool*>(items->data()),
                                                       items->size()));
        return Error::Ok;
      }
      case KernelTypes::Tensor:
        return build_tensor(*value.val_as_Tensor(), out);
      case KernelTypes::IntList: {
        // Items are indices of Int values (ExecuTorch boxes them for symbolic sizes): read here,
        // and again during each run when one of them is variable.
        const auto* items = value.val_as_IntList()->items();
        const size_t n = items == nullptr ? 0 : items->size();
        int64_t* ints = allocate<int64_t>(n);
        if (ints == nullptr && n > 0) return Error::InvalidArgument;
        bool variable = false;
        for (size_t k = 0; k < n; ++k) {
          const int64_t item = items->Get(static_cast<flatbuffers::uoffset_t>(k));
          ints[k] = method.values_[item].toInt();
          variable = variable || variable_ints_[item];
        }
        if (variable) {
          method.runtime_lists_[method.num_runtime_lists_++] = {ints, items->data(), n};
        }
        out = EValue(ArrayRef<int64_t>(ints, n));
        return Error::Ok;
      }
      case KernelTypes::TensorList: {
        const auto* items = value.val_as_TensorList()->items();
        const size_t n = items == nullptr ? 0 : items->size();
        Tensor* tensors = allocate<Tensor>(n);
        if (tensors == nullptr && n > 0) return Error::InvalidArgument;
        for (size_t k = 0; k < n; ++k) {
          new (&tensors[k])
              Tensor(method.values_[items->Get(static_cast<flatbuffers::uoffset_t>(k))].toTensor());
        }
        out = EValue(ArrayRef<Tensor>(tensors, n));
        return Error::Ok;
      }
      case KernelTypes::OptionalTensorList: {
        const auto* items = value.val_as_OptionalTensorList()->items();
        const size_t n = items == nullptr ? 0 : items->size();
        auto* tensors = allocate<std::optional<Tensor>>(n);
        if (tensors == nullptr && n > 0) return Error::InvalidArgument;
        for (size_t k = 0; k < n; ++k) {
          const int32_t item = items->Get(static_cast<flatbuffers::uoffset_t>(k));
          const bool none = item < 0 || !method.values_[item].isTensor();
          new (&tensors[k]) std::optional<Tensor>(
              none ? std::nullopt : std::optional<Tensor>(method.values_[item].toTensor()));
        }
        out = EValue(ArrayRef<std::optional<Tensor>>(tensors, n));
        return Error::Ok;
      }
      default:
        out = EValue();
        return Error::Ok;
    }
  }

  Error build_tensor(const pte_format::Tensor& tensor, EValue& out) {
    char why[128];
    const TensorBytes bytes = *tensor_bytes(tensor, why, sizeof(why));
    auto* impl = allocate<TensorImpl>(1);
    auto* sizes = allocate<SizesType>(bytes.dim);
    auto* dim_order = allocate<DimOrderType>(bytes.dim);
    auto* strides = allocate<StridesType>(bytes.dim);
    if (impl == nullptr ||
        ((sizes == nullptr || dim_order == nullptr || strides == nullptr) && bytes.dim > 0)) {
      return Error::InvalidArgument;
    }
    for (size_t d = 0; d < bytes.dim; ++d) {
      const auto index = static_cast<flatbuffers::uoffset_t>(d);
      sizes[d] = tensor.sizes()->Get(index);
      dim_order[d] = tensor.dim_order()->Get(index);
    }
    (void)dim_order_to_strides({sizes, bytes.dim}, {dim_order, bytes.dim}, {strides, bytes.dim});
    void* data = nullptr;
    // Program::load found these bytes (an external tensor's in the data file) and checked them.
    if (const auto* allocation = tensor.allocation_info()) {
      const uint64_t offset = uint64_t{allocation->memory_offset_low()} |
                              uint64_t{allocation->memory_offset_high()} << 32;
      data = memory_.arenas[allocation->memory_id() - 1].data() + offset;
      if (has_initial_data(tensor)) {
        std::memcpy(data, program_.stored_bytes(tensor, data_keys_)->data, bytes.nbytes);
      }
    } else if (is_constant(tensor)) {
      // Constants are read-only: kernels take them as inputs only, and the program file (and
      // its data file) may be mapped read-only.
      data = const_cast<uint8_t*>(program_.stored_bytes(tensor, data_keys_)->data);
    }
    // Kiln resizes within the planned bytes; an unbound tensor has no memory to grow into.
    const auto dynamism = tensor.shape_dynamism() == pte_format::TensorShapeDynamism::STATIC
                              ? TensorShapeDynamism::Static
                              : TensorShapeDynamism::DynamicBound;
    new (impl) TensorImpl(static_cast<ScalarType>(tensor.scalar_type()), bytes.dim, sizes, data,
                          dim_order, strides, dynamism);
    out = EValue(Tensor(impl));
    return Error::Ok;
  }

  Error build_operator_names(Method& method) {
    const size_t count = plan_.operators() == nullptr ? 0 : plan_.operators()->size();
    auto** names = allocate<char*>(count);
    if (names == nullptr && count > 0) return Error::InvalidArgument;
    for (size_t i = 0; i < count; ++i) {
      const auto* op = plan_.operators()->Get(static_cast<flatbuffers::uoffset_t>(i));
      const size_t length = op->name()->size() + (op->overload() ? op->overload()->size() : 0) + 2;
      names[i] = allocate<char>(length);
      if (names[i] == nullptr) return Error::InvalidArgument;
      // An empty overload is the default one: "aten::copy_".
      const bool overloaded = op->overload() != nullptr && op->overload()->size() > 0;
      std::snprintf(names[i], length, "%s%s%s", op->name()->c_str(), overloaded ? "." : "",
                    overloaded ? op->overload()->c_str() : "");
    }
    method.op_names_ = names;
    method.num_operators_ = count;
    requests_ = allocate<OperatorRequest>(count);
    keys_ = allocate<char>(count * kReportedKeyLength);
    if ((requests_ == nullptr || keys_ == nullptr) && count > 0) return Error::InvalidArgument;
    for (size_t i = 0; i < count; ++i) {
      keys_[i * kReportedKeyLength] = '\0';
      requests_[i] = {names[i], &keys_[i * kReportedKeyLength], find_prim_op(names[i]) != nullptr};
    }
    num_operators_ = count;
    return Error::Ok;
  }

  Error build_steps(Method& method) {
    const size_t chains = plan_.chains() == nullptr ? 0 : plan_.chains()->size();
    auto* ends = allocate<uint32_t>(chains);
    const size_t count = count_steps(plan_);
    auto* steps = allocate<Method::Step>(count);
    if ((ends == nullptr && chains > 0) || (steps == nullptr && count > 0)) {
      return Error::InvalidArgument;
    }
    size_t s = 0;
    for (size_t c = 0; c < chains; ++c) {
      const auto* instructions =
          plan_.chains()->Get(static_cast<flatbuffers::uoffset_t>(c))->instructions();
      const size_t n = instructions == nullptr ? 0 : instructions->size();
      for (size_t k = 0; k < n; ++k, ++s) {
        Method::Step& step = *new (&steps[s]) Method::Step{};
        step.served = kNumBackends;
        KILN_RETURN_IF_ERROR(
            build_step(method, *instructions->Get(static_cast<flatbuffers::uoffset_t>(k)), step));
      }
      ends[c] = static_cast<uint32_t>(s);
    }
    method.steps_ = steps;
    method.num_steps_ = count;
    method.chain_ends_ = ends;
    method.num_chains_ = chains;
    return Error::Ok;
  }

  // A kernel or delegate call's arguments: pointers to the method's values, in order.
  Error bind_stack(Method& method, const flatbuffers::Vector<int32_t>* args, Method::Step& step) {
    const size_t n = args == nullptr ? 0 : args->size();
    EValue** stack = allocate<EValue*>(n);
    if (stack == nullptr && n > 0) return Error::InvalidArgument;
    for (size_t k = 0; k < n; ++k) {
      stack[k] = &method.values_[args->Get(static_cast<flatbuffers::uoffset_t>(k))];
    }
    step.stack = {stack, n};
    return Error::Ok;
  }

  Error build_step(Method& method, const pte_format::Instruction& instruction, Method::Step& step) {
    switch (instruction.instr_args_type()) {
      case pte_format::InstructionArguments::KernelCall: {
        const auto* call = instruction.instr_args_as_KernelCall();
        step.kind = StepKind::Kernel;
        step.op_index = static_cast<uint32_t>(call->op_index());
        return bind_stack(method, call->args(), step);
      }
      case pte_format::InstructionArguments::MoveCall:
        step.kind = StepKind::Move;
        step.a = instruction.instr_args_as_MoveCall()->move_from();
        step.b = instruction.instr_args_as_MoveCall()->move_to();
        return Error::Ok;
      case pte_format::InstructionArguments::JumpFalseCall:
        step.kind = StepKind::JumpFalse;
        step.a = instruction.instr_args_as_JumpFalseCall()->cond_value_index();
        step.b = instruction.instr_args_as_JumpFalseCall()->destination_instruction();
        return Error::Ok;
      case pte_format::InstructionArguments::DelegateCall: {
        const auto* call = instruction.instr_args_as_DelegateCall();
        step.kind = StepKind::Delegate;
        step.op_index = static_cast<uint32_t>(call->delegate_index());
        step.delegate_id = plan_.delegates()->Get(step.op_index)->id()->c_str();
        return bind_stack(method, call->args(), step);
      }
      default:  // FreeCall
        step.kind = StepKind::Free;
        step.a = instruction.instr_args_as_FreeCall()->value_index();
        return Error::Ok;
    }
  }

  // Finds each call's kernels, one per backend in preference order. A program's call (ExecuTorch's
  // layout) lists one value after the arguments for the operator's result: the return slot of
  // an in-place or functional op, and for out variants (the out tensor again, a list of them, or
  // None) a value the boxed stack has no slot for, which is dropped here.
  Error resolve_kernels(Method& method, MissingReport* missing) {
    is_input_ = allocate<bool>(method.num_values_);
    if (is_input_ == nullptr && method.num_values_ > 0) return Error::InvalidArgument;
    for (size_t i = 0; i < method.num_values_; ++i) is_input_[i] = false;
    for (size_t i = 0; i < method.num_inputs_; ++i) is_input_[method.inputs_[i]] = true;
    bool any_missing = false;
    for (size_t s = 0; s < method.num_steps_; ++s) {
      Method::Step& step = method.steps_[s];
      if (step.kind == StepKind::Move) {
        KILN_RETURN_IF_ERROR(check_move(s, step));
        step.updates_ints = true;
      }
      if (step.kind != StepKind::Kernel) continue;
      const char* name = method.op_names_[step.op_index];
      // Prim operators are the executor's own: no backend, never missing.
      const Kernel* prim = find_prim_op(name);
      Result<const Kernel*> any =
          prim != nullptr ? Result<const Kernel*>(prim) : first_named_kernel(name);
      step.updates_ints = prim != nullptr && prim_op_returns_scalar(*prim);
      if (any.ok()) KILN_RETURN_IF_ERROR(check_writes(method, s, step, **any));
      if (any.ok() && (*any)->return_slots == 0 &&
          step.stack.size() == size_t{(*any)->arguments} + 1) {
        step.stack = {step.stack.data(), step.stack.size() - 1};
        step.trimmed = true;
      }
      if (prim != nullptr) {
        const size_t takes = size_t{prim->arguments} + prim->return_slots;
        if (step.stack.size() != takes) {
          KILN_SET_ERROR(
              "method '%s': instruction %zu (%s) passes %zu values; the operator takes %zu",
              plan_.name()->c_str(), s, name, step.stack.size(), takes);
          return Error::InvalidProgram;
        }
        step.kernels[step.num_kernels++] = prim;
        continue;
      }
      for (Backend backend : backends_) {
        Result<const Kernel*> kernel =
            find_kernel_for_stack(name, step.stack, ArrayRef<Backend>(&backend, 1));
        if (kernel.ok()) step.kernels[step.num_kernels++] = *kernel;
      }
      if (step.num_kernels == 0) {
        any_missing = true;
        char* key = const_cast<char*>(requests_[step.op_index].key);
        if (key[0] == '\0' && any.ok() &&
            build_kernel_key(step.stack, key_, sizeof(key_)) == Error::Ok) {
          std::snprintf(key, kReportedKeyLength, "%.*s", static_cast<int>(kReportedKeyLength - 1),
                        key_);
        }
      }
    }
    if (!any_missing) return Error::Ok;
    Span<MissingOperator> entries = missing != nullptr ? missing->entries : Span<MissingOperator>();
    const size_t count = find_missing_operators({requests_, num_operators_}, backends_, entries);
    if (missing != nullptr) missing->count = count;
    KILN_SET_ERROR(
        "method '%s': %zu operator%s missing (see the \"Missing operator\" lines); "
        "build the program's runner with them (kiln_add_operator_library(... MODEL "
        "program.pte)) or choose other backends",
        plan_.name()->c_str(), count, count == 1 ? " is" : "s are");
    return Error::OperatorMissing;
  }

  // Initializes each DelegateCall's delegate on its payload (check_plan found it registered),
  // then holds its outputs to the write invariants, as a kernel call's. Handles are destroyed
  // with the Method, or here when the load fails after them.
  Error init_delegates(Method& method, const LoadOptions& options) {
    size_t calls = 0;
    for (size_t s = 0; s < method.num_steps_; ++s) {
      calls += method.steps_[s].kind == StepKind::Delegate ? 1 : 0;
    }
    if (calls == 0) return Error::Ok;
    auto* entries = allocate<DelegateHandles::Entry>(calls);
    if (entries == nullptr) return Error::InvalidArgument;
    method.delegates_ = DelegateHandles(entries, calls);
    for (size_t s = 0; s < method.num_steps_; ++s) {
      Method::Step& step = method.steps_[s];
      if (step.kind != StepKind::Delegate) continue;
      step.delegate = find_delegate(step.delegate_id);
      DelegateInitContext context(program_, plan_.delegates()->Get(step.op_index),
                                  plan_.name()->c_str(), s,
                                  program_.delegate_payload(plan_, step.op_index), step.stack,
                                  backends_, memory_.folded, options.thread_pool);
      Result<void*> handle = step.delegate->init(context);
      if (!handle.ok()) return handle.error();
      step.handle = *handle;
      method.delegates_.add(*step.delegate, step.handle);
      for (size_t p = 0; p < step.stack.size(); ++p) {
        if (!context.written(p)) continue;
        const auto index = static_cast<int32_t>(step.stack[p] - method.values_);
        KILN_RETURN_IF_ERROR(check_written(s, step.delegate_id, p, index, false));
      }
    }
    return Error::Ok;
  }

  // The write invariants (docs/programs.md, "Invariants"): no call writes a constant tensor, which
  // the program file holds (it may be mapped read-only, and a second run would see the first
  // one's writes), nor a method input, which set_input may bind to the caller's tensor in place;
  // an input is written only as the self of aten::copy_, ExecuTorch's write-back of an input the
  // program mutates. A call writes the values after the schema's arguments (return slots, and
  // for out variants the outs listed again), every argument that is one of those values, and the
  // arguments its kernel's writes mask names (the schema's Tensor(a!) arguments, wherever they
  // are in the signature); of lists, their tensors. A table without the mask (kUnknownWrites,
  // built by hand) gets the name rule instead: the last argument of an out overload ("out" or
  // "*_out": outs are the schema's trailing keyword arguments) and the self of an in-place
  // operator ("aten::add_").
  Error check_writes(const Method& method, size_t s, const Method::Step& step,
                     const Kernel& kernel) {
    const size_t size = step.stack.size();
    if (kernel.arguments == 0 && size > 0) return Error::Ok;  // a table without the schema's count
    bool written[kMaxCallArguments] = {};
    const char* name = method.op_names_[step.op_index];
    mark_written(name, step.stack, kernel, written);
    const char* overload = std::strchr(name, '.');
    const size_t base = overload == nullptr ? std::strlen(name) : size_t(overload - name);
    const bool copy_back =
        base == std::strlen("aten::copy_") && std::strncmp(name, "aten::copy_", base) == 0;
    for (size_t p = 0; p < size; ++p) {
      bool seen = false;  // a value is examined once, however often the call names it
      for (size_t q = 0; q < p && !seen; ++q) seen = written[q] && step.stack[q] == step.stack[p];
      if (!written[p] || seen) continue;
      const auto index = static_cast<int32_t>(step.stack[p] - method.values_);
      const auto* value = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index));
      const flatbuffers::Vector<int32_t>* items = nullptr;
      if (value->val_type() == KernelTypes::TensorList) items = value->val_as_TensorList()->items();
      if (value->val_type() == KernelTypes::OptionalTensorList) {
        items = value->val_as_OptionalTensorList()->items();
      }
      if (value->val_type() == KernelTypes::Tensor) {
        KILN_RETURN_IF_ERROR(check_written(s, name, p, index, copy_back && p == 0));
      }
      if (items == nullptr) continue;
      for (int32_t item : *items) {
        if (item >= 0) KILN_RETURN_IF_ERROR(check_written(s, name, p, item, false));
      }
    }
    return Error::Ok;
  }

  // A move copies a value's tensor (its TensorImpl) into another value's slot: moving a constant
  // or an input would let a later call write it through the destination, and moving into an
  // input would make set_input rebind the moved tensor to the caller's memory.
  Error check_move(size_t s, const Method::Step& step) {
    const auto* from = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(step.a));
    const auto* tensor = from->val_as_Tensor();
    const bool constant = tensor != nullptr && is_constant(*tensor);
    if (constant || (tensor != nullptr && is_input_[step.a]) || is_input_[step.b]) {
      KILN_SET_ERROR(
          "method '%s': instruction %zu (MoveCall) moves value %d into value %d; a program "
          "moves neither a constant or input tensor nor into an input",
          plan_.name()->c_str(), s, step.a, step.b);
      return Error::InvalidProgram;
    }
    return Error::Ok;
  }

  Error check_written(size_t s, const char* op, size_t argument, int32_t index,
                      bool input_allowed) {
    const auto* tensor =
        plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index))->val_as_Tensor();
    if (tensor == nullptr) return Error::Ok;
    if (is_constant(*tensor)) {
      KILN_SET_ERROR(
          "method '%s': instruction %zu (%s) writes value %d, a constant tensor of the program, "
          "through its argument %zu; constants are read-only",
          plan_.name()->c_str(), s, op, index, argument);
      return Error::InvalidProgram;
    }
    if (!input_allowed && is_input_[index]) {
      KILN_SET_ERROR(
          "method '%s': instruction %zu (%s) writes value %d, a method input, through its "
          "argument %zu; a program writes an input only as the self of aten::copy_ (an input "
          "it mutates)",
          plan_.name()->c_str(), s, op, index, argument);
      return Error::InvalidProgram;
    }
    return Error::Ok;
  }

  // Any kernel registered for `name`, on any backend (all share the schema's stack layout).
  // One backend per lookup, so that nothing counts as a fallback.
  static Result<const Kernel*> first_named_kernel(const char* name) {
    for (size_t b = 0; b < kNumBackends; ++b) {
      const auto backend = static_cast<Backend>(b);
      Result<const Kernel*> kernel = find_kernel(name, "", ArrayRef<Backend>(&backend, 1));
      if (kernel.ok()) return kernel;
    }
    return Error::NotFound;
  }

  const Program& program_;
  const pte_format::ExecutionPlan& plan_;
  const MethodMemory& memory_;
  ArrayRef<Backend> backends_;
  MemoryAllocator allocator_;
  OperatorRequest* requests_ = nullptr;
  char* keys_ = nullptr;
  bool* is_input_ = nullptr;       // per value: a method input
  bool* variable_ints_ = nullptr;  // per value: an Int a run may change (mark_variable_ints)
  KeyCursor data_keys_;            // the data file's keys, looked up in the order Program::load did
  size_t num_operators_ = 0;
  char key_[kMaxKernelKeyLength];
};

Result<Method> Method::load(const Program& program, std::string_view name,
                            const MethodMemory& memory, ArrayRef<Backend> backends,
                            MissingReport* missing, const LoadOptions& options) {
  Result<const pte_format::ExecutionPlan*> plan = program.plan(name);
  if (!plan.ok()) return plan.error();
  if (backends.size() == 0 || backends.size() > kNumBackends) {
    KILN_SET_ERROR("method '%.*s': give 1 to %zu backends in preference order, not %zu",
                   static_cast<int>(name.size()), name.data(), kNumBackends, backends.size());
    return Error::InvalidArgument;
  }
  Method method;
  KILN_RETURN_IF_ERROR(
      MethodBuilder(program, **plan, memory, backends).build(method, missing, options));
  return method;
}

Error Method::fail(Error error, const char* format, ...) {
  va_list args;
  va_start(args, format);
  set_last_error_v(format, args);
  va_end(args);
  return error;
}

Error Method::set_input(size_t index, const EValue& value) {
  if (index >= num_inputs_) {
    return fail(Error::InvalidArgument, "input %zu: the method has %zu %s", index, num_inputs_,
                num_inputs_ == 1 ? "input" : "inputs");
  }
  EValue& slot = values_[inputs_[index]];
  if (!slot.isTensor()) {
    const bool same = value.tag() == slot.tag() || (slot.isDouble() && value.isInt());
    if (!same) {
      return fail(Error::InvalidArgument, "input %zu: expected %s, got %s", index,
                  to_string(slot.tag()), to_string(value.tag()));
    }
    slot = value.isInt() && slot.isDouble() ? EValue(static_cast<double>(value.toInt())) : value;
    return Error::Ok;
  }
  if (!value.isTensor()) {
    return fail(Error::InvalidArgument, "input %zu: expected a Tensor, got %s", index,
                to_string(value.tag()));
  }
  const Tensor& given = value.toTensor();
  TensorImpl& declared = *slot.toTensor().unsafeGetTensorImpl();
  if (given.scalar_type() != declared.scalar_type()) {
    return fail(Error::InvalidArgument, "input %zu: expected dtype %s, got %s", index,
                to_string(declared.scalar_type()), to_string(given.scalar_type()));
  }
  if (static_cast<size_t>(given.dim()) != declared.dim()) {
    return fail(Error::InvalidArgument, "input %zu: expected %zu dimensions, got %lld", index,
                declared.dim(), static_cast<long long>(given.dim()));
  }
  if (!given.dim_order().equals(declared.dim_order())) {
    return fail(Error::InvalidArgument,
                "input %zu: its dim order differs from the program's (make it contiguous, or "
                "channels-last if the program was exported so)",
                index);
  }
  if (given.const_data_ptr() == nullptr && given.nbytes() > 0) {
    return fail(Error::InvalidArgument,
                "input %zu: the tensor has %zu bytes but no data (a null data pointer)", index,
                given.nbytes());
  }
  if (!given.sizes().equals(declared.sizes())) {
    KILN_RETURN_IF_ERROR(check_input_bounds(index, given, declared));
    // Bound in place, the input's capacity was the last tensor's bytes: its bounds' hold.
    size_t capacity = declared.element_size();
    for (size_t d = 0; d < declared.dim(); ++d) {
      capacity *= static_cast<size_t>(input_bounds_[index][d]);
    }
    if (!copied_inputs_[index]) declared.set_storage(declared.mutable_data(), capacity);
    const Error resized = declared.resize(given.sizes());
    if (resized != Error::Ok) {
      return fail(Error::InvalidArgument, "input %zu: cannot take that shape (%s)", index,
                  to_string(resized));
    }
  }
  if (copied_inputs_[index]) {
    if (given.nbytes() > 0) {
      std::memcpy(declared.mutable_data(), given.const_data_ptr(), given.nbytes());
    }
  } else {
    declared.set_storage(given.mutable_data_ptr(), given.nbytes());
  }
  return Error::Ok;
}

// Sizes as "[2, 3]" into `text`.
static void format_sizes(ArrayRef<SizesType> sizes, char* text, size_t length) {
  size_t used = static_cast<size_t>(std::snprintf(text, length, "["));
  for (size_t d = 0; d < sizes.size() && used < length; ++d) {
    used +=
        static_cast<size_t>(std::snprintf(text + used, length - used, "%s%lld", d == 0 ? "" : ", ",
                                          static_cast<long long>(sizes[d])));
  }
  if (used < length) std::snprintf(text + used, length - used, "]");
}

ArrayRef<SizesType> Method::input_max_sizes(size_t index) const {
  const EValue& value = values_[inputs_[index]];
  if (!value.isTensor()) return {};
  const size_t dim = static_cast<size_t>(value.toTensor().dim());
  if (input_bounds_[index] != nullptr) return {input_bounds_[index], dim};
  return value.toTensor().sizes();
}

// A dynamic input takes any shape of its rank with at most as many elements as its bounds (the
// program's sizes, for which its memory was planned), as in ExecuTorch: exporters write bounds
// that are not always each dimension's maximum.
Error Method::check_input_bounds(size_t index, const Tensor& given, const TensorImpl& declared) {
  char want[128], got[128];
  format_sizes(declared.sizes(), want, sizeof(want));
  format_sizes(given.sizes(), got, sizeof(got));
  const SizesType* bounds = input_bounds_[index];
  if (bounds == nullptr) {
    return fail(Error::InvalidArgument,
                "input %zu: its shape differs from the program's: expected %s, got %s; the "
                "program has static shapes (export it with torch.export.Dim for the dimensions "
                "that vary)",
                index, want, got);
  }
  const ArrayRef<SizesType> limit(bounds, declared.dim());
  if (given.numel() <= compute_numel(limit)) return Error::Ok;
  format_sizes(limit, want, sizeof(want));
  size_t beyond = 0;
  while (beyond + 1 < declared.dim() &&
         given.size(static_cast<int64_t>(beyond)) <= bounds[beyond]) {
    ++beyond;
  }
  return fail(Error::InvalidArgument,
              "input %zu: %s has %lld elements, more than the program's bound %s holds "
              "(dimension %zu is %lld, its bound %lld); export with a larger torch.export.Dim "
              "max to allow more",
              index, got, static_cast<long long>(given.numel()), want, beyond,
              static_cast<long long>(given.size(static_cast<int64_t>(beyond))),
              static_cast<long long>(bounds[beyond]));
}

Error Method::run_kernel(Step& step) {
  const KernelCandidates candidates{step.kernels, step.num_kernels, first_backend_};
  return run_with_fallback(ctx_, candidates, step.stack, step.clamps ? &step.clamp : nullptr,
                           &temps_held_, &step.served, &clamp_taken_);
}

Error Method::run_int8(Step& step) {
  ctx_.set_op_name(op_names_[step.op_index]);
  step.int8->run(ctx_, step.int8_plan, values_[step.a].toTensor(), values_[step.b].toTensor());
  if (!temps_held_) ctx_.reset_temp();
  return Error::Ok;  // a failure is the context's failure_state()
}

Error Method::match_fused_out(const Step& step, size_t pc) {
  const Tensor& input = step.stack[static_cast<size_t>(step.a)]->toTensor();
  Tensor& out = step.stack[static_cast<size_t>(step.b)]->toTensor();
  if (out.sizes().equals(input.sizes())) return Error::Ok;
  const Error error = out.unsafeGetTensorImpl()->resize(input.sizes());
  if (error == Error::Ok) return Error::Ok;
  return fail(error, "instruction %zu (%s, fused): its out cannot take its input's shape", pc,
              op_names_[step.op_index]);
}

void Method::refresh_int_lists() {
  for (size_t l = 0; l < num_runtime_lists_; ++l) {
    const RuntimeIntList& list = runtime_lists_[l];
    for (size_t k = 0; k < list.size; ++k) {
      const EValue& item = values_[list.items[k]];
      // A move may have put another tag there: the call taking the list then sees the old value
      // of that item, as the program's (ill-typed) move leaves nothing better to read.
      if (item.isInt()) list.ints[k] = item.toInt();
    }
  }
}

uint64_t Method::instruction_budget() const {
  if (instruction_budget_ != 0) return instruction_budget_;
  return kDefaultRunsPerInstruction * static_cast<uint64_t>(num_steps_);
}

Error Method::execute(Span<uint64_t> instruction_ns) {
  const bool profile = instruction_ns.size() == num_steps_ && num_steps_ > 0;
  if (profile) std::memset(instruction_ns.data(), 0, num_steps_ * sizeof(uint64_t));
  const uint64_t budget = instruction_budget();
  uint64_t executed = 0;
  clamp_taken_ = false;
  ctx_.reset_temp();  // the last run's returned tensors, if it kept any
  temps_held_ = false;
  refresh_int_lists();  // Int inputs may have changed
  for (size_t c = 0, begin = 0; c < num_chains_; begin = chain_ends_[c++]) {
    size_t pc = begin;
    while (pc < chain_ends_[c]) {
      if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) {
        return fail(Error::InvalidState, "method '%s': cancelled before instruction %zu", name_,
                    pc);
      }
      if (executed++ == budget) {
        return fail(Error::InvalidState,
                    "method '%s': instruction %zu would exceed the run's budget of %llu "
                    "instructions (a JumpFalseCall loops back?); raise it with "
                    "set_instruction_budget",
                    name_, pc, static_cast<unsigned long long>(budget));
      }
      Step& step = steps_[pc];
      // Results computed at load, or by the call before it, which took the activation's clamp:
      // a profile shows it took 0 ns.
      if (step.folded || step.merged || (step.fused && clamp_taken_)) {
        // (A merged batch norm sits between a convolution and the activation fused into it.)
        if (step.fused) {
          clamp_taken_ = false;
          // A skipped activation's out may sit on its input's bytes without being its input:
          // with dynamic shapes it takes the input's sizes, as the activation would give it.
          KILN_RETURN_IF_ERROR(match_fused_out(step, pc));
        }
        ++pc;
        continue;
      }
      const uint64_t start = profile ? monotonic_ns() : 0;
      size_t next = pc + 1;
      switch (step.kind) {
        case StepKind::Kernel: {
          ctx_.reset_failure();
          const Error error = step.int8 != nullptr ? run_int8(step) : run_kernel(step);
          if (error != Error::Ok || ctx_.failure_state() != Error::Ok) {
            return fail(error != Error::Ok ? error : ctx_.failure_state(),
                        "instruction %zu (%s): %s", pc, op_names_[step.op_index],
                        ctx_.failure_message()[0] ? ctx_.failure_message() : to_string(error));
          }
          break;
        }
        case StepKind::Move:
          values_[step.b] = values_[step.a];
          break;
        case StepKind::JumpFalse: {
          const EValue& condition = values_[step.a];
          if (!condition.isBool()) {
            return fail(Error::InvalidProgram,
                        "instruction %zu (JumpFalseCall): value %d is %s, "
                        "not a Bool",
                        pc, step.a, to_string(condition.tag()));
          }
          if (!condition.toBool()) next = begin + static_cast<size_t>(step.b);
          break;
        }
        case StepKind::Free:
          // Planned memory is reused by plan, not freed; nothing to do.
          break;
        case StepKind::Delegate: {
          ctx_.reset_failure();
          const Error error = step.delegate->execute(step.handle, ctx_, step.stack, !temps_held_);
          if (!temps_held_) ctx_.reset_temp();
          if (error != Error::Ok) {
            char message[512];
            std::snprintf(message, sizeof(message), "%s", last_error());
            return fail(error, "instruction %zu (%s): %s", pc, step.delegate_id, message);
          }
          break;
        }
      }
      if (step.updates_ints) refresh_int_lists();
      if (profile) instruction_ns[pc] = monotonic_ns() - start;
      pc = next;
    }
  }
  return Error::Ok;
}

InstructionInfo Method::instruction_info(size_t index) const {
  const Step& step = steps_[index];
  const bool kernel = step.kind == StepKind::Kernel;
  // The activation follows the call, or the batch norm merged into it.
  size_t next = index + 1;
  if (next < num_steps_ && steps_[next].merged) ++next;
  const char* activation =
      step.clamps && next < num_steps_ ? op_names_[steps_[next].op_index] : nullptr;
  const char* op = kernel ? op_names_[step.op_index] : nullptr;
  if (step.kind == StepKind::Delegate) op = step.delegate_id;
  return {kind_name(step.kind),
          op,
          kernel && step.served < step.num_kernels ? step.kernels[step.served] : nullptr,
          step.folded,
          step.fused || step.merged,
          activation,
          step.int8 != nullptr};
}

}  // namespace kiln
