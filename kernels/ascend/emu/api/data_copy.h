// DataCopy and DataCopyPad between GM and UB (and UB to UB), with the device's length rules.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/ascend/emu/api/detail.h"
#include "kernels/ascend/emu/api/global_tensor.h"
#include "kernels/ascend/emu/api/local_tensor.h"

namespace AscendC {

// Strided DataCopy: blockCount blocks of blockLen 32 B units; the strides are the gaps between
// blocks, also in 32 B units, on both sides.
struct DataCopyParams {
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn = 0, uint16_t dstStrideIn = 0)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
};

// DataCopyPad: blockLen is in bytes. A stride on the GM side is a gap in bytes; on the UB side
// it is a gap in 32 B blocks, and every UB block starts 32 B aligned.
struct DataCopyExtParams {
  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn = 0,
                    uint32_t dstStrideIn = 0, uint32_t rsvIn = 0)
      : blockCount(count),
        blockLen(len),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        rsv(rsvIn) {}
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};

// Padding of each UB block on a GM->UB DataCopyPad: leftPadding/rightPadding elements (each side
// under 32 B), filled with paddingValue when isPad is set and left unspecified otherwise.
template <class T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool isPadIn, uint8_t left, uint8_t right, T value)
      : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = T();
};

}  // namespace AscendC

namespace kiln::ascend::emu::detail {

// The library side (src/data_copy.cpp): checks every rule, then moves the bytes.
struct CopyShape {
  uint32_t block_count;
  uint64_t block_bytes;
  uint64_t src_gap_bytes;
  uint64_t dst_gap_bytes;
};
void copy_gm_to_ub(const char* api, const LocalRef& dst, const GmView& src, const CopyShape& shape);
void copy_ub_to_gm(const char* api, const GmView& dst, const LocalRef& src, const CopyShape& shape);
void copy_ub_to_ub(const char* api, const LocalRef& dst, const LocalRef& src, uint32_t elem_size,
                   const CopyShape& shape);
struct PadShape {
  uint32_t left_elems;
  uint32_t right_elems;
  bool fill;
  const void* value;  // one element
};
void copy_pad_gm_to_ub(const LocalRef& dst, const GmView& src, const AscendC::DataCopyExtParams& p,
                       const PadShape& pad);
void copy_pad_ub_to_gm(const GmView& dst, const LocalRef& src, uint32_t elem_size,
                       const AscendC::DataCopyExtParams& p);

// The element type rules of every DataCopy and DataCopyPad: its size, and bfloat16's SoC.
template <class T>
void check_copy_dtype(const char* api) {
  static_assert(std::is_trivially_copyable_v<T> &&
                    (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                "DataCopy moves 1, 2, 4 or 8-byte elements");
  require_dtype<T>(api);
}

inline CopyShape contiguous(uint64_t bytes) { return CopyShape{1, bytes, 0, 0}; }
inline CopyShape strided(const AscendC::DataCopyParams& p) {
  return CopyShape{p.blockCount, uint64_t{p.blockLen} * 32, uint64_t{p.srcStride} * 32,
                   uint64_t{p.dstStride} * 32};
}

}  // namespace kiln::ascend::emu::detail

namespace AscendC {

template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
  kiln::ascend::emu::detail::check_copy_dtype<T>("DataCopy");
  kiln::ascend::emu::detail::copy_gm_to_ub(
      "DataCopy", dst.ref(), src.view(), kiln::ascend::emu::detail::contiguous(count * sizeof(T)));
}

template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  kiln::ascend::emu::detail::check_copy_dtype<T>("DataCopy");
  kiln::ascend::emu::detail::copy_ub_to_gm(
      "DataCopy", dst.view(), src.ref(), kiln::ascend::emu::detail::contiguous(count * sizeof(T)));
}

template <class T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  kiln::ascend::emu::detail::check_copy_dtype<T>("DataCopy");
  kiln::ascend::emu::detail::copy_ub_to_ub(
      "DataCopy", dst.ref(), src.ref(), sizeof(T),
      kiln::ascend::emu::detail::contiguous(count * sizeof(T)));
}

template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params) {
  kiln::ascend::emu::detail::check_copy_dtype<T>("DataCopy");
  kiln::ascend::emu::detail::copy_gm_to_ub("DataCopy", dst.ref(), src.view(),
                                           kiln::ascend::emu::detail::strided(params));
}

template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  kiln::ascend::emu::detail::check_copy_dtype<T>("DataCopy");
  kiln::ascend::emu::detail::copy_ub_to_gm("DataCopy", dst.view(), src.ref(),
                                           kiln::ascend::emu::detail::strided(params));
}

template <class T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  kiln::ascend::emu::detail::check_copy_dtype<T>("DataCopy");
  kiln::ascend::emu::detail::copy_ub_to_ub("DataCopy", dst.ref(), src.ref(), sizeof(T),
                                           kiln::ascend::emu::detail::strided(params));
}

template <class T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                 const DataCopyExtParams& params, const DataCopyPadExtParams<T>& padParams) {
  kiln::ascend::emu::detail::check_copy_dtype<T>("DataCopyPad");
  const T value = padParams.paddingValue;
  kiln::ascend::emu::detail::copy_pad_gm_to_ub(
      dst.ref(), src.view(), params,
      kiln::ascend::emu::detail::PadShape{padParams.leftPadding, padParams.rightPadding,
                                          padParams.isPad, &value});
}

template <class T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                 const DataCopyExtParams& params) {
  kiln::ascend::emu::detail::check_copy_dtype<T>("DataCopyPad");
  kiln::ascend::emu::detail::copy_pad_ub_to_gm(dst.view(), src.ref(), sizeof(T), params);
}

}  // namespace AscendC
