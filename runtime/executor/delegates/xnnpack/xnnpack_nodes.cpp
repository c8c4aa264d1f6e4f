// How each XNNPACK node runs on Kiln's kernels: the ATen operator that computes it, in the layout
// it needs (xnnpack_builder.h, "Layouts").
#include <cmath>

#include "runtime/executor/delegates/xnnpack/xnnpack_builder.h"
#include "runtime/executor/delegates/xnnpack/xnnpack_graph_generated.h"

namespace kiln::xnnpack {

namespace {

constexpr uint32_t kTransposeWeights = 1u;  // XNNPACK's flag: the filter (or B) is transposed
const int64_t kHoldingPerm[2][kMaxRank] = {{0, 1, 2, 3, 4, 5}, {0, 3, 1, 2}};

using Ids = flatbuffers::Vector<uint32_t>;

uint32_t size_of(const Ids* ids) { return ids == nullptr ? 0 : ids->size(); }

}  // namespace

Error GraphBuilder::lower_node(const xnn_format::Node& node) {
  using K = xnn_format::NodeKind;
  switch (node.node_type()) {
    case K::Add:
    case K::Subtract:
    case K::Multiply:
    case K::Divide:
    case K::Minimum:
    case K::Maximum: {
      const auto* b = static_cast<const xnn_format::Binary*>(node.node());
      const K kind = node.node_type();
      const char* op = kind == K::Add        ? "aten::add.out"
                       : kind == K::Subtract ? "aten::sub.out"
                       : kind == K::Multiply ? "aten::mul.out"
                       : kind == K::Divide   ? "aten::div.out"
                       : kind == K::Minimum  ? "aten::minimum.out"
                                             : "aten::maximum.out";
      return lower_binary(op, b->input1(), b->input2(), b->output(),
                          kind == K::Add || kind == K::Subtract);
    }
    case K::Square: {
      const auto* u = node.node_as_Square();
      return lower_binary("aten::mul.out", u->input(), u->input(), u->output(), false);
    }
    case K::FullyConnected: {
      const auto* f = node.node_as_FullyConnected();
      return lower_fully_connected(f->input(), f->filter(), f->bias(), f->output(),
                                   (f->flags() & kTransposeWeights) != 0);
    }
    case K::BatchMatMul: {
      const auto* b = node.node_as_BatchMatMul();
      return lower_batch_matmul(b->input1(), b->input2(), b->output(),
                                (b->flags() & kTransposeWeights) != 0);
    }
    case K::Conv2d:
      return lower_convolution(*node.node_as_Conv2d(), false);
    case K::DepthwiseConv2d:
      return lower_convolution(*node.node_as_DepthwiseConv2d(), true);
    case K::MaxPool2d:
      return lower_pooling(*node.node_as_MaxPool2d(), true);
    case K::AvgPool2d:
      return lower_pooling(*node.node_as_AvgPool2d(), false);
    case K::GlobalAvgPool2d: {
      const auto* u = node.node_as_GlobalAvgPool2d();
      return lower_global_pooling(u->input(), u->output());
    }
    case K::Transpose: {
      const auto* t = node.node_as_Transpose();
      if (size_of(t->perm()) != t->rank() || t->rank() > kMaxRank) {
        return fail(Error::InvalidProgram, "its permutation has %u entries for rank %u",
                    size_of(t->perm()), t->rank());
      }
      return lower_transpose(t->rank() == 0 ? nullptr : t->perm()->data(), t->rank(), t->input(),
                             t->output());
    }
    case K::Reshape: {
      const auto* r = node.node_as_Reshape();
      return lower_reshape(r->input(), r->output());
    }
    case K::Slice: {
      const auto* s = node.node_as_Slice();
      if (size_of(s->offsets()) != s->rank() || size_of(s->sizes()) != s->rank() ||
          s->rank() > kMaxRank) {
        return fail(Error::InvalidProgram, "its offsets and sizes do not have %u entries",
                    s->rank());
      }
      return lower_slice(s->rank() ? s->offsets()->data() : nullptr,
                         s->rank() ? s->sizes()->data() : nullptr, s->rank(), s->input(),
                         s->output());
    }
    case K::Concatenate2:
    case K::Concatenate3:
    case K::Concatenate4:
    case K::Concatenate5: {
      const auto* c = static_cast<const xnn_format::Concatenate*>(node.node());
      const uint32_t inputs[5] = {c->input1(), c->input2(), c->input3(), c->input4(), c->input5()};
      const uint32_t count =
          2 + static_cast<uint32_t>(node.node_type()) - static_cast<uint32_t>(K::Concatenate2);
      // (Concatenate5 was appended after other kinds: its code is not Concatenate4's plus one.)
      return lower_concatenate(inputs, node.node_type() == K::Concatenate5 ? 5 : count, c->axis(),
                               c->output());
    }
    case K::ConstantPad: {
      const auto* p = node.node_as_ConstantPad();
      const uint32_t rank = size_of(p->before());
      if (size_of(p->after()) != rank || rank > kMaxRank) {
        return fail(Error::InvalidProgram, "its paddings before and after differ in length");
      }
      return lower_constant_pad(rank ? p->before()->data() : nullptr,
                                rank ? p->after()->data() : nullptr, rank, p->value(), p->input(),
                                p->output());
    }
    case K::Softmax: {
      const auto* u = node.node_as_Softmax();
      return lower_softmax(u->input(), u->output());
    }
    case K::Clamp: {
      const auto* u = node.node_as_Clamp();
      return lower_clamp(u->input(), u->output());
    }
    case K::Convert: {
      const auto* u = node.node_as_Convert();
      return lower_convert(u->input(), u->output());
    }
    case K::Copy: {
      const auto* u = node.node_as_Copy();
      return lower_unary("aten::clone.out", u->input(), u->output(), {arg(EValue())});
    }
    case K::Gelu: {
      const auto* u = node.node_as_Gelu();
      return lower_unary("aten::gelu.out", u->input(), u->output(),
                         {arg(EValue(std::string_view("none")))});
    }
    case K::Elu: {
      const auto* e = node.node_as_Elu();
      return lower_unary(
          "aten::elu.out", e->input(), e->output(),
          {arg(EValue(static_cast<double>(e->alpha()))), arg(EValue(1.0)), arg(EValue(1.0))});
    }
    case K::LeakyRelu: {
      const auto* l = node.node_as_LeakyRelu();
      return lower_unary("aten::leaky_relu.out", l->input(), l->output(),
                         {arg(EValue(static_cast<double>(l->slope())))});
    }
    case K::Sigmoid:
    case K::Tanh:
    case K::Hardswish:
    case K::Abs:
    case K::Negate:
    case K::SquareRoot:
    case K::ReciprocalSquareRoot:
    case K::Floor:
    case K::Ceiling:
    case K::Exp:
    case K::Log:
    case K::Sin:
    case K::Cos: {
      const auto* u = static_cast<const xnn_format::Unary*>(node.node());
      const K kind = node.node_type();
      const char* op = kind == K::Sigmoid                ? "aten::sigmoid.out"
                       : kind == K::Tanh                 ? "aten::tanh.out"
                       : kind == K::Hardswish            ? "aten::hardswish.out"
                       : kind == K::Abs                  ? "aten::abs.out"
                       : kind == K::Negate               ? "aten::neg.out"
                       : kind == K::SquareRoot           ? "aten::sqrt.out"
                       : kind == K::ReciprocalSquareRoot ? "aten::rsqrt.out"
                       : kind == K::Floor                ? "aten::floor.out"
                       : kind == K::Ceiling              ? "aten::ceil.out"
                       : kind == K::Exp                  ? "aten::exp.out"
                       : kind == K::Log                  ? "aten::log.out"
                       : kind == K::Sin                  ? "aten::sin.out"
                                                         : "aten::cos.out";
      return lower_unary(op, u->input(), u->output());
    }
    default:
      return fail(Error::NotSupported,
                  "Kiln's XNNPACK delegate does not run this node kind yet (it runs the float "
                  "nodes of MLPs, CNNs and transformer blocks; docs/programs.md, "
                  "\"XNNPACK-delegated programs\"): export the model without the XNNPACK "
                  "partitioner to run it on Kiln's kernels directly");
  }
}

Error GraphBuilder::lower_unary(const char* op, uint32_t in, uint32_t out,
                                ArrayRef<EValue*> extra) {
  KILN_RETURN_IF_ERROR(use(in, "input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  const Holding h = values_[in].held[kNatural] != nullptr ? kNatural : kNchw;
  if (h == kNchw && values_[out].rank != 4) {
    return fail(Error::InvalidProgram, "its input and output differ in rank");
  }
  KILN_XNN_LET(x, held(in, h));
  KILN_XNN_LET(y, produce(out, h));
  EValue* stack[8] = {tensor_arg(x)};
  size_t n = 1;
  for (EValue* value : extra) stack[n++] = value;
  stack[n++] = tensor_arg(y);
  KILN_RETURN_IF_ERROR(call(op, {stack, n}, y));
  return finish_output(out);
}

Error GraphBuilder::lower_clamp(uint32_t in, uint32_t out) {
  const auto* clamp = node_->clamp();
  const double low = clamp == nullptr ? -INFINITY : clamp->min();
  const double high = clamp == nullptr ? INFINITY : clamp->max();
  return lower_unary("aten::clamp.out", in, out, {arg(EValue(low)), arg(EValue(high))});
}

// Element-wise on two tensors: in NCHW when both hold it (a chain of NHWC nodes), else in their
// declared layout. A single element broadcasts the same in either.
Error GraphBuilder::lower_binary(const char* op, uint32_t a, uint32_t b, uint32_t out, bool alpha) {
  KILN_RETURN_IF_ERROR(use(a, "first input"));
  KILN_RETURN_IF_ERROR(use(b, "second input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  const ValueState &x = values_[a], &y = values_[b];
  auto nchw_only = [](const ValueState& v) {
    return v.held[kNatural] == nullptr && v.held[kNchw] != nullptr;
  };
  auto single = [](const ValueState& v) {
    int64_t n = 1;
    for (uint32_t d = 0; d < v.rank; ++d) n *= v.dims[d];
    return n == 1 && v.rank <= 4;
  };
  Holding ha = kNatural, hb = kNatural;
  if (values_[out].rank == 4 && (nchw_only(x) || nchw_only(y))) {
    const bool a_fits = x.rank == 4 || single(x), b_fits = y.rank == 4 || single(y);
    if (a_fits && b_fits) {
      ha = x.rank == 4 && !single(x) ? kNchw : kNatural;
      hb = y.rank == 4 && !single(y) ? kNchw : kNatural;
    }
  }
  const Holding h = ha == kNchw || hb == kNchw ? kNchw : kNatural;
  KILN_XNN_LET(ta, held(a, ha));
  KILN_XNN_LET(tb, held(b, hb));
  KILN_XNN_LET(to, produce(out, h));
  if (alpha) {
    KILN_RETURN_IF_ERROR(
        call(op, {tensor_arg(ta), tensor_arg(tb), arg(EValue(int64_t{1})), tensor_arg(to)}, to));
  } else {
    KILN_RETURN_IF_ERROR(call(op, {tensor_arg(ta), tensor_arg(tb), tensor_arg(to)}, to));
  }
  return finish_output(out);
}

// A transpose that maps one of the input's holdings onto one of the output's moves no byte.
Error GraphBuilder::lower_transpose(const uint32_t* perm, uint32_t rank, uint32_t in,
                                    uint32_t out) {
  KILN_RETURN_IF_ERROR(use(in, "input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  const ValueState& x = values_[in];
  bool seen[kMaxRank] = {};
  for (uint32_t d = 0; d < rank; ++d) {
    if (perm[d] >= rank || seen[perm[d]]) {
      return fail(Error::InvalidProgram, "its permutation is not one of %u dims", rank);
    }
    seen[perm[d]] = true;
  }
  if (rank != x.rank || rank != values_[out].rank) {
    return fail(Error::InvalidProgram, "its permutation has %u dims, its input %u, its output %u",
                rank, x.rank, values_[out].rank);
  }
  for (uint32_t d = 0; d < rank; ++d) {
    if (values_[out].dims[d] != x.dims[perm[d]]) {
      return fail(Error::InvalidProgram, "its output's dims are not its input's permuted");
    }
  }
  for (Holding from : {kNatural, kNchw}) {
    if (x.held[from] == nullptr) continue;
    for (Holding to : {kNatural, kNchw}) {
      if (to == kNchw && rank != 4) continue;
      bool same = true;
      for (uint32_t d = 0; d < rank && same; ++d) {
        same = perm[kHoldingPerm[to][d]] == static_cast<uint32_t>(kHoldingPerm[from][d]);
      }
      if (!same) continue;
      KILN_RETURN_IF_ERROR(alias(out, to, x.held[from]));
      values_[out].same_bytes_as = in;
      return finish_output(out);
    }
  }
  KILN_XNN_LET(source, held(in, kNatural));
  KILN_XNN_LET(target, produce(out, kNatural));
  int64_t dims[kMaxRank];
  for (uint32_t d = 0; d < rank; ++d) dims[d] = perm[d];
  return call("aten::permute_copy.out",
              {tensor_arg(source), ints_arg(dims, rank), tensor_arg(target)});
}

Error GraphBuilder::lower_reshape(uint32_t in, uint32_t out) {
  KILN_RETURN_IF_ERROR(use(in, "input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  KILN_XNN_LET(source, held(in, kNatural));
  ValueState& y = values_[out];
  if (writes_bound(y)) {
    int64_t dims[kMaxRank];
    for (uint32_t d = 0; d < y.rank; ++d) dims[d] = y.dims[d];
    KILN_XNN_LET(target, produce(out, kNatural));
    return call("aten::view_copy.out",
                {tensor_arg(source), ints_arg(dims, y.rank), tensor_arg(target)});
  }
  KILN_XNN_LET(reshaped, view(source, {y.dims, y.rank}));
  y.held[kNatural] = reshaped;
  y.same_bytes_as = in;
  return Error::Ok;
}

Error GraphBuilder::lower_softmax(uint32_t in, uint32_t out) {
  KILN_RETURN_IF_ERROR(use(in, "input"));
  if (values_[in].rank == 0) return fail(Error::InvalidProgram, "its input has no dims");
  // Over the declared last dim: in the natural holding (lower_unary then takes it).
  KILN_XNN_LET(x, held(in, kNatural));
  (void)x;
  const int64_t last = values_[in].rank - 1;
  return lower_unary("aten::_softmax.out", in, out, {arg(EValue(last)), arg(EValue(false))});
}

// y = x W^T + b over x's last dim. W is [out, in], or [in, out] with the transposed flag (what
// addmm lowers to). A constant W runs as addmm (mm without a bias) on W^T, transposed once at
// load, over x viewed as rows: the matrix product's fast path, as the program's own addmm.
Error GraphBuilder::lower_fully_connected(uint32_t in, uint32_t filter, uint32_t bias, uint32_t out,
                                          bool transposed) {
  KILN_RETURN_IF_ERROR(use(in, "input"));
  KILN_RETURN_IF_ERROR(use(filter, "filter"));
  if (bias != kNoValue) KILN_RETURN_IF_ERROR(use(bias, "bias"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  const ValueState &f = values_[filter], &x_state = values_[in], &y_state = values_[out];
  if (f.rank != 2 || x_state.rank == 0 || y_state.rank != x_state.rank) {
    return fail(Error::InvalidProgram, "its filter has %u dims (not 2), its input %u, output %u",
                f.rank, x_state.rank, y_state.rank);
  }
  KILN_XNN_LET(x, held(in, kNatural));
  KILN_XNN_LET(w, held(filter, kNatural));
  KILN_XNN_ASSIGN(w, in_dtype(w, x->scalar_type(), f.constant));
  EValue* b = arg(EValue());
  if (bias != kNoValue) {
    KILN_XNN_LET(tb, held(bias, kNatural));
    KILN_XNN_ASSIGN(tb, in_dtype(tb, x->scalar_type(), values_[bias].constant));
    b = tensor_arg(tb);
  }
  KILN_XNN_LET(y, produce(out, kNatural));
  const int64_t swap[2] = {1, 0};
  if (!f.constant) {
    if (transposed) KILN_XNN_ASSIGN(w, permuted(w, swap, false));
    return call("aten::linear.out", {tensor_arg(x), tensor_arg(w), b, tensor_arg(y)}, y);
  }
  if (!transposed) KILN_XNN_ASSIGN(w, permuted(w, swap, true));
  const SizesType k = x_state.dims[x_state.rank - 1], n = y_state.dims[y_state.rank - 1];
  const SizesType rows[2] = {k == 0 ? 0 : x->numel() / k, k};
  const SizesType out_rows[2] = {rows[0], n};
  KILN_XNN_LET(x2, view(x, rows));
  KILN_XNN_LET(y2, view(y, out_rows));
  if (bias == kNoValue) {
    return call("aten::mm.out", {tensor_arg(x2), tensor_arg(w), tensor_arg(y2)}, y2);
  }
  return call("aten::addmm.out",
              {b, tensor_arg(x2), tensor_arg(w), arg(EValue(int64_t{1})), arg(EValue(int64_t{1})),
               tensor_arg(y2)},
              y2);
}

// [..., m, k] x [..., k, n] (or [..., n, k] transposed) as bmm on 3-D views of the same bytes.
Error GraphBuilder::lower_batch_matmul(uint32_t a, uint32_t b, uint32_t out, bool transposed) {
  KILN_RETURN_IF_ERROR(use(a, "first input"));
  KILN_RETURN_IF_ERROR(use(b, "second input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  const ValueState &x = values_[a], &y = values_[b], &z = values_[out];
  if (x.rank < 2 || x.rank != y.rank || x.rank != z.rank) {
    return fail(Error::NotSupported, "batch matrix multiply of ranks %u and %u into %u", x.rank,
                y.rank, z.rank);
  }
  SizesType batch = 1;
  for (uint32_t d = 0; d + 2 < x.rank; ++d) {
    if (x.dims[d] != y.dims[d] || x.dims[d] != z.dims[d]) {
      return fail(Error::NotSupported, "batch matrix multiply broadcasting its batch dims");
    }
    batch *= x.dims[d];
  }
  KILN_XNN_LET(ta, held(a, kNatural));
  KILN_XNN_LET(tb, held(b, kNatural));
  KILN_XNN_LET(tz, produce(out, kNatural));
  const uint32_t r = x.rank;
  const SizesType a3[3] = {batch, x.dims[r - 2], x.dims[r - 1]};
  const SizesType b3[3] = {batch, y.dims[r - 2], y.dims[r - 1]};
  const SizesType z3[3] = {batch, z.dims[r - 2], z.dims[r - 1]};
  KILN_XNN_LET(va, view(ta, a3));
  KILN_XNN_LET(vb, view(tb, b3));
  if (transposed) {
    const int64_t swap[3] = {0, 2, 1};
    KILN_XNN_ASSIGN(vb, permuted(vb, swap, y.constant));
  }
  KILN_XNN_LET(vz, view(tz, z3));
  return call("aten::bmm.out", {tensor_arg(va), tensor_arg(vb), tensor_arg(vz)});
}

// NHWC convolution as Kiln's NCHW one: the filter [out, kh, kw, in/groups] (depthwise:
// [1, kh, kw, out]) becomes [out, in/groups, kh, kw], once at load when constant.
Error GraphBuilder::lower_convolution(const xnn_format::Convolution& conv, bool depthwise) {
  KILN_RETURN_IF_ERROR(use(conv.input(), "input"));
  KILN_RETURN_IF_ERROR(use(conv.filter(), "filter"));
  if (conv.bias() != kNoValue) KILN_RETURN_IF_ERROR(use(conv.bias(), "bias"));
  KILN_RETURN_IF_ERROR(define(conv.output(), "output"));
  if (conv.pad_top() != conv.pad_bottom() || conv.pad_left() != conv.pad_right()) {
    return fail(Error::NotSupported, "asymmetric padding (%u, %u, %u, %u)", conv.pad_top(),
                conv.pad_right(), conv.pad_bottom(), conv.pad_left());
  }
  if (values_[conv.filter()].rank != 4) {
    return fail(Error::InvalidProgram, "its filter has %u dims, not 4",
                values_[conv.filter()].rank);
  }
  KILN_XNN_LET(x, held(conv.input(), kNchw));
  KILN_XNN_LET(w, held(conv.filter(), kNatural));
  const int64_t to_oihw[2][4] = {{0, 3, 1, 2}, {3, 0, 1, 2}};
  KILN_XNN_ASSIGN(w, permuted(w, to_oihw[depthwise ? 1 : 0], values_[conv.filter()].constant));
  KILN_XNN_ASSIGN(w, in_dtype(w, x->scalar_type(), values_[conv.filter()].constant));
  EValue* b = arg(EValue());
  if (conv.bias() != kNoValue) {
    KILN_XNN_LET(tb, held(conv.bias(), kNatural));
    KILN_XNN_ASSIGN(tb, in_dtype(tb, x->scalar_type(), values_[conv.bias()].constant));
    b = tensor_arg(tb);
  }
  KILN_XNN_LET(y, produce(conv.output(), kNchw));
  const int64_t groups = conv.groups();
  KILN_RETURN_IF_ERROR(
      call("aten::convolution.out",
           {tensor_arg(x), tensor_arg(w), b, ints_arg({conv.stride_height(), conv.stride_width()}),
            ints_arg({conv.pad_top(), conv.pad_left()}),
            ints_arg({conv.dilation_height(), conv.dilation_width()}), arg(EValue(false)),
            ints_arg({0, 0}), arg(EValue(groups)), tensor_arg(y)},
           y));
  return finish_output(conv.output());
}

// NHWC pooling as NCHW. XNNPACK pads max pooling's bottom and right more to get ceil mode's
// output size; that is ceil mode here.
Error GraphBuilder::lower_pooling(const xnn_format::Pooling& pool, bool max) {
  KILN_RETURN_IF_ERROR(use(pool.input(), "input"));
  KILN_RETURN_IF_ERROR(define(pool.output(), "output"));
  const bool symmetric = pool.pad_top() == pool.pad_bottom() && pool.pad_left() == pool.pad_right();
  const bool ceil = max && !symmetric && pool.pad_bottom() >= pool.pad_top() &&
                    pool.pad_right() >= pool.pad_left();
  if (!symmetric && !ceil) {
    return fail(Error::NotSupported, "asymmetric padding (%u, %u, %u, %u)", pool.pad_top(),
                pool.pad_right(), pool.pad_bottom(), pool.pad_left());
  }
  KILN_XNN_LET(x, held(pool.input(), kNchw));
  KILN_XNN_LET(y, produce(pool.output(), kNchw));
  EValue* kernel = ints_arg({pool.pool_height(), pool.pool_width()});
  EValue* stride = ints_arg({pool.stride_height(), pool.stride_width()});
  EValue* padding = ints_arg({pool.pad_top(), pool.pad_left()});
  if (max) {
    KILN_XNN_LET(indices, new_buffer(ScalarType::Long, y->sizes()));
    EValue* dilation = ints_arg({pool.dilation_height() ? pool.dilation_height() : 1u,
                                 pool.dilation_width() ? pool.dilation_width() : 1u});
    KILN_RETURN_IF_ERROR(call("aten::max_pool2d_with_indices.out",
                              {tensor_arg(x), kernel, stride, padding, dilation, arg(EValue(ceil)),
                               tensor_arg(y), tensor_arg(indices)},
                              y));
  } else {
    if (pool.dilation_height() > 1 || pool.dilation_width() > 1) {
      return fail(Error::NotSupported, "dilated average pooling");
    }
    // XNNPACK averages over the window's elements inside the input.
    KILN_RETURN_IF_ERROR(call("aten::avg_pool2d.out",
                              {tensor_arg(x), kernel, stride, padding, arg(EValue(false)),
                               arg(EValue(false)), arg(EValue()), tensor_arg(y)},
                              y));
  }
  return finish_output(pool.output());
}

Error GraphBuilder::lower_global_pooling(uint32_t in, uint32_t out) {
  KILN_RETURN_IF_ERROR(use(in, "input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  KILN_XNN_LET(x, held(in, kNchw));
  KILN_XNN_LET(y, produce(out, kNchw));
  KILN_RETURN_IF_ERROR(
      call("aten::mean.out",
           {tensor_arg(x), ints_arg({2, 3}), arg(EValue(true)), arg(EValue()), tensor_arg(y)}, y));
  return finish_output(out);
}

// A slice of every dim whose range is not all of it, in turn.
Error GraphBuilder::lower_slice(const uint32_t* offsets, const uint32_t* sizes, uint32_t rank,
                                uint32_t in, uint32_t out) {
  KILN_RETURN_IF_ERROR(use(in, "input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  const ValueState& x = values_[in];
  if (rank != x.rank || rank != values_[out].rank) {
    return fail(Error::InvalidProgram, "its offsets have %u dims, its input %u", rank, x.rank);
  }
  uint32_t sliced[kMaxRank], count = 0;
  SizesType dims[kMaxRank];
  for (uint32_t d = 0; d < rank; ++d) {
    if (offsets[d] > static_cast<uint32_t>(x.dims[d]) ||
        sizes[d] > static_cast<uint32_t>(x.dims[d]) - offsets[d] ||
        static_cast<SizesType>(sizes[d]) != values_[out].dims[d]) {
      return fail(Error::InvalidProgram, "dim %u: slice [%u, +%u) of %d into %d", d, offsets[d],
                  sizes[d], static_cast<int>(x.dims[d]), static_cast<int>(values_[out].dims[d]));
    }
    if (offsets[d] != 0 || static_cast<SizesType>(sizes[d]) != x.dims[d]) sliced[count++] = d;
    dims[d] = x.dims[d];
  }
  KILN_XNN_LET(source, held(in, kNatural));
  KILN_XNN_LET(target, produce(out, kNatural));
  if (count == 0) {
    return call("aten::clone.out", {tensor_arg(source), arg(EValue()), tensor_arg(target)});
  }
  TensorImpl* current = source;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t d = sliced[i];
    dims[d] = static_cast<SizesType>(sizes[d]);
    KILN_XNN_LET(next, i + 1 == count ? target : new_buffer(values_[out].dtype, {dims, rank}));
    KILN_RETURN_IF_ERROR(call(
        "aten::slice_copy.Tensor_out",
        {tensor_arg(current), arg(EValue(int64_t{d})), arg(EValue(int64_t{offsets[d]})),
         arg(EValue(int64_t{offsets[d]} + sizes[d])), arg(EValue(int64_t{1})), tensor_arg(next)}));
    current = next;
  }
  return Error::Ok;
}

Error GraphBuilder::lower_concatenate(const uint32_t* inputs, uint32_t count, uint32_t axis,
                                      uint32_t out) {
  static const char* const kRoles[5] = {"input 1", "input 2", "input 3", "input 4", "input 5"};
  auto* tensors = make<Tensor>(count);
  if (tensors == nullptr) return no_memory(count * sizeof(Tensor));
  for (uint32_t i = 0; i < count; ++i) {
    KILN_RETURN_IF_ERROR(use(inputs[i], kRoles[i]));
    KILN_XNN_LET(t, held(inputs[i], kNatural));
    new (&tensors[i]) Tensor(t);
  }
  KILN_RETURN_IF_ERROR(define(out, "output"));
  if (axis >= values_[out].rank) {
    return fail(Error::InvalidProgram, "axis %u of %u dims", axis, values_[out].rank);
  }
  KILN_XNN_LET(y, produce(out, kNatural));
  return call("aten::cat.out", {arg(EValue(ArrayRef<Tensor>(tensors, count))),
                                arg(EValue(int64_t{axis})), tensor_arg(y)});
}

// constant_pad_nd lists (before, after) from the last dim to the first.
Error GraphBuilder::lower_constant_pad(const uint32_t* before, const uint32_t* after, uint32_t rank,
                                       double value, uint32_t in, uint32_t out) {
  KILN_RETURN_IF_ERROR(use(in, "input"));
  KILN_RETURN_IF_ERROR(define(out, "output"));
  if (rank != values_[in].rank) {
    return fail(Error::InvalidProgram, "its paddings have %u dims, its input %u", rank,
                values_[in].rank);
  }
  int64_t pads[2 * kMaxRank];
  for (uint32_t d = 0; d < rank; ++d) {
    pads[2 * d] = before[rank - 1 - d];
    pads[2 * d + 1] = after[rank - 1 - d];
  }
  KILN_XNN_LET(x, held(in, kNatural));
  KILN_XNN_LET(y, produce(out, kNatural));
  return call("aten::constant_pad_nd.out",
              {tensor_arg(x), ints_arg(pads, 2 * rank), arg(EValue(value)), tensor_arg(y)});
}

}  // namespace kiln::xnnpack
