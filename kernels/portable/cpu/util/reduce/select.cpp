// Max/min reductions with first-index tracking over any dims of a contiguous tensor.
#include "kernels/portable/cpu/util/reduce/select.h"

#include <cmath>
#include <limits>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable {
namespace {

constexpr int64_t kChunk = 256;

// Whether x replaces the current pick: strictly better, or the first NaN.
template <bool kMax, typename C>
inline bool takes(C x, C current) {
  const bool better = kMax ? x > current : x < current;
  if constexpr (std::is_integral_v<C>) {
    return better;
  } else {
    // Bitwise on the comparisons so the compiler keeps them as vector masks.
    return better | ((x != x) & (current == current));
  }
}

template <bool kMax, typename C>
inline C pick(C x, C current) {
  if constexpr (std::is_integral_v<C>) {
    return takes<kMax>(x, current) ? x : current;
  } else {
    return select(takes<kMax>(x, current), x, current);
  }
}

// The pick of n >= 1 contiguous integers, in independent lanes so the loop vectorises.
template <typename C, bool kMax>
KILN_HOT_LOOP C integer_row_pick(const C* x, int64_t n) {
  constexpr int kLanes = 64 / sizeof(C);
  C result = x[0];
  int64_t i = 0;
  if (n >= kLanes) {
    C lanes[kLanes];
    KILN_UNROLL
    for (int j = 0; j < kLanes; ++j) lanes[j] = x[j];
    for (i = kLanes; i + kLanes <= n; i += kLanes) {
      KILN_UNROLL
      for (int j = 0; j < kLanes; ++j) lanes[j] = pick<kMax>(x[i + j], lanes[j]);
    }
    KILN_UNROLL
    for (int j = 0; j < kLanes; ++j) result = pick<kMax>(lanes[j], result);
  }
  for (; i < n; ++i) result = pick<kMax>(x[i], result);
  return result;
}

// The pick of n >= 1 contiguous values. (extreme_nan picks its own vector width at run time.)
template <typename C, bool kMax>
C row_pick(const C* x, int64_t n) {
  if constexpr (std::is_integral_v<C>) {
    return integer_row_pick<C, kMax>(x, n);
  } else {
    return extreme_nan<C, kMax>(x, n, x[0]);
  }
}

// The position of the first x[i] equal to `value` (the first NaN when value is NaN).
template <typename C>
int64_t find_first(const C* x, int64_t n, C value) {
  if (value != value) {
    for (int64_t i = 0; i < n; ++i) {
      if (x[i] != x[i]) return i;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] == value) return i;
  }
  return 0;
}

// Outputs side by side: acc[i] (and index[i] = position) take x[i] when it is the better pick.
// column_pick takes `rows` input rows `stride` apart, four at a time: the rows pick among
// themselves (the earlier one kept on a tie, as in row order) before the result meets acc, so
// acc is loaded and stored once per four rows. Picking is idempotent, so a last group of fewer
// rows repeats its first.
template <typename C, bool kMax>
KILN_HOT_LOOP void column_pick(C* acc, const C* x, int64_t n, int64_t rows, int64_t stride) {
  for (int64_t r = 0; r < rows; r += 4) {
    const auto [x0, x1, x2, x3] = four_rows<C>(x, r, rows, stride, nullptr).row;
    for (int64_t i = 0; i < n; ++i) {
      const C first = pick<kMax>(x1[i], x0[i]);
      const C second = pick<kMax>(x3[i], x2[i]);
      acc[i] = pick<kMax>(pick<kMax>(second, first), acc[i]);
    }
  }
}
template <typename C, bool kMax>
KILN_HOT_LOOP void column_pick_index(C* acc, int64_t* index, const C* x, int64_t n,
                                     int64_t position) {
  for (int64_t i = 0; i < n; ++i) {
    const bool take = takes<kMax>(x[i], acc[i]);
    acc[i] = take ? x[i] : acc[i];
    index[i] = take ? position : index[i];
  }
}

// What an empty reduction gives: the other end of the dtype's range.
template <typename C>
C identity(ScalarType dtype, bool max, bool nonzero) {
  if (nonzero || dtype == ScalarType::Bool) return max ? 0 : 1;
  if constexpr (std::is_integral_v<C>) {
    switch (dtype) {
      case ScalarType::Byte:
        return max ? 0 : 255;
      case ScalarType::Char:
        return max ? -128 : 127;
      case ScalarType::Short:
        return max ? -32768 : 32767;
      case ScalarType::Int:
        return max ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max();
      default:
        return max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    }
  } else {
    return max ? -INFINITY : INFINITY;
  }
}

template <typename C, bool kMax>
class SelectRunner {
 public:
  SelectRunner(const Tensor& in, const SelectOptions& options)
      : in_type_(in.scalar_type()),
        in_size_(in.element_size()),
        nonzero_(options.nonzero),
        via_byte_(options.via_byte),
        direct_(!nonzero_ && in_type_ == CppToScalarType<C>::value),
        start_(identity<C>(in_type_, kMax, nonzero_)),
        src_(static_cast<const char*>(in.const_data_ptr())),
        values_(options.values),
        indices_(options.indices) {}

