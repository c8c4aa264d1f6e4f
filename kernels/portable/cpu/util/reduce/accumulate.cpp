// Sum, product and mean reductions over any dims of a contiguous tensor.
#include "kernels/portable/cpu/util/reduce/accumulate.h"

#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/isa/half_totals.h"
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/reduce/run_total.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable {
namespace {

constexpr int64_t kChunk = 256;  // elements converted through a buffer at a time

// A row of kChunk values that leave a total unchanged, for the rows missing from a last group of
// four: zeros for sums, ones for products.
template <typename In, bool kProd>
const In* identity_row() {
  if constexpr (kProd) {
    static const In* const ones = [] {
      static In values[kChunk];
      for (In& value : values) {
        if constexpr (std::is_same_v<In, BFloat16>) {
          value = BFloat16::from_bits(0x3f80);
        } else if constexpr (std::is_same_v<In, Half>) {
          value = Half::from_bits(0x3c00);
        } else {
          value = In(1);
        }
      }
      return values;
    }();
    return ones;
  } else {
    static In zeros[kChunk];  // zero-initialised, never written
    return zeros;
  }
}

// acc[i] = acc[i] (+ or *) x[i]: outputs side by side in lanes of LaneOf, for `rows` input rows
// `stride` elements apart (several per call, so short rows do not pay a call each), n <= kChunk.
// Four rows combine before they meet acc, so acc is loaded and stored once per four rows rather
// than per row (which otherwise bound the loop); a last group of fewer
// rows is filled with identity rows (four_rows, reduce/plan.h), so there is one loop to compile.
template <typename Lane, bool kProd, typename In>
KILN_HOT_LOOP void column_accumulate(Lane* acc, const In* x, int64_t n, int64_t rows,
                                     int64_t stride) {
  const In* identity = identity_row<In, kProd>();
  for (int64_t r = 0; r < rows; r += 4) {
    const auto [x0, x1, x2, x3] = four_rows(x, r, rows, stride, identity).row;
    for (int64_t i = 0; i < n; ++i) {
      const Lane pair0 = combine<kProd>(element_of<Lane>(x0[i]), element_of<Lane>(x1[i]));
      const Lane pair1 = combine<kProd>(element_of<Lane>(x2[i]), element_of<Lane>(x3[i]));
      acc[i] = combine<kProd>(acc[i], combine<kProd>(pair0, pair1));
    }
  }
}

// Half columns are read in place where the ISA room converts Half inside the loop
// (isa/half_totals.h), combined in column_accumulate's order; elsewhere Half rows are widened
// into a buffer first (widen_row), which writes and reads every row once more.
template <typename Lane, bool kProd, typename In>
void accumulate_columns(Lane* acc, const In* x, int64_t n, int64_t rows, int64_t stride) {
  if constexpr (std::is_same_v<In, Half> && isa::kHalfInPlace) {
    isa::half_column_accumulate<kProd>(acc, x, n, rows, stride, identity_row<Half, kProd>());
  } else {
    column_accumulate<Lane, kProd>(acc, x, n, rows, stride);
  }
}

// Calls f(TypeTag<In>{}) when an integer input of dtype t can be read in place as In (Bool as
// the bytes 0 and 1) and returns true; false for Long and for dtypes outside the selection.
template <typename F>
bool dispatch_narrow_integer(ScalarType t, F&& f) {
  if constexpr (dtype_selected(ScalarType::Bool) || dtype_selected(ScalarType::Byte)) {
    if (t == ScalarType::Bool || t == ScalarType::Byte) return f(TypeTag<uint8_t>{}), true;
  }
  if constexpr (dtype_selected(ScalarType::Char)) {
    if (t == ScalarType::Char) return f(TypeTag<int8_t>{}), true;
  }
  if constexpr (dtype_selected(ScalarType::Short)) {
    if (t == ScalarType::Short) return f(TypeTag<int16_t>{}), true;
  }
  if constexpr (dtype_selected(ScalarType::Int)) {
    if (t == ScalarType::Int) return f(TypeTag<int32_t>{}), true;
  }
  return false;
}

template <typename C, bool kProd>
class AccumulateRunner {
 public:
  using Total = TotalOf<C>;

  AccumulateRunner(const Tensor& in, ScalarType op_type, bool mean, int64_t count, Tensor& out)
      : in_type_(in.scalar_type()),
        // A Half/BFloat16 mean casts its input to Float (ATen's way of keeping it accurate).
        op_type_(mean && is_reduced_floating_type(op_type) ? ScalarType::Float : op_type),
        out_type_(out.scalar_type()),
        in_size_(in.element_size()),
        out_size_(out.element_size()),
        direct_(in_type_ == op_type && in_type_ == CppToScalarType<C>::value),
        // BFloat16 values are exact in float (a BFloat16 mean's op dtype): read in place.
        bfloat16_in_place_(in_type_ == ScalarType::BFloat16 &&
                           (op_type_ == ScalarType::BFloat16 || op_type_ == ScalarType::Float)),
        // Sums of narrower integers (and Bool) that the op dtype holds unchanged, widened inline
        // into the int64 totals instead of converted through a buffer. A Bool sum into Bool
        // counts the nonzero bytes: its total is nonzero exactly when some element is.
        narrow_in_place_(std::is_same_v<C, int64_t> && !kProd && !is_floating_type(in_type_) &&
                         (op_type_ != ScalarType::Bool || in_type_ == ScalarType::Bool) &&
                         (in_type_ == op_type_ || op_type_ == ScalarType::Long)),
        // A sum into the input's own narrow dtype wraps as ATen's does: it runs in lanes of that
        // width (the total mod 2^k is all the output keeps).
        wrap_(narrow_in_place_ && in_type_ == op_type_ && in_type_ != ScalarType::Bool),
        // Half values are exact in float (the op dtype of a Half sum or mean): widened a row at a
        // time with F16C where the CPU has it.
        half_widened_(in_type_ == ScalarType::Half &&
                      (op_type_ == ScalarType::Half || op_type_ == ScalarType::Float)),
        mean_(mean),
        count_(count),
        src_(static_cast<const char*>(in.const_data_ptr())),
        dst_(static_cast<char*>(out.mutable_data_ptr())) {}

  // Outputs [first, last) each total their runs, which are contiguous (run_stride 1).
  void rows(const ReduceLayout& layout, int64_t first, int64_t last) {
    int64_t pending = 0;
    written_ = first;
    for_each_offset_range(
        layout.kept_sizes, layout.kept_strides, layout.kept_dim, first, last, [&](int64_t base) {
          Total total = kProd ? 1 : 0;
          for_each_run(layout, base, [&](int64_t offset) {
            if (direct_) {
              total = combine<kProd>(total, run_total<C, kProd>(pointer(offset), layout.run_size));
              return;
            }
            if constexpr (std::is_same_v<C, int64_t> && !kProd) {
              if (narrow_in_place([&](const auto* x, auto sum) {
                    using Sum = typename decltype(sum)::type;
                    total =
                        combine<kProd>(total, run_total<Sum, kProd>(x + offset, layout.run_size));
                  })) {
                return;
              }
            }
            if constexpr (std::is_same_v<C, float> && dtype_selected(ScalarType::BFloat16)) {
              if (bfloat16_in_place_) {
                const BFloat16* x = reinterpret_cast<const BFloat16*>(src_) + offset;
                total = combine<kProd>(total, run_total<C, kProd, BFloat16>(x, layout.run_size));
                return;
              }
            }
            if constexpr (std::is_same_v<C, float> && dtype_selected(ScalarType::Half) &&
                          isa::kHalfInPlace) {
              if (half_widened_ && isa::half_in_place()) {
                const Half* x = reinterpret_cast<const Half*>(src_) + offset;
                total = combine<kProd>(total, isa::half_run_total<kProd>(x, layout.run_size));
                return;
              }
            }
            // Converted a block at a time, so the totals group as on the direct path.
            for (int64_t s = 0; s < layout.run_size; s += kTotalBlock) {
              const int64_t m =
                  layout.run_size - s < kTotalBlock ? layout.run_size - s : kTotalBlock;
              total =
                  combine<kProd>(total, run_total<C, kProd>(row_as_c(offset + s, m, block_), m));
            }
          });
          totals_[pending++] = total;
          if (pending == kChunk) flush(pending);
        });
    flush(pending);
  }

  // The innermost dim is kept: neighbouring outputs read neighbouring inputs, so up to kChunk
  // outputs accumulate side by side, one contiguous input row at a time. Blocks [first, last) of
  // column_blocks(layout) in output order.
  void columns(const ReduceLayout& layout, int64_t first, int64_t last) {
    const int32_t outer_kept = layout.kept_dim - 1;
    const int64_t width = layout.kept_sizes[outer_kept];
    const int64_t blocks = (width + kChunk - 1) / kChunk;
    for (int64_t block = first; block < last; ++block) {
      const int64_t k = block % blocks * kChunk;
      const int64_t m = width - k < kChunk ? width - k : kChunk;
      int64_t base = k;
      for_each_offset_range(layout.kept_sizes, layout.kept_strides, outer_kept, block / blocks,
                            block / blocks + 1, [&](int64_t offset) { base += offset; });
      written_ = block / blocks * width + k;
      for (int64_t i = 0; i < m; ++i) totals_[i] = kProd ? 1 : 0;
      column_totals(layout, base, m);
      int64_t pending = m;
      flush(pending);
    }
  }

  // How many blocks columns() splits the outputs into.
  static int64_t column_blocks(const ReduceLayout& layout) {
    const int64_t width = layout.kept_sizes[layout.kept_dim - 1];
    return layout.outputs / width * ((width + kChunk - 1) / kChunk);
  }

 private:
  // Totals the m outputs whose first elements are at base.. base + m - 1 into totals_.
  void column_totals(const ReduceLayout& layout, int64_t base, int64_t m) {
    if constexpr (std::is_same_v<C, int64_t> && !kProd) {
      if (narrow_in_place([&](const auto* x, auto sum) {
            using In = std::remove_const_t<std::remove_pointer_t<decltype(x)>>;
            using Sum = typename decltype(sum)::type;
            column_blocks_of<LaneOf<Sum, In>, true>(
                layout, base, m, [&](int64_t row, int64_t, int64_t) { return x + row; });
          })) {
        return;
      }
    }
    if constexpr (std::is_same_v<C, float> && dtype_selected(ScalarType::BFloat16)) {
      if (bfloat16_in_place_) {
        const BFloat16* x = reinterpret_cast<const BFloat16*>(src_);
        column_blocks_of<C, true>(layout, base, m,
                                  [&](int64_t row, int64_t, int64_t) { return x + row; });
        return;
      }
    }
    if constexpr (std::is_same_v<C, float> && dtype_selected(ScalarType::Half) &&
                  isa::kHalfInPlace) {
      if (half_widened_ && isa::half_in_place()) {
        const Half* x = reinterpret_cast<const Half*>(src_);
        column_blocks_of<C, true>(layout, base, m,
                                  [&](int64_t row, int64_t, int64_t) { return x + row; });
        return;
      }
    }
    if (direct_) {
      column_blocks_of<C, true>(layout, base, m,
                                [&](int64_t row, int64_t, int64_t) { return pointer(row); });
    } else {
      // Converted rows share the buffer, as many as it holds per call.
      column_blocks_of<C, false>(layout, base, m, [&](int64_t row, int64_t r, int64_t stride) {
        for (int64_t k = 0; k < r; ++k) row_as_c(row + k * stride, m, block_ + k * m);
        return static_cast<const C*>(block_);
      });
    }
  }

  // Accumulates the input rows row_of(offset) in Lane lanes, kTotalBlock rows at a time (short
  // float blocks for accuracy, int32 lanes that cannot overflow), each block then added into
  // totals_. row_of(offset, r, stride) gives r rows from offset: kInPlace, in the input (a run's
  // rows go to column_accumulate together), else converted into the buffer back to back.
  template <typename Lane, bool kInPlace, typename RowOf>
  void column_blocks_of(const ReduceLayout& layout, int64_t base, int64_t m, RowOf&& row_of) {
    Lane lanes[kChunk];
    int64_t rows = 0;
    const auto add_block = [&] {
      for (int64_t i = 0; i < m; ++i) {
        totals_[i] = combine<kProd>(totals_[i], static_cast<Total>(lanes[i]));
        lanes[i] = kProd ? 1 : 0;
      }
      rows = 0;
    };
    for (int64_t i = 0; i < m; ++i) lanes[i] = kProd ? 1 : 0;
    for_each_run(layout, base, [&](int64_t offset) {
      for (int64_t j = 0; j < layout.run_size;) {
        const int64_t left =
            layout.run_size - j < kTotalBlock - rows ? layout.run_size - j : kTotalBlock - rows;
        const int64_t r = kInPlace ? left : (left < kTotalBlock / m ? left : kTotalBlock / m);
        const auto* x = row_of(offset + j * layout.run_stride, r, layout.run_stride);
        accumulate_columns<Lane, kProd>(lanes, x, m, r, kInPlace ? layout.run_stride : m);
        j += r;
        rows += r;
        if (rows == kTotalBlock) add_block();
      }
    });
    if (rows != 0) add_block();
  }

  // For a narrow_in_place_ sum, calls f(x, TypeTag<Sum>{}) with the input read in place as x and
  // the type it sums in: int64 (C), or for a wrapping sum the input's own width, unsigned so
  // that it wraps without overflow. Returns false when the input is not read in place.
  template <typename F>
  bool narrow_in_place(F&& f) const {
    return narrow_in_place_ && dispatch_narrow_integer(in_type_, [&](auto tag) {
             using In = typename decltype(tag)::type;
             if constexpr (sizeof(In) <= 2) {
               if (wrap_) {
                 using U = std::make_unsigned_t<In>;
                 return f(reinterpret_cast<const U*>(src_), TypeTag<U>{});
               }
             }
             f(reinterpret_cast<const In*>(src_), TypeTag<C>{});
           });
  }

  // m <= kTotalBlock contiguous input elements from `offset` as values of the op dtype held in C,
  // written to dst (within block_).
  const C* row_as_c(int64_t offset, int64_t m, C* dst) {
    if constexpr (std::is_same_v<C, float> && dtype_selected(ScalarType::Half)) {
      if (half_widened_) {
        widen_row(reinterpret_cast<const Half*>(src_) + offset, dst, m);
        return dst;
      }
    }
    const char* src = src_ + offset * in_size_;
    if constexpr (std::is_integral_v<C>) {
      if (op_type_ == ScalarType::Bool) {
        load_row_nonzero(src, in_type_, 1, m, dst);
        return dst;
      }
    }
    load_row_as<C>(src, in_type_, 1, m, op_type_, dst);
    return dst;
  }

  const C* pointer(int64_t offset) const { return reinterpret_cast<const C*>(src_) + offset; }

  // Stores the first n totals as the next n outputs.
  void flush(int64_t& n) {
    if (n == 0) return;
    if constexpr (!std::is_integral_v<Total>) {
      if (mean_) {
        for (int64_t i = 0; i < n; ++i) totals_[i] /= static_cast<Total>(count_);
      }
    }
    store_row<Total>(totals_, n, out_type_, dst_ + written_ * out_size_);
    written_ += n;
    n = 0;
  }

  ScalarType in_type_;
  ScalarType op_type_;
  ScalarType out_type_;
  size_t in_size_;
  size_t out_size_;
  bool direct_;
  bool bfloat16_in_place_;
  bool narrow_in_place_;
  bool wrap_;
  bool half_widened_;
  bool mean_;
  int64_t count_;
  const char* src_;
  char* dst_;
  int64_t written_ = 0;
  C block_[kTotalBlock];
  Total totals_[kChunk];
};

// Outputs (or blocks of them) are split over ctx's threads; each output is totalled by one
// thread, in the order one thread would, so the results do not depend on the thread count. A
// reduction to a single value stays on one thread.
template <bool kProd>
void accumulate_typed(const KernelRuntimeContext& ctx, const Tensor& self,
                      const ReduceLayout& layout, ScalarType op_type, bool mean, Tensor& out) {
  dispatch_compute_type(op_type, [&](auto tag) {
    using Runner = AccumulateRunner<typename decltype(tag)::type, kProd>;
    if (layout.run_stride == 1) {
      parallel_for(ctx, 0, layout.outputs, items_grain(layout.count),
                   [&](int64_t first, int64_t last) {
                     Runner(self, op_type, mean, layout.count, out).rows(layout, first, last);
                   });
    } else {
      const int64_t width = layout.kept_sizes[layout.kept_dim - 1];
      const int64_t grain = items_grain(layout.count * (width < kChunk ? width : kChunk));
      parallel_for(ctx, 0, Runner::column_blocks(layout), grain, [&](int64_t first, int64_t last) {
        Runner(self, op_type, mean, layout.count, out).columns(layout, first, last);
      });
    }
  });
}

}  // namespace

void accumulate_reduce(const KernelRuntimeContext& ctx, const Tensor& self, DimMask mask,
                       ScalarType op_type, AccumulateKind kind, Tensor& out) {
  if (out.numel() == 0) return;
  ReduceLayout layout;
  make_reduce_layout(self.sizes(), mask, &layout);
  if (kind == AccumulateKind::kProd) {
    accumulate_typed<true>(ctx, self, layout, op_type, false, out);
  } else {
    accumulate_typed<false>(ctx, self, layout, op_type, kind == AccumulateKind::kMean, out);
  }
}

Tensor& accumulate_out(KernelRuntimeContext& ctx, const Tensor& self,
                       std::optional<IntArrayRef> dims, bool keepdim,
                       std::optional<ScalarType> dtype, AccumulateKind kind, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  if (kind == AccumulateKind::kMean) {
    const ScalarType given = dtype.value_or(self.scalar_type());
    KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(given), InvalidArgument, out,
                          "mean(): could not infer output dtype. %s dtype must be either a "
                          "floating point or complex dtype. Got: %s; pass a floating dtype",
                          dtype.has_value() ? "Optional" : "Input", to_string(given));
    KILN_KERNEL_CHECK_MSG(ctx, dtype.has_value() || is_floating_type(out.scalar_type()),
                          InvalidArgument, out,
                          "result type Float can't be cast to the desired output type %s; pass "
                          "a floating out tensor",
                          to_string(out.scalar_type()));
  }
  // The op computes in `dtype` when given (out must match it), else in out's dtype.
  const ScalarType op_type = dtype.value_or(out.scalar_type());
  if (!check_supported_dtype(ctx, op_type, "the op dtype")) return out;
  if (!check_out_dtype_is(ctx, out, op_type)) return out;
  DimMask mask = 0;
  if (!make_dim_mask(ctx, dims, self.dim(), &mask)) return out;
  if (!resize_reduced(ctx, self, mask, keepdim, out)) return out;
  accumulate_reduce(ctx, self, mask, op_type, kind, out);
  return out;
}

}  // namespace kiln::portable
