// The host side of llama::custom_sdpa's attention kernel (llama_attention_run.h): the kernel's
// limits, the context length of each query row, the mask as float rows, the launch.
#include "kernels/ascend/op_llama_attention/llama_attention_run.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/op_llama_attention/llama_attention_kernels.h"
#include "runtime/core/half.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_LLAMA_ATTENTION)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_LLAMA_ATTENTION, launch_llama_attention, DeviceDtype,
                          "llama_attention")

// The largest gap or run, in 32-byte blocks, a strided DataCopy describes (16-bit fields).
constexpr int64_t kMaxCopyBlocks = 65535;

// Head sizes of whole 32-byte rows, groups the kernel keeps state for, sizes the tiling holds,
// and rows of heads whose strided copies fit the DMA's fields.
bool accept_heads(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key, size_t size) {
  const int64_t heads = query.size(2), d = query.size(3), kv_heads = key.size(2);
  if ((d * static_cast<int64_t>(size)) % 32 != 0) {
    return decline(ctx, "head_size %lld (it takes whole 32-byte rows)", static_cast<long long>(d));
  }
  if (heads / kv_heads > kAttentionMaxRows) {
    return decline(ctx, "more than %u query heads per kv head", kAttentionMaxRows);
  }
  const int64_t head_blocks = d * static_cast<int64_t>(size) / 32;
  const int64_t limit = std::numeric_limits<int32_t>::max();
  const bool fits = query.size(0) <= limit && query.size(1) <= limit && key.size(1) <= limit &&
                    heads * head_blocks <= kMaxCopyBlocks;
  return fits || decline(ctx, "shapes beyond the kernel's 32-bit sizes and 16-bit strides");
}

float mask_value(const Tensor& mask, int64_t index) {
  switch (mask.scalar_type()) {
    case ScalarType::Half:
      return static_cast<float>(mask.const_data_ptr<Half>()[index]);
    case ScalarType::BFloat16:
      return static_cast<float>(mask.const_data_ptr<BFloat16>()[index]);
    default:
      return mask.const_data_ptr<float>()[index];
  }
}

// The mask as float rows of `pitch` (padding zeroed) into `rows`, and each query row's context:
// every position, or none when the mask leaves it none (the kernel writes zeros, as the portable
// kernel does for a fully masked row). Declines a mask holding NaN or +inf.
bool stage_mask(KernelRuntimeContext& ctx, const Tensor& mask, uint32_t pitch, float* rows,
                int32_t* lengths) {
  const int64_t queries = mask.size(0), positions = mask.size(1);
  std::memset(rows, 0, static_cast<size_t>(queries) * pitch * sizeof(float));
  for (int64_t i = 0; i < queries; ++i) {
    bool attends = false;
    for (int64_t j = 0; j < positions; ++j) {
      const float x = mask_value(mask, i * positions + j);
      if (std::isnan(x) || x == INFINITY) return decline(ctx, "attn_mask holding NaN or +inf");
      attends = attends || x != -INFINITY;
      rows[i * pitch + j] = x;
    }
    lengths[i] = attends ? static_cast<int32_t>(positions) : 0;
  }
  return true;
}

}  // namespace

bool plan_llama_attention(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                          const Tensor& value, int64_t start_pos,
                          const std::optional<Tensor>& attn_mask, bool is_causal, float scale,
                          LlamaAttentionPlan* plan) {
  const ScalarType type = query.scalar_type();
  DeviceDtype dtype;
  if (!accept_dtype(ctx, type, /*int32_ok=*/false, &dtype) ||
      !accept_input(ctx, query, "query", type) || !accept_input(ctx, key, "key", type) ||
      !accept_input(ctx, value, "value", type) ||
      (attn_mask.has_value() &&
       !accept_tensor(ctx, *attn_mask, "attn_mask", attn_mask->scalar_type()))) {
    return false;
  }
  if (query.numel() == 0) return true;
  const size_t size = device_element_size(dtype);
  if (!accept_heads(ctx, query, key, size)) return false;
  const Platform device = platform();
  const uint32_t queries = static_cast<uint32_t>(query.size(1));
  plan->tiling = llama_attention_tiling(
      dtype, static_cast<uint32_t>(query.size(0)), queries, static_cast<uint32_t>(query.size(2)),
      static_cast<uint32_t>(key.size(2)), static_cast<uint32_t>(query.size(3)),
      static_cast<uint32_t>(key.size(1)), attn_mask.has_value(), device.ub_bytes,
      device.vector_cores);
  if (plan->tiling.token_chunk == 0) {
    return decline(ctx, "head_size %lld with %lld query heads per kv head (beyond UB)",
                   static_cast<long long>(query.size(3)),
                   static_cast<long long>(query.size(2) / key.size(2)));
  }
  plan->tiling.scale = scale;
  plan->lengths = static_cast<int32_t*>(
      staging_memory(ctx, static_cast<size_t>(queries) * sizeof(int32_t), "the context lengths"));
  if (plan->lengths == nullptr) return false;
  plan->mask = nullptr;
  if (attn_mask.has_value() && key.size(1) == 0) {
    // No positions to attend to: every row gets zeros, no mask needed.
    std::memset(plan->lengths, 0, static_cast<size_t>(queries) * sizeof(int32_t));
    plan->tiling.mask_pitch = 0;
    return true;
  }
  if (attn_mask.has_value()) {
    const uint32_t pitch = plan->tiling.mask_pitch;
    plan->mask = static_cast<float*>(
        staging_memory(ctx, static_cast<size_t>(queries) * pitch * sizeof(float), "attn_mask"));
    return plan->mask != nullptr && stage_mask(ctx, *attn_mask, pitch, plan->mask, plan->lengths);
  }
  for (uint32_t i = 0; i < queries; ++i) {
    plan->lengths[i] = static_cast<int32_t>(start_pos + (is_causal ? i + 1 : queries));
  }
  return true;
}

bool run_llama_attention(KernelRuntimeContext& ctx, const LlamaAttentionPlan& plan,
                         const Tensor& query, uint8_t* key, uint8_t* value, Tensor& out) {
  const LlamaAttentionTiling& tiling = plan.tiling;
  const size_t bytes = query.nbytes();
  const size_t mask_bytes = size_t{tiling.queries} * tiling.mask_pitch * sizeof(float);
  const float no_mask = 0.0f;
  DeviceBuffer q, mask, lengths, y, t;
  if (!q.upload(ctx, query.const_data_ptr(), bytes) ||
      !(plan.mask != nullptr ? mask.upload(ctx, plan.mask, mask_bytes)
                             : mask.upload(ctx, &no_mask, sizeof(no_mask))) ||
      !lengths.upload(ctx, plan.lengths, size_t{tiling.queries} * sizeof(int32_t)) ||
      !y.allocate(ctx, bytes) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return false;
  }
  return finish_launch(ctx, launch_llama_attention(static_cast<DeviceDtype>(tiling.dtype),
                                                   tiling.block_dim, q.get(), key, value,
                                                   mask.get(), lengths.get(), y.get(), t.get())) &&
         y.download(ctx, out.mutable_data_ptr(), bytes);
}

}  // namespace kiln::ascend
