// Host wrapper of kiln::paged_attention.out on Ascend: decode attention over the paged KV cache
// on the vector unit, half and float (bfloat16 on 910B), grouped-query heads, optional alibi.
//
// The host checks what the kernel trusts (context lengths within the block table, the table
// entries a context uses within the caches) and passes block tables and context lengths as
// int32. Invalid input, head sizes that are not whole 32-byte blocks, groups above
// kPagedAttentionMaxGroup and head sizes too long for UB decline to the portable kernel, which
// owns the error messages.
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_paged_attention/paged_attention_kernels.h"
#include "kernels/ascend/op_paged_attention/paged_attention_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_PAGED_ATTENTION)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_PAGED_ATTENTION, launch_paged_attention, DeviceDtype,
                          "paged_attention")

int64_t index_value(const Tensor& t, int64_t i) {
  return t.scalar_type() == ScalarType::Int ? t.const_data_ptr<int32_t>()[i]
                                            : t.const_data_ptr<int64_t>()[i];
}

bool accept_index(KernelRuntimeContext& ctx, const Tensor& t, const char* name, int64_t rank) {
  const ScalarType type = t.scalar_type() == ScalarType::Long ? ScalarType::Long : ScalarType::Int;
  if (!accept_tensor(ctx, t, name, type)) return false;
  if (t.dim() != rank)
    return decline(ctx, "%s of %lld dims", name, static_cast<long long>(t.dim()));
  return true;
}

// Shapes as the portable kernel requires them; anything else declines (it reports the error).
bool accept_shapes(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                   const Tensor& value_cache, const Tensor& block_tables,
                   const Tensor& context_lens, const std::optional<Tensor>& alibi_slopes) {
  const bool ok = query.dim() == 3 && key_cache.dim() == 4 &&
                  value_cache.sizes().equals(key_cache.sizes()) &&
                  key_cache.size(3) == query.size(2) && key_cache.size(1) > 0 &&
                  key_cache.size(2) > 0 && query.size(1) % key_cache.size(2) == 0 &&
                  block_tables.size(0) == query.size(0) && context_lens.size(0) == query.size(0) &&
                  (!alibi_slopes.has_value() ||
                   (alibi_slopes->dim() == 1 && alibi_slopes->size(0) == query.size(1)));
  return ok || decline(ctx, "shapes the portable kernel rejects");
}

