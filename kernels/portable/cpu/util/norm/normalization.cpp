// Row statistics and affine row transforms for the normalisation kernels.
#include "kernels/portable/cpu/util/norm/normalization.h"

#include <cmath>
#include <cstring>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable {
namespace {

// Elements of C converted per chunk: 4 KiB buffers (1024 floats), so that a typical row converts
// in one or a few calls; with smaller chunks the calls, not the arithmetic, set a Half
// layer_norm's time.
template <typename C>
constexpr int64_t kChunk = 4096 / static_cast<int64_t>(sizeof(C));

constexpr int64_t kBlock = 1024;  // elements summed in C lanes before adding in double

// sum(x) (kSquares: sum((x - mean)^2)) of n values, in blocks of C vector lanes whose totals
// add up in double: float lanes keep the loop at full vector width, short blocks keep it
// accurate.
template <typename C, bool kSquares>
KILN_HOT_LOOP double row_total(const C* x, int64_t n, double mean) {
  using V = Vector<C>;
  constexpr int kWidth = sizeof(V) / sizeof(C);
  const C center = static_cast<C>(mean);
  double total = 0;
  for (int64_t s = 0; s < n; s += kBlock) {
    const int64_t m = n - s < kBlock ? n - s : kBlock;
    const C* block = x + s;
    V lanes[4] = {};
    int64_t i = 0;
    for (; i + 4 * kWidth <= m; i += 4 * kWidth) {
      KILN_UNROLL
      for (int k = 0; k < 4; ++k) {
        V v;
        std::memcpy(&v, block + i + k * kWidth, sizeof(v));
        if constexpr (kSquares) {
          v -= center;
          lanes[k] += v * v;
        } else {
          lanes[k] += v;
        }
      }
    }
    const V folded = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    C part = 0;
    for (int j = 0; j < kWidth; ++j) part += folded[j];
    for (; i < m; ++i) {
      const C d = kSquares ? block[i] - center : block[i];
      part += kSquares ? d * d : d;
    }
    total += static_cast<double>(part);
  }
  return total;
}

// y = (x - mean) * rstd * w + b, w and b optional (null).
template <typename C>
KILN_HOT_LOOP void chunk_affine(const C* x, C* y, int64_t n, C mean, C rstd, const C* w,
                                const C* b) {
  if (w != nullptr && b != nullptr) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
  } else if (w != nullptr) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i];
  } else if (b != nullptr) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd + b[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd;
  }
}

template <typename C>
KILN_HOT_LOOP void chunk_scale_shift(const C* x, C* y, int64_t n, C center, C scale, C shift) {
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - center) * scale + shift;
}

// Elements [offset, offset + n) of `src` (dtype `type`) as C: in place when it holds C.
template <typename C>
const C* view_or_load(const void* src, ScalarType type, int64_t offset, int64_t n, C* buf) {
  if (type == CppToScalarType<C>::value) return static_cast<const C*>(src) + offset;
  load_row<C>(static_cast<const char*>(src) + offset * element_size(type), type, 1, n, buf);
  return buf;
}

// sum(x) (kSquares: sum((x - mean)^2)) of n contiguous elements of dtype `type`.
template <typename C, bool kSquares>
double total_typed(const void* src, ScalarType type, int64_t n, double mean) {
  C buf[kChunk<C>];
  const bool direct = type == CppToScalarType<C>::value;
  const int64_t chunk = direct ? (n > 0 ? n : 1) : kChunk<C>;
  double total = 0;
  for (int64_t s = 0; s < n; s += chunk) {
    const int64_t m = n - s < chunk ? n - s : chunk;
    total += row_total<C, kSquares>(view_or_load<C>(src, type, s, m, buf), m, mean);
  }
  return total;
}

template <bool kSquares>
double total_of(const void* src, ScalarType type, int64_t n, double mean) {
  return type == ScalarType::Double ? total_typed<double, kSquares>(src, type, n, mean)
                                    : total_typed<float, kSquares>(src, type, n, mean);
}

template <typename C>
void normalize_typed(const void* src, void* dst, ScalarType type, int64_t n, double mean,
                     double rstd, const AffineParams& params, int64_t offset) {
  C x_buf[kChunk<C>];
  C y_buf[kChunk<C>];
  C w_buf[kChunk<C>];
  C b_buf[kChunk<C>];
  constexpr ScalarType kType = CppToScalarType<C>::value;
  const bool direct = type == kType;
  // Everything in C already: one call over the whole row.
  const bool whole = direct && (params.weight == nullptr || params.weight_type == kType) &&
                     (params.bias == nullptr || params.bias_type == kType);
  const int64_t chunk = whole ? (n > 0 ? n : 1) : kChunk<C>;
  for (int64_t s = 0; s < n; s += chunk) {
    const int64_t m = n - s < chunk ? n - s : chunk;
    const C* x = view_or_load<C>(src, type, s, m, x_buf);
    C* y = direct ? static_cast<C*>(dst) + s : y_buf;
    const C* w = params.weight == nullptr
                     ? nullptr
                     : view_or_load<C>(params.weight, params.weight_type, offset + s, m, w_buf);
    const C* b = params.bias == nullptr
                     ? nullptr
                     : view_or_load<C>(params.bias, params.bias_type, offset + s, m, b_buf);
    chunk_affine(x, y, m, static_cast<C>(mean), static_cast<C>(rstd), w, b);
    if (!direct) store_row<C>(y_buf, m, type, static_cast<char*>(dst) + s * element_size(type));
  }
}

