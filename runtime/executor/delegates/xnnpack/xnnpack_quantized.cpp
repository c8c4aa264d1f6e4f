// Quantized values of an XNNPACK graph (the int8 graphs of ExecuTorch's XNNPACK quantizer, static
// or dynamic). The delegate holds each as Float, the real numbers its integers stand for, so that
// every node runs on Kiln's float kernels as for a float graph; after the node that writes a
// quantized value, its numbers are rounded onto the value's grid (quantized and dequantized with
// quantized_decomposed's kernels), which is what the node's int8 result stands for. Constant
// weights are dequantized once at load. Results then match XNNPACK's integer arithmetic but where
// a float sum lands on the other side of a rounding boundary: one step of the output's scale.
#include <cstdint>
#include <cstring>

#include "runtime/executor/delegates/xnnpack/xnnpack_builder.h"
#include "runtime/executor/delegates/xnnpack/xnnpack_graph_generated.h"

namespace kiln::xnnpack {

namespace {

// XNNPACK's quantized dtypes Kiln runs: the integers' dtype, range and granularity.
bool quantized_dtype(xnn_format::DataType type, QuantParams* q) {
  using D = xnn_format::DataType;
  switch (type) {
    case D::QINT8:
    case D::QCINT8:
    case D::QDINT8:
      q->storage = ScalarType::Char;
      q->quant_min = INT8_MIN;
      q->quant_max = INT8_MAX;
      q->kind = type == D::QINT8    ? QuantKind::kPerTensor
                : type == D::QCINT8 ? QuantKind::kPerChannel
                                    : QuantKind::kPerToken;
      return true;
    case D::QUINT8:
      q->storage = ScalarType::Byte;
      q->quant_min = 0;
      q->quant_max = UINT8_MAX;
      q->kind = QuantKind::kPerTensor;
      return true;
    case D::QINT32:
    case D::QCINT32:
      q->storage = ScalarType::Int;
      q->quant_min = INT32_MIN;
      q->quant_max = INT32_MAX;
      q->kind = type == D::QINT32 ? QuantKind::kPerTensor : QuantKind::kPerChannel;
      return true;
    case D::QBINT4:
      q->storage = ScalarType::Byte;  // two to a byte
      q->quant_min = -8;
      q->quant_max = 7;
      q->kind = QuantKind::kGroups4Bit;
      return true;
    default:  // 4-bit weights with a float scale per channel (QCINT4), packed int8 ones (QPINT8)
      return false;
  }
}

const char* kind_name(QuantKind kind) {
  switch (kind) {
    case QuantKind::kPerTensor:
      return "per tensor";
    case QuantKind::kPerChannel:
      return "per channel";
    case QuantKind::kPerToken:
      return "per token";
    case QuantKind::kGroups4Bit:
      return "in 4-bit groups";
    default:
      return "not";
  }
}

int64_t elements(const TensorImpl* tensor, size_t from) {
  int64_t n = 1;
  for (size_t d = from; d < tensor->sizes().size(); ++d) n *= tensor->sizes()[d];
  return n;
}

}  // namespace

Error GraphBuilder::read_quantization(uint32_t v, const xnn_format::QuantizedTensorValue& value,
                                      xnn_format::DataType dtype) {
  ValueState& state = values_[v];
  QuantParams q;
  if (!quantized_dtype(dtype, &q)) return Error::Ok;  // not run: refused where it is used
  using Q = xnn_format::Quantization;
  const Q given = value.quantization_type();
  const bool fits = (q.kind == QuantKind::kPerTensor && given == Q::TensorQuant) ||
                    (q.kind == QuantKind::kPerChannel && given == Q::ChannelQuant) ||
                    (q.kind == QuantKind::kPerToken && given == Q::TokenDynamicQuant) ||
                    (q.kind == QuantKind::kGroups4Bit && given == Q::ChannelGroupQuant);
  if (!fits) {
    return fail(Error::InvalidProgram,
                "value %u: a %s tensor needs quantization %s, but it has parameters of kind %s", v,
                state.dtype_name, kind_name(q.kind), xnn_format::EnumNameQuantization(given));
  }
  if (const auto* t = value.quantization_as_TensorQuant()) {
    q.scale = t->scale();
    q.zero_point = t->zero_point();
    if (!(q.scale > 0) || q.scale > 3.4e38 || q.zero_point < q.quant_min ||
        q.zero_point > q.quant_max) {
      return fail(Error::InvalidProgram,
                  "value %u: scale %g and zero point %lld are not a quantization of %s (a scale "
                  "above 0, a zero point in [%lld, %lld])",
                  v, q.scale, static_cast<long long>(q.zero_point), state.dtype_name,
                  static_cast<long long>(q.quant_min), static_cast<long long>(q.quant_max));
    }
  } else if (const auto* c = value.quantization_as_ChannelQuant()) {
    if (c->channel_dim() < 0 || static_cast<uint32_t>(c->channel_dim()) >= state.rank) {
      return fail(Error::InvalidProgram, "value %u: channel dim %d of %u dims", v, c->channel_dim(),
                  state.rank);
    }
    q.channel_dim = static_cast<uint32_t>(c->channel_dim());
    if (c->scales() != nullptr && c->scales()->size() > 0) {
      q.scales = c->scales()->data();
      q.num_scales = c->scales()->size();
    } else {
      Result<ConstantSpan> bytes = constant_bytes(v, c->scale_buffer(), "scales");
      if (!bytes.ok()) return bytes.error();
      q.num_scales = c->scale_count();
      if (bytes->size / sizeof(float) < q.num_scales ||
          reinterpret_cast<uintptr_t>(bytes->data) % alignof(float) != 0) {
        return fail(Error::InvalidProgram,
                    "value %u: its %u scales need %zu aligned bytes; constant %u has %zu", v,
                    q.num_scales, q.num_scales * sizeof(float), c->scale_buffer(), bytes->size);
      }
      q.scales = reinterpret_cast<const float*>(bytes->data);
    }
    if (q.num_scales != static_cast<uint32_t>(state.dims[q.channel_dim])) {
      return fail(Error::InvalidProgram, "value %u: %u scales for %d channels along dim %u", v,
                  q.num_scales, static_cast<int>(state.dims[q.channel_dim]), q.channel_dim);
    }
  } else if (const auto* g = value.quantization_as_ChannelGroupQuant()) {
    KILN_RETURN_IF_ERROR(read_4bit_groups(v, *g, &q));
  } else {
    const int32_t token_dims = value.quantization_as_TokenDynamicQuant()->non_batch_dims();
    if (token_dims < 1 || static_cast<uint32_t>(token_dims) > state.rank) {
      return fail(Error::InvalidProgram, "value %u: tokens of %d dims in a tensor of %u", v,
                  token_dims, state.rank);
    }
    q.token_dims = static_cast<uint32_t>(token_dims);
  }
  state.quant = q;
  state.tensor = true;
  state.dtype = ScalarType::Float;
  return Error::Ok;
}

// A QBINT4 weight [out, in]: groups of `group_size` along each row, one bfloat16 scale each.
Error GraphBuilder::read_4bit_groups(uint32_t v, const xnn_format::ChannelGroupQuant& groups,
                                     QuantParams* q) {
  const ValueState& state = values_[v];
  if (state.rank != 2 || groups.channel_dim() != 0 || groups.group_size() <= 0 ||
      state.dims[1] % groups.group_size() != 0) {
    return fail(Error::InvalidProgram,
                "value %u: 4-bit groups of %d along channel dim %d of a tensor of %u dims (a "
                "[out, in] weight whose rows are whole groups, channel dim 0)",
                v, groups.group_size(), groups.channel_dim(), state.rank);
  }
  q->group_size = static_cast<uint32_t>(groups.group_size());
  const uint64_t count = static_cast<uint64_t>(state.dims[0]) * (state.dims[1] / q->group_size);
  Result<ConstantSpan> bytes = constant_bytes(v, groups.scale_buffer(), "scales");
  if (!bytes.ok()) return bytes.error();
  if (groups.scale_count() != count || bytes->size / sizeof(uint16_t) < count ||
      reinterpret_cast<uintptr_t>(bytes->data) % alignof(uint16_t) != 0) {
    return fail(Error::InvalidProgram,
                "value %u: %llu groups need as many aligned bfloat16 scales; it has %u, in %zu "
                "bytes",
                v, static_cast<unsigned long long>(count), groups.scale_count(), bytes->size);
  }
  q->bf16_scales = reinterpret_cast<const uint16_t*>(bytes->data);
  return Error::Ok;
}

// XNNPACK's packing (what ExecuTorch writes): each row padded to an even length, element 2k in
// the low nibble of byte k and 2k + 1 in the high one, stored as the integer plus 8.
Error GraphBuilder::dequantize_4bit_groups(uint32_t v, ConstantSpan bytes) {
  ValueState& state = values_[v];
  const QuantParams& q = state.quant;
  const int64_t rows = state.dims[0], columns = state.dims[1];
  const int64_t row_bytes = (columns + 1) / 2, groups = columns / q.group_size;
  if (bytes.size / (row_bytes == 0 ? 1 : row_bytes) < static_cast<uint64_t>(rows)) {
    return fail(Error::InvalidProgram,
                "value %u: its 4-bit [%lld, %lld] needs %lld bytes; it has %zu", v,
                static_cast<long long>(rows), static_cast<long long>(columns),
                static_cast<long long>(rows * row_bytes), bytes.size);
  }
  KILN_XNN_LET(real, new_buffer(ScalarType::Float, {state.dims, state.rank}, true));
  auto* out = static_cast<float*>(real->mutable_data());
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* packed = bytes.data + r * row_bytes;
    for (int64_t g = 0; g < groups; ++g) {
      const uint32_t bits = uint32_t{q.bf16_scales[r * groups + g]} << 16;
      float scale;
      std::memcpy(&scale, &bits, sizeof(scale));
      for (int64_t c = g * q.group_size; c < (g + 1) * q.group_size; ++c) {
        const int nibble = (packed[c / 2] >> (4 * (c % 2))) & 0xF;
        out[r * columns + c] = static_cast<float>(nibble - 8) * scale;
      }
    }
  }
  state.held[kNatural] = real;
  return Error::Ok;
}

