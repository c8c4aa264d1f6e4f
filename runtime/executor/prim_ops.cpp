// The executor's prim operators (see prim_ops.h). Scalars follow Python's rules, as the
// exporter's symbolic expressions do: Int op Int stays an Int (floor division and modulo round
// toward negative infinity), anything with a Double is a Double, a Bool counts as an Int.
// Integer overflow and division by zero are errors, never undefined behaviour.
#include "runtime/executor/prim_ops.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/core/dim_order.h"
#include "runtime/core/half.h"

namespace kiln {
namespace {

constexpr const char* kOrigin = "runtime/executor/prim_ops.cpp";

bool is_number(const EValue& v) { return v.isInt() || v.isDouble() || v.isBool(); }
bool is_integral(const EValue& v) { return v.isInt() || v.isBool(); }
int64_t as_int(const EValue& v) { return v.isBool() ? int64_t{v.toBool()} : v.toInt(); }
double as_double(const EValue& v) {
  return v.isDouble() ? v.toDouble() : static_cast<double>(as_int(v));
}

Error numbers(KernelRuntimeContext& ctx, Span<EValue*> stack, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!is_number(*stack[i])) {
      ctx.fail(Error::InvalidArgument, "argument %zu is %s; expected an Int, Double or Bool", i,
               to_string(stack[i]->tag()));
      return Error::InvalidArgument;
    }
  }
  return Error::Ok;
}

Error overflow(KernelRuntimeContext& ctx, int64_t a, int64_t b, const char* what) {
  ctx.fail(Error::InvalidArgument, "%lld %s %lld overflows a 64-bit Int", static_cast<long long>(a),
           what, static_cast<long long>(b));
  return Error::InvalidArgument;
}

Error division_by_zero(KernelRuntimeContext& ctx) {
  ctx.fail(Error::InvalidArgument, "division by zero");
  return Error::InvalidArgument;
}

// ---- Binary arithmetic: stack = [a, b, out] ----

enum class Arith { Add, Sub, Mul, FloorDiv, Mod, Max, Min };

template <Arith op>
Error arithmetic(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  KILN_RETURN_IF_ERROR(numbers(ctx, stack, 2));
  const EValue& a = *stack[0];
  const EValue& b = *stack[1];
  EValue& out = *stack[2];
  if (is_integral(a) && is_integral(b)) {
    const int64_t x = as_int(a), y = as_int(b);
    int64_t r = 0;
    switch (op) {
      case Arith::Add:
        if (__builtin_add_overflow(x, y, &r)) return overflow(ctx, x, y, "+");
        break;
      case Arith::Sub:
        if (__builtin_sub_overflow(x, y, &r)) return overflow(ctx, x, y, "-");
        break;
      case Arith::Mul:
        if (__builtin_mul_overflow(x, y, &r)) return overflow(ctx, x, y, "*");
        break;
      case Arith::FloorDiv:
      case Arith::Mod: {
        if (y == 0) return division_by_zero(ctx);
        if (x == INT64_MIN && y == -1) return overflow(ctx, x, y, "//");
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {  // round toward negative infinity
          --q;
          m += y;
        }
        r = op == Arith::FloorDiv ? q : m;
        break;
      }
      case Arith::Max:
        r = x > y ? x : y;
        break;
      case Arith::Min:
        r = x < y ? x : y;
        break;
    }
    out = EValue(r);
    return Error::Ok;
  }
  const double x = as_double(a), y = as_double(b);
  double r = 0;
  switch (op) {
    case Arith::Add:
      r = x + y;
      break;
    case Arith::Sub:
      r = x - y;
      break;
    case Arith::Mul:
      r = x * y;
      break;
    case Arith::FloorDiv:
    case Arith::Mod:
      if (y == 0) return division_by_zero(ctx);
      r = op == Arith::FloorDiv ? std::floor(x / y) : x - std::floor(x / y) * y;
      break;
    case Arith::Max:
      r = std::fmax(x, y);
      break;
    case Arith::Min:
      r = std::fmin(x, y);
      break;
  }
  out = EValue(r);
  return Error::Ok;
}

Error truediv(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  KILN_RETURN_IF_ERROR(numbers(ctx, stack, 2));
  const double y = as_double(*stack[1]);
  if (y == 0) return division_by_zero(ctx);
  *stack[2] = EValue(as_double(*stack[0]) / y);
  return Error::Ok;
}

// ---- Comparisons: stack = [a, b, out Bool] ----