template <typename C>
void scale_shift_typed(const void* src, void* dst, ScalarType type, int64_t n, double center,
                       double scale, double shift) {
  C x_buf[kChunk<C>];
  C y_buf[kChunk<C>];
  const bool direct = type == CppToScalarType<C>::value;
  for (int64_t s = 0; s < n; s += kChunk<C>) {
    const int64_t m = n - s < kChunk<C> ? n - s : kChunk<C>;
    const C* x = view_or_load<C>(src, type, s, m, x_buf);
    C* y = direct ? static_cast<C*>(dst) + s : y_buf;
    chunk_scale_shift(x, y, m, static_cast<C>(center), static_cast<C>(scale),
                      static_cast<C>(shift));
    if (!direct) store_row<C>(y_buf, m, type, static_cast<char*>(dst) + s * element_size(type));
  }
}

}  // namespace

RowStats RowStats::of(const void* src, ScalarType type, int64_t n, double eps) {
  // Mean and biased variance; n == 0 gives NaN for both.
  const double mean = row_sum(src, type, n) / static_cast<double>(n);
  const double variance = row_squared_deviations(src, type, n, mean) / static_cast<double>(n);
  const double rstd = 1.0 / std::sqrt((variance < 0 ? 0.0 : variance) + eps);
  return {n == 0 ? 0.0 : mean, rstd};
}

double row_sum(const void* src, ScalarType type, int64_t n) {
  return total_of<false>(src, type, n, 0.0);
}

double row_squared_deviations(const void* src, ScalarType type, int64_t n, double mean) {
  return total_of<true>(src, type, n, mean);
}

void RowStats::store(Tensor& mean_out, Tensor& rstd_out, int64_t index) const {
  store_row<double>(
      &mean, 1, mean_out.scalar_type(),
      static_cast<char*>(mean_out.mutable_data_ptr()) + index * mean_out.element_size());
  store_row<double>(
      &rstd, 1, rstd_out.scalar_type(),
      static_cast<char*>(rstd_out.mutable_data_ptr()) + index * rstd_out.element_size());
}

AffineParams AffineParams::of(const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& bias) {
  AffineParams params;
  if (weight.has_value()) {
    params.weight = weight->const_data_ptr();
    params.weight_type = weight->scalar_type();
  }
  if (bias.has_value()) {
    params.bias = bias->const_data_ptr();
    params.bias_type = bias->scalar_type();
  }
  return params;
}

void normalize_row(const void* src, void* dst, ScalarType type, int64_t n, double mean, double rstd,
                   const AffineParams& params, int64_t offset) {
  if (type == ScalarType::Double) {
    normalize_typed<double>(src, dst, type, n, mean, rstd, params, offset);
  } else {
    normalize_typed<float>(src, dst, type, n, mean, rstd, params, offset);
  }
}

void scale_shift_row(const void* src, void* dst, ScalarType type, int64_t n, double center,
                     double scale, double shift) {
  if (type == ScalarType::Double) {
    scale_shift_typed<double>(src, dst, type, n, center, scale, shift);
  } else {
    scale_shift_typed<float>(src, dst, type, n, center, scale, shift);
  }
}

bool norm_param_types(KernelRuntimeContext& ctx, const char* op, ScalarType input_type,
                      const std::optional<Tensor>* params, int count, ScalarType* stat_type) {
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(input_type), InvalidType, false,
                        "\"%s\" not implemented for '%s'; pass a floating input", op,
                        to_string(input_type));
  bool all_same = true;
  bool all_float = true;
  for (int i = 0; i < count; ++i) {
    if (!params[i].has_value()) continue;
    all_same = all_same && params[i]->scalar_type() == input_type;
    all_float = all_float && params[i]->scalar_type() == ScalarType::Float;
  }
  if (all_same) {
    *stat_type = input_type;
    return true;
  }
  KILN_KERNEL_CHECK_MSG(ctx, is_reduced_floating_type(input_type) && all_float, InvalidType, false,
                        "mixed dtype (CPU): expect parameter to have scalar type of Float (input "
                        "is %s); pass parameters of the input's dtype, or Float ones with a "
                        "Half/BFloat16 input",
                        to_string(input_type));
  *stat_type = ScalarType::Float;
  return true;
}

double load_double(const Tensor& tensor, int64_t index) {
  double value = 0;
  load_row<double>(static_cast<const char*>(tensor.const_data_ptr()) +
                       index * static_cast<int64_t>(tensor.element_size()),
                   tensor.scalar_type(), 1, 1, &value);
  return value;
}

}  // namespace kiln::portable
