// Host wrappers of the matmul ops on Ascend's cube: mm.out, bmm.out, addmm.out, linear.out.
//
// Each takes contiguous half, bfloat16 (910B) or float (910B) operands of one dtype and k >= 1;
// addmm takes alpha == 1 with beta == 0 or 1, and the addend (addmm's self, linear's bias) as a
// row bias [n] (or a single value), or for float as the product's full shape. Everything else
// declines to the portable kernel, which also reports invalid input.
#include <cstdio>
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/op_matmul/matmul_run.h"
#include "runtime/core/scalar.h"

namespace kiln::ascend {
namespace {

// "[2, 3]" for decline reasons.
struct ShapeText {
  char text[96];
};

ShapeText shape_text(ArrayRef<SizesType> sizes) {
  ShapeText shape{};
  size_t used = static_cast<size_t>(std::snprintf(shape.text, sizeof(shape.text), "["));
  for (size_t i = 0; i < sizes.size() && used < sizeof(shape.text); ++i) {
    used +=
        static_cast<size_t>(std::snprintf(shape.text + used, sizeof(shape.text) - used, "%s%lld",
                                          i == 0 ? "" : ", ", static_cast<long long>(sizes[i])));
  }
  if (used < sizeof(shape.text)) std::snprintf(shape.text + used, sizeof(shape.text) - used, "]");
  return shape;
}

bool scalar_equals(const Scalar& scalar, int64_t value) {
  switch (scalar.kind()) {
    case Scalar::Kind::Bool:
      return static_cast<int64_t>(scalar.toBool()) == value;
    case Scalar::Kind::Int:
      return scalar.toInt() == value;
    case Scalar::Kind::Double:
      return scalar.toDouble() == static_cast<double>(value);
  }
  return false;
}

// The common dtype of the operands (each contiguous), as the cube takes it.
bool accept_operands(KernelRuntimeContext& ctx, std::initializer_list<const Tensor*> tensors,
                     std::initializer_list<const char*> names, DeviceDtype* dtype) {
  const ScalarType type = (*tensors.begin())->scalar_type();
  if (!accept_matmul_dtype(ctx, type, dtype)) return false;
  auto name = names.begin();
  for (const Tensor* tensor : tensors) {
    if (!accept_tensor(ctx, *tensor, *name++, type)) return false;
  }
  return true;
}

bool accept_dims(KernelRuntimeContext& ctx, int64_t batches, int64_t m, int64_t n, int64_t k) {
  const int64_t limit = kMatmulMaxDim;
  if (batches >= limit || m >= limit || n >= limit || k >= limit) {
    decline(ctx, "a dimension of 2^30 or more");
  }
  return true;
}

// The product is empty, or k >= 1 (an empty inner dimension is left to the portable kernel).
bool accept_inner(KernelRuntimeContext& ctx, int64_t out_numel, int64_t k) {
  if (out_numel != 0 && k == 0) return decline(ctx, "an empty inner dimension (k == 0)");
  return true;
}

// How `addend` (broadcast to `out_sizes`, whose last dimension is n) reaches the cube; an
// addend that is not `used` (addmm's beta == 0) only has to broadcast.
bool classify_addend(KernelRuntimeContext& ctx, const Tensor& addend, const char* name,
                     ArrayRef<SizesType> out_sizes, DeviceDtype dtype, bool used,
                     MatmulAddend* kind) {
  const ArrayRef<SizesType> sizes = addend.sizes();
  const size_t rank = out_sizes.size();
  bool broadcasts = sizes.size() <= rank;
  bool row = true;  // every dimension but the last is 1
  bool full = sizes.size() == rank;
  for (size_t i = 0; broadcasts && i < sizes.size(); ++i) {
    const SizesType have = sizes[sizes.size() - 1 - i];
    const SizesType want = out_sizes[rank - 1 - i];
    broadcasts = have == 1 || have == want;
    if (i > 0 && have != 1) row = false;
    if (have != want) full = false;
  }
  if (!broadcasts) {
    return decline(ctx, "%s of shape %s that does not broadcast to %s", name,
                   shape_text(sizes).text, shape_text(out_sizes).text);
  }
  if (!used) {
    *kind = MatmulAddend::None;
    return true;
  }
  if (addend.numel() == 1 ||
      (row && !sizes.empty() && sizes[sizes.size() - 1] == out_sizes[rank - 1])) {
    *kind = MatmulAddend::RowBias;
    return true;
  }
  if (full && dtype == DeviceDtype::Float) {
    *kind = MatmulAddend::Full;
    return true;
  }
  // Any other broadcast, and a full 16-bit addend: the cube would add it to a product already
  // rounded to the dtype (two roundings where torch rounds once).
  return decline(ctx,
                 "%s of shape %s for a %s product of shape %s (it takes a row bias [n], or "
                 "for float the full shape)",
                 name, shape_text(sizes).text, to_string(addend.scalar_type()),
                 shape_text(out_sizes).text);
}

MatmulProblem problem_of(DeviceDtype dtype, int64_t batches, int64_t m, int64_t n, int64_t k,
                         bool trans_b) {
  return {dtype,
          static_cast<uint32_t>(batches),
          static_cast<uint32_t>(m),
          static_cast<uint32_t>(n),
          static_cast<uint32_t>(k),
          trans_b,
          false,
          false};
}

// Resizes out, then runs the problem unless it is empty.
Tensor& finish(KernelRuntimeContext& ctx, const MatmulProblem& problem,
               const MatmulOperands& operands, ArrayRef<SizesType> out_sizes, Tensor& out) {
  if (!resize_or_fail(ctx, out, out_sizes) || out.numel() == 0) return out;
  MatmulOperands staged = operands;
  staged.c = out.mutable_data_ptr();
  (void)run_matmul(ctx, problem, staged);
  return out;
}

}  // namespace

namespace native {

Tensor& mm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  DeviceDtype dtype;
  if (!accept_operands(ctx, {&self, &mat2, &out}, {"self", "mat2", "out"}, &dtype)) return out;
  if (self.dim() != 2 || mat2.dim() != 2 || self.size(1) != mat2.size(0)) {
    decline(ctx, "operands of shapes %s and %s (it multiplies [m, k] by [k, n])",
            shape_text(self.sizes()).text, shape_text(mat2.sizes()).text);
    return out;
  }
  const int64_t m = self.size(0), k = self.size(1), n = mat2.size(1);
  if (!accept_dims(ctx, 1, m, n, k) || !accept_inner(ctx, m * n, k)) return out;
  const SizesType sizes[2] = {m, n};
  return finish(
      ctx, problem_of(dtype, 1, m, n, k, false),
      {self.const_data_ptr(), mat2.const_data_ptr(), MatmulAddend::None, nullptr, nullptr},
      {sizes, 2}, out);
}

Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  DeviceDtype dtype;
  if (!accept_operands(ctx, {&self, &mat2, &out}, {"self", "mat2", "out"}, &dtype)) return out;
  if (self.dim() != 3 || mat2.dim() != 3 || self.size(0) != mat2.size(0) ||
      self.size(2) != mat2.size(1)) {
    decline(ctx, "operands of shapes %s and %s (it multiplies [b, m, k] by [b, k, n])",
            shape_text(self.sizes()).text, shape_text(mat2.sizes()).text);
    return out;
  }
  const int64_t batches = self.size(0), m = self.size(1), k = self.size(2), n = mat2.size(2);
  if (!accept_dims(ctx, batches, m, n, k) || !accept_inner(ctx, batches * m * n, k)) return out;
  const SizesType sizes[3] = {batches, m, n};
  return finish(
      ctx, problem_of(dtype, batches, m, n, k, false),
      {self.const_data_ptr(), mat2.const_data_ptr(), MatmulAddend::None, nullptr, nullptr},
      {sizes, 3}, out);
}

Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  DeviceDtype dtype;
  if (!accept_operands(ctx, {&mat1, &mat2, &self, &out}, {"mat1", "mat2", "self", "out"}, &dtype)) {
    return out;
  }
  if (mat1.dim() != 2 || mat2.dim() != 2 || mat1.size(1) != mat2.size(0)) {
    decline(ctx, "operands of shapes %s and %s (it multiplies [m, k] by [k, n])",
            shape_text(mat1.sizes()).text, shape_text(mat2.sizes()).text);
    return out;
  }
  // alpha scales the rounded product and beta the addend: only 1 (and beta 0, which ignores
  // self, NaN included) keep the cube's single rounding.
  if (!scalar_equals(alpha, 1)) {
    decline(ctx, "alpha other than 1");
    return out;
  }
  const bool add_self = scalar_equals(beta, 1);
  if (!add_self && !scalar_equals(beta, 0)) {
    decline(ctx, "beta other than 0 or 1");
    return out;
  }
  const int64_t m = mat1.size(0), k = mat1.size(1), n = mat2.size(1);
  const SizesType sizes[2] = {m, n};
  MatmulAddend kind = MatmulAddend::None;
  if (!classify_addend(ctx, self, "self", {sizes, 2}, dtype, add_self, &kind)) return out;
  if (!accept_dims(ctx, 1, m, n, k) || !accept_inner(ctx, m * n, k)) return out;
  return finish(ctx, problem_of(dtype, 1, m, n, k, false),
                {mat1.const_data_ptr(), mat2.const_data_ptr(), kind, &self, nullptr}, {sizes, 2},
                out);
}

