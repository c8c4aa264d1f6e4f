// Shared argument handling for the matrix-multiply kernels.
#include "kernels/portable/cpu/util/linalg/matmul.h"

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"

namespace kiln::portable {

bool expand_strides(KernelRuntimeContext& ctx, ArrayRef<SizesType> sizes,
                    ArrayRef<SizesType> target, int64_t* strides) {
  const int64_t rank = static_cast<int64_t>(target.size());
  const int64_t own = static_cast<int64_t>(sizes.size());
  if (own > rank) {
    ctx.fail(Error::InvalidArgument,
             "expand(%s, size=%s): the number of sizes provided (%lld) must be greater or equal "
             "to the number of dimensions in the tensor",
             format_shape(sizes).text, format_shape(target).text, static_cast<long long>(rank));
    return false;
  }
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    const int64_t s = d - (rank - own);
    if (s < 0) {
      strides[d] = 0;
      continue;
    }
    const SizesType size = sizes[static_cast<size_t>(s)];
    if (size != target[static_cast<size_t>(d)] && size != 1) {
      ctx.fail(Error::InvalidArgument,
               "The expanded size of the tensor (%lld) must match the existing size (%lld) at "
               "non-singleton dimension %lld.  Target sizes: %s.  Tensor sizes: %s",
               static_cast<long long>(target[static_cast<size_t>(d)]), static_cast<long long>(size),
               static_cast<long long>(d), format_shape(target).text, format_shape(sizes).text);
      return false;
    }
    strides[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
  return true;
}

bool check_not_bool(KernelRuntimeContext& ctx, ScalarType dtype, const char* op) {
  if (dtype != ScalarType::Bool) return true;
  ctx.fail(Error::InvalidType,
           "\"%s\" not implemented for 'Bool'; convert the operands to a numeric dtype", op);
  return false;
}

bool check_batches(KernelRuntimeContext& ctx, const Tensor& batch1, const Tensor& batch2,
                   Tensor& out, const char* op) {
  if (!check_tensor(ctx, batch1, "batch1") || !check_tensor(ctx, batch2, "batch2") ||
      !check_tensor(ctx, out, "out")) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(ctx, batch1.dim() == 3, InvalidArgument, false,
                        "batch1 must be a 3D tensor, got shape %s",
                        format_shape(batch1.sizes()).text);
  KILN_KERNEL_CHECK_MSG(ctx, batch2.dim() == 3, InvalidArgument, false,
                        "batch2 must be a 3D tensor, got shape %s",
                        format_shape(batch2.sizes()).text);
  KILN_KERNEL_CHECK_MSG(
      ctx, batch2.size(0) == batch1.size(0) && batch2.size(1) == batch1.size(2), InvalidArgument,
      false,
      "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: "
      "[%lld, %lld].",
      static_cast<long long>(batch1.size(0)), static_cast<long long>(batch1.size(2)),
      static_cast<long long>(batch2.size(0)), static_cast<long long>(batch2.size(1)));
  KILN_KERNEL_CHECK_MSG(ctx, batch1.scalar_type() == batch2.scalar_type(), InvalidArgument, false,
                        "expected scalar type %s but found %s", to_string(batch1.scalar_type()),
                        to_string(batch2.scalar_type()));
  if (!check_not_bool(ctx, batch1.scalar_type(), op)) return false;
  if (!check_out_dtype_is(ctx, out, batch1.scalar_type())) return false;
  if (!check_gemm_dtype(ctx, batch1.scalar_type(), op)) return false;
  const SizesType sizes[3] = {batch1.size(0), batch1.size(1), batch2.size(2)};
  return resize_or_fail(ctx, out, {sizes, 3}) && check_out_apart(ctx, out, batch1, "batch1") &&
         check_out_apart(ctx, out, batch2, "batch2");
}

void batched_gemm(const KernelRuntimeContext& ctx, const Tensor& batch1, const Tensor& batch2,
                  Tensor& out, const void* c, ScalarType c_type, const int64_t* c_strides,
                  const Scalar& alpha, const Scalar& beta) {
  const int64_t batches = batch1.size(0);
  const int64_t n = batch1.size(1);
  const int64_t m = batch1.size(2);
  const int64_t p = batch2.size(2);
  const ScalarType dtype = batch1.scalar_type();
  const size_t size = element_size(dtype);
  const size_t c_size = element_size(c_type);
  const auto product = [&](const KernelRuntimeContext& gemm_ctx, int64_t i) {
    GemmEpilogue epilogue;
    epilogue.alpha = alpha;
    epilogue.beta = beta;
    if (c != nullptr) {
      epilogue.c = {static_cast<const char*>(c) + i * c_strides[0] * c_size, c_type, c_strides[1],
                    c_strides[2]};
    }
    gemm(gemm_ctx, n, p, m,
         {static_cast<const char*>(batch1.const_data_ptr()) + i * n * m * size, dtype, m, 1},
         {static_cast<const char*>(batch2.const_data_ptr()) + i * m * p * size, dtype, p, 1},
         {static_cast<char*>(out.mutable_data_ptr()) + i * n * p * size, dtype, p}, epilogue);
  };
  // Batches that share out evenly over the threads (attention's heads: 8 on 2 threads), or many
  // of them, run side by side, each product on one thread: one hand-off for them all, where
  // splitting each product paid one per batch (16 of 128x128 by 128x128: 1.8x faster on 2
  // threads split, 2.05x side by side). Uneven few (3 on 2: at best 1.5x side by side) keep
  // splitting each product. The same bits either way: a product's split never changes them.
  const int64_t threads =
      ctx.thread_pool() != nullptr ? static_cast<int64_t>(ctx.thread_pool()->num_threads()) : 1;
  if (threads > 1 && batches >= threads && (batches % threads == 0 || batches >= 4 * threads)) {
    const KernelRuntimeContext one_thread;
    const int64_t work = n * p * (m > 0 ? m : 1);
    const int64_t grain = work >= kGemmGrain ? 1 : (kGemmGrain + work - 1) / work;
    parallel_for(ctx, 0, batches, grain, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) product(one_thread, i);
    });
    return;
  }
  for (int64_t i = 0; i < batches; ++i) product(ctx, i);
}

}  // namespace kiln::portable
