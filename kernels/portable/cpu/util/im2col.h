// im2col for the convolution gemm: rows of the virtual column matrices, loaded on the fly.
#pragma once

#include <cstdint>

#include "runtime/core/scalar_type.h"

namespace kiln::portable {

// One image of one group, seen as the gemm's B matrix: row (c, kh, kw) x column (oh, ow).
struct ConvGeometry {
  const char* input;  // the group's first channel of this image
  ScalarType dtype;
  ScalarType compute;  // out's dtype, whose compute type the loaders write
  int64_t height, width, out_width;
  int64_t kernel_h, kernel_w;
  int64_t stride[2], padding[2], dilation[2];
  // Transposed only: the weight [in, out / groups, kh, kw] read as A row co, column (ci, kh, kw).
  const char* weight;
  int64_t out_per_group;
};

// The column matrix of a batch of images, transposed and stacked: row (b, oh, ow), column
// (c, kh, kw), i.e. load_im2col_row's B(column, row) of image b. The weight gradient's B.
struct BatchedConvGeometry {
  ConvGeometry conv;     // conv.input: the group's first channel in image 0
  int64_t out_height;    // output rows per image (conv.out_width columns each)
  int64_t batch_stride;  // elements from one image to the next
};

// A [batch][channels][positions] tensor seen as a matrix: row c, column (b, position). The weight
// gradient's A.
struct BatchedRows {
  const char* data;  // the first row's channel in batch 0
  ScalarType dtype;
  ScalarType compute;    // the gemm output's dtype, whose compute type the loader writes
  int64_t batch_stride;  // elements from one batch to the next
  int64_t positions;     // elements per channel
};

// GemmRowLoader functions (see gemm.h); `user` is a ConvGeometry unless said otherwise.
// B(row, col) = input[c][oh * s - p + kh * d][ow * s - p + kw * d], or 0 in the padding.
void load_im2col_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// Transposed: B(row, col) = input[c][ih][iw] where oh = ih * s - p + kh * d (same for w).
void load_col2im_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// Transposed: A(co, (ci, kh, kw)) = weight[ci][co][kh][kw] within the group.
void load_transposed_weight_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// `user` is a BatchedConvGeometry: B(row, col) = image b's input[c][oh * s - p + kh * d][...].
void load_im2col_transposed_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// `user` is a BatchedRows: A(c, (b, position)) = data[b * batch_stride + c * positions + position].
void load_batched_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);

}  // namespace kiln::portable