Tensor& linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                   const std::optional<Tensor>& bias, Tensor& out) {
  DeviceDtype dtype;
  if (!accept_operands(ctx, {&input, &weight, &out}, {"input", "weight", "out"}, &dtype) ||
      (bias.has_value() && !accept_tensor(ctx, *bias, "bias", input.scalar_type()))) {
    return out;
  }
  if (input.dim() < 1 || weight.dim() != 2 || weight.size(1) != input.size(-1)) {
    decline(ctx, "input %s and weight %s (it takes input [*, k] and weight [n, k])",
            shape_text(input.sizes()).text, shape_text(weight.sizes()).text);
    return out;
  }
  const int64_t k = input.size(-1), n = weight.size(0);
  const size_t rank = static_cast<size_t>(input.dim());
  SizesType sizes[kTensorDimensionLimit];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) {
    sizes[d] = input.size(static_cast<int64_t>(d));
    rows *= sizes[d];
  }
  sizes[rank - 1] = n;
  MatmulAddend kind = MatmulAddend::None;
  if (bias.has_value() && !classify_addend(ctx, *bias, "bias", {sizes, rank}, dtype, true, &kind)) {
    return out;
  }
  if (!accept_dims(ctx, 1, rows, n, k) || !accept_inner(ctx, rows * n, k)) return out;
  // The weight [n, k] is B transposed: the cube reads it as stored.
  return finish(ctx, problem_of(dtype, 1, rows, n, k, true),
                {input.const_data_ptr(), weight.const_data_ptr(), kind,
                 bias.has_value() ? &*bias : nullptr, nullptr},
                {sizes, rank}, out);
}

}  // namespace native
}  // namespace kiln::ascend