enum class Compare { Eq, Gt, Lt, Ge, Le };

template <Compare op>
Error compare(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  KILN_RETURN_IF_ERROR(numbers(ctx, stack, 2));
  const EValue& a = *stack[0];
  const EValue& b = *stack[1];
  int order = 0;  // -1, 0, 1; 2 when unordered (a NaN)
  if (is_integral(a) && is_integral(b)) {
    order = as_int(a) < as_int(b) ? -1 : as_int(a) > as_int(b) ? 1 : 0;
  } else {
    const double x = as_double(a), y = as_double(b);
    order = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
  }
  bool r = false;
  switch (op) {
    case Compare::Eq:
      r = order == 0;
      break;
    case Compare::Gt:
      r = order == 1;
      break;
    case Compare::Lt:
      r = order == -1;
      break;
    case Compare::Ge:
      r = order == 0 || order == 1;
      break;
    case Compare::Le:
      r = order == 0 || order == -1;
      break;
  }
  *stack[2] = EValue(r);
  return Error::Ok;
}

// ---- Unary: stack = [a, out] ----

Error to_int(KernelRuntimeContext& ctx, double value, const char* what, EValue& out) {
  // Doubles at or past 2^63 do not fit an Int.
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) {
    ctx.fail(Error::InvalidArgument, "%s of %g is not a 64-bit Int", what, value);
    return Error::InvalidArgument;
  }
  out = EValue(static_cast<int64_t>(value));
  return Error::Ok;
}

Error neg(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  KILN_RETURN_IF_ERROR(numbers(ctx, stack, 1));
  const EValue& a = *stack[0];
  if (a.isDouble()) {
    *stack[1] = EValue(-a.toDouble());
    return Error::Ok;
  }
  if (as_int(a) == INT64_MIN) return overflow(ctx, 0, as_int(a), "-");
  *stack[1] = EValue(-as_int(a));
  return Error::Ok;
}

Error sym_float(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  KILN_RETURN_IF_ERROR(numbers(ctx, stack, 1));
  *stack[1] = EValue(as_double(*stack[0]));
  return Error::Ok;
}

// sym_int, ceil, round (half to even, as Python's round) and trunc: an Int.
enum class Rounding { Trunc, Ceil, Round };

template <Rounding mode>
Error rounding(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  KILN_RETURN_IF_ERROR(numbers(ctx, stack, 1));
  const EValue& a = *stack[0];
  if (!a.isDouble()) {
    *stack[1] = EValue(as_int(a));
    return Error::Ok;
  }
  const double x = a.toDouble();
  switch (mode) {
    case Rounding::Trunc:
      return to_int(ctx, std::trunc(x), "trunc", *stack[1]);
    case Rounding::Ceil:
      return to_int(ctx, std::ceil(x), "ceil", *stack[1]);
    case Rounding::Round:
      return to_int(ctx, std::nearbyint(x), "round", *stack[1]);
  }
  return Error::Ok;
}

Error sym_not(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  KILN_RETURN_IF_ERROR(numbers(ctx, stack, 1));
  *stack[1] = EValue(as_double(*stack[0]) == 0.0);
  return Error::Ok;
}

// sym_ite(b, t, f): t if b else f.
Error sym_ite(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  KILN_RETURN_IF_ERROR(numbers(ctx, stack, 3));
  *stack[3] = as_double(*stack[0]) != 0.0 ? *stack[1] : *stack[2];
  return Error::Ok;
}

// ---- Tensor metadata ----

bool tensor_arg(KernelRuntimeContext& ctx, Span<EValue*> stack, size_t i) {
  if (stack[i]->isTensor()) return true;
  ctx.fail(Error::InvalidArgument, "argument %zu is %s; expected a Tensor", i,
           to_string(stack[i]->tag()));
  return false;
}

// sym_size.int(Tensor self, int dim) -> SymInt
Error sym_size(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!tensor_arg(ctx, stack, 0)) return Error::InvalidArgument;
  if (!stack[1]->isInt()) {
    ctx.fail(Error::InvalidArgument, "dim is %s; expected an Int", to_string(stack[1]->tag()));
    return Error::InvalidArgument;
  }
  const Tensor& self = stack[0]->toTensor();
  const int64_t rank = self.dim(), dim = stack[1]->toInt();
  if (dim < -rank || dim >= rank || rank == 0) {
    ctx.fail(Error::InvalidArgument, "dim %lld is out of range for a tensor of %lld dimensions",
             static_cast<long long>(dim), static_cast<long long>(rank));
    return Error::InvalidArgument;
  }
  *stack[2] = EValue(static_cast<int64_t>(self.size(dim < 0 ? dim + rank : dim)));
  return Error::Ok;
}

