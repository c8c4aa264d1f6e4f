// im2col for the convolution gemm: rows of the virtual column matrices, loaded on the fly.
#include "kernels/portable/cpu/util/conv/im2col.h"

#include <cstring>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/conv/strided_copy.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable {
namespace {

template <typename C>
void fill_zero(C* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = C(0);
}

// Where row `row` of B reads: input channel c at kernel offset (kh, kw).
struct Tap {
  int64_t c, kh, kw;
};

Tap tap_of(const ConvGeometry& g, int64_t row) {
  return {row / (g.kernel_w * g.kernel_h), row / g.kernel_w % g.kernel_h, row % g.kernel_w};
}

// B(row, col) = input[c][oh * s - p + kh * d][ow * s - p + kw * d], or 0 in the padding.
template <typename C>
void im2col_row(const ConvGeometry& g, int64_t row, int64_t col0, int64_t n, C* out) {
  const Tap tap = tap_of(g, row);
  const size_t size = element_size(g.dtype);
  int64_t oh = col0 / g.out_width;
  int64_t ow = col0 % g.out_width;
  for (int64_t done = 0; done < n;) {
    const int64_t run = n - done < g.out_width - ow ? n - done : g.out_width - ow;
    const int64_t ih = oh * g.stride[0] - g.padding[0] + tap.kh * g.dilation[0];
    if (ih < 0 || ih >= g.height) {
      fill_zero(out + done, run);
    } else {
      // Columns ow .. ow + run read iw = ow * s + base; keep those inside [0, width).
      const int64_t base = tap.kw * g.dilation[1] - g.padding[1];
      const int64_t s = g.stride[1];
      int64_t first = ow;
      while (first < ow + run && first * s + base < 0) ++first;
      int64_t last = ow + run;
      while (last > first && (last - 1) * s + base >= g.width) --last;
      fill_zero(out + done, first - ow);
      if (last > first) {
        const char* src = g.input + ((tap.c * g.height + ih) * g.width + first * s + base) * size;
        load_row<C>(src, g.dtype, s, last - first, out + done + (first - ow));
      }
      fill_zero(out + done + (last - ow), ow + run - last);
    }
    done += run;
    ow = 0;
    ++oh;
  }
}

// load_im2col_row's row from the padded planes: runs of columns within an output row, each a
// copy (strided by the width's stride).
template <typename T>
void padded_im2col_row(const PaddedImage& image, int64_t row, int64_t col0, int64_t n, T* out) {
  const T* base = reinterpret_cast<const T*>(image.padded) + image.row_offsets[row];
  const int64_t row_step = image.stride[0] * image.padded_width;
  int64_t oh = col0 / image.out_width;
  int64_t ow = col0 % image.out_width;
  for (int64_t done = 0; done < n;) {
    const int64_t run = n - done < image.out_width - ow ? n - done : image.out_width - ow;
    copy_strided<T, kBaselineVectorBytes>(base + oh * row_step + ow * image.stride[1],
                                          image.stride[1], run, out + done);
    done += run;
    ow = 0;
    ++oh;
  }
}

// Transposed: B(row, col) = input[c][ih][iw] where oh = ih * s - p + kh * d (same for w), or 0.
// A run of columns in one output row reads one input row: every s-th column, consecutive
// elements, loaded together and then spread out to their columns.
template <typename C>
void col2im_row(const ConvGeometry& g, int64_t row, int64_t col0, int64_t n, C* out) {
  const Tap tap = tap_of(g, row);
  const size_t size = element_size(g.dtype);
  const int64_t s = g.stride[1];
  const int64_t base = g.padding[1] - tap.kw * g.dilation[1];  // tw = ow + base
  int64_t oh = col0 / g.out_width;
  int64_t ow = col0 % g.out_width;
  for (int64_t done = 0; done < n;) {
    const int64_t run = n - done < g.out_width - ow ? n - done : g.out_width - ow;
    C* dst = out + done;
    fill_zero(dst, run);
    const int64_t th = oh + g.padding[0] - tap.kh * g.dilation[0];
    if (th >= 0 && th % g.stride[0] == 0 && th / g.stride[0] < g.height) {
      // The first column of the run reading a whole input column (tw >= 0, tw % s == 0), and
      // how many such columns the run and the input row hold.
      int64_t first = ow + base < 0 ? -base : ow;
      first += (s - (first + base) % s) % s;
      int64_t count = first < ow + run ? (ow + run - 1 - first) / s + 1 : 0;
      const int64_t iw = (first + base) / s;
      if (count > g.width - iw) count = g.width - iw;
      if (count > 0) {
        C* at = dst + (first - ow);
        const int64_t ih = th / g.stride[0];
        load_row<C>(g.input + ((tap.c * g.height + ih) * g.width + iw) * size, g.dtype, 1, count,
                    at);
        // Spread in place, last first: value k moves to column k * s (never onto a value that
        // has not moved yet).
        for (int64_t k = count - 1; k > 0 && s > 1; --k) {
          at[k * s] = at[k];
          at[k] = C(0);
        }
      }
    }
    done += run;
    ow = 0;
    ++oh;
  }
}

// Transposed: A(co, (ci, kh, kw)) = weight[ci][co][kh][kw] within the group.
template <typename C>
void transposed_weight_row(const ConvGeometry& g, int64_t row, int64_t col0, int64_t n, C* out) {
  const int64_t taps = g.kernel_h * g.kernel_w;
  const size_t size = element_size(g.dtype);
  for (int64_t done = 0; done < n;) {
    const int64_t ci = (col0 + done) / taps;
    const int64_t tap = (col0 + done) % taps;
    const int64_t run = n - done < taps - tap ? n - done : taps - tap;
    load_row<C>(g.weight + ((ci * g.out_per_group + row) * taps + tap) * size, g.dtype, 1, run,
                out + done);
    done += run;
  }
}

// A loader's body: load(g, out) with the ConvGeometry behind `user` and dst as an array of
// g.compute's compute type.
template <typename F>
void load_typed(const void* user, void* dst, F&& load) {
  const ConvGeometry& g = *static_cast<const ConvGeometry*>(user);
  dispatch_compute_type(g.compute, [&](auto tag) {
    using C = typename decltype(tag)::type;
    load(g, static_cast<C*>(dst));
  });
}

}  // namespace

