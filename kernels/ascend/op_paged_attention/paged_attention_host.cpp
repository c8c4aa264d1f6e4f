// Host wrappers of kiln::paged_attention.out (flash caches) and .paged_layout_out (vLLM's paged
// layout) on Ascend: decode attention over the paged KV cache on the vector unit, half and float
// (bfloat16 on 910B), grouped-query heads, optional alibi; query and out may be row views, read
// and written where they lie (row_image.h).
//
// The portable kernel's checks (arguments.h) run first on a scratch context and what they refuse
// declines, so the portable kernel owns the error messages; so do head sizes that are not whole
// 32-byte blocks, groups above kPagedAttentionMaxGroup and head sizes too long for UB. Block
// tables and context lengths go to the kernel as int32. A context longer than one partition of
// kPagedAttentionPartition tokens is split into partitions, each a work item of its own (vLLM's
// v2), and a second launch combines their results.
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/row_image.h"
#include "kernels/ascend/op_paged_attention/paged_attention_kernels.h"
#include "kernels/ascend/op_paged_attention/paged_attention_tiling.h"
#include "kernels/portable/cpu/util/llm/arguments.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_PAGED_ATTENTION)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_PAGED_ATTENTION, launch_paged_attention, DeviceDtype,
                          "paged_attention")

// Block tables and context lengths as int32 (the checks have bounded them); the table entries a
// context does not use become 0.
bool stage_tables(KernelRuntimeContext& ctx, const Tensor& block_tables, const Tensor& context_lens,
                  int64_t block_size, DeviceBuffer& tables, DeviceBuffer& lens) {
  const int64_t seqs = context_lens.size(0), max_blocks = block_tables.size(1);
  int32_t* t = static_cast<int32_t*>(
      staging_memory(ctx, static_cast<size_t>(seqs * max_blocks + 1) * 4, "block_tables"));
  int32_t* l = t == nullptr ? nullptr
                            : static_cast<int32_t*>(staging_memory(
                                  ctx, static_cast<size_t>(seqs + 1) * 4, "context_lens"));
  if (l == nullptr) return false;
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t length = portable::index_at(context_lens, s);
    l[s] = static_cast<int32_t>(length);
    for (int64_t b = 0; b < max_blocks; ++b) {
      const bool used = b * block_size < length;
      t[s * max_blocks + b] =
          used ? static_cast<int32_t>(portable::index_at(block_tables, s * max_blocks + b)) : 0;
    }
  }
  return tables.upload(ctx, t, static_cast<size_t>(seqs * max_blocks) * 4) &&
         lens.upload(ctx, l, static_cast<size_t>(seqs) * 4);
}

// The work items of both phases (paged_attention_tiling.h): per sequence a whole context, or a
// partition each, and then the partitioned sequences; returns false after declining.
struct WorkPlan {
  int32_t* attend;   // 3 per item
  int32_t* combine;  // 3 per item
  uint32_t attend_items;
  uint32_t combine_items;
  uint32_t records;  // partitions with records
};

bool plan_work(KernelRuntimeContext& ctx, const Tensor& context_lens, WorkPlan* plan) {
  const int64_t seqs = context_lens.size(0);
  int64_t items = 0;
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t parts = (portable::index_at(context_lens, s) + kPagedAttentionPartition - 1) /
                          kPagedAttentionPartition;
    items += parts > 1 ? parts : 1;
  }
  auto* memory = static_cast<int32_t*>(
      staging_memory(ctx, static_cast<size_t>(3 * (items + seqs) + 8) * 4, "work items"));
  if (memory == nullptr) return false;
  *plan = {memory, memory + 3 * items, 0, 0, 0};
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t parts = (portable::index_at(context_lens, s) + kPagedAttentionPartition - 1) /
                          kPagedAttentionPartition;
    if (parts <= 1) {
      int32_t* item = plan->attend + 3 * plan->attend_items++;
      item[0] = static_cast<int32_t>(s), item[1] = 0, item[2] = -1;
      continue;
    }
    for (int64_t p = 0; p < parts; ++p) {
      int32_t* item = plan->attend + 3 * plan->attend_items++;
      item[0] = static_cast<int32_t>(s), item[1] = static_cast<int32_t>(p);
      item[2] = static_cast<int32_t>(plan->records);
    }
    int32_t* item = plan->combine + 3 * plan->combine_items++;
    item[0] = static_cast<int32_t>(s), item[1] = static_cast<int32_t>(parts);
    item[2] = static_cast<int32_t>(plan->records);
    plan->records += static_cast<uint32_t>(parts);
  }
  return true;
}

