// ATen mode: the attention of ExecuTorch's LLM custom operators (namespace llama) in libtorch's
// ops, for the kernels of llama::custom_sdpa and sdpa_with_kv_cache. Their checks are the
// portable kernels' (kernels/portable/cpu/util/llm/llama_arguments.h).
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/aten/cpu/util/llm.h"
#include "kernels/portable/cpu/util/llm/llama_arguments.h"

namespace kiln::aten_kernels {

// llama::custom_sdpa's result [B, S, H, D] in query's dtype (kernels/portable/cpu/util/llm/sdpa.h
// gives the rule), from at::scaled_dot_product_attention in float.
at::Tensor custom_sdpa(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                       int64_t start_pos, const std::optional<at::Tensor>& attn_mask,
                       bool is_causal, float scale);

}  // namespace kiln::aten_kernels