Error GraphBuilder::dequantize_constant(uint32_t v, TensorImpl* stored) {
  ValueState& state = values_[v];
  const QuantParams& q = state.quant;
  KILN_XNN_LET(real, new_buffer(ScalarType::Float, {state.dims, state.rank}, true));
  if (q.kind == QuantKind::kPerTensor) {
    KILN_RETURN_IF_ERROR(
        call("quantized_decomposed::dequantize_per_tensor.out",
             {tensor_arg(stored), arg(EValue(q.scale)), arg(EValue(q.zero_point)),
              arg(EValue(q.quant_min)), arg(EValue(q.quant_max)), dtype_arg(q.storage),
              dtype_arg(ScalarType::Float), tensor_arg(real)},
             nullptr, true));
  } else if (q.kind == QuantKind::kPerChannel) {
    const SizesType count = static_cast<SizesType>(q.num_scales);
    KILN_XNN_LET(scales, new_tensor(ScalarType::Float, {&count, 1}, const_cast<float*>(q.scales)));
    KILN_RETURN_IF_ERROR(
        call("quantized_decomposed::dequantize_per_channel.out",
             {tensor_arg(stored), tensor_arg(scales), arg(EValue()),
              arg(EValue(static_cast<int64_t>(q.channel_dim))), arg(EValue(q.quant_min)),
              arg(EValue(q.quant_max)), dtype_arg(q.storage), dtype_arg(ScalarType::Float),
              tensor_arg(real)},
             nullptr, true));
  } else {
    return fail(Error::InvalidProgram,
                "value %u: a constant quantized per token (dynamic quantization is for values "
                "computed at run time)",
                v);
  }
  state.held[kNatural] = real;
  return Error::Ok;
}

