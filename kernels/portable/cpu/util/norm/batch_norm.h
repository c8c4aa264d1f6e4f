// Batch norm's per-channel pieces, shared by _native_batch_norm_legit (training or not, with or
// without running statistics) and _native_batch_norm_legit_no_training.
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// A per-channel tensor (weight, bias, a running statistic) holds at least `channels` elements
// (ATen reads the first `channels`); an absent one passes. False after ctx.fail.
bool check_channel_param(KernelRuntimeContext& ctx, const std::optional<Tensor>& param,
                         const char* name, int64_t channels);

// A contiguous input [N, C, *] seen as N rows of `inner` elements per channel.
struct ChannelLayout {
  int64_t outer;     // N
  int64_t channels;  // C
  int64_t inner;     // product of the dims after C

  static ChannelLayout of(const Tensor& input);
};

// Channel c's mean and sum of squared deviations from it, in two passes in double.
void channel_moments(const Tensor& input, const ChannelLayout& layout, int64_t c, double* mean,
                     double* squares);

// running_var[c] + eps added as torch adds them: in float unless the statistics are Double (so
// a sum that is zero for torch, and gives it an infinite scale, is zero here too).
double var_plus_eps(const Tensor& running_var, int64_t c, double eps);

// out = (input - mean) * invstd * weight[c] + bias[c] over channel c (weight and bias optional).
void normalize_channel(const Tensor& input, const ChannelLayout& layout, int64_t c, double mean,
                       double invstd, const std::optional<Tensor>& weight,
                       const std::optional<Tensor>& bias, Tensor& out);

// Stores `value` as element `index` of tensor t (any supported dtype).
void store_double(Tensor& t, int64_t index, double value);

}  // namespace kiln::portable
