// The host side of llama::custom_sdpa's attention kernel, shared by custom_sdpa and
// sdpa_with_kv_cache: what the kernel takes, and one launch over key and value already in
// device memory.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_llama_attention/llama_attention_tiling.h"
#include "runtime/core/tensor.h"

namespace kiln::ascend {

// A call the kernel takes: its tiling, and what the host stages for it (in the context's temp
// memory): each query row's context length and, with a mask, its rows as float.
struct LlamaAttentionPlan {
  LlamaAttentionTiling tiling;
  int32_t* lengths;  // tiling.queries of them
  float* mask;       // tiling.queries rows of tiling.mask_pitch, or nullptr
};

// For arguments the portable kernel's checks accepted (llama_arguments.h): declines what the
// kernel cannot take (the dtype on this SoC, a non-default dim order, inf or NaN on a saturating
// SoC, head sizes that are not whole 32-byte rows, more than kAttentionMaxRows query heads per
// kv head, heads beyond UB or the DMA's strides, a mask holding NaN or +inf) and otherwise fills
// `plan`. An empty query needs no plan: true, and nothing to run.
bool plan_llama_attention(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                          const Tensor& value, int64_t start_pos,
                          const std::optional<Tensor>& attn_mask, bool is_causal, float scale,
                          LlamaAttentionPlan* plan);

// One launch of the planned attention of `query` (non-empty) over `key` and `value`, device
// memory laid out as [batch, positions, kv_heads, head_size]; the result goes into `out`, which
// has query's shape. On failure records it in ctx and returns false; `out` is then untouched.
bool run_llama_attention(KernelRuntimeContext& ctx, const LlamaAttentionPlan& plan,
                         const Tensor& query, uint8_t* key, uint8_t* value, Tensor& out);

}  // namespace kiln::ascend
