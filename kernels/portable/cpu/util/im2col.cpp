// im2col for the convolution gemm: rows of the virtual column matrices, loaded on the fly.
#include "kernels/portable/cpu/util/im2col.h"

#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/dtype_util.h"

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

// Transposed: B(row, col) = input[c][ih][iw] where oh = ih * s - p + kh * d (same for w).
template <typename C>
void col2im_row(const ConvGeometry& g, int64_t row, int64_t col0, int64_t n, C* out) {
  const Tap tap = tap_of(g, row);
  const size_t size = element_size(g.dtype);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t oh = (col0 + i) / g.out_width;
    const int64_t ow = (col0 + i) % g.out_width;
    const int64_t th = oh + g.padding[0] - tap.kh * g.dilation[0];
    const int64_t tw = ow + g.padding[1] - tap.kw * g.dilation[1];
    out[i] = C(0);
    if (th < 0 || tw < 0 || th % g.stride[0] != 0 || tw % g.stride[1] != 0) continue;
    const int64_t ih = th / g.stride[0];
    const int64_t iw = tw / g.stride[1];
    if (ih >= g.height || iw >= g.width) continue;
    load_row<C>(g.input + ((tap.c * g.height + ih) * g.width + iw) * size, g.dtype, 0, 1, out + i);
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

// Transposed and batched: row (b, oh, ow) reads, for columns (c, kh, kw), image b's
// input[c][oh * s - p + kh * d][ow * s - p + kw * d], or 0 in the padding; kw runs at a time.
template <typename C>
void im2col_transposed_row(const BatchedConvGeometry& bg, int64_t row, int64_t col0, int64_t n,
                           C* out) {
  const ConvGeometry& g = bg.conv;
  const size_t size = element_size(g.dtype);
  const int64_t per_image = bg.out_height * g.out_width;
  const int64_t oh = row % per_image / g.out_width;
  const int64_t ow = row % per_image % g.out_width;
  const char* image = g.input + (row / per_image) * bg.batch_stride * static_cast<int64_t>(size);
  const int64_t h0 = oh * g.stride[0] - g.padding[0];
  const int64_t w0 = ow * g.stride[1] - g.padding[1];
  const int64_t dw = g.dilation[1];
  for (int64_t done = 0; done < n;) {
    const Tap tap = tap_of(g, col0 + done);
    const int64_t run = n - done < g.kernel_w - tap.kw ? n - done : g.kernel_w - tap.kw;
    const int64_t ih = h0 + tap.kh * g.dilation[0];
    int64_t first = tap.kw;
    int64_t last = tap.kw + run;
    if (ih < 0 || ih >= g.height) {
      last = first;
    } else {
      while (first < last && w0 + first * dw < 0) ++first;
      while (last > first && w0 + (last - 1) * dw >= g.width) --last;
    }
    fill_zero(out + done, first - tap.kw);
    if (last > first) {
      const char* src = image + ((tap.c * g.height + ih) * g.width + w0 + first * dw) * size;
      load_row<C>(src, g.dtype, dw, last - first, out + done + (first - tap.kw));
    }
    fill_zero(out + done + (last - tap.kw), tap.kw + run - last);
    done += run;
  }
}

// A(c, (b, position)) of a BatchedRows, a contiguous run per batch.
template <typename C>
void batched_row(const BatchedRows& rows, int64_t row, int64_t col0, int64_t n, C* out) {
  const size_t size = element_size(rows.dtype);
  for (int64_t done = 0; done < n;) {
    const int64_t b = (col0 + done) / rows.positions;
    const int64_t position = (col0 + done) % rows.positions;
    const int64_t run = n - done < rows.positions - position ? n - done : rows.positions - position;
    load_row<C>(rows.data + (b * rows.batch_stride + row * rows.positions + position) * size,
                rows.dtype, 1, run, out + done);
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

void load_im2col_transposed_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  const auto& geometry = *static_cast<const BatchedConvGeometry*>(user);
  dispatch_compute_type(geometry.conv.compute, [&](auto tag) {
    using C = typename decltype(tag)::type;
    im2col_transposed_row(geometry, row, col0, n, static_cast<C*>(dst));
  });
}

void load_batched_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst) {
  const auto& rows = *static_cast<const BatchedRows*>(user);
  dispatch_compute_type(rows.compute, [&](auto tag) {
    using C = typename decltype(tag)::type;
    batched_row(rows, row, col0, n, static_cast<C*>(dst));
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
