// Host wrappers of the binary elementwise ops on Ascend: add, sub, mul and div (true division),
// Tensor and Scalar overloads. Every operand has out's dtype; the shapes are equal, or one side
// is a single value, a row [N] under [..., N], or a column [M, 1] beside [M, N]. Anything else
// (promotion, other broadcasts, an alpha torch would round) declines.
#include <cmath>
#include <cstring>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_binary/binary_kernels.h"
#include "kernels/ascend/op_binary/binary_tiling.h"
#include "runtime/core/half.h"
#include "runtime/core/scalar.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_BINARY)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_BINARY, launch_binary, DeviceDtype, "binary")

// `value` rounded to a floating dtype, as c10 converts (through float).
float round_to(ScalarType dtype, float value) {
  switch (dtype) {
    case ScalarType::Half:
      return static_cast<float>(Half(value));
    case ScalarType::BFloat16:
      return static_cast<float>(BFloat16(value));
    default:
      return value;
  }
}

float as_float(const Scalar& value) {
  return value.isFloatingPoint() ? static_cast<float>(value.toDouble())
                                 : static_cast<float>(value.toInt());
}

bool int32_value(KernelRuntimeContext& ctx, const Scalar& value, const char* name,
                 int32_t* result) {
  if (value.isFloatingPoint()) {
    return decline(ctx, "a floating %s with Int operands (the result is not Int)", name);
  }
  const int64_t exact = value.toInt();
  if (exact < INT32_MIN || exact > INT32_MAX) {
    return decline(ctx, "%s %lld beyond the range of Int", name, static_cast<long long>(exact));
  }
  *result = static_cast<int32_t>(exact);
  return true;
}

// alpha as the kernel applies it (y * alpha, then add or subtract): an integer of Int operands,
// or a value the floating dtype holds exactly, so that no rounding of alpha differs from torch.
bool accept_alpha(KernelRuntimeContext& ctx, const Scalar& alpha, BinaryOp op, ScalarType dtype,
                  BinaryScalars* scalars) {
  if (alpha.isBoolean()) return decline(ctx, "a Bool alpha");
  if (dtype == ScalarType::Int) {
    // sub adds -alpha in torch, which must fit too.
    if (!int32_value(ctx, alpha, "alpha", &scalars->alpha_int)) return false;
    if (op == BinaryOp::Sub && scalars->alpha_int == INT32_MIN) {
      return decline(ctx, "alpha %d (its negation overflows Int)", scalars->alpha_int);
    }
    scalars->scale_y = scalars->alpha_int != 1;
    return true;
  }
  const double exact = alpha.toDouble();
  const float rounded = round_to(dtype, static_cast<float>(exact));
  if (!std::isfinite(exact) || static_cast<double>(rounded) != exact ||
      (!alpha.isFloatingPoint() && std::fabs(exact) >= 9007199254740992.0)) {
    return decline(ctx, "alpha %g (not exactly representable in %s)", exact, to_string(dtype));
  }
  scalars->alpha = rounded;
  scalars->scale_y = rounded != 1.0f;
  return true;
}

// The broadcast of two shapes (torch's rules); false when they do not broadcast.
bool broadcast_sizes(ArrayRef<SizesType> a, ArrayRef<SizesType> b, SizesType* sizes, size_t* dim) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  if (n > kTensorDimensionLimit) return false;
  for (size_t i = 0; i < n; ++i) {
    const SizesType da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const SizesType db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    sizes[i] = da == 1 ? db : da;
  }
  *dim = n;
  return true;
}

// The size of `small` in dim d of an `n`-dim broadcast (leading dims it lacks are 1).
SizesType aligned_size(ArrayRef<SizesType> small, size_t n, size_t d) {
  return d < n - small.size() ? 1 : small[d - (n - small.size())];
}