Tensor& attend_paged(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                     const Tensor& value_cache, const Tensor& block_tables,
                     const Tensor& context_lens, double scale,
                     const std::optional<Tensor>& alibi_slopes, portable::CacheLayout layout,
                     Tensor& out) {
  const ScalarType type = query.scalar_type();
  DeviceDtype dtype;
  KernelRuntimeContext checks;
  portable::CacheGeometry g{};
  if (!accept_dtype(ctx, type, /*int32_ok=*/false, &dtype)) return out;
  if (!portable::check_paged_attention_arguments(checks, query, key_cache, value_cache,
                                                 block_tables, context_lens, alibi_slopes, layout,
                                                 &g)) {
    refused(ctx, checks);
    return out;
  }
  if (!accept_input(ctx, query, "query", type, /*row_view=*/true) ||
      !accept_input(ctx, key_cache, "key_cache", type) ||
      !accept_input(ctx, value_cache, "value_cache", type) ||
      (alibi_slopes.has_value() &&
       !accept_input(ctx, *alibi_slopes, "alibi_slopes", ScalarType::Float)) ||
      !accept_row_view(ctx, out, "out", type)) {
    return out;
  }
  const int64_t seqs = query.size(0), heads = query.size(1), head_size = query.size(2);
  const size_t size = device_element_size(dtype);
  if ((head_size * static_cast<int64_t>(size)) % 32 != 0 || head_size == 0) {
    decline(ctx, "head_size %lld (it takes whole 32-byte rows)", static_cast<long long>(head_size));
    return out;
  }
  if (heads / g.kv_heads > kPagedAttentionMaxGroup) {
    decline(ctx, "more than %u query heads per kv head", kPagedAttentionMaxGroup);
    return out;
  }
  if (!resize_or_fail(ctx, out, query.sizes())) return out;
  if (!portable::check_row_activation(checks, out, "out", /*is_out=*/true)) {
    refused(ctx, checks);
    return out;
  }
  if (seqs == 0 || heads == 0) return out;
  WorkPlan plan{};
  if (!plan_work(ctx, context_lens, &plan)) return out;
  const Platform device = platform();
  const uint32_t kernel_layout =
      layout == portable::CacheLayout::kPaged ? kPagedLayout : kFlashLayout;
  PagedAttentionTiling tiling = paged_attention_tiling(
      dtype, kernel_layout, static_cast<uint32_t>(seqs), static_cast<uint32_t>(heads),
      static_cast<uint32_t>(g.kv_heads), static_cast<uint32_t>(head_size),
      static_cast<uint32_t>(g.block_size), static_cast<uint32_t>(block_tables.size(1)),
      plan.attend_items, device.ub_bytes, device.vector_cores);
  if (tiling.token_chunk == 0) {
    decline(ctx, "head_size %lld with %lld query heads per kv head (beyond UB)",
            static_cast<long long>(head_size), static_cast<long long>(heads / g.kv_heads));
    return out;
  }
  // Each (sequence, head) row of head_size: the kernel copies a kv head's group of them at once.
  const uint64_t d = static_cast<uint64_t>(head_size);
  RowImage query_image{};
  RowImage out_image{};
  if (!plan_row_image(ctx, query, "query", d, {d, d, /*is_out=*/false}, &query_image) ||
      !plan_row_image(ctx, out, "out", d, {d, d, /*is_out=*/true}, &out_image)) {
    return out;
  }
  tiling.query = query_image.rows;
  tiling.out = out_image.rows;
  tiling.scale = static_cast<float>(scale);
  tiling.has_alibi = alibi_slopes.has_value() ? 1 : 0;
  const PagedAttentionTiling combine =
      paged_attention_combine_tiling(tiling, plan.combine_items, device.vector_cores);
  const size_t cache_bytes = static_cast<size_t>(key_cache.numel()) * size;
  const size_t record_bytes =
      static_cast<size_t>(plan.records) * heads * (kRecordHeader + d) * sizeof(float);
  const float no_slopes = 0.0f;
  DeviceBuffer q, k, v, tables, lens, slopes, work, combine_work, records, y, t, ct;
  if (!stage_tables(ctx, block_tables, context_lens, g.block_size, tables, lens) ||
      !upload_row_image(ctx, q, query, query_image) ||
      !k.upload(ctx, key_cache.const_data_ptr(), cache_bytes) ||
      !v.upload(ctx, value_cache.const_data_ptr(), cache_bytes) ||
      !(alibi_slopes.has_value()
            ? slopes.upload(ctx, alibi_slopes->const_data_ptr(), static_cast<size_t>(heads) * 4)
            : slopes.upload(ctx, &no_slopes, sizeof(no_slopes))) ||
      !work.upload(ctx, plan.attend, plan.attend_items * 3 * sizeof(int32_t)) ||
      !combine_work.upload(ctx, plan.combine, (plan.combine_items * 3 + 1) * sizeof(int32_t)) ||
      !records.allocate(ctx, record_bytes) || !y.allocate(ctx, out_image.bytes) ||
      !t.upload(ctx, &tiling, sizeof(tiling)) || !ct.upload(ctx, &combine, sizeof(combine))) {
    return out;
  }
  if (!finish_launch(ctx, launch_paged_attention(dtype, tiling.block_dim, q.get(), k.get(), v.get(),
                                                 tables.get(), lens.get(), slopes.get(), work.get(),
                                                 records.get(), y.get(), t.get())) ||
      (plan.combine_items > 0 &&
       !finish_launch(
           ctx, launch_paged_attention(dtype, combine.block_dim, q.get(), k.get(), v.get(),
                                       tables.get(), lens.get(), slopes.get(), combine_work.get(),
                                       records.get(), y.get(), ct.get())))) {
    return out;
  }
  (void)download_row_image(ctx, y, out, out_image);
  return out;
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& paged_attention_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                            const Tensor& value_cache, const Tensor& block_tables,
                            const Tensor& context_lens, double scale,
                            const std::optional<Tensor>& alibi_slopes, Tensor& out) {
  return attend_paged(ctx, query, key_cache, value_cache, block_tables, context_lens, scale,
                      alibi_slopes, portable::CacheLayout::kFlash, out);
}

Tensor& paged_attention_paged_layout_out(KernelRuntimeContext& ctx, const Tensor& query,
                                         const Tensor& key_cache, const Tensor& value_cache,
                                         const Tensor& block_tables, const Tensor& context_lens,
                                         double scale, const std::optional<Tensor>& alibi_slopes,
                                         Tensor& out) {
  return attend_paged(ctx, query, key_cache, value_cache, block_tables, context_lens, scale,
                      alibi_slopes, portable::CacheLayout::kPaged, out);
}

}  // namespace kiln::ascend::native
