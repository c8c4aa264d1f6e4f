// RMS norm rows: Float rows are read in place; Half and BFloat16 rows go through float chunks.
#include "kernels/portable/cpu/util/llm/rms_norm.h"

#include <cmath>

#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/common.h"

namespace kiln::portable {
namespace {

float inverse_rms(float sum_squares, int64_t n, float eps) {
  return 1.0f / std::sqrt(sum_squares / static_cast<float>(n) + eps);
}

// y = round(x * rstd) * w for one row, given rstd.
void normalize(const char* x, const char* w, char* y, ScalarType type, int64_t n, float rstd) {
  if (type == ScalarType::Float) {
    const float* xf = reinterpret_cast<const float*>(x);
    float* yf = reinterpret_cast<float*>(y);
    scale_row(xf, rstd, yf, n);
    multiply_rows(yf, reinterpret_cast<const float*>(w), yf, n);
    return;
  }
  const size_t size = element_size(type);
  float xb[kLlmChunk];
  float wb[kLlmChunk];
  for (int64_t start = 0; start < n; start += kLlmChunk) {
    const int64_t m = n - start < kLlmChunk ? n - start : kLlmChunk;
    load_floats(x + start * size, type, 1, m, xb);
    load_floats(w + start * size, type, 1, m, wb);
    scale_row(xb, rstd, xb, m);
    round_floats(xb, m, type);  // vLLM rounds the normalised value before the weight
    multiply_rows(xb, wb, xb, m);
    store_floats(xb, m, type, y + start * size);
  }
}

}  // namespace

void rms_norm_rows(const KernelRuntimeContext& ctx, const Tensor& x, const Tensor& w, Tensor& y,
                   int64_t rows, int64_t n, float eps) {
  const ScalarType type = x.scalar_type();
  const size_t size = element_size(type);
  const RowView x_rows = row_view(x);
  const RowView y_rows = row_view(y);
  const char* x_data = static_cast<const char*>(x.const_data_ptr());
  char* y_data = static_cast<char*>(y.mutable_data_ptr());
  parallel_for(ctx, 0, rows, items_grain(n), [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const char* xr = x_data + x_rows.offset(r, n) * size;
      float total = 0.0f;
      if (type == ScalarType::Float) {
        total = sum_of_squares(reinterpret_cast<const float*>(xr), n);
      } else {
        float xb[kLlmChunk];
        for (int64_t start = 0; start < n; start += kLlmChunk) {
          const int64_t m = n - start < kLlmChunk ? n - start : kLlmChunk;
          load_floats(xr + start * size, type, 1, m, xb);
          total += sum_of_squares(xb, m);
        }
      }
      normalize(xr, static_cast<const char*>(w.const_data_ptr()),
                y_data + y_rows.offset(r, n) * size, type, n, inverse_rms(total, n, eps));
    }
  });
}

void add_rms_norm_rows(const KernelRuntimeContext& ctx, const Tensor& x, const Tensor& r,
                       const Tensor& w, Tensor& y, Tensor& sum, int64_t rows, int64_t n,
                       float eps) {
  const ScalarType type = x.scalar_type();
  const size_t size = element_size(type);
  const RowView x_rows = row_view(x);
  const RowView r_rows = row_view(r);
  const RowView y_rows = row_view(y);
  const RowView sum_rows = row_view(sum);
  const char* x_data = static_cast<const char*>(x.const_data_ptr());
  const char* r_data = static_cast<const char*>(r.const_data_ptr());
  char* y_data = static_cast<char*>(y.mutable_data_ptr());
  char* sum_data = static_cast<char*>(sum.mutable_data_ptr());
  parallel_for(ctx, 0, rows, items_grain(n), [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      const char* xr = x_data + x_rows.offset(row, n) * size;
      const char* rr = r_data + r_rows.offset(row, n) * size;
      char* sr = sum_data + sum_rows.offset(row, n) * size;
      float total = 0.0f;
      float xb[kLlmChunk];
      float rb[kLlmChunk];
      for (int64_t start = 0; start < n; start += kLlmChunk) {
        const int64_t m = n - start < kLlmChunk ? n - start : kLlmChunk;
        if (type == ScalarType::Float) {
          float* s = reinterpret_cast<float*>(sr) + start;
          add_rows(reinterpret_cast<const float*>(xr) + start,
                   reinterpret_cast<const float*>(rr) + start, s, m);
          total += sum_of_squares(s, m);
          continue;
        }
        load_floats(xr + start * size, type, 1, m, xb);
        load_floats(rr + start * size, type, 1, m, rb);
        add_rows(xb, rb, xb, m);
        round_floats(xb, m, type);  // the new residual, as stored, is what gets normalised
        total += sum_of_squares(xb, m);
        store_floats(xb, m, type, sr + start * size);
      }
      normalize(sr, static_cast<const char*>(w.const_data_ptr()),
                y_data + y_rows.offset(row, n) * size, type, n, inverse_rms(total, n, eps));
    }
  });
}

}  // namespace kiln::portable