// How x (out's elements) meets y (the other operand). Declines what no kernel pattern covers.
bool classify(KernelRuntimeContext& ctx, const Tensor& y, const SizesType* sizes, size_t dim,
              int64_t numel, BinaryShape* shape) {
  const int64_t cols = dim == 0 ? 1 : sizes[dim - 1];
  shape->rows = static_cast<uint64_t>(cols == 0 ? 0 : numel / cols);
  shape->cols = static_cast<uint64_t>(cols);
  if (y.numel() == numel) {
    shape->pattern = BinaryPattern::Same;
    shape->rows = 1;
    shape->cols = static_cast<uint64_t>(numel);
    return true;
  }
  if (y.numel() == 1) {
    shape->pattern = BinaryPattern::Scalar;
    shape->rows = 1;
    shape->cols = static_cast<uint64_t>(numel);
    return true;
  }
  bool row = aligned_size(y.sizes(), dim, dim - 1) == cols;
  bool column = aligned_size(y.sizes(), dim, dim - 1) == 1;
  for (size_t d = 0; d + 1 < dim; ++d) {
    const SizesType size = aligned_size(y.sizes(), dim, d);
    row = row && size == 1;
    column = column && size == sizes[d];
  }
  if (row) {
    shape->pattern = BinaryPattern::Row;
    return true;
  }
  if (column) {
    shape->pattern = BinaryPattern::Column;
    return true;
  }
  return decline(ctx,
                 "this broadcast (only a row [N] under [..., N] or a column [M, 1] beside "
                 "[M, N])");
}

// y's one value in the compute type (a tensor of the operands' dtype holds it exactly).
void read_scalar(const Tensor& y, DeviceDtype dtype, BinaryScalars* scalars) {
  switch (dtype) {
    case DeviceDtype::Float:
      scalars->scalar = *y.const_data_ptr<float>();
      break;
    case DeviceDtype::Half:
      scalars->scalar = static_cast<float>(*y.const_data_ptr<Half>());
      break;
    case DeviceDtype::BFloat16:
      scalars->scalar = static_cast<float>(*y.const_data_ptr<BFloat16>());
      break;
    case DeviceDtype::Int32:
      scalars->scalar_int = *y.const_data_ptr<int32_t>();
      break;
  }
  scalars->scalar_exact_in_half = true;
}

// Uploads x (and y unless the pattern is Scalar), launches, downloads out. `x` has out's
// elements; out is already resized and not empty.
Tensor& launch(KernelRuntimeContext& ctx, BinaryOp op, DeviceDtype dtype, const BinaryShape& shape,
               const BinaryScalars& scalars, const Tensor& x, const Tensor* y, Tensor& out) {
  const Platform device = platform();
  const BinaryTiling tiling =
      binary_tiling(op, dtype, shape, scalars, device.ub_bytes, device.vector_cores);
  const size_t size = device_element_size(dtype);
  const size_t bytes = static_cast<size_t>(out.numel()) * size;
  const size_t device_bytes = binary_device_elems(tiling) * size;
  // Rows of x are padded to whole repeats unless the kernel sees x as one packed sequence.
  const bool padded_rows = (shape.pattern == BinaryPattern::Column ||
                            (shape.pattern == BinaryPattern::Row && tiling.pattern_from_gm != 0)) &&
                           tiling.pitch != shape.cols;
  const size_t row_bytes = shape.cols * size;
  const size_t pitch_bytes = tiling.pitch * size;
  DeviceBuffer xd, yd, zd, td;
  bool ok = padded_rows
                ? xd.upload_rows(ctx, x.const_data_ptr(), shape.rows, row_bytes, pitch_bytes)
                : xd.upload(ctx, x.const_data_ptr(), bytes, device_bytes);
  if (ok && y != nullptr) {
    const size_t y_bytes = static_cast<size_t>(y->numel()) * size;
    const bool y_padded = shape.pattern == BinaryPattern::Same ||
                          (shape.pattern == BinaryPattern::Row && tiling.pattern_from_gm != 0);
    ok = yd.upload(ctx, y->const_data_ptr(), y_bytes, y_padded ? pitch_bytes : y_bytes);
  }
  ok = ok && zd.allocate(ctx, device_bytes) && td.upload(ctx, &tiling, sizeof(tiling));
  if (!ok) return out;
  uint8_t* y_device = y != nullptr ? yd.get() : xd.get();  // the Scalar pattern reads no y
  if (!finish_launch(
          ctx, launch_binary(dtype, tiling.block_dim, xd.get(), y_device, zd.get(), td.get()))) {
    return out;
  }
  if (padded_rows) {
    (void)zd.download_rows(ctx, out.mutable_data_ptr(), shape.rows, row_bytes, pitch_bytes);
  } else {
    (void)zd.download(ctx, out.mutable_data_ptr(), bytes);
  }
  return out;
}

