// clamp.out (Scalar limits) and clamp.Tensor_out (broadcast tensor limits): min(max(x, min), max)
// in torch.result_type of the operands; NaN in x or a limit gives NaN, min > max gives max.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/promotion.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/elementwise/broadcast.h"
#include "kernels/portable/cpu/util/elementwise/unary_driver.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

constexpr const char* kNoLimits = "torch.clamp: At least one of 'min' or 'max' must not be None";

// out[i] = clamp(x[i], lo[i], hi[i]) over one chunk, NaN limits propagating.
template <typename C>
KILN_HOT_LOOP void clamp_rows(const C* x, const C* lo, const C* hi, C* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    C value = clamp_value(x[i], lo[i], hi[i]);
    if constexpr (std::is_floating_point_v<C>) {
      value = select(lo[i] != lo[i], lo[i], value);
      value = select(hi[i] != hi[i], hi[i], value);
    }
    out[i] = value;
  }
}

// The tensor-limit clamp over a broadcast plan whose inputs are self, then min and max if given.
template <typename C>
void clamp_tensors(const BroadcastPlan& plan, const Tensor* inputs[3], ScalarType common,
                   Tensor& out) {
  C buf[4][kUnaryChunk];
  // A missing limit is a constant buffer that is filled once and never reloaded.
  for (int64_t i = 0; i < kUnaryChunk; ++i) {
    buf[1][i] = lowest_value<C>();
    buf[2][i] = highest_value<C>();
  }
  int plan_index[3] = {0, 0, 0};
  for (int k = 0, next = 0; k < 3; ++k) plan_index[k] = inputs[k] != nullptr ? next++ : -1;
  const ScalarType out_type = out.scalar_type();
  char* out_data = static_cast<char*>(out.mutable_data_ptr());
  const size_t out_size = element_size(out_type);
  for_each_row(plan, [&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    for (int64_t start = 0; start < n; start += kUnaryChunk) {
      const int64_t m = n - start < kUnaryChunk ? n - start : kUnaryChunk;
      for (int k = 0; k < 3; ++k) {
        if (inputs[k] == nullptr) continue;
        const int p = plan_index[k];
        const int64_t stride = plan.row_stride(p);
        const ScalarType dtype = inputs[k]->scalar_type();
        const char* data = static_cast<const char*>(inputs[k]->const_data_ptr()) +
                           (offsets[p] + start * stride) * element_size(dtype);
        load_row_as<C>(data, dtype, stride, m, common, buf[k]);
      }
      clamp_rows(buf[0], buf[1], buf[2], buf[3], m);
      store_row_as<C>(buf[3], m, common, out_type, out_data + (out_offset + start) * out_size);
    }
  });
}

}  // namespace

Tensor& clamp_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out, "%s",
                        kNoLimits);
  ResultType result;
  result.add_tensor(self);
  if (min.has_value()) result.add_scalar(*min);
  if (max.has_value()) result.add_scalar(*max);
  const ScalarType common = result.get();
  KILN_KERNEL_CHECK_MSG(ctx, common != ScalarType::Bool, InvalidType, out,
                        "clamp is not implemented for Bool; pass integer limits or convert self "
                        "to a numeric dtype");
  if (!check_out_dtype_is(ctx, out, common)) return out;
  if ((min.has_value() && !check_scalar_converts(ctx, *min, common, "min")) ||
      (max.has_value() && !check_scalar_converts(ctx, *max, common, "max"))) {
    return out;
  }
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  apply_unary(ctx, self, common, out, [&](auto zero) {
    using T = decltype(zero);
    const T lo = min.has_value() ? scalar_as<T>(*min, common) : lowest_value<T>();
    const T hi = max.has_value() ? scalar_as<T>(*max, common) : highest_value<T>();
    return ClampOp<T>(lo, hi);
  });
  return out;
}

Tensor& clamp_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                         const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                         Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out, "%s",
                        kNoLimits);
  if ((min.has_value() && !check_tensor(ctx, *min, "min")) ||
      (max.has_value() && !check_tensor(ctx, *max, "max"))) {
    return out;
  }
  const Tensor* inputs[3] = {&self, min.has_value() ? &*min : nullptr,
                             max.has_value() ? &*max : nullptr};
  ResultType result;
  SizesType sizes[kTensorDimensionLimit];
  size_t dim = static_cast<size_t>(self.dim());
  for (size_t d = 0; d < dim; ++d) sizes[d] = self.size(static_cast<int64_t>(d));
  ArrayRef<SizesType> shapes[3];
  int count = 0;
  for (const Tensor* input : inputs) {
    if (input == nullptr) continue;
    result.add_tensor(*input);
    shapes[count++] = input->sizes();
    SizesType merged[kTensorDimensionLimit];
    size_t merged_dim = 0;
    if (!broadcast_shapes({sizes, dim}, input->sizes(), merged, &merged_dim)) {
      ctx.fail(Error::InvalidArgument,
               "clamp operands are not broadcastable: shape %s against %s; sizes must match or "
               "be 1 in each trailing dim",
               format_shape(input->sizes()).text, format_shape({sizes, dim}).text);
      return out;
    }
    for (size_t d = 0; d < merged_dim; ++d) sizes[d] = merged[d];
    dim = merged_dim;
  }
  const ScalarType common = result.get();
  KILN_KERNEL_CHECK_MSG(ctx, common != ScalarType::Undefined, InvalidType, out,
                        "clamp operands %s cannot be promoted to a common dtype",
                        to_string(self.scalar_type()));
  // ATen clamps Bool against one limit (clamp_min / clamp_max) but not between two.
  KILN_KERNEL_CHECK_MSG(ctx, common != ScalarType::Bool || count < 3, InvalidType, out,
                        "clamp with both limits is not implemented for Bool; pass one limit or "
                        "convert the operands to a numeric dtype");
  if (!check_out_dtype_castable(ctx, out, common)) return out;
  if (!resize_or_fail(ctx, out, {sizes, dim})) return out;
  if (out.numel() == 0) return out;
  BroadcastPlan plan;
  make_broadcast_plan(out.sizes(), shapes, count, &plan);
  dispatch_compute_type(common, [&](auto tag) {
    clamp_tensors<typename decltype(tag)::type>(plan, inputs, common, out);
  });
  return out;
}

}  // namespace kiln::portable::native