Error GraphBuilder::bind_quantized_argument(uint32_t v) {
  ValueState& state = values_[v];
  const QuantParams& q = state.quant;
  if (q.kind != QuantKind::kPerTensor) {
    return fail(Error::NotSupported,
                "value %u, argument %u of the call, is quantized %s; Kiln's XNNPACK delegate "
                "passes quantized arguments per tensor only",
                v, state.external, kind_name(q.kind));
  }
  if (!state.input) return Error::Ok;  // an output: quantized into the argument after its node
  KILN_XNN_LET(real, new_buffer(ScalarType::Float, {state.dims, state.rank}));
  KILN_RETURN_IF_ERROR(
      call("quantized_decomposed::dequantize_per_tensor.out",
           {tensor_arg(state.bound), arg(EValue(q.scale)), arg(EValue(q.zero_point)),
            arg(EValue(q.quant_min)), arg(EValue(q.quant_max)), dtype_arg(q.storage),
            dtype_arg(ScalarType::Float), tensor_arg(real)}));
  state.held[kNatural] = real;
  return Error::Ok;
}

Error GraphBuilder::quantize_output(uint32_t v) {
  ValueState& state = values_[v];
  KILN_XNN_LET(real, held(v, kNatural));
  const QuantParams& q = state.quant;
  return call(
      "quantized_decomposed::quantize_per_tensor.out",
      {tensor_arg(real), arg(EValue(q.scale)), arg(EValue(q.zero_point)), arg(EValue(q.quant_min)),
       arg(EValue(q.quant_max)), dtype_arg(q.storage), tensor_arg(state.bound)});
}

