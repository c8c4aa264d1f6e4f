// GraphBuilder: turns a verified XNNPACK graph into a Runner (xnnpack_runner.h) at the delegate's
// init: checks every id, dtype, shape and constant the graph names, allocates its tensors once and
// lowers each node to calls of Kiln's kernels, found by ATen operator name on the method's
// backends. Private to the XNNPACK delegate.
//
// Layouts: XNNPACK runs convolutions and pooling on NHWC tensors, and the partitioner brackets
// them with transposes from and to PyTorch's NCHW. Kiln's kernels take NCHW, so a 4-D value may
// be held "natural" (its declared dims, dense) or "NCHW" (its declared NHWC dims permuted to
// NCHW, dense): both hold the same numbers. A transpose between the two is then no copy at all,
// and a value is converted (permute_copy) only where a node needs the other holding.
//
// Memory: the tensors the runs write share blocks, as a memory plan's arenas do: once the last
// step reading a tensor (or a view or holding on its bytes) has run, its block serves tensors
// written after it (xnnpack_memory.cpp). Tensors computed at load (converted weights) keep their
// own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/delegate.h"
#include "runtime/executor/delegates/xnnpack/xnnpack_payload.h"
#include "runtime/executor/delegates/xnnpack/xnnpack_runner.h"

// `target` = the tensor of a Result<TensorImpl*>, or return its error.
#define KILN_XNN_ASSIGN(target, expression)        \
  do {                                             \
    Result<TensorImpl*> assigned_ = (expression);  \
    if (!assigned_.ok()) return assigned_.error(); \
    target = *assigned_;                           \
  } while (0)
#define KILN_XNN_LET(name, expression) \
  TensorImpl* name = nullptr;          \
  KILN_XNN_ASSIGN(name, expression)

namespace kiln {
namespace xnn_format {
struct Node;
struct Convolution;
struct Pooling;
struct QuantizedTensorValue;
struct ChannelGroupQuant;
enum class DataType : int16_t;
}  // namespace xnn_format

namespace xnnpack {

enum Holding : uint8_t { kNatural = 0, kNchw = 1 };

// XNNPACK's own limit on a tensor's rank.
constexpr uint32_t kMaxRank = 6;
// "No value": an absent bias, an unused concatenation input.
constexpr uint32_t kNoValue = 0xFFFFFFFFu;

// How a quantized value's numbers map to integers (xnnpack_quantized.cpp). The delegate holds
// such a value as Float: the real numbers its integers stand for, rounded onto its grid after
// the node that writes it. Per tensor: one scale and zero point; per channel: a scale for each
// index along `channel_dim` (symmetric, constants only); per token: chosen at run time for each
// token of `token_dims` trailing dims (asymmetric int8, XNNPACK's dynamic quantization); 4-bit
// groups: a [out, in] weight of signed 4-bit integers packed two to a byte, with a bfloat16
// scale for each `group_size` of a row's integers (XNNPACK's QBINT4, constants only).
enum class QuantKind : uint8_t { kNone, kPerTensor, kPerChannel, kPerToken, kGroups4Bit };
struct QuantParams {
  QuantKind kind = QuantKind::kNone;
  ScalarType storage = ScalarType::Char;  // the integers' dtype
  int64_t quant_min = 0, quant_max = 0;
  double scale = 1.0;
  int64_t zero_point = 0;
  uint32_t channel_dim = 0;
  const float* scales = nullptr;
  uint32_t num_scales = 0;
  uint32_t token_dims = 0;
  uint32_t group_size = 0;
  const uint16_t* bf16_scales = nullptr;  // 4-bit groups: [out, in / group_size]
};

class GraphBuilder {
 public:
  GraphBuilder(DelegateInitContext& context, const XnnPayload& payload);
  Result<Runner*> build();

 private:
  struct ValueState {
    bool tensor;       // a tensor of a dtype Kiln runs (quantized ones are held as Float)
    ScalarType dtype;  // the held dtype
    uint32_t rank;
    SizesType dims[kMaxRank];
    bool constant, input, output;
    bool produced;  // a constant, an input, or written by a node already
    uint32_t external;
    bool quantized;
    const char* dtype_name;  // XNNPACK's name of its dtype, for messages
    TensorImpl* held[2];     // by Holding; nullptr while not held so
    TensorImpl* bound;       // an argument of the call: its natural tensor, bound at each run
    QuantParams quant;
    bool awaiting_quantize;  // written by the node being lowered, not yet on its grid
    uint32_t same_bytes_as;  // a transpose or reshape holds this value on another's bytes
  };