// Context lengths within the block table, table entries within the caches; copied as int32.
bool stage_tables(KernelRuntimeContext& ctx, const Tensor& block_tables, const Tensor& context_lens,
                  int64_t block_size, int64_t num_blocks, DeviceBuffer& tables,
                  DeviceBuffer& lens) {
  const int64_t seqs = context_lens.size(0), max_blocks = block_tables.size(1);
  int32_t* t = static_cast<int32_t*>(
      staging_memory(ctx, static_cast<size_t>(seqs * max_blocks + 1) * 4, "block_tables"));
  int32_t* l = t == nullptr ? nullptr
                            : static_cast<int32_t*>(staging_memory(
                                  ctx, static_cast<size_t>(seqs + 1) * 4, "context_lens"));
  if (l == nullptr) return false;
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t length = index_value(context_lens, s);
    if (length < 0 || length > max_blocks * block_size) {
      return decline(ctx, "context_lens[%lld] outside the block table", static_cast<long long>(s));
    }
    l[s] = static_cast<int32_t>(length);
    for (int64_t b = 0; b < max_blocks; ++b) {
      const int64_t block = index_value(block_tables, s * max_blocks + b);
      const bool used = b * block_size < length;
      if (used && (block < 0 || block >= num_blocks)) {
        return decline(ctx, "block_tables[%lld][%lld] outside the caches",
                       static_cast<long long>(s), static_cast<long long>(b));
      }
      t[s * max_blocks + b] = used ? static_cast<int32_t>(block) : 0;
    }
  }
  return tables.upload(ctx, t, static_cast<size_t>(seqs * max_blocks) * 4) &&
         lens.upload(ctx, l, static_cast<size_t>(seqs) * 4);
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& paged_attention_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                            const Tensor& value_cache, const Tensor& block_tables,
                            const Tensor& context_lens, double scale,
                            const std::optional<Tensor>& alibi_slopes, Tensor& out) {
  const ScalarType type = query.scalar_type();
  DeviceDtype dtype;
  if (!accept_dtype(ctx, type, /*int32_ok=*/false, &dtype) ||
      !accept_input(ctx, query, "query", type) ||
      !accept_input(ctx, key_cache, "key_cache", type) ||
      !accept_input(ctx, value_cache, "value_cache", type) ||
      !accept_index(ctx, block_tables, "block_tables", 2) ||
      !accept_index(ctx, context_lens, "context_lens", 1) ||
      (alibi_slopes.has_value() &&
       !accept_input(ctx, *alibi_slopes, "alibi_slopes", ScalarType::Float)) ||
      !accept_tensor(ctx, out, "out", type) ||
      !accept_shapes(ctx, query, key_cache, value_cache, block_tables, context_lens,
                     alibi_slopes)) {
    return out;
  }
  const int64_t seqs = query.size(0), heads = query.size(1), head_size = query.size(2);
  const int64_t num_blocks = key_cache.size(0), block_size = key_cache.size(1);
  const int64_t kv_heads = key_cache.size(2);
  const size_t size = device_element_size(dtype);
  if ((head_size * static_cast<int64_t>(size)) % 32 != 0 || head_size == 0) {
    decline(ctx, "head_size %lld (it takes whole 32-byte rows)", static_cast<long long>(head_size));
    return out;
  }
  if (heads / kv_heads > kPagedAttentionMaxGroup) {
    decline(ctx, "more than %u query heads per kv head", kPagedAttentionMaxGroup);
    return out;
  }
  const Platform device = platform();
  PagedAttentionTiling tiling = paged_attention_tiling(
      dtype, static_cast<uint32_t>(seqs), static_cast<uint32_t>(heads),
      static_cast<uint32_t>(kv_heads), static_cast<uint32_t>(head_size),
      static_cast<uint32_t>(block_size), static_cast<uint32_t>(block_tables.size(1)),
      device.ub_bytes, device.vector_cores);
  if (tiling.token_chunk == 0) {
    decline(ctx, "head_size %lld with %lld query heads per kv head (beyond UB)",
            static_cast<long long>(head_size), static_cast<long long>(heads / kv_heads));
    return out;
  }
  tiling.scale = static_cast<float>(scale);
  tiling.has_alibi = alibi_slopes.has_value() ? 1 : 0;
  DeviceBuffer q, k, v, tables, lens, slopes, y, t;
  if (!stage_tables(ctx, block_tables, context_lens, block_size, num_blocks, tables, lens) ||
      !resize_or_fail(ctx, out, query.sizes())) {
    return out;
  }
  if (seqs == 0 || heads == 0) return out;
  const size_t cache_bytes = static_cast<size_t>(key_cache.numel()) * size;
  const size_t query_bytes = static_cast<size_t>(query.numel()) * size;
  const float no_slopes = 0.0f;
  if (!q.upload(ctx, query.const_data_ptr(), query_bytes) ||
      !k.upload(ctx, key_cache.const_data_ptr(), cache_bytes) ||
      !v.upload(ctx, value_cache.const_data_ptr(), cache_bytes) ||
      !(alibi_slopes.has_value()
            ? slopes.upload(ctx, alibi_slopes->const_data_ptr(), static_cast<size_t>(heads) * 4)
            : slopes.upload(ctx, &no_slopes, sizeof(no_slopes))) ||
      !y.allocate(ctx, query_bytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(
          ctx, launch_paged_attention(dtype, tiling.block_dim, q.get(), k.get(), v.get(),
                                      tables.get(), lens.get(), slopes.get(), y.get(), t.get()))) {
    (void)y.download(ctx, out.mutable_data_ptr(), query_bytes);
  }
  return out;
}

}  // namespace kiln::ascend::native
