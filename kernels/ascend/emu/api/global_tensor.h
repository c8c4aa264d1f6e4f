// GlobalTensor: a checked view of global memory (HBM) for emulated kernels.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/ascend/emu/api/detail.h"

namespace AscendC {

template <class T>
class GlobalTensor {
 public:
  using PrimType = T;

  // Without a size only the device allocation bounds the view.
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    address_ = buffer;
    begin_ = buffer;
    size_ = bufferSize;
    sized_ = true;
  }
  void SetGlobalBuffer(__gm__ T* buffer) {
    address_ = buffer;
    begin_ = buffer;
    size_ = 0;
    sized_ = false;
  }

  // A sub-view starting `offset` elements in; it keeps the parent's SetGlobalBuffer range.
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor view = *this;
    view.address_ = address_ + offset;
    return view;
  }

  __gm__ T* GetPhyAddr() const { return address_; }
  __gm__ T* GetPhyAddr(uint64_t offset) const { return address_ + offset; }

  // Elements from this view's start to the end of the SetGlobalBuffer range.
  uint64_t GetSize() const {
    const uint64_t consumed = static_cast<uint64_t>(address_ - begin_);
    return sized_ && consumed < size_ ? size_ - consumed : 0;
  }

  T GetValue(uint64_t offset) const {
    kiln::ascend::emu::detail::require_dtype<T>("GlobalTensor::GetValue");
    kiln::ascend::emu::detail::check_gm("GlobalTensor::GetValue", view(), offset * sizeof(T),
                                        sizeof(T), false, true);
    T value;
    std::memcpy(static_cast<void*>(&value), address_ + offset, sizeof(T));
    return value;
  }

  void SetValue(uint64_t offset, const T& value) const {
    kiln::ascend::emu::detail::require_dtype<T>("GlobalTensor::SetValue");
    kiln::ascend::emu::detail::check_gm("GlobalTensor::SetValue", view(), offset * sizeof(T),
                                        sizeof(T), true, true);
    std::memcpy(static_cast<void*>(address_ + offset), &value, sizeof(T));
    kiln::ascend::emu::detail::record_gm_write(address_ + offset, sizeof(T));
  }

  // The checker's picture of this view (used by DataCopy and the Matmul API).
  kiln::ascend::emu::detail::GmView view() const {
    kiln::ascend::emu::detail::GmView v;
    v.address = reinterpret_cast<const uint8_t*>(address_);
    v.range_begin = reinterpret_cast<const uint8_t*>(begin_);
    v.range_bytes = size_ * sizeof(T);
    v.sized = sized_;
    v.elem_size = sizeof(T);
    return v;
  }

 private:
  T* address_ = nullptr;
  T* begin_ = nullptr;
  uint64_t size_ = 0;
  bool sized_ = false;
};

}  // namespace AscendC
