// _cdist_forward.out: the p-norm distance between every row of x1 [*, R1, M] and every row of x2
// [*, R2, M] into out [*, R1, R2], the batch dims broadcast. As ATen: for p = 2 with
// compute_mode 1, or mode 0 with more than 25 rows on a side, the distances come from one matrix
// product, sqrt(max(|a|^2 + |b|^2 - 2 a.b, 1e-30)); otherwise each pair is summed directly.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/linalg/distance.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/linalg/matmul.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Rows that make compute_mode 0 (the default) take the matrix product.
constexpr int64_t kMatmulRows = 25;

// The pairs of one batch entry, each summed in order as ATen's scalar loop does.
template <typename T, typename N>
KILN_ALWAYS_INLINE void direct_pairs(const T* a, int64_t r1, const T* b, int64_t r2, int64_t m, T p,
                                     T* out) {
  for (int64_t i = 0; i < r1; ++i) {
    for (int64_t j = 0; j < r2; ++j) {
      const T* x = a + i * m;
      const T* y = b + j * m;
      T acc = 0;
      for (int64_t k = 0; k < m; ++k) acc = N::reduce(acc, N::map(std::fabs(x[k] - y[k]), p));
      out[i * r2 + j] = N::finish(acc, p);
    }
  }
}

template <typename N>
KILN_HOT_LOOP void direct_pairs_float(const float* a, int64_t r1, const float* b, int64_t r2,
                                      int64_t m, float p, float* out) {
  direct_pairs<float, N>(a, r1, b, r2, m, p, out);
}

template <typename T>
void direct_pairs_of(const T* a, int64_t r1, const T* b, int64_t r2, int64_t m, double p, T* out) {
  dispatch_norm</*kMaxPropagatesNan=*/false>(p, [&](auto norm) {
    using N = decltype(norm);
    if constexpr (std::is_same_v<T, float>) {
      direct_pairs_float<N>(a, r1, b, r2, m, static_cast<float>(p), out);
    } else {
      direct_pairs<T, N>(a, r1, b, r2, m, static_cast<T>(p), out);
    }
  });
}

// ATen's matrix form: rows [-2 a, |a|^2, 1] times rows [b, 1, |b|^2], in C (the compute type),
// the squared norms rounded to the input dtype first as ATen keeps them in it.
template <typename T, typename C>
void augment(const T* x, int64_t rows, int64_t m, bool left, C* dst) {
  for (int64_t i = 0; i < rows; ++i) {
    const T* row = x + i * m;
    C* to = dst + i * (m + 2);
    C squares = 0;
    for (int64_t k = 0; k < m; ++k) {
      const C v = static_cast<C>(row[k]);
      squares += v * v;
      to[k] = left ? C(-2) * v : v;
    }
    const C norm = static_cast<C>(static_cast<T>(squares));
    to[m] = left ? norm : C(1);
    to[m + 1] = left ? C(1) : norm;
  }
}

template <typename T>
bool matmul_pairs(KernelRuntimeContext& ctx, const T* a, int64_t r1, const T* b, int64_t r2,
                  int64_t m, Tensor& out, int64_t out_offset) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t k = m + 2;
  Result<void*> memory = ctx.allocate_temp(static_cast<size_t>((r1 + r2) * k) * sizeof(C), 64);
  KILN_KERNEL_CHECK_MSG(ctx, memory.ok(), MemoryAllocationFailed, false,
                        "_cdist_forward needs %lld bytes of temp memory for its matrix product, "
                        "which the context's temp allocator could not provide",
                        static_cast<long long>((r1 + r2) * k * sizeof(C)));
  C* left = static_cast<C*>(memory.get());
  C* right = left + r1 * k;
  augment(a, r1, m, /*left=*/true, left);
  augment(b, r2, m, /*left=*/false, right);
  constexpr ScalarType kCompute = CppToScalarType<C>::value;
  T* dst = out.mutable_data_ptr<T>() + out_offset;
  // right is read transposed: element (p, j) is right[j * k + p].
  gemm(ctx, r1, r2, k, GemmInput{left, kCompute, k, 1}, GemmInput{right, kCompute, 1, k},
       GemmOutput{dst, out.scalar_type(), r2});
  for (int64_t i = 0; i < r1 * r2; ++i) {
    const C squared = static_cast<C>(dst[i]);
    const C clamped = squared > C(1e-30) ? squared : C(1e-30);  // NaN too, as ATen's clamp_min
    dst[i] = static_cast<T>(std::sqrt(std::isnan(squared) ? squared : clamped));
  }
  return true;
}

// out's batch shape: x1's and x2's batch dims broadcast, with ATen's message when they do not
// (at most kTensorDimensionLimit - 2 dims, as each input has at most kTensorDimensionLimit).
bool batch_shape(KernelRuntimeContext& ctx, const Tensor& x1, const Tensor& x2, SizesType* sizes,
                 int64_t* rank) {
  const int64_t b1 = x1.dim() - 2, b2 = x2.dim() - 2;
  *rank = b1 > b2 ? b1 : b2;
  for (int64_t d = *rank - 1; d >= 0; --d) {
    const int64_t i1 = d - (*rank - b1), i2 = d - (*rank - b2);
    const int64_t s1 = i1 >= 0 ? x1.size(i1) : 1, s2 = i2 >= 0 ? x2.size(i2) : 1;
    KILN_KERNEL_CHECK_MSG(ctx, s1 == s2 || s1 == 1 || s2 == 1, InvalidArgument, false,
                          "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                          "non-singleton dimension %lld",
                          static_cast<long long>(s1), static_cast<long long>(s2),
                          static_cast<long long>(d));
    sizes[d] = s1 == 1 ? s2 : s1;
  }
  return true;
}

}  // namespace