// out = self <op> alpha * other for tensors of one dtype.
Tensor& run_tensor(KernelRuntimeContext& ctx, BinaryOp op, const Tensor& self, const Tensor& other,
                   const Scalar* alpha, Tensor& out) {
  const ScalarType type = self.scalar_type();
  DeviceDtype dtype;
  if (!accept_dtype(ctx, type, /*int32_ok=*/op != BinaryOp::Div, &dtype) ||
      !accept_input(ctx, self, "self", type) || !accept_input(ctx, other, "other", type) ||
      !accept_tensor(ctx, out, "out", type)) {
    return out;
  }
  BinaryScalars scalars;
  if (alpha != nullptr && !accept_alpha(ctx, *alpha, op, type, &scalars)) return out;
  SizesType sizes[kTensorDimensionLimit];
  size_t dim = 0;
  if (!broadcast_sizes(self.sizes(), other.sizes(), sizes, &dim)) {
    (void)decline(ctx, "shapes that do not broadcast");
    return out;
  }
  int64_t numel = 1;
  for (size_t d = 0; d < dim; ++d) numel *= sizes[d];
  // x is the operand with out's elements; a commutative op may take it from `other`.
  const Tensor* x = &self;
  const Tensor* y = &other;
  if (self.numel() != numel) {
    const bool commutative = op == BinaryOp::Mul || (op == BinaryOp::Add && !scalars.scale_y);
    if (!commutative || other.numel() != numel) {
      (void)decline(ctx,
                    "a broadcast self (only other broadcasts, or either side of mul and of "
                    "add without alpha)");
      return out;
    }
    x = &other;
    y = &self;
  }
  BinaryShape shape{};
  if (numel != 0 && !classify(ctx, *y, sizes, dim, numel, &shape)) return out;
  if (!resize_or_fail(ctx, out, {sizes, dim}) || numel == 0) return out;
  if (shape.pattern == BinaryPattern::Scalar) {
    read_scalar(*y, dtype, &scalars);
    y = nullptr;
  }
  return launch(ctx, op, dtype, shape, scalars, *x, y, out);
}

// out = self <op> alpha * other for a Scalar other, taken as torch takes it: add and sub round it
// to the tensor's dtype first, mul and div keep it in float (ATen's opmath) for 16-bit floats.
Tensor& run_scalar(KernelRuntimeContext& ctx, BinaryOp op, const Tensor& self, const Scalar& other,
                   const Scalar* alpha, Tensor& out) {
  const ScalarType type = self.scalar_type();
  DeviceDtype dtype;
  if (!accept_dtype(ctx, type, /*int32_ok=*/op != BinaryOp::Div, &dtype) ||
      !accept_input(ctx, self, "self", type) || !accept_tensor(ctx, out, "out", type)) {
    return out;
  }
  if (other.isBoolean()) {
    (void)decline(ctx, "a Bool other");
    return out;
  }
  BinaryScalars scalars;
  if (alpha != nullptr && !accept_alpha(ctx, *alpha, op, type, &scalars)) return out;
  if (dtype == DeviceDtype::Int32) {
    if (!int32_value(ctx, other, "other", &scalars.scalar_int)) return out;
  } else {
    const float value = as_float(other);
    const bool opmath = op == BinaryOp::Mul || op == BinaryOp::Div;
    scalars.scalar = opmath ? value : round_to(type, value);
    scalars.scalar_exact_in_half =
        std::isnan(scalars.scalar) || round_to(ScalarType::Half, scalars.scalar) == scalars.scalar;
  }
  if (!resize_or_fail(ctx, out, self.sizes()) || self.numel() == 0) return out;
  const BinaryShape shape{BinaryPattern::Scalar, 1, static_cast<uint64_t>(self.numel())};
  return launch(ctx, op, dtype, shape, scalars, self, nullptr, out);
}

}  // namespace
}  // namespace kiln::ascend

// The ops' kernels, as functions.yaml binds them (kiln::ascend::<op> -> ...::native::<op>).
namespace kiln::ascend::native {

Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  return run_tensor(ctx, BinaryOp::Add, self, other, &alpha, out);
}

Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  return run_scalar(ctx, BinaryOp::Add, self, other, &alpha, out);
}

Tensor& sub_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  return run_tensor(ctx, BinaryOp::Sub, self, other, &alpha, out);
}

Tensor& sub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  return run_scalar(ctx, BinaryOp::Sub, self, other, &alpha, out);
}

Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return run_tensor(ctx, BinaryOp::Mul, self, other, nullptr, out);
}

Tensor& mul_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  return run_scalar(ctx, BinaryOp::Mul, self, other, nullptr, out);
}

Tensor& div_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return run_tensor(ctx, BinaryOp::Div, self, other, nullptr, out);
}

Tensor& div_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  return run_scalar(ctx, BinaryOp::Div, self, other, nullptr, out);
}

}  // namespace kiln::ascend::native
