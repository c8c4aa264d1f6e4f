// ReduceSum / ReduceMax / ReduceMin (level-2 count forms) in the device's order, through `work`.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/ascend/emu/api/detail.h"
#include "kernels/ascend/emu/api/local_tensor.h"
#include "kernels/ascend/emu/api/vector_ops.h"

namespace kiln::ascend::emu::detail {

// Elements the work tensor must hold for `count` inputs: one partial sum (ReduceSum) or one
// value/index pair (ReduceMax/Min) per 256 B repeat, rounded up to whole 32 B blocks. This is
// the first round of the documented minimum, which every mode needs.
uint32_t reduce_work_elements(uint32_t count, uint32_t elem_size, bool pairs);

// SocProfile::reduce_sum_repeats_as_tree of the current SoC.
bool reduce_sum_repeats_as_tree();

// Checks dst (1 or 2 elements, aligned to two elements), src (32 B aligned), work (32 B aligned,
// big enough); dst, src and work may start at the same address but not overlap otherwise.
// Counts the instruction.
void check_reduce(const char* api, const LocalRef& dst, const LocalRef& src, const LocalRef& work,
                  int32_t count, uint32_t elem_size, bool with_index);

// The elements of repeat `start` (zero-padded to a full repeat), reduced as a binary tree of
// adjacent pairs with `combine`; rounding to T after every step.
template <class T, class Combine>
T reduce_repeat(const T* in, uint32_t start, uint32_t count, T pad, Combine combine) {
  constexpr uint32_t kPerRepeat = AscendC::ONE_REPEAT_BYTE_SIZE / sizeof(T);
  T lanes[kPerRepeat];
  for (uint32_t i = 0; i < kPerRepeat; ++i) lanes[i] = start + i < count ? in[start + i] : pad;
  for (uint32_t width = kPerRepeat / 2; width >= 1; width /= 2) {
    for (uint32_t i = 0; i < width; ++i) lanes[i] = combine(lanes[2 * i], lanes[2 * i + 1]);
  }
  return lanes[0];
}

// ReduceMax/ReduceMin: each repeat leaves (value, index within the repeat) in work, as the
// device does; the pairs are then scanned in order. dst[0] = the extreme value (the first one on
// ties); with calIndex, dst[1] holds the bits of its index as an unsigned integer of T's width:
// read it back with ReinterpretCast<uint16_t/uint32_t>().GetValue(1).
template <class T, class Better>
void reduce_extreme(const char* api, const AscendC::LocalTensor<T>& dst,
                    const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<T>& work,
                    int32_t count, bool calIndex, Better better) {
  using Index = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
  constexpr uint32_t kPerRepeat = AscendC::ONE_REPEAT_BYTE_SIZE / sizeof(T);
  check_reduce(api, dst.ref(), src.ref(), work.ref(), count, sizeof(T), calIndex);
  const uint32_t n = static_cast<uint32_t>(count);
  const T* in = src.data();
  T* partial = work.data();
  uint32_t repeats = 0;
  for (uint32_t start = 0; start < n; start += kPerRepeat, ++repeats) {
    Index best = 0;
    for (uint32_t i = 1; i < kPerRepeat && start + i < n; ++i) {
      if (better(load(in[start + i]), load(in[start + best]))) best = static_cast<Index>(i);
    }
    const T value = in[start + best];
    partial[2 * repeats] = value;  // may overwrite src[..start] when work aliases src
    std::memcpy(static_cast<void*>(&partial[2 * repeats + 1]), &best, sizeof(best));
  }
  uint32_t winner = 0;
  for (uint32_t r = 1; r < repeats; ++r) {
    if (better(load(partial[2 * r]), load(partial[2 * winner]))) winner = r;
  }
  Index local;
  std::memcpy(&local, static_cast<const void*>(&partial[2 * winner + 1]), sizeof(local));
  const T value = partial[2 * winner];
  T* out = dst.data();
  out[0] = saturation_mode() ? saturate(value) : value;
  if (calIndex) {
    const Index index = static_cast<Index>(winner * kPerRepeat + local);
    std::memcpy(static_cast<void*>(out + 1), &index, sizeof(index));
  }
}

}  // namespace kiln::ascend::emu::detail

namespace AscendC {

// Sums each 256 B repeat as a binary tree of adjacent pairs into work, then adds the repeats'
// partial sums in order (Atlas A2) or as a binary tree of adjacent pairs, an odd last one
// carried up a level (Atlas inference, 310P), as the ReduceSum documentation describes; half
// rounds after every addition, as the hardware does.
template <class T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
               const int32_t count) {
  static_assert(kiln::ascend::emu::detail::kFloating<T>, "ReduceSum takes half or float operands");
  namespace detail = kiln::ascend::emu::detail;
  constexpr uint32_t kPerRepeat = ONE_REPEAT_BYTE_SIZE / sizeof(T);
  detail::check_reduce("ReduceSum", dst.ref(), src.ref(), work.ref(), count, sizeof(T), false);
  const uint32_t n = static_cast<uint32_t>(count);
  const bool saturates = detail::saturation_mode();
  const auto add = [saturates](T a, T b) {
    const T sum = detail::store<T>(detail::load(a) + detail::load(b));
    return saturates ? detail::saturate(sum) : sum;
  };
  T* partial = work.data();
  uint32_t repeats = 0;
  for (uint32_t start = 0; start < n; start += kPerRepeat) {
    partial[repeats++] = detail::reduce_repeat(src.data(), start, n, T(0.0f), add);
  }
  if (detail::reduce_sum_repeats_as_tree()) {
    for (uint32_t width = repeats; width > 1; width = (width + 1) / 2) {
      for (uint32_t i = 0; 2 * i < width; ++i) {
        partial[i] = 2 * i + 1 < width ? add(partial[2 * i], partial[2 * i + 1]) : partial[2 * i];
      }
    }
    dst.data()[0] = partial[0];
    return;
  }
  T total = partial[0];
  for (uint32_t r = 1; r < repeats; ++r) total = add(total, partial[r]);
  dst.data()[0] = total;
}

template <class T>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
               const int32_t count, bool calIndex = false) {
  static_assert(kiln::ascend::emu::detail::kFloating<T>, "ReduceMax takes half or float operands");
  kiln::ascend::emu::detail::reduce_extreme("ReduceMax", dst, src, work, count, calIndex,
                                            [](float a, float b) { return a > b; });
}

template <class T>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
               const int32_t count, bool calIndex = false) {
  static_assert(kiln::ascend::emu::detail::kFloating<T>, "ReduceMin takes half or float operands");
  kiln::ascend::emu::detail::reduce_extreme("ReduceMin", dst, src, work, count, calIndex,
                                            [](float a, float b) { return a < b; });
}

}  // namespace AscendC
