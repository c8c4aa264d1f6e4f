// Reductions that pass over each output's elements more than once: the elements read chunk by
// chunk as a compute type, and the results stored chunk by chunk in output order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/cpu/util/reduce/plan.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/core/tensor.h"

namespace kiln::portable {

// Reads the elements of one output of a contiguous input's reduction as values of C.
template <typename C>
class RunReader {
 public:
  static constexpr int64_t kChunk = 256;

  // `in_place`: a run of C elements at stride 1 is handed out whole, straight from the input;
  // otherwise every element goes through a conversion buffer, kChunk at a time. `as_type`: each
  // element is first converted to that dtype (ATen's reductions that cast their input to the out
  // dtype), by default the input's own.
  RunReader(const Tensor& self, const ReduceLayout& layout, bool in_place)
      : RunReader(self, layout, in_place, self.scalar_type()) {}
  RunReader(const Tensor& self, const ReduceLayout& layout, bool in_place, ScalarType as_type)
      : layout_(layout),
        in_type_(self.scalar_type()),
        as_type_(as_type),
        in_size_(self.element_size()),
        src_(static_cast<const char*>(self.const_data_ptr())),
        direct_(in_place && in_type_ == CppToScalarType<C>::value && as_type == in_type_ &&
                layout.run_stride == 1) {}

  // Calls fn(values, n) for the elements of the output whose first element is at `base`, in the
  // input's order.
  template <typename Fn>
  void visit(int64_t base, Fn&& fn) {
    for_each_run(layout_, base, [&](int64_t offset) {
      if (direct_) {
        fn(reinterpret_cast<const C*>(src_) + offset, layout_.run_size);
        return;
      }
      for (int64_t s = 0; s < layout_.run_size; s += kChunk) {
        const int64_t m = layout_.run_size - s < kChunk ? layout_.run_size - s : kChunk;
        load_row_as<C>(src_ + (offset + s * layout_.run_stride) * in_size_, in_type_,
                       layout_.run_stride, m, as_type_, buf_);
        fn(static_cast<const C*>(buf_), m);
      }
    });
  }

 private:
  const ReduceLayout& layout_;
  ScalarType in_type_;
  ScalarType as_type_;
  size_t in_size_;
  const char* src_;
  bool direct_;
  C buf_[kChunk];
};

// Stores result(base), an R, for every output of `layout` (base: the input offset of its first
// element) into out, converted to out's dtype, in output order.
template <typename R, typename Fn>
void store_outputs(const ReduceLayout& layout, Tensor& out, Fn&& result) {
  constexpr int64_t kChunk = 256;
  R results[kChunk];
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  int64_t pending = 0;
  int64_t written = 0;
  const auto flush = [&] {
    store_row<R>(results, pending, out.scalar_type(), dst + written * out.element_size());
    written += pending;
    pending = 0;
  };
  for_each_output(layout, [&](int64_t base) {
    results[pending++] = result(base);
    if (pending == kChunk) flush();
  });
  flush();
}

}  // namespace kiln::portable