bool padded_image_applies(ScalarType dtype) {
  return dtype == ScalarType::Float || dtype == ScalarType::Double;
}

int64_t padded_elements(const ConvGeometry& g, int64_t channels) {
  return channels * (g.height + 2 * g.padding[0]) * (g.width + 2 * g.padding[1]);
}

void pad_image(const ConvGeometry& g, int64_t channels, void* padded) {
  const size_t size = element_size(g.dtype);
  const int64_t padded_w = g.width + 2 * g.padding[1];
  const size_t left = static_cast<size_t>(g.padding[1]) * size;
  const size_t row_bytes = static_cast<size_t>(g.width) * size;
  const size_t padded_row_bytes = static_cast<size_t>(padded_w) * size;
  const size_t pad_rows_bytes = static_cast<size_t>(g.padding[0]) * padded_row_bytes;
  char* dst = static_cast<char*>(padded);
  const char* src = g.input;
  for (int64_t c = 0; c < channels; ++c) {
    std::memset(dst, 0, pad_rows_bytes);
    dst += pad_rows_bytes;
    for (int64_t h = 0; h < g.height; ++h) {
      std::memset(dst, 0, left);
      std::memcpy(dst + left, src, row_bytes);
      std::memset(dst + left + row_bytes, 0, padded_row_bytes - left - row_bytes);
      dst += padded_row_bytes;
      src += row_bytes;
    }
    std::memset(dst, 0, pad_rows_bytes);
    dst += pad_rows_bytes;
  }
}

void fill_row_offsets(const ConvGeometry& g, int64_t channels, int64_t* row_offsets) {
  const int64_t padded_h = g.height + 2 * g.padding[0];
  const int64_t padded_w = g.width + 2 * g.padding[1];
  int64_t row = 0;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
        row_offsets[row++] = (c * padded_h + kh * g.dilation[0]) * padded_w + kw * g.dilation[1];
      }
    }
  }
}

void load_padded_im2col_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  const auto& image = *static_cast<const PaddedImage*>(user);
  if (image.dtype == ScalarType::Float) {
    padded_im2col_row(image, row, col0, n, static_cast<float*>(dst));
  } else {
    padded_im2col_row(image, row, col0, n, static_cast<double*>(dst));
  }
}

void load_batched_im2col_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  const auto& batched = *static_cast<const BatchedConvGeometry*>(user);
  const size_t size = element_size(batched.conv.dtype);
  dispatch_compute_type(batched.conv.compute, [&](auto tag) {
    using C = typename decltype(tag)::type;
    C* out = static_cast<C*>(dst);
    ConvGeometry image = batched.conv;
    for (int64_t done = 0; done < n;) {
      const int64_t b = (col0 + done) / batched.positions;
      const int64_t position = (col0 + done) % batched.positions;
      const int64_t left = batched.positions - position;
      const int64_t run = n - done < left ? n - done : left;
      image.input = batched.conv.input + b * batched.batch_stride * static_cast<int64_t>(size);
      im2col_row(image, batched.first_row + row, position, run, out + done);
      done += run;
    }
  });
}

void load_batched_columns_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  const auto& columns = *static_cast<const BatchedColumns*>(user);
  const size_t size = element_size(columns.dtype);
  const int64_t b = row / columns.positions;
  const int64_t position = row % columns.positions;
  const char* src = columns.data + (b * columns.batch_stride +
                                    (columns.first_column + col0) * columns.positions + position) *
                                       static_cast<int64_t>(size);
  dispatch_compute_type(columns.compute, [&](auto tag) {
    using C = typename decltype(tag)::type;
    load_row<C>(src, columns.dtype, columns.positions, n, static_cast<C*>(dst));
  });
}

void load_im2col_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  load_typed(user, dst,
             [&](const ConvGeometry& g, auto* out) { im2col_row(g, row, col0, n, out); });
}

void load_col2im_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  load_typed(user, dst,
             [&](const ConvGeometry& g, auto* out) { col2im_row(g, row, col0, n, out); });
}

void load_transposed_weight_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  load_typed(user, dst, [&](const ConvGeometry& g, auto* out) {
    transposed_weight_row(g, row, col0, n, out);
  });
}

}  // namespace kiln::portable
