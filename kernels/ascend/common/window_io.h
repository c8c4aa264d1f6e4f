// Device side of the 2-d window layout (window_layout.h): gathering one tap of several output
// rows into UB with strided DataCopys.
#pragma once

#include "kernel_operator.h"
#include "kernels/ascend/common/window_layout.h"

namespace kiln::ascend {

// The staged element where tap `tap` (kh * kernel_w + kw) of output row `oh` of `plane` starts
// its run.
__aicore__ inline uint64_t window_tap_start(const WindowLayout& w, uint64_t plane, uint32_t oh,
                                            uint32_t tap) {
  const uint64_t kh = tap / w.kernel_w;
  const uint64_t column = uint64_t{tap % w.kernel_w} * w.dilation_w;
  const uint64_t row = plane * w.padded_h + uint64_t{oh} * w.stride_h + kh * w.dilation_h;
  return row * w.row_pitch + (column % w.stride_w) * w.phase_pitch + column / w.stride_w;
}

// Into dst (segment_pitch elements per output row): tap `tap` of the output rows
// [first_row, first_row + rows), counted over planes from `plane` on (row r is output row
// r % out_h of plane plane + r / out_h). One DataCopy per plane the rows touch; rows is at most
// kWindowMaxRuns.
template <typename T>
__aicore__ inline void copy_tap_runs(const AscendC::LocalTensor<T>& dst,
                                     const AscendC::GlobalTensor<T>& staged, const WindowLayout& w,
                                     uint64_t plane, uint64_t first_row, uint32_t rows,
                                     uint32_t tap) {
  constexpr uint32_t kBlockElems = 32 / sizeof(T);
  uint32_t done = 0;
  while (done < rows) {
    const uint64_t r = first_row + done;
    const uint32_t oh = static_cast<uint32_t>(r % w.out_h);
    const uint32_t n = w.out_h - oh < rows - done ? w.out_h - oh : rows - done;
    const AscendC::DataCopyParams runs(static_cast<uint16_t>(n),
                                       static_cast<uint16_t>(w.segment_pitch / kBlockElems),
                                       static_cast<uint16_t>(w.gap_blocks), 0);
    AscendC::DataCopy(dst[done * w.segment_pitch],
                      staged[window_tap_start(w, plane + r / w.out_h, oh, tap)], runs);
    done += n;
  }
}

}  // namespace kiln::ascend