Error GraphBuilder::fake_quantize(uint32_t v, TensorImpl* source, TensorImpl* target) {
  const QuantParams& q = values_[v].quant;
  if (q.kind == QuantKind::kPerTensor) {
    KILN_XNN_LET(ints, new_buffer(q.storage, source->sizes()));
    EValue* params[5] = {arg(EValue(q.scale)), arg(EValue(q.zero_point)), arg(EValue(q.quant_min)),
                         arg(EValue(q.quant_max)), dtype_arg(q.storage)};
    KILN_RETURN_IF_ERROR(call("quantized_decomposed::quantize_per_tensor.out",
                              {tensor_arg(source), params[0], params[1], params[2], params[3],
                               params[4], tensor_arg(ints)}));
    return call("quantized_decomposed::dequantize_per_tensor.out",
                {tensor_arg(ints), params[0], params[1], params[2], params[3], params[4],
                 dtype_arg(ScalarType::Float), tensor_arg(target)});
  }
  if (q.kind != QuantKind::kPerToken) {
    return fail(Error::NotSupported,
                "value %u is computed at run time and quantized %s, which Kiln's XNNPACK delegate "
                "does not run",
                v, kind_name(q.kind));
  }
  // Per token: the tensor as rows of its trailing `token_dims` dims, each with its own
  // parameters (XNNPACK's and torchao's asymmetric choice over [min(x, 0), max(x, 0)]).
  const size_t rank = source->sizes().size();
  const SizesType token = static_cast<SizesType>(elements(source, rank - q.token_dims));
  if (source->numel() == 0) return Error::Ok;
  const SizesType rows[2] = {static_cast<SizesType>(source->numel() / token), token};
  const SizesType one_per_row[2] = {rows[0], 1};
  KILN_XNN_LET(x, view(source, rows));
  TensorImpl* y = x;
  if (target != source) KILN_XNN_ASSIGN(y, view(target, rows));
  KILN_XNN_LET(scales, new_buffer(ScalarType::Double, one_per_row));
  KILN_XNN_LET(zero_points, new_buffer(ScalarType::Long, one_per_row));
  KILN_XNN_LET(ints, new_buffer(ScalarType::Char, rows));
  KILN_RETURN_IF_ERROR(call(
      "quantized_decomposed::choose_qparams_per_token_asymmetric.out",
      {tensor_arg(x), dtype_arg(ScalarType::Char), tensor_arg(scales), tensor_arg(zero_points)}));
  EValue* params[5] = {tensor_arg(scales), tensor_arg(zero_points), arg(EValue(q.quant_min)),
                       arg(EValue(q.quant_max)), dtype_arg(ScalarType::Char)};
  KILN_RETURN_IF_ERROR(call(
      "quantized_decomposed::quantize_per_token.out",
      {tensor_arg(x), params[0], params[1], params[2], params[3], params[4], tensor_arg(ints)}));
  return call("quantized_decomposed::dequantize_per_token.out",
              {tensor_arg(ints), params[0], params[1], params[2], params[3], params[4],
               dtype_arg(ScalarType::Float), tensor_arg(y)});
}