  // Setup.
  Error read_values();
  Error bind_constant(uint32_t v, uint32_t index);
  Error bind_external(uint32_t v);
  // The bytes of constant `index` of the graph, for value `v`.
  Result<ConstantSpan> constant_bytes(uint32_t v, uint32_t index, const char* what);
  // True when the value passes into or out of the call as it is held (not quantized).
  bool writes_bound(const ValueState& state) const {
    return state.output && state.quant.kind == QuantKind::kNone;
  }
  // NotSupported: value `v`, in `role`, has a dtype the delegate does not run.
  Error unsupported_value(uint32_t v, const char* role);
  Error lower_node(const xnn_format::Node& node);

  // Quantized values (xnnpack_quantized.cpp).
  Error read_quantization(uint32_t v, const xnn_format::QuantizedTensorValue& value,
                          xnn_format::DataType dtype);
  Error read_4bit_groups(uint32_t v, const xnn_format::ChannelGroupQuant& groups, QuantParams* q);
  // A quantized constant, stored as `stored`, dequantized once at load into its Float holding.
  Error dequantize_constant(uint32_t v, TensorImpl* stored);
  // A QBINT4 weight's `bytes`, unpacked and scaled once at load into its Float holding.
  Error dequantize_4bit_groups(uint32_t v, ConstantSpan bytes);
  // `target` = `source` rounded onto value v's grid: quantized and dequantized.
  Error fake_quantize(uint32_t v, TensorImpl* source, TensorImpl* target);
  // A quantized argument of the call (per tensor only): an input is dequantized from it at each
  // run; an output is quantized into it after its node.
  Error bind_quantized_argument(uint32_t v);
  // After a node: each quantized value it wrote, rounded onto its grid (and quantized into the
  // call's argument for an output).
  Error finish_quantized_values();
  Error quantize_output(uint32_t v);
  Error lower_convert(uint32_t in, uint32_t out);
  EValue* dtype_arg(ScalarType dtype) { return arg(EValue(static_cast<int64_t>(dtype))); }

  // Node lowerings (xnnpack_nodes.cpp).
  Error lower_convolution(const xnn_format::Convolution& conv, bool depthwise);
  Error lower_pooling(const xnn_format::Pooling& pool, bool max);
  Error lower_global_pooling(uint32_t in, uint32_t out);
  Error lower_binary(const char* op, uint32_t a, uint32_t b, uint32_t out, bool alpha);
  // `op`(in, extra..., out) for an element-wise op: in the holding `in` has (natural first).
  Error lower_unary(const char* op, uint32_t in, uint32_t out, ArrayRef<EValue*> extra = {});
  Error lower_transpose(const uint32_t* perm, uint32_t rank, uint32_t in, uint32_t out);
  Error lower_fully_connected(uint32_t in, uint32_t filter, uint32_t bias, uint32_t out,
                              bool transposed);
  Error lower_batch_matmul(uint32_t a, uint32_t b, uint32_t out, bool transposed);
  Error lower_reshape(uint32_t in, uint32_t out);
  Error lower_slice(const uint32_t* offsets, const uint32_t* sizes, uint32_t rank, uint32_t in,
                    uint32_t out);
  Error lower_concatenate(const uint32_t* inputs, uint32_t count, uint32_t axis, uint32_t out);
  Error lower_constant_pad(const uint32_t* before, const uint32_t* after, uint32_t rank,
                           double value, uint32_t in, uint32_t out);
  Error lower_softmax(uint32_t in, uint32_t out);
  Error lower_clamp(uint32_t in, uint32_t out);

