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

// The column matrices of a batch of images side by side: row (c, kh, kw), column (b, oh, ow),
// i.e. load_im2col_row's B of image b. The weight gradient's A; rows start at `first_row`.
struct BatchedConvGeometry {
  ConvGeometry conv;     // conv.input: the group's first channel in image 0
  int64_t positions;     // columns per image (output rows times conv.out_width)
  int64_t batch_stride;  // elements from one image to the next
  int64_t first_row;
};

// A [batch][channels][positions] tensor seen as a matrix with row (b, position) and column c,
// columns starting at channel `first_column`. The weight gradient's B.
struct BatchedColumns {
  const char* data;  // channel 0 of batch 0 (of the group)
  ScalarType dtype;
  ScalarType compute;    // the gemm output's dtype, whose compute type the loader writes
  int64_t batch_stride;  // elements from one batch to the next
  int64_t positions;     // elements per channel
  int64_t first_column;
};

// One image of one group with its padding written out as zeros (pad_planes; or the input itself
// when there is no padding), so that each row of im2col's B is a run of plain copies, without
// bounds to check: B(row, (oh, ow)) = padded[row_offsets[row] + oh * stride_h * padded_width +
// ow * stride_w]. For Float and Double, with temporary memory for the planes.
struct PaddedImage {
  const char* padded;
  ScalarType dtype;            // the input's, which is the compute type
  const int64_t* row_offsets;  // per row (c, kh, kw) of B: its column (0, 0)'s element
  int64_t padded_width, out_width;
  int64_t stride[2];
};

// Whether PaddedImage serves convolutions of `dtype`.
bool padded_image_applies(ScalarType dtype);
// Elements of `channels` padded planes of g's input: (height + 2 * padding_h) x (width + 2 *
// padding_w) each.
int64_t padded_elements(const ConvGeometry& g, int64_t channels);
// Writes g's first `channels` input planes into `padded`, zeros around them.
void pad_image(const ConvGeometry& g, int64_t channels, void* padded);
// The offsets of B's channels * kernel_h * kernel_w rows in the padded planes.
void fill_row_offsets(const ConvGeometry& g, int64_t channels, int64_t* row_offsets);

// GemmRowLoader functions (see linalg/gemm.h); `user` is a ConvGeometry unless said otherwise.
// B(row, col) = input[c][oh * s - p + kh * d][ow * s - p + kw * d], or 0 in the padding.
void load_im2col_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// `user` is a PaddedImage: load_im2col_row's B from the padded planes.
void load_padded_im2col_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// Transposed: B(row, col) = input[c][ih][iw] where oh = ih * s - p + kh * d (same for w).
void load_col2im_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// Transposed: A(co, (ci, kh, kw)) = weight[ci][co][kh][kw] within the group.
void load_transposed_weight_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// `user` is a BatchedConvGeometry: A(r, (b, oh, ow)) = load_im2col_row's B(first_row + r,
// (oh, ow)) of image b.
void load_batched_im2col_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);
// `user` is a BatchedColumns: B((b, position), c) = data[b * batch_stride + (first_column + c) *
// positions + position].
void load_batched_columns_row(const void* user, int64_t row, int64_t col0, int64_t n, void* dst);

}  // namespace kiln::portable