  // One output at a time over its runs.
  void rows(const ReduceLayout& layout) {
    int64_t pending = 0;
    const int64_t chunk = direct_ && layout.run_stride == 1 ? layout.run_size : kChunk;
    for_each_output(layout, [&](int64_t base) {
      C best = start_;
      int64_t best_index = 0;
      int64_t position = 0;
      for_each_run(layout, base, [&](int64_t offset) {
        for (int64_t s = 0; s < layout.run_size; s += chunk) {
          const int64_t m = layout.run_size - s < chunk ? layout.run_size - s : chunk;
          const C* x = read(offset + s * layout.run_stride, layout.run_stride, m);
          const C candidate = row_pick<C, kMax>(x, m);
          // The first chunk always counts; later ones only when strictly better.
          if ((position == 0 && s == 0) || takes<kMax>(candidate, best)) {
            best = candidate;
            if (indices_ != nullptr) best_index = position + s + find_first(x, m, candidate);
          }
        }
        position += layout.run_size;
      });
      values_buf_[pending] = best;
      index_buf_[pending++] = best_index;
      if (pending == kChunk) flush(pending);
    });
    flush(pending);
  }

  // The innermost dim is kept: up to kChunk outputs at once, one contiguous input row at a time.
  void columns(const ReduceLayout& layout) {
    for_each_output_block(layout, kChunk, [&](int64_t base, int64_t m) {
      for (int64_t i = 0; i < m; ++i) {
        values_buf_[i] = start_;
        index_buf_[i] = 0;
      }
      int64_t position = 0;
      for_each_run(layout, base, [&](int64_t offset) {
        if (direct_ && indices_ == nullptr) {  // the run's rows in place, in one call
          const C* x = reinterpret_cast<const C*>(src_) + offset;
          column_pick<C, kMax>(values_buf_, x, m, layout.run_size, layout.run_stride);
          return;
        }
        for (int64_t j = 0; j < layout.run_size; ++j, ++position) {
          const C* x = read(offset + j * layout.run_stride, 1, m);
          if (indices_ != nullptr) {
            column_pick_index<C, kMax>(values_buf_, index_buf_, x, m, position);
          } else {
            column_pick<C, kMax>(values_buf_, x, m, 1, 0);
          }
        }
      });
      flush(m);
    });
  }

 private:
  const C* read(int64_t offset, int64_t stride, int64_t n) {
    const char* src = src_ + offset * in_size_;
    if (direct_ && stride == 1) return reinterpret_cast<const C*>(src);
    if constexpr (std::is_integral_v<C>) {
      if (nonzero_ && via_byte_) {
        load_row_as<int64_t>(src, in_type_, stride, n, ScalarType::Byte, buf_);
        for (int64_t i = 0; i < n; ++i) buf_[i] = buf_[i] != 0 ? 1 : 0;
        return buf_;
      }
      if (nonzero_) {
        load_row_nonzero(src, in_type_, stride, n, buf_);
        return buf_;
      }
    }
    load_row<C>(src, in_type_, stride, n, buf_);
    return buf_;
  }

  void flush(int64_t& n) {
    if (n == 0) return;
    if (values_ != nullptr) {
      store_row<C>(
          values_buf_, n, values_->scalar_type(),
          static_cast<char*>(values_->mutable_data_ptr()) + written_ * values_->element_size());
    }
    if (indices_ != nullptr) {
      store_row<int64_t>(index_buf_, n, ScalarType::Long,
                         indices_->mutable_data_ptr<int64_t>() + written_);
    }
    written_ += n;
    n = 0;
  }

  ScalarType in_type_;
  size_t in_size_;
  bool nonzero_;
  bool via_byte_;
  bool direct_;
  C start_;
  const char* src_;
  Tensor* values_;
  Tensor* indices_;
  int64_t written_ = 0;
  C buf_[kChunk];
  C values_buf_[kChunk];
  int64_t index_buf_[kChunk];
};

template <bool kMax>
void select_typed(const Tensor& self, const ReduceLayout& layout, const SelectOptions& options) {
  const ScalarType compute = options.nonzero ? ScalarType::Long : self.scalar_type();
  dispatch_compute_type(compute, [&](auto tag) {
    SelectRunner<typename decltype(tag)::type, kMax> runner(self, options);
    if (layout.run_stride == 1) {
      runner.rows(layout);
    } else {
      runner.columns(layout);
    }
  });
}

}  // namespace

void select_reduce(const Tensor& self, DimMask mask, const SelectOptions& options) {
  const Tensor* any_out = options.values != nullptr ? options.values : options.indices;
  if (any_out == nullptr || any_out->numel() == 0) return;
  ReduceLayout layout;
  make_reduce_layout(self.sizes(), mask, &layout);
  if (options.max) {
    select_typed<true>(self, layout, options);
  } else {
    select_typed<false>(self, layout, options);
  }
}

bool check_nonempty_reduction(KernelRuntimeContext& ctx, const Tensor& self, DimMask mask,
                              bool all_dims, const char* op) {
  if (self.numel() != 0) return true;
  if (all_dims) {
    ctx.fail(Error::InvalidArgument,
             "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
             "reduction dim with the 'dim' argument.",
             op);
    return false;
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (((mask >> d) & 1) != 0 && self.size(d) == 0) {
      ctx.fail(Error::InvalidArgument,
               "%s(): Expected reduction dim %d to have non-zero size; reduce over a non-empty "
               "dim",
               op, static_cast<int>(d));
      return false;
    }
  }
  return true;
}

}  // namespace kiln::portable