  // Values a node reads and writes: checked, by id.
  Error use(uint32_t v, const char* role);
  Error define(uint32_t v, const char* role);
  // The value's tensor in holding `h`, converted from the other holding when not yet held so.
  Result<TensorImpl*> held(uint32_t v, Holding h);
  // The tensor a node writes value `v` into, in holding `h`.
  Result<TensorImpl*> produce(uint32_t v, Holding h);
  // Value `v` holds in holding `h` the bytes of `base` (a transpose that moves none).
  Error alias(uint32_t v, Holding h, TensorImpl* base);
  // A tensor of `dims` on `base`'s bytes, kept on them by a view step.
  Result<TensorImpl*> view(TensorImpl* base, ArrayRef<SizesType> dims);
  // Permutes `source` by `perm` into a new tensor: now when `now`, else by a step of each run.
  Result<TensorImpl*> permuted(TensorImpl* source, ArrayRef<int64_t> perm, bool now);
  // `source` in `dtype` (itself when it has it): XNNPACK keeps an fp16 graph's weights in fp32
  // and converts them; so does this, once at load for a constant (`now`).
  Result<TensorImpl*> in_dtype(TensorImpl* source, ScalarType dtype, bool now);
  // An output value of the graph ends in its natural holding, the call's argument.
  Error finish_output(uint32_t v);

  // Tensors and arguments, in the Method's memory.
  template <typename T>
  T* make(size_t count) {
    if (count == 0) count = 1;
    if (count > SIZE_MAX / sizeof(T)) return nullptr;
    void* memory = context_.allocate(count * sizeof(T), alignof(T) < 16 ? 16 : alignof(T));
    if (memory == nullptr) memory_failed_ = true;
    return static_cast<T*>(memory);
  }
  Result<TensorImpl*> new_tensor(ScalarType dtype, ArrayRef<SizesType> dims, void* data);
  // A tensor of its own bytes: now for one computed at load (`now`), else from the plan.
  Result<TensorImpl*> new_buffer(ScalarType dtype, ArrayRef<SizesType> dims, bool now = false);
  // Gives the planned tensors their blocks once every step is known (xnnpack_memory.cpp).
  Error plan_memory();
  uint32_t buffer_of(const TensorImpl* tensor, const uint32_t* order) const;
  EValue* arg(const EValue& value);
  EValue* tensor_arg(TensorImpl* tensor);
  EValue* ints_arg(std::initializer_list<int64_t> items);
  EValue* ints_arg(const int64_t* items, size_t count);

  // Emits a call of `op` (a step of each run, or now), resolved on the method's backends. With
  // `clamp_out`, the node's fused activation is offered to the kernel, and applied to
  // `clamp_out` by a clamp after it when the kernel does not take it.
  Error call(const char* op, ArrayRef<EValue*> args, TensorImpl* clamp_out = nullptr,
             bool now = false);
  Result<RunStep*> next_step();

  Error fail(Error error, const char* format, ...) __attribute__((format(printf, 3, 4)));
  Error no_memory(size_t bytes);

  DelegateInitContext& context_;
  const XnnPayload& payload_;
  ValueState* values_ = nullptr;
  uint32_t num_values_ = 0;
  RunStep* steps_ = nullptr;
  size_t num_steps_ = 0;
  size_t max_steps_ = 0;
  ExternalBinding* externals_ = nullptr;
  size_t num_externals_ = 0;
  // Planned tensors: each with the first step that may write it and the last that reads it.
  struct PlannedBuffer {
    TensorImpl* owner;
    size_t bytes;
    size_t first, last;
  };
  // The tensors on planned bytes: a planned tensor's own, or a view's, which takes its base's.
  struct Tracked {
    const TensorImpl* tensor;
    const TensorImpl* base;  // a view's base, else nullptr
    uint32_t buffer;
  };
  PlannedBuffer* planned_ = nullptr;
  size_t num_planned_ = 0;
  Tracked* tracked_ = nullptr;
  size_t num_tracked_ = 0;
  size_t max_tracked_ = 0;
  const xnn_format::Node* node_ = nullptr;  // the node being lowered
  uint32_t node_index_ = 0;
  // Quantized values the node being lowered writes.
  uint32_t* written_quantized_ = nullptr;
  size_t num_written_quantized_ = 0;
  const char* node_kind_ = "";
  bool memory_failed_ = false;
  char where_[160];
};

}  // namespace xnnpack
}  // namespace kiln