Error GraphBuilder::finish_quantized_values() {
  for (size_t i = 0; i < num_written_quantized_; ++i) {
    const uint32_t v = written_quantized_[i];
    ValueState& state = values_[v];
    if (!state.awaiting_quantize) continue;
    state.awaiting_quantize = false;
    if (state.same_bytes_as != kNoValue) {
      // A transpose or reshape: its numbers are its input's, on its input's grid.
      const QuantParams &a = state.quant, &b = values_[state.same_bytes_as].quant;
      const bool same_grid = a.kind == b.kind && a.storage == b.storage && a.scale == b.scale &&
                             a.zero_point == b.zero_point && a.kind != QuantKind::kPerToken;
      if (!same_grid) {
        return fail(Error::NotSupported,
                    "value %u has value %u's numbers on another grid (a requantizing %s), which "
                    "Kiln's XNNPACK delegate does not run",
                    v, state.same_bytes_as, node_kind_);
      }
    } else if (state.quant.kind == QuantKind::kPerToken) {
      KILN_XNN_LET(real, held(v, kNatural));  // tokens are rows of the declared dims
      state.held[kNchw] = nullptr;
      KILN_RETURN_IF_ERROR(fake_quantize(v, real, real));
    } else {
      TensorImpl* real = state.held[kNatural] != nullptr ? state.held[kNatural] : state.held[kNchw];
      KILN_RETURN_IF_ERROR(fake_quantize(v, real, real));
    }
    if (state.output) KILN_RETURN_IF_ERROR(quantize_output(v));
  }
  return Error::Ok;
}

// A Convert to a quantized dtype quantizes (to its grid); from one, or between float dtypes, it
// copies: the delegate holds quantized values as Float already.
Error GraphBuilder::lower_convert(uint32_t in, uint32_t out) {
  if (in >= num_values_ || out >= num_values_) {
    return fail(Error::InvalidProgram, "its input and output are values %u and %u of %u", in, out,
                num_values_);
  }
  // Its output has its input's shape, as XNNPACK computes it; the dims the partitioner declares
  // for a dynamically quantized value may be another layout's (NCHW for an NHWC input).
  ValueState &x = values_[in], &y = values_[out];
  int64_t x_count = 1, y_count = 1;
  for (uint32_t d = 0; d < x.rank; ++d) x_count *= x.dims[d];
  for (uint32_t d = 0; d < y.rank; ++d) y_count *= y.dims[d];
  if (x_count != y_count) {
    return fail(Error::InvalidProgram, "its input has %lld elements, its output %lld",
                static_cast<long long>(x_count), static_cast<long long>(y_count));
  }
  if (!y.input && !y.output && !y.constant) {
    y.rank = x.rank;
    for (uint32_t d = 0; d < x.rank; ++d) y.dims[d] = x.dims[d];
  }
  if (y.quant.kind == QuantKind::kNone) {
    return lower_unary("aten::_to_copy.out", in, out, {arg(EValue(false)), arg(EValue())});
  }
  KILN_RETURN_IF_ERROR(use(in, "input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  const Holding h =
      y.quant.kind == QuantKind::kPerToken || x.held[kNatural] != nullptr ? kNatural : kNchw;
  KILN_XNN_LET(source, held(in, h));
  KILN_XNN_LET(target, produce(out, h));
  KILN_RETURN_IF_ERROR(fake_quantize(out, source, target));
  y.awaiting_quantize = false;
  return y.output ? quantize_output(out) : Error::Ok;
}

}  // namespace kiln::xnnpack
