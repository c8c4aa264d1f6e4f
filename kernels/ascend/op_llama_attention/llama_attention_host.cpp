// Host wrappers of llama::custom_sdpa.out and sdpa_with_kv_cache.out on Ascend: the attention of
// query [B, S, H, D] at positions start_pos.. over key and value [B, L, H_kv, D] on the vector
// unit (llama_attention_kernel.cpp), causal, non-causal or with an additive mask, grouped-query
// heads, half and float (bfloat16 on 910B). sdpa_with_kv_cache first writes this step's key and
// value into the caches in device memory (the kv_cache kernel, one launch for both), then
// attends over them there, and the caches come back to host memory after both launches.
//
// The portable kernel's checks (llama_arguments.h) run first, on a scratch context: what they
// refuse declines, and the portable kernel reports it. So do inputs the kernel cannot take
// (llama_attention_run.h), all before anything is written.
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_kv_cache/kv_cache_write.h"
#include "kernels/ascend/op_llama_attention/llama_attention_run.h"
#include "kernels/portable/cpu/util/llm/attention.h"
#include "kernels/portable/cpu/util/llm/llama_arguments.h"

namespace kiln::ascend::native {

Tensor& custom_sdpa_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                        const Tensor& value, int64_t start_pos,
                        const std::optional<Tensor>& attn_mask, double drpout_p, bool is_causal,
                        std::optional<double> scale, Tensor& out) {
  KernelRuntimeContext checks;
  if (!portable::check_custom_sdpa_arguments(checks, query, key, value, start_pos, attn_mask,
                                             drpout_p, is_causal) ||
      !portable::check_attention_head_size(checks, query.size(3))) {
    refused(ctx, checks);
    return out;
  }
  LlamaAttentionPlan plan{};
  if (!accept_tensor(ctx, out, "out", query.scalar_type()) ||
      !plan_llama_attention(ctx, query, key, value, start_pos, attn_mask, is_causal,
                            portable::attention_scale(scale, query.size(3)), &plan) ||
      !resize_or_fail(ctx, out, query.sizes()) || query.numel() == 0) {
    return out;
  }
  DeviceBuffer k, v;
  if (k.upload(ctx, key.const_data_ptr(), key.nbytes()) &&
      v.upload(ctx, value.const_data_ptr(), value.nbytes())) {
    (void)run_llama_attention(ctx, plan, query, k.get(), v.get(), out);
  }
  return out;
}

Tensor& sdpa_with_kv_cache_out(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                               const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                               int64_t start_pos, int64_t seq_len,
                               const std::optional<Tensor>& attn_mask, double drpout_p,
                               bool is_causal, std::optional<double> scale, Tensor& out) {
  KernelRuntimeContext checks;
  if (!portable::check_sdpa_with_kv_cache_arguments(checks, query, key, value, key_cache,
                                                    value_cache, start_pos, seq_len, attn_mask,
                                                    drpout_p, is_causal) ||
      !portable::check_attention_head_size(checks, query.size(3))) {
    refused(ctx, checks);
    return out;
  }
  const ScalarType type = query.scalar_type();
  LlamaAttentionPlan plan{};
  if (!accept_tensor(ctx, out, "out", type) || !accept_input(ctx, key, "key", type) ||
      !accept_input(ctx, value, "value", type) ||
      !plan_llama_attention(ctx, query, key_cache, value_cache, start_pos, attn_mask, is_causal,
                            portable::attention_scale(scale, query.size(3)), &plan) ||
      !resize_or_fail(ctx, out, query.sizes())) {
    return out;
  }
  const int64_t batch = key.size(0), positions = key_cache.size(1);
  const int64_t tokens = batch * seq_len;
  int64_t* slots = static_cast<int64_t*>(
      staging_memory(ctx, static_cast<size_t>(tokens + 1) * sizeof(int64_t), "the positions"));
  if (slots == nullptr) return out;
  for (int64_t t = 0; t < tokens; ++t) slots[t] = t / seq_len * positions + start_pos + t % seq_len;
  // The caches' rows are whole 32-byte blocks whenever the kernel attends (its head sizes are).
  const uint64_t row_len = static_cast<uint64_t>(key_cache.size(2) * key_cache.size(3));
  DeviceBuffer kc, vc;
  if (!upload_cache(ctx, key_cache, row_len, kc) || !upload_cache(ctx, value_cache, row_len, vc) ||
      (key.numel() > 0 &&
       !write_cache_rows(ctx, key.const_data_ptr(), value.const_data_ptr(), slots,
                         static_cast<uint64_t>(tokens), row_len, key_cache.element_size(), kc.get(),
                         vc.get(), static_cast<uint64_t>(batch * positions))) ||
      (query.numel() > 0 && !run_llama_attention(ctx, plan, query, kc.get(), vc.get(), out)) ||
      !download_cache(ctx, kc, row_len, key_cache)) {
    return out;
  }
  (void)download_cache(ctx, vc, row_len, value_cache);
  return out;
}

}  // namespace kiln::ascend::native
