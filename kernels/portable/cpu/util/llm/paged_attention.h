// kiln::paged_attention's computation over caches of either layout (arguments.h), shared by its
// two overloads' portable kernels (cpu/op_paged_attention.cpp).
#pragma once

#include <optional>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// out [num_seqs, num_heads, head_size] = decode attention of `query` over caches `g` describes,
// arguments checked by check_paged_attention_arguments and out sized like query; query and out
// are row views (sequences any stride apart). A context of at most kAttentionPartition tokens is
// attended in one pass (vLLM's paged_attention_v1); a longer one a partition at a time and the
// partitions combined (v2), the (sequence, head block, partition) items spread over the
// context's threads. Without temp memory for the partitions' results every context takes one
// pass (the same values up to rounding).
void paged_attention(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                     const Tensor& value_cache, const Tensor& block_tables,
                     const Tensor& context_lens, float scale,
                     const std::optional<Tensor>& alibi_slopes, const CacheGeometry& g,
                     Tensor& out);

}  // namespace kiln::portable
