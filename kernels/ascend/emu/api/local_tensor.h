// LocalTensor: a checked view of a Unified Buffer buffer (queue slot or TBuf) for emulated kernels.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/ascend/emu/api/detail.h"

namespace AscendC {

template <class T>
class LocalTensor {
 public:
  using PrimType = T;

  LocalTensor() = default;
  // For the emulator's TQue/TBuf: the tensor they hand out.
  explicit LocalTensor(const kiln::ascend::emu::detail::LocalRef& ref) : ref_(ref) {}

  // A slice starting `offset` elements in. Its start must still be 32 B aligned when it is
  // given to DataCopy or a vector API.
  LocalTensor operator[](uint32_t offset) const {
    LocalTensor slice = *this;
    const uint32_t size = GetSize();
    slice.ref_.byte_offset += offset * static_cast<uint32_t>(sizeof(T));
    slice.ref_.byte_size = offset < size ? (size - offset) * static_cast<uint32_t>(sizeof(T)) : 0;
    return slice;
  }

  template <class U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(ref_);
  }

  T GetValue(uint32_t index) const {
    kiln::ascend::emu::detail::check_local(ref_, "LocalTensor::GetValue", "tensor", index, 1,
                                           sizeof(T), 1);
    kiln::ascend::emu::detail::note_ub_access(ref_, uint64_t{index} * sizeof(T), sizeof(T),
                                              kiln::ascend::emu::detail::UbPipe::S, false,
                                              "LocalTensor::GetValue", "tensor");
    T value;
    std::memcpy(static_cast<void*>(&value), data() + index, sizeof(T));
    return value;
  }

  void SetValue(uint32_t index, const T& value) const {
    kiln::ascend::emu::detail::check_local(ref_, "LocalTensor::SetValue", "tensor", index, 1,
                                           sizeof(T), 1);
    std::memcpy(static_cast<void*>(data() + index), &value, sizeof(T));
    kiln::ascend::emu::detail::note_ub_access(ref_, uint64_t{index} * sizeof(T), sizeof(T),
                                              kiln::ascend::emu::detail::UbPipe::S, true,
                                              "LocalTensor::SetValue", "tensor");
  }

  uint32_t GetSize() const { return ref_.byte_size / static_cast<uint32_t>(sizeof(T)); }
  // Deprecated on 910B and 310P in CANN 8.1.RC1 (interface/kernel_tensor.h), as here.
  [[deprecated("LocalTensor::GetLength is deprecated in CANN 8.1.RC1; use GetSize() * sizeof(T)")]]
  uint32_t GetLength() const {
    return ref_.byte_size;
  }
  void SetSize(uint32_t size) { ref_.byte_size = size * static_cast<uint32_t>(sizeof(T)); }
  // The UB address of the first element, as the device reports it.
  uint64_t GetPhyAddr() const {
    return ref_.record == nullptr ? 0 : ref_.record->ub_offset + ref_.byte_offset;
  }
  TPosition GetPosition() const {
    return ref_.record == nullptr ? TPosition::MAX : ref_.record->position;
  }

  // For the emulator: the checked window and the host memory behind it. Call check_local first.
  const kiln::ascend::emu::detail::LocalRef& ref() const { return ref_; }
  T* data() const { return reinterpret_cast<T*>(ref_.record->data + ref_.byte_offset); }

 private:
  kiln::ascend::emu::detail::LocalRef ref_;
};

}  // namespace AscendC
