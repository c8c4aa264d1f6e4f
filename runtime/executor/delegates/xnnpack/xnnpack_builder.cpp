#include "runtime/executor/delegates/xnnpack/xnnpack_builder.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "runtime/core/dim_order.h"
#include "runtime/executor/delegates/xnnpack/xnnpack_graph_generated.h"
#include "runtime/executor/kernel_fallback.h"
#include "runtime/platform/last_error.h"

namespace kiln::xnnpack {

namespace {

constexpr uint32_t kExternalInput = 1u, kExternalOutput = 2u;
// Tensors a graph declares are kept below this many bytes each, far above any real model's.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;
constexpr size_t kTensorAlignment = 64;
// Steps a node lowers to, at most: its conversions, slices over every dimension, the call, the
// clamp after it and the conversion of an output.
constexpr size_t kStepsPerNode = 2 * kMaxRank + 8;

// XNNPACK's dtypes that Kiln runs, and their names for messages.
bool scalar_type_of(xnn_format::DataType type, ScalarType* out) {
  switch (type) {
    case xnn_format::DataType::FP32:
      *out = ScalarType::Float;
      return true;
    case xnn_format::DataType::FP16:
      *out = ScalarType::Half;
      return true;
    case xnn_format::DataType::BF16:
      *out = ScalarType::BFloat16;
      return true;
    case xnn_format::DataType::INT32:
      *out = ScalarType::Int;
      return true;
    default:
      return false;
  }
}

const char* dtype_name(xnn_format::DataType type) {
  const char* name = xnn_format::EnumNameDataType(type);
  return name[0] == '\0' ? "unknown-dtype" : name;
}

// The permutations from a value's declared (NHWC) dims to its NCHW holding, and back.
const int64_t kNchwPerm[4] = {0, 3, 1, 2};
const int64_t kToNaturalPerm[4] = {0, 2, 3, 1};

}  // namespace

GraphBuilder::GraphBuilder(DelegateInitContext& context, const XnnPayload& payload)
    : context_(context), payload_(payload) {
  std::snprintf(where_, sizeof(where_), "method '%s': instruction %zu (XnnpackBackend)",
                context.method_name(), context.instruction());
}

Error GraphBuilder::fail(Error error, const char* format, ...) {
  char message[384];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  if (node_ != nullptr) {
    KILN_SET_ERROR("%s: node %u (%s): %s", where_, node_index_, node_kind_, message);
  } else {
    KILN_SET_ERROR("%s: %s", where_, message);
  }
  return error;
}

Error GraphBuilder::no_memory(size_t bytes) {
  return fail(Error::MemoryAllocationFailed,
              "no memory for %zu bytes of the delegate's tensors and steps: they live in "
              "MethodMemory::folded (HeapMethodMemory: within its max_bytes), which %s",
              bytes, "is missing or full");
}

Result<TensorImpl*> GraphBuilder::new_tensor(ScalarType dtype, ArrayRef<SizesType> dims,
                                             void* data) {
  auto* sizes = make<SizesType>(dims.size());
  auto* order = make<DimOrderType>(dims.size());
  auto* strides = make<StridesType>(dims.size());
  auto* impl = make<TensorImpl>(1);
  if (sizes == nullptr || order == nullptr || strides == nullptr || impl == nullptr) {
    return no_memory(sizeof(TensorImpl));
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    sizes[d] = dims[d];
    order[d] = static_cast<DimOrderType>(d);
  }
  (void)dim_order_to_strides({sizes, dims.size()}, {order, dims.size()}, {strides, dims.size()});
  return new (impl) TensorImpl(dtype, dims.size(), sizes, data, order, strides);
}

Result<TensorImpl*> GraphBuilder::new_buffer(ScalarType dtype, ArrayRef<SizesType> dims, bool now) {
  uint64_t bytes = element_size(dtype);
  for (SizesType d : dims) bytes *= static_cast<uint64_t>(d);  // dims were checked
  if (now) {
    void* data = context_.allocate(bytes == 0 ? 1 : static_cast<size_t>(bytes), kTensorAlignment);
    if (data == nullptr) return no_memory(static_cast<size_t>(bytes));
    return new_tensor(dtype, dims, data);
  }
  if (num_tracked_ == max_tracked_) {
    return fail(Error::InvalidProgram, "needs more than %zu tensors", max_tracked_);
  }
  Result<TensorImpl*> tensor = new_tensor(dtype, dims, nullptr);
  if (!tensor.ok()) return tensor;
  const auto id = static_cast<uint32_t>(num_planned_);
  planned_[num_planned_++] = {*tensor, static_cast<size_t>(bytes), num_steps_, num_steps_};
  tracked_[num_tracked_++] = {*tensor, nullptr, id};
  return tensor;
}

EValue* GraphBuilder::arg(const EValue& value) {
  auto* slot = make<EValue>(1);
  return slot == nullptr ? nullptr : new (slot) EValue(value);
}

EValue* GraphBuilder::tensor_arg(TensorImpl* tensor) { return arg(EValue(Tensor(tensor))); }

EValue* GraphBuilder::ints_arg(const int64_t* items, size_t count) {
  auto* ints = make<int64_t>(count);
  if (ints == nullptr) return nullptr;
  for (size_t i = 0; i < count; ++i) ints[i] = items[i];
  return arg(EValue(ArrayRef<int64_t>(ints, count)));
}

EValue* GraphBuilder::ints_arg(std::initializer_list<int64_t> items) {
  return ints_arg(items.begin(), items.size());
}

// Values: dtypes, ranks and sizes checked once, constants and externals bound.
Error GraphBuilder::read_values() {
  const auto* values = payload_.graph->values();
  num_values_ = values == nullptr ? 0 : values->size();
  values_ = make<ValueState>(num_values_);
  if (values_ == nullptr) return no_memory(num_values_ * sizeof(ValueState));
  for (uint32_t v = 0; v < num_values_; ++v) {
    ValueState& state = *new (&values_[v]) ValueState{};
    state.same_bytes_as = kNoValue;
    const auto* value = values->Get(v);
    const xnn_format::TensorValue* tensor = value->value_as_TensorValue();
    const xnn_format::QuantizedTensorValue* quantized = value->value_as_QuantizedTensorValue();
    if (tensor == nullptr && quantized != nullptr) {
      tensor = quantized->tensor();
      state.quantized = true;
    }
    if (tensor == nullptr) {
      return fail(Error::InvalidProgram, "value %u is not a tensor", v);
    }
    const uint32_t rank = tensor->dims() == nullptr ? 0 : tensor->dims()->size();
    if (rank > kMaxRank || rank != tensor->rank()) {
      return fail(Error::InvalidProgram, "value %u has %u dims (rank %u); at most %u", v, rank,
                  tensor->rank(), kMaxRank);
    }
    state.rank = rank;
    uint64_t bytes = 4;
    for (uint32_t d = 0; d < rank; ++d) {
      const uint32_t size = tensor->dims()->Get(d);
      if (size > 0 && bytes > kMaxTensorBytes / size) {
        return fail(Error::InvalidProgram, "value %u: its dims give more than %llu bytes", v,
                    static_cast<unsigned long long>(kMaxTensorBytes));
      }
      bytes *= size;
      state.dims[d] = static_cast<SizesType>(size);  // below 2^40 / 4
    }
    state.dtype_name = dtype_name(tensor->dtype());
    if (state.quantized) {
      KILN_RETURN_IF_ERROR(read_quantization(v, *quantized, tensor->dtype()));
    } else {
      state.tensor = scalar_type_of(tensor->dtype(), &state.dtype);
    }
    state.input = (tensor->flags() & kExternalInput) != 0;
    state.output = (tensor->flags() & kExternalOutput) != 0;
    state.external = tensor->external();
    if (state.input && state.output) {
      return fail(Error::InvalidProgram, "value %u is both an input and an output of the call", v);
    }
    if (tensor->constant() != 0) {
      if (state.input || state.output) {
        return fail(Error::InvalidProgram, "value %u is a constant and an argument of the call", v);
      }
      if (state.tensor) KILN_RETURN_IF_ERROR(bind_constant(v, tensor->constant()));
      state.constant = state.produced = true;
    }
    if (state.input || state.output) {
      if (!state.tensor) return unsupported_value(v, "an argument of the call");
      KILN_RETURN_IF_ERROR(bind_external(v));
      if (state.quant.kind != QuantKind::kNone) KILN_RETURN_IF_ERROR(bind_quantized_argument(v));
      state.produced = state.input;
    }
  }
  return Error::Ok;
}

Result<ConstantSpan> GraphBuilder::constant_bytes(uint32_t v, uint32_t index, const char* what) {
  const auto* constants = payload_.graph->constants();
  if (constants == nullptr || index >= constants->size()) {
    return fail(Error::InvalidProgram, "value %u: its %s is constant %u of %u", v, what, index,
                constants == nullptr ? 0 : constants->size());
  }
  const auto* ref = constants->Get(index);
  if (ref->key() != nullptr && ref->key()->size() > 0) {
    Result<ConstantSpan> found = context_.named_data(ref->key()->string_view());
    if (found.error() == Error::NotFound) {
      return fail(Error::InvalidProgram,
                  "value %u: its %s (constant %u) is the named data '%.*s', which neither the "
                  "program nor its data file has",
                  v, what, index,
                  static_cast<int>(ref->key()->size() < 80 ? ref->key()->size() : 80),
                  ref->key()->c_str());
    }
    return found;
  }
  const ConstantSpan section = payload_.constants;
  if (ref->offset() > section.size || ref->size() > section.size - ref->offset()) {
    return fail(Error::InvalidProgram,
                "value %u: its %s (constant %u, offset %llu, %llu bytes) is outside the "
                "payload's %zu constant bytes",
                v, what, index, static_cast<unsigned long long>(ref->offset()),
                static_cast<unsigned long long>(ref->size()), section.size);
  }
  return ConstantSpan{section.data + ref->offset(), static_cast<size_t>(ref->size())};
}

Error GraphBuilder::bind_constant(uint32_t v, uint32_t index) {
  ValueState& state = values_[v];
  Result<ConstantSpan> bytes = constant_bytes(v, index, "data");
  if (!bytes.ok()) return bytes.error();
  if (state.quant.kind == QuantKind::kGroups4Bit) return dequantize_4bit_groups(v, *bytes);
  const bool quantized = state.quant.kind != QuantKind::kNone;
  const ScalarType stored = quantized ? state.quant.storage : state.dtype;
  Result<TensorImpl*> tensor =
      new_tensor(stored, {state.dims, state.rank}, const_cast<uint8_t*>(bytes->data));
  if (!tensor.ok()) return tensor.error();
  if (bytes->size < (*tensor)->nbytes()) {
    return fail(Error::InvalidProgram, "value %u: constant %u has %zu bytes, its dims need %zu", v,
                index, bytes->size, (*tensor)->nbytes());
  }
  if (reinterpret_cast<uintptr_t>(bytes->data) % element_size(stored) != 0) {
    return fail(Error::InvalidProgram, "value %u: constant %u is not aligned to its elements", v,
                index);
  }
  if (quantized) return dequantize_constant(v, *tensor);
  state.held[kNatural] = *tensor;
  return Error::Ok;
}

// The call's argument `external` binds the value: same dtype and element count (ExecuTorch
// passes a 0-dim tensor for a graph's [1], say), its bytes bound at each run.
Error GraphBuilder::bind_external(uint32_t v) {
  ValueState& state = values_[v];
  const Span<EValue*> args = context_.args();
  if (state.external >= args.size() || state.external >= 64) {
    return fail(Error::InvalidProgram, "value %u is argument %u of the call, which passes %zu", v,
                state.external, args.size());
  }
  for (size_t e = 0; e < num_externals_; ++e) {
    if (externals_[e].arg == state.external) {
      return fail(Error::InvalidProgram, "value %u and another value are both argument %u", v,
                  state.external);
    }
  }
  // A quantized value passes as its integers.
  const ScalarType passed =
      state.quant.kind == QuantKind::kNone ? state.dtype : state.quant.storage;
  Result<TensorImpl*> tensor = new_tensor(passed, {state.dims, state.rank}, nullptr);
  if (!tensor.ok()) return tensor.error();
  const EValue& given = *args[state.external];
  if (given.isTensor() && !is_default_dim_order(given.toTensor().dim_order())) {
    return fail(Error::NotSupported,
                "argument %u of the call is not contiguous (its dim order is another), which "
                "Kiln's XNNPACK delegate does not bind",
                state.external);
  }
  if (!given.isTensor() || given.toTensor().scalar_type() != passed ||
      given.toTensor().numel() != (*tensor)->numel()) {
    return fail(Error::InvalidProgram,
                "value %u (%s, %lld elements) is argument %u of the call, which is %s", v,
                to_string(passed), static_cast<long long>((*tensor)->numel()), state.external,
                given.isTensor() ? "a tensor of another dtype or size" : to_string(given.tag()));
  }
  if (state.output) context_.mark_written(state.external);
  if (state.input && passed == state.dtype) state.held[kNatural] = *tensor;
  state.bound = *tensor;
  externals_[num_externals_++] = {state.external, *tensor};
  return Error::Ok;
}

Error GraphBuilder::unsupported_value(uint32_t v, const char* role) {
  const ValueState& state = values_[v];
  return fail(Error::NotSupported,
              "value %u (%s) is %s %s tensor, which Kiln's XNNPACK delegate does not run yet "
              "(it runs float graphs and int8 ones, static or dynamic: export the model without "
              "the XNNPACK partitioner to run it on Kiln's kernels directly)",
              v, role, state.quantized ? "a quantized" : "an", state.dtype_name);
}

Error GraphBuilder::use(uint32_t v, const char* role) {
  if (v >= num_values_) {
    return fail(Error::InvalidProgram, "its %s is value %u of %u", role, v, num_values_);
  }
  if (!values_[v].tensor) return unsupported_value(v, role);
  if (!values_[v].produced) {
    return fail(Error::InvalidProgram, "its %s (value %u) is read before any node writes it", role,
                v);
  }
  return Error::Ok;
}

Error GraphBuilder::define(uint32_t v, const char* role) {
  if (v >= num_values_) {
    return fail(Error::InvalidProgram, "its %s is value %u of %u", role, v, num_values_);
  }
  ValueState& state = values_[v];
  if (!state.tensor) return unsupported_value(v, role);
  if (state.produced) {
    return fail(Error::InvalidProgram,
                "its %s (value %u) is a constant, an input or written by an earlier node", role, v);
  }
  state.produced = true;
  if (state.quant.kind != QuantKind::kNone) {
    state.awaiting_quantize = true;
    written_quantized_[num_written_quantized_++] = v;
  }
  return Error::Ok;
}

Result<TensorImpl*> GraphBuilder::permuted(TensorImpl* source, ArrayRef<int64_t> perm, bool now) {
  SizesType dims[kMaxRank];
  for (size_t d = 0; d < perm.size(); ++d) dims[d] = source->sizes()[perm[d]];
  Result<TensorImpl*> out = new_buffer(source->scalar_type(), {dims, perm.size()}, now);
  if (!out.ok()) return out;
  KILN_RETURN_IF_ERROR(call(
      "aten::permute_copy.out",
      {tensor_arg(source), ints_arg(perm.data(), perm.size()), tensor_arg(*out)}, nullptr, now));
  return out;
}

Result<TensorImpl*> GraphBuilder::in_dtype(TensorImpl* source, ScalarType dtype, bool now) {
  if (source->scalar_type() == dtype) return source;
  Result<TensorImpl*> out = new_buffer(dtype, source->sizes(), now);
  if (!out.ok()) return out;
  KILN_RETURN_IF_ERROR(call(
      "aten::_to_copy.out",
      {tensor_arg(source), arg(EValue(false)), arg(EValue()), tensor_arg(*out)}, nullptr, now));
  return out;
}

Result<TensorImpl*> GraphBuilder::held(uint32_t v, Holding h) {
  ValueState& state = values_[v];
  if (state.held[h] != nullptr) return state.held[h];
  if (state.rank != 4) {
    return fail(Error::InvalidProgram, "value %u has %u dims where a 4-D (NHWC) tensor is needed",
                v, state.rank);
  }
  const Holding from = h == kNatural ? kNchw : kNatural;
  const int64_t* perm = h == kNatural ? kToNaturalPerm : kNchwPerm;
  // A graph output converts into the call's argument.
  if (h == kNatural && writes_bound(state)) {
    KILN_RETURN_IF_ERROR(
        call("aten::permute_copy.out",
             {tensor_arg(state.held[from]), ints_arg(perm, 4), tensor_arg(state.bound)}));
    state.held[kNatural] = state.bound;
    return state.bound;
  }
  Result<TensorImpl*> converted = permuted(state.held[from], {perm, 4}, state.constant);
  if (!converted.ok()) return converted;
  state.held[h] = *converted;
  return converted;
}

Result<TensorImpl*> GraphBuilder::produce(uint32_t v, Holding h) {
  ValueState& state = values_[v];
  if (h == kNatural && writes_bound(state)) return state.held[kNatural] = state.bound;
  SizesType dims[kMaxRank];
  if (h == kNchw) {
    if (state.rank != 4) {
      return fail(Error::InvalidProgram, "value %u has %u dims where 4 (NHWC) are needed", v,
                  state.rank);
    }
    for (size_t d = 0; d < 4; ++d) dims[d] = state.dims[kNchwPerm[d]];
  } else {
    for (size_t d = 0; d < state.rank; ++d) dims[d] = state.dims[d];
  }
  Result<TensorImpl*> tensor = new_buffer(state.dtype, {dims, state.rank});
  if (!tensor.ok()) return tensor;
  state.held[h] = *tensor;
  return tensor;
}

Error GraphBuilder::alias(uint32_t v, Holding h, TensorImpl* base) {
  ValueState& state = values_[v];
  if (h == kNatural && writes_bound(state)) {
    state.held[kNatural] = state.bound;
    return call("aten::clone.out", {tensor_arg(base), arg(EValue()), tensor_arg(state.bound)});
  }
  state.held[h] = base;
  return Error::Ok;
}

Result<TensorImpl*> GraphBuilder::view(TensorImpl* base, ArrayRef<SizesType> dims) {
  Result<TensorImpl*> tensor = new_tensor(base->scalar_type(), dims, base->mutable_data());
  if (!tensor.ok()) return tensor;
  if ((*tensor)->nbytes() != base->nbytes()) {
    return fail(Error::InvalidProgram, "a view of %zu bytes on a tensor of %zu",
                (*tensor)->nbytes(), base->nbytes());
  }
  if (num_tracked_ == max_tracked_) {
    return fail(Error::InvalidProgram, "needs more than %zu tensors", max_tracked_);
  }
  tracked_[num_tracked_++] = {*tensor, base, kNoValue};
  Result<RunStep*> step = next_step();
  if (!step.ok()) return step.error();
  (*step)->view = *tensor;
  (*step)->base = base;
  return tensor;
}

Error GraphBuilder::finish_output(uint32_t v) {
  if (!writes_bound(values_[v])) return Error::Ok;  // (a quantized output: after its node)
  Result<TensorImpl*> natural = held(v, kNatural);
  return natural.ok() ? Error::Ok : natural.error();
}

Result<RunStep*> GraphBuilder::next_step() {
  if (num_steps_ == max_steps_) {
    return fail(Error::InvalidProgram, "lowers to more than %zu kernel calls", max_steps_);
  }
  RunStep* step = new (&steps_[num_steps_++]) RunStep{};
  step->node = node_index_;
  step->kind = node_kind_;
  return step;
}

Error GraphBuilder::call(const char* op, ArrayRef<EValue*> args, TensorImpl* clamp_out, bool now) {
  auto** stack = make<EValue*>(args.size());
  if (stack == nullptr) return no_memory(args.size() * sizeof(EValue*));
  size_t n = 0;
  for (EValue* value : args) {
    if (value == nullptr) return no_memory(sizeof(EValue));
    stack[n++] = value;
  }
  const Kernel* kernels[kNumBackends];
  uint8_t count = 0;
  for (Backend backend : context_.backends()) {
    Result<const Kernel*> kernel =
        find_kernel_for_stack(op, {stack, n}, ArrayRef<Backend>(&backend, 1));
    if (kernel.ok()) kernels[count++] = *kernel;
  }
  if (count == 0) {
    return fail(Error::OperatorMissing,
                "needs the operator %s, which no backend of the method has a kernel for (build "
                "the runner with the program's selection, which includes its delegates' "
                "operators: kiln_add_operator_library(... MODEL program.pte); or add ROOT_OPS %s)",
                op, op);
  }
  // (A Clamp node's bounds are the node's clamp: it is not applied twice.)
  const bool own_clamp = std::strcmp(op, "aten::clamp.out") == 0;
  const auto* clamp = node_ == nullptr || own_clamp ? nullptr : node_->clamp();
  if (now) {
    KernelRuntimeContext ctx(nullptr);
    ctx.set_thread_pool(context_.thread_pool());
    bool temps_held = false, clamp_taken = false;
    uint8_t served = 0;
    const Error error = run_with_fallback(ctx, {kernels, count, context_.backends()[0]}, {stack, n},
                                          nullptr, &temps_held, &served, &clamp_taken);
    if (error != Error::Ok || ctx.failure_state() != Error::Ok) {
      return fail(Error::InvalidProgram, "%s on its constants fails at load: %s", op,
                  ctx.failure_message()[0] ? ctx.failure_message() : to_string(error));
    }
    return Error::Ok;
  }
  Result<RunStep*> step = next_step();
  if (!step.ok()) return step.error();
  for (uint8_t k = 0; k < count; ++k) (*step)->kernels[k] = kernels[k];
  (*step)->num_kernels = count;
  (*step)->stack = {stack, n};
  if (clamp_out == nullptr || clamp == nullptr) return Error::Ok;
  const double low = clamp->min(), high = clamp->max();
  if (!(low <= high)) return fail(Error::InvalidProgram, "its clamp [%g, %g] is empty", low, high);
  (*step)->offers_clamp = true;
  (*step)->clamp = {low, high};
  KILN_RETURN_IF_ERROR(call("aten::clamp.out", {tensor_arg(clamp_out), arg(EValue(low)),
                                                arg(EValue(high)), tensor_arg(clamp_out)}));
  steps_[num_steps_ - 1].skip_if_clamped = true;
  return Error::Ok;
}

Result<Runner*> GraphBuilder::build() {
  const auto* nodes = payload_.graph->nodes();
  const size_t num_nodes = nodes == nullptr ? 0 : nodes->size();
  const size_t num_args = context_.args().size();
  externals_ = make<ExternalBinding>(num_args);
  max_steps_ = kStepsPerNode * num_nodes +
               4 * (payload_.graph->values() == nullptr ? 0 : payload_.graph->values()->size());
  steps_ = make<RunStep>(max_steps_);
  // Each step writes at most two new tensors and makes at most three views.
  max_tracked_ = 5 * max_steps_;
  tracked_ = make<Tracked>(max_tracked_);
  planned_ = make<PlannedBuffer>(max_tracked_);
  auto* runner = make<Runner>(1);
  const size_t num_graph_values =
      payload_.graph->values() == nullptr ? 0 : payload_.graph->values()->size();
  written_quantized_ = make<uint32_t>(num_graph_values);
  if (written_quantized_ == nullptr || externals_ == nullptr || steps_ == nullptr ||
      tracked_ == nullptr || planned_ == nullptr || runner == nullptr) {
    return no_memory(max_steps_ * sizeof(RunStep));
  }
  KILN_RETURN_IF_ERROR(read_values());
  for (size_t i = 0; i < num_nodes; ++i) {
    node_index_ = static_cast<uint32_t>(i);
    node_ = nodes->Get(static_cast<flatbuffers::uoffset_t>(i));
    const char* kind = xnn_format::EnumNameNodeKind(node_->node_type());
    node_kind_ = kind[0] == '\0' ? "unknown kind" : kind;
    if (node_->node() == nullptr && node_->node_type() != xnn_format::NodeKind::NONE) {
      return fail(Error::InvalidProgram, "the node has no fields");
    }
    num_written_quantized_ = 0;
    KILN_RETURN_IF_ERROR(lower_node(*node_));
    KILN_RETURN_IF_ERROR(finish_quantized_values());
    if (memory_failed_) return no_memory(0);
  }
  node_ = nullptr;
  for (uint32_t v = 0; v < num_values_; ++v) {
    if (values_[v].output && !values_[v].produced) {
      return fail(Error::InvalidProgram, "value %u, an output of the call, is never written", v);
    }
  }
  KILN_RETURN_IF_ERROR(plan_memory());
  *runner = {steps_, num_steps_, externals_, num_externals_, context_.backends()[0]};
  return runner;
}

}  // namespace kiln::xnnpack
