// How an Ascend host wrapper lays out in device memory a tensor that its row kernel takes as a
// row view (RowView, kernels/portable/cpu/util/llm/arguments.h), and where the kernel then finds
// each row (GmRows, gm_rows.h). Host code only.
//
// Where the kernel's strided DataCopy can address the tensor's own layout (each spacing it copies
// across is whole 32-byte blocks and at least what it copies of a row; an out's rows are whole
// blocks, so that nothing past a row is written), device memory mirrors it: every row goes where
// the view has it, so a split of qkv or a slice is read in place, with no gather into another
// layout. Otherwise the rows, evenly spaced, are padded to whole blocks on the way, the layout
// every SoC can move (tiling.h). Either way the rows cross between host and device memory in one
// 2-d copy, each element once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/gm_rows.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/common/tiling.h"
#include "kernels/portable/cpu/util/llm/arguments.h"

namespace kiln::ascend {

// A tensor's layout in device memory and the 2-d copy that fills it, or empties it (an out).
struct RowImage {
  GmRows rows;        // where the kernel finds row i
  size_t bytes;       // device memory it takes, including what the kernel reads past a row
  size_t lines;       // the copy: `lines` lines of `line_bytes`,
  size_t line_bytes;  // `pitch` bytes apart in device memory
  size_t pitch;       // and `host_pitch` bytes apart in the tensor
  size_t host_pitch;
};

// What a row kernel copies of each row: `cols` elements (whole blocks) from its start, and up to
// `reach` elements past its start in all (more than cols when it also copies from inside the
// row: the y half of a gated row). An out's rows are written, `cols` from each start.
struct RowAccess {
  uint64_t cols;
  uint64_t reach;
  bool is_out;
};

// Plans the image of `tensor`, a row view (already checked) whose rows are its last dim, `run`
// elements, for a kernel that copies `access` of each row; or declines, naming `name`, a layout
// the kernel's DataCopy cannot take.
inline bool plan_row_image(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                           uint64_t run, const RowAccess& access, RowImage* image) {
  const size_t size = tensor.element_size();
  const uint64_t block = elements_per_block(size);
  const uint64_t rows = static_cast<uint64_t>(tensor.numel()) / run;
  const portable::RowView view = portable::row_view(tensor);
  const uint64_t stride = static_cast<uint64_t>(view.stride);
  const uint64_t row_numel = static_cast<uint64_t>(view.row_numel);
  // One dim-0 row or none, or dim-0 rows back to back: the rows are evenly spaced, `run` apart.
  const bool dense = tensor.dim() == 0 || tensor.size(0) <= 1 || stride == row_numel;
  if (!dense && tensor.dim() == 1) {
    return decline(ctx, "%s, a 1-d tensor with a stride", name);
  }
  const uint64_t group = dense ? 1 : row_numel / run;
  // A spacing the strided DataCopy crosses: at least the copied columns and then whole blocks,
  // the gap within its 16-bit count of blocks.
  const auto crossable = [&](uint64_t spacing) {
    return spacing >= access.cols && (spacing - access.cols) % block == 0 &&
           (spacing - access.cols) / block <= 65535;
  };
  const bool exact = !access.is_out || access.cols == run;
  if (group == 1) {
    const uint64_t spacing = dense ? run : stride;
    if (spacing < run) return decline(ctx, "%s whose rows overlap", name);
    const bool mirror = exact && crossable(spacing);
    const uint64_t pitch = mirror ? spacing : align_up(run, block);
    image->rows = {pitch, 1, 0};
    image->lines = rows;
    image->line_bytes = run * size;
    image->pitch = pitch * size;
    image->host_pitch = spacing * size;
  } else {
    // Several rows to a dim-0 row, and dim-0 rows apart: mirrored, or declined.
    if (stride < row_numel || !exact || !crossable(run)) {
      return decline(ctx, "%s with rows of %llu elements %llu to a dim-0 row %llu apart", name,
                     static_cast<unsigned long long>(run), static_cast<unsigned long long>(group),
                     static_cast<unsigned long long>(stride));
    }
    image->rows = {stride, static_cast<uint32_t>(group), static_cast<uint32_t>(run)};
    image->lines = static_cast<size_t>(tensor.size(0));
    image->line_bytes = row_numel * size;
    image->pitch = stride * size;
    image->host_pitch = stride * size;
  }
  const size_t copied =
      image->lines == 0 ? 0 : (image->lines - 1) * image->pitch + image->line_bytes;
  const size_t read = rows == 0 ? 0 : (gm_row_offset(image->rows, rows - 1) + access.reach) * size;
  image->bytes = align_up(copied > read ? copied : read, 32);
  return true;
}

// Device memory holding `tensor` as `image` lays it out, the bytes no row fills zeroed.
inline bool upload_row_image(KernelRuntimeContext& ctx, DeviceBuffer& buffer, const Tensor& tensor,
                             const RowImage& image) {
  return buffer.upload_rows(ctx, tensor.const_data_ptr(), image.lines, image.line_bytes,
                            image.pitch, image.host_pitch, image.bytes);
}

// The rows of `image` in `buffer` back into `tensor`'s rows; the bytes between them are left as
// they are.
inline bool download_row_image(KernelRuntimeContext& ctx, const DeviceBuffer& buffer,
                               Tensor& tensor, const RowImage& image) {
  return buffer.download_rows(ctx, tensor.mutable_data_ptr(), image.lines, image.line_bytes,
                              image.pitch, image.host_pitch);
}

}  // namespace kiln::ascend
