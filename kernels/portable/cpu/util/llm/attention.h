// The online-softmax attention loop of kiln::paged_attention, and the limits Kiln's attention
// kernels share (llama::custom_sdpa's gemm blocks, util/llm/sdpa.cpp, keep rows of the same head
// sizes and chunks of the same positions).
//
// attend(): a block of query heads that read one kv head attends to a run of cached tokens with
// an online softmax in float, one chunk of tokens at a time, so each key and value row is read
// (and converted) once for all the block's heads. `Rows` gives token t's key and value rows as
// floats (`key(t, buffer)`, `value(t, buffer)`, in place or converted into `buffer`), and
// `bias(h, t)` is added to head h's scaled logit for token t (alibi, or 0). A bias of -inf masks
// the token out; a head whose every token is masked gets zeros, as torch's
// scaled_dot_product_attention gives.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/portable/cpu/util/llm/common.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Head sizes up to this fit the float rows the attention kernels keep on the stack.
constexpr int64_t kMaxAttentionHeadSize = 1024;
// Query heads of one kv group attended to together.
constexpr int64_t kAttentionHeadBlock = 4;
// Tokens whose logits are computed before one softmax rescale.
constexpr int64_t kAttentionTokenChunk = 64;
// Tokens of one partition of paged attention v2 (vLLM's PARTITION_SIZE): a longer context is
// attended a partition at a time, each on a thread of its own, and the partitions' results are
// combined (util/llm/paged_attention.cpp).
constexpr int64_t kAttentionPartition = 512;

// Heads of `head_size` fit attend's stack rows; otherwise NotSupported.
inline bool check_attention_head_size(KernelRuntimeContext& ctx, int64_t head_size) {
  KILN_KERNEL_CHECK_MSG(ctx, head_size <= kMaxAttentionHeadSize, NotSupported, false,
                        "head size %lld is larger than the %lld this kernel supports",
                        static_cast<long long>(head_size),
                        static_cast<long long>(kMaxAttentionHeadSize));
  return true;
}

// out[h] = softmax(scale * q[h] . K + bias(h, .)) . V over tokens [0, length), for `count`
// (<= kAttentionHeadBlock) query heads q[h] of `d` (<= kMaxAttentionHeadSize) floats each. With
// `maxima` and `sums` (count floats each), also each head's largest logit (-inf when every token
// is masked) and its sum of exp(logit - maximum): what paged attention v2 keeps per partition to
// combine partitions' results.
template <typename Rows, typename Bias>
void attend(const Rows& rows, const float* q, int64_t count, int64_t d, int64_t length, float scale,
            const Bias& bias, float* out, float* maxima = nullptr, float* sums = nullptr) {
  float buffer[kMaxAttentionHeadSize];
  float logits[kAttentionHeadBlock][kAttentionTokenChunk];
  float running_max[kAttentionHeadBlock];
  float running_sum[kAttentionHeadBlock];
  for (int64_t h = 0; h < count; ++h) {
    running_max[h] = -INFINITY;
    running_sum[h] = 0.0f;
    for (int64_t i = 0; i < d; ++i) out[h * d + i] = 0.0f;
  }
  for (int64_t start = 0; start < length; start += kAttentionTokenChunk) {
    const int64_t m = length - start < kAttentionTokenChunk ? length - start : kAttentionTokenChunk;
    float chunk_max[kAttentionHeadBlock];
    for (int64_t h = 0; h < count; ++h) chunk_max[h] = -INFINITY;
    for (int64_t j = 0; j < m; ++j) {
      const float* k = rows.key(start + j, buffer);
      for (int64_t h = 0; h < count; ++h) {
        const float logit = scale * dot_row(q + h * d, k, d) + bias(h, start + j);
        logits[h][j] = logit;
        chunk_max[h] = logit > chunk_max[h] ? logit : chunk_max[h];
      }
    }
    for (int64_t h = 0; h < count; ++h) {
      const float new_max = chunk_max[h] > running_max[h] ? chunk_max[h] : running_max[h];
      // Nothing seen yet but masked tokens: the maximum stays -inf and every weight is 0.
      if (new_max == -INFINITY) continue;
      const float rescale = exp_float(running_max[h] - new_max);  // 0 on the first chunk
      running_sum[h] *= rescale;
      scale_row(out + h * d, rescale, out + h * d, d);
      running_max[h] = new_max;
    }
    for (int64_t j = 0; j < m; ++j) {
      const float* v = rows.value(start + j, buffer);
      for (int64_t h = 0; h < count; ++h) {
        if (running_max[h] == -INFINITY) continue;
        const float p = exp_float(logits[h][j] - running_max[h]);
        running_sum[h] += p;
        axpy_row(p, v, out + h * d, d);
      }
    }
  }
  for (int64_t h = 0; h < count; ++h) {
    if (running_sum[h] > 0.0f) scale_row(out + h * d, 1.0f / running_sum[h], out + h * d, d);
    if (maxima != nullptr) maxima[h] = running_max[h];
    if (sums != nullptr) sums[h] = running_sum[h];
  }
}

}  // namespace kiln::portable