// sym_numel(Tensor self) -> SymInt
Error sym_numel(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!tensor_arg(ctx, stack, 0)) return Error::InvalidArgument;
  *stack[1] = EValue(static_cast<int64_t>(stack[0]->toTensor().numel()));
  return Error::Ok;
}

// _local_scalar_dense(Tensor self) -> Scalar: the one element of `self` as a Bool, Int or Double.
Error local_scalar_dense(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!tensor_arg(ctx, stack, 0)) return Error::InvalidArgument;
  const Tensor& self = stack[0]->toTensor();
  if (self.numel() != 1) {
    ctx.fail(Error::InvalidArgument, "a tensor of %lld elements has no single value",
             static_cast<long long>(self.numel()));
    return Error::InvalidArgument;
  }
  const void* data = self.const_data_ptr();
  switch (self.scalar_type()) {
#define KILN_LOCAL_SCALAR(ctype, name)                                                            \
  case ScalarType::name:                                                                          \
    *stack[1] =                                                                                   \
        EValue(static_cast<std::conditional_t<std::is_floating_point_v<ctype>, double, int64_t>>( \
            *static_cast<const ctype*>(data)));                                                   \
    return Error::Ok;
    KILN_LOCAL_SCALAR(uint8_t, Byte)
    KILN_LOCAL_SCALAR(int8_t, Char)
    KILN_LOCAL_SCALAR(int16_t, Short)
    KILN_LOCAL_SCALAR(int32_t, Int)
    KILN_LOCAL_SCALAR(int64_t, Long)
    KILN_LOCAL_SCALAR(float, Float)
    KILN_LOCAL_SCALAR(double, Double)
#undef KILN_LOCAL_SCALAR
    case ScalarType::Half:
      *stack[1] = EValue(static_cast<double>(*static_cast<const Half*>(data)));
      return Error::Ok;
    case ScalarType::BFloat16:
      *stack[1] = EValue(static_cast<double>(*static_cast<const BFloat16*>(data)));
      return Error::Ok;
    case ScalarType::Bool:
      *stack[1] = EValue(*static_cast<const bool*>(data));
      return Error::Ok;
    default:
      ctx.fail(Error::InvalidArgument, "%s tensor has no Scalar value",
               to_phrase(self.scalar_type()));
      return Error::InvalidArgument;
  }
}

// et_view.default(Tensor self, int[] size) -> Tensor: out views self's bytes with `size`
// (one -1 inferred), as aten::view; out must be self's dtype, and contiguous.
Error et_view(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!tensor_arg(ctx, stack, 0) || !tensor_arg(ctx, stack, 2)) return Error::InvalidArgument;
  if (stack[1]->tag() != Tag::ListInt) {
    ctx.fail(Error::InvalidArgument, "size is %s; expected an int list",
             to_string(stack[1]->tag()));
    return Error::InvalidArgument;
  }
  const Tensor& self = stack[0]->toTensor();
  Tensor& out = stack[2]->toTensor();
  const ArrayRef<int64_t> size = stack[1]->toIntList();
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument,
                        Error::InvalidArgument, "out is %s, self %s; a view keeps the dtype",
                        to_string(out.scalar_type()), to_string(self.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, size.size() == static_cast<size_t>(out.dim()), InvalidArgument,
                        Error::InvalidArgument, "size has %zu entries for an out of %lld dims",
                        size.size(), static_cast<long long>(out.dim()));
  KILN_KERNEL_CHECK_MSG(ctx, is_default_dim_order(self.dim_order()), InvalidArgument,
                        Error::InvalidArgument, "self must be contiguous to be viewed");
  SizesType sizes[kTensorDimensionLimit];
  int64_t known = 1;
  int inferred = -1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == -1 && inferred < 0) {
      inferred = static_cast<int>(d);
      continue;
    }
    KILN_KERNEL_CHECK_MSG(ctx, size[d] >= 0, InvalidArgument, Error::InvalidArgument,
                          "size[%zu] is %lld; sizes are >= 0, with at most one -1", d,
                          static_cast<long long>(size[d]));
    if (__builtin_mul_overflow(known, size[d], &known)) known = INT64_MAX;
    sizes[d] = static_cast<SizesType>(size[d]);
  }
  const int64_t numel = self.numel();
  if (inferred >= 0) {
    KILN_KERNEL_CHECK_MSG(ctx, known != 0 && numel % known == 0, InvalidArgument,
                          Error::InvalidArgument,
                          "cannot infer size[%d]: %lld elements do not divide by %lld", inferred,
                          static_cast<long long>(numel), static_cast<long long>(known));
    sizes[inferred] = static_cast<SizesType>(numel / known);
    known = numel;
  }
  KILN_KERNEL_CHECK_MSG(ctx, known == numel, InvalidArgument, Error::InvalidArgument,
                        "a view of %lld elements cannot have %lld", static_cast<long long>(numel),
                        static_cast<long long>(known));
  if (!resize_or_fail(ctx, out, {sizes, size.size()})) return ctx.failure_state();
  TensorImpl& impl = *out.unsafeGetTensorImpl();
  impl.set_storage(self.unsafeGetTensorImpl()->mutable_data(), impl.capacity_bytes());
  return Error::Ok;
}