Tensor& _cdist_forward_out(KernelRuntimeContext& ctx, const Tensor& x1, const Tensor& x2, double p,
                           std::optional<int64_t> compute_mode, Tensor& out) {
  if (!check_tensor(ctx, x1, "x1") || !check_tensor(ctx, x2, "x2") ||
      !check_tensor(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, x1.dim() >= 2, InvalidArgument, out,
                        "cdist only supports at least 2D tensors, X1 got: %lldD",
                        static_cast<long long>(x1.dim()));
  KILN_KERNEL_CHECK_MSG(ctx, x2.dim() >= 2, InvalidArgument, out,
                        "cdist only supports at least 2D tensors, X2 got: %lldD",
                        static_cast<long long>(x2.dim()));
  const int64_t m = x1.size(x1.dim() - 1);
  KILN_KERNEL_CHECK_MSG(ctx, m == x2.size(x2.dim() - 1), InvalidArgument, out,
                        "X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
                        static_cast<long long>(m), static_cast<long long>(x2.size(x2.dim() - 1)));
  const ScalarType dtype = x1.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype), InvalidType, out,
                        "cdist only supports floating-point dtypes, X1 got: %s", to_string(dtype));
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(x2.scalar_type()), InvalidType, out,
                        "cdist only supports floating-point dtypes, X2 got: %s",
                        to_string(x2.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, p >= 0, InvalidArgument, out,
                        "cdist only supports non-negative p values (got %g)", p);
  const int64_t mode = compute_mode.value_or(0);
  KILN_KERNEL_CHECK_MSG(ctx, mode >= 0 && mode <= 2, InvalidArgument, out,
                        "possible modes: 0, 1, 2, but was: %lld", static_cast<long long>(mode));
  SizesType sizes[kTensorDimensionLimit];
  int64_t batch_rank = 0;
  if (!batch_shape(ctx, x1, x2, sizes, &batch_rank)) return out;
  const int64_t r1 = x1.size(x1.dim() - 2), r2 = x2.size(x2.dim() - 2);
  sizes[batch_rank] = r1;
  sizes[batch_rank + 1] = r2;
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(batch_rank + 2)})) return out;
  if (out.numel() == 0) return out;
  if (m == 0) {  // no coordinates: every distance is 0
    std::memset(out.mutable_data_ptr(), 0, out.nbytes());
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, x2.scalar_type() == dtype, InvalidType, out,
                        "expected scalar type %s but found %s: x2 must have x1's dtype",
                        to_string(dtype), to_string(x2.scalar_type()));
  const bool use_matmul =
      p == 2 && (mode == 1 || (mode == 0 && (r1 > kMatmulRows || r2 > kMatmulRows)));
  KILN_KERNEL_CHECK_MSG(ctx,
                        use_matmul || dtype == ScalarType::Float || dtype == ScalarType::Double,
                        InvalidType, out,
                        "\"cdist\" not implemented for '%s' (only p = 2 through the matrix "
                        "product takes it: compute_mode 1); pass Float or Double",
                        to_string(dtype));
  if (use_matmul && !check_gemm_dtype(ctx, dtype, "_cdist_forward")) return out;

  // Element strides of each input's batch dims expanded to out's, then every batch entry.
  int64_t strides1[kTensorDimensionLimit], strides2[kTensorDimensionLimit];
  SizesType target1[kTensorDimensionLimit], target2[kTensorDimensionLimit];
  for (int64_t d = 0; d < batch_rank; ++d) target1[d] = target2[d] = sizes[d];
  target1[batch_rank] = r1;
  target2[batch_rank] = r2;
  target1[batch_rank + 1] = target2[batch_rank + 1] = m;
  const size_t rank = static_cast<size_t>(batch_rank + 2);
  if (!expand_strides(ctx, x1.sizes(), {target1, rank}, strides1) ||
      !expand_strides(ctx, x2.sizes(), {target2, rank}, strides2)) {
    return out;
  }
  int64_t batches = 1;
  for (int64_t d = 0; d < batch_rank; ++d) batches *= sizes[d];
  bool ok = true;
  dispatch_element_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (!std::is_integral_v<T>) {
      for (int64_t b = 0; b < batches && ok; ++b) {
        int64_t o1 = 0, o2 = 0, rest = b;
        for (int64_t d = batch_rank - 1; d >= 0; --d) {
          const int64_t index = rest % sizes[d];
          rest /= sizes[d];
          o1 += index * strides1[d];
          o2 += index * strides2[d];
        }
        const T* a = x1.const_data_ptr<T>() + o1;
        const T* c = x2.const_data_ptr<T>() + o2;
        if (use_matmul) {
          ok = matmul_pairs<T>(ctx, a, r1, c, r2, m, out, b * r1 * r2);
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          direct_pairs_of<T>(a, r1, c, r2, m, p, out.mutable_data_ptr<T>() + b * r1 * r2);
        }
      }
    }
  });
  return out;
}

}  // namespace kiln::portable::native