// et_copy_index.tensor(Tensor(a!) copy_to, Tensor copy_from, int index): copy_to[index] =
// copy_from, copy_to resized to index + 1 rows of copy_from's shape (the stacked outputs of
// torch's map, one iteration at a time).
Error et_copy_index(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!tensor_arg(ctx, stack, 0) || !tensor_arg(ctx, stack, 1)) return Error::InvalidArgument;
  if (!stack[2]->isInt()) {
    ctx.fail(Error::InvalidArgument, "index is %s; expected an Int", to_string(stack[2]->tag()));
    return Error::InvalidArgument;
  }
  Tensor& to = stack[0]->toTensor();
  const Tensor& from = stack[1]->toTensor();
  const int64_t index = stack[2]->toInt();
  KILN_KERNEL_CHECK_MSG(ctx, to.dim() == from.dim() + 1, InvalidArgument, Error::InvalidArgument,
                        "copy_to has %lld dims and copy_from %lld; copy_to has one more",
                        static_cast<long long>(to.dim()), static_cast<long long>(from.dim()));
  KILN_KERNEL_CHECK_MSG(ctx, to.scalar_type() == from.scalar_type(), InvalidArgument,
                        Error::InvalidArgument, "copy_to is %s and copy_from %s",
                        to_string(to.scalar_type()), to_string(from.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, index >= 0 && index < INT32_MAX, InvalidArgument,
                        Error::InvalidArgument, "index %lld is out of range",
                        static_cast<long long>(index));
  KILN_KERNEL_CHECK_MSG(
      ctx, is_default_dim_order(to.dim_order()) && is_default_dim_order(from.dim_order()),
      InvalidArgument, Error::InvalidArgument, "both tensors must be contiguous");
  SizesType sizes[kTensorDimensionLimit];
  sizes[0] = static_cast<SizesType>(index + 1);
  for (int64_t d = 0; d < from.dim(); ++d) {
    // Rows after the first keep the rows' shape.
    KILN_KERNEL_CHECK_MSG(ctx, index == 0 || to.size(d + 1) == from.size(d), InvalidArgument,
                          Error::InvalidArgument,
                          "copy_from's size %lld at dim %lld differs from copy_to's rows (%lld)",
                          static_cast<long long>(from.size(d)), static_cast<long long>(d),
                          static_cast<long long>(to.size(d + 1)));
    sizes[d + 1] = from.size(d);
  }
  if (!resize_or_fail(ctx, to, {sizes, static_cast<size_t>(to.dim())})) {
    return ctx.failure_state();
  }
  const size_t row = from.nbytes();
  if (row > 0) {
    std::memcpy(static_cast<char*>(to.mutable_data_ptr()) + static_cast<size_t>(index) * row,
                from.const_data_ptr(), row);
  }
  return Error::Ok;
}

// Runs `function` on a stack of exactly `size` values, none null (the generated wrappers check
// registered kernels' stacks the same way).
template <OpFunction function, size_t size>
Error checked(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (stack.size() != size) {
    ctx.fail(Error::InvalidProgram, "the call has %zu values; the operator takes %zu", stack.size(),
             size);
    return Error::InvalidProgram;
  }
  for (size_t i = 0; i < size; ++i) {
    if (stack[i] == nullptr) {
      ctx.fail(Error::InvalidProgram, "value %zu of the call is missing", i);
      return Error::InvalidProgram;
    }
  }
  return function(ctx, stack);
}

struct PrimOp {
  Kernel kernel;
  bool returns_scalar;
};

// An operator of `arguments` arguments and `returns` return slots (1, or 0 for one that writes
// its argument `writes`).
template <OpFunction function, uint8_t arguments, uint8_t returns = 1>
constexpr PrimOp prim(const char* name, bool returns_scalar = true, uint64_t writes = 0) {
  return {{name, hash_operator_name(name), "", Backend::Portable,
           checked<function, size_t{arguments} + returns>, kOrigin, returns, arguments, writes},
          returns_scalar};
}

const PrimOp kPrimOps[] = {
    prim<sym_size, 2>("aten::sym_size.int"),
    prim<sym_numel, 1>("aten::sym_numel"),
    prim<local_scalar_dense, 1>("aten::_local_scalar_dense"),
    prim<arithmetic<Arith::Add>, 2>("executorch_prim::add.Scalar"),
    prim<arithmetic<Arith::Sub>, 2>("executorch_prim::sub.Scalar"),
    prim<arithmetic<Arith::Mul>, 2>("executorch_prim::mul.Scalar"),
    prim<arithmetic<Arith::FloorDiv>, 2>("executorch_prim::floordiv.Scalar"),
    prim<arithmetic<Arith::Mod>, 2>("executorch_prim::mod.Scalar"),
    prim<arithmetic<Arith::Max>, 2>("executorch_prim::sym_max.Scalar"),
    prim<arithmetic<Arith::Min>, 2>("executorch_prim::sym_min.Scalar"),
    prim<truediv, 2>("executorch_prim::truediv.Scalar"),
    prim<compare<Compare::Eq>, 2>("executorch_prim::eq.Scalar"),
    prim<compare<Compare::Gt>, 2>("executorch_prim::gt.Scalar"),
    prim<compare<Compare::Lt>, 2>("executorch_prim::lt.Scalar"),
    prim<compare<Compare::Ge>, 2>("executorch_prim::ge.Scalar"),
    prim<compare<Compare::Le>, 2>("executorch_prim::le.Scalar"),
    prim<neg, 1>("executorch_prim::neg.Scalar"),
    prim<sym_float, 1>("executorch_prim::sym_float.Scalar"),
    prim<rounding<Rounding::Trunc>, 1>("executorch_prim::sym_int.Scalar"),
    prim<rounding<Rounding::Trunc>, 1>("executorch_prim::trunc.Scalar"),
    prim<rounding<Rounding::Ceil>, 1>("executorch_prim::ceil.Scalar"),
    prim<rounding<Rounding::Round>, 1>("executorch_prim::round.Scalar"),
    prim<sym_not, 1>("executorch_prim::sym_not.Scalar"),
    prim<sym_ite, 3>("executorch_prim::sym_ite.Scalar"),
    prim<et_view, 2>("executorch_prim::et_view.default", false),
    prim<et_copy_index, 3, 0>("executorch_prim::et_copy_index.tensor", false, 1),
};

constexpr size_t kNumPrimOps = sizeof(kPrimOps) / sizeof(kPrimOps[0]);

// "x.default" and "x" name the same operator.
bool same_name(const char* a, const char* b) {
  const auto base = [](const char* s) {
    const size_t n = std::strlen(s);
    constexpr size_t kSuffix = sizeof(".default") - 1;
    return n > kSuffix && std::strcmp(s + n - kSuffix, ".default") == 0 ? n - kSuffix : n;
  };
  const size_t n = base(a);
  return n == base(b) && std::strncmp(a, b, n) == 0;
}

const PrimOp* find(const Kernel& kernel) {
  for (const PrimOp& op : kPrimOps) {
    if (&op.kernel == &kernel) return &op;
  }
  return nullptr;
}

}  // namespace

const Kernel* find_prim_op(const char* name) {
  for (const PrimOp& op : kPrimOps) {
    if (same_name(op.kernel.name, name)) return &op.kernel;
  }
  return nullptr;
}

bool is_prim_op(const Kernel& kernel) { return find(kernel) != nullptr; }

bool prim_op_returns_scalar(const Kernel& kernel) {
  const PrimOp* op = find(kernel);
  return op != nullptr && op->returns_scalar;
}

size_t prim_op_count() { return kNumPrimOps; }
const Kernel& prim_op(size_t index) { return kPrimOps[index].kernel; }

}  // namespace kiln
