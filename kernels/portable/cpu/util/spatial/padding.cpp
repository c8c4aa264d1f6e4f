// reflection_pad*d and replication_pad*d's shared body: checks, then a gather of rows.
#include "kernels/portable/cpu/util/spatial/padding.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"

namespace kiln::portable {
namespace {

constexpr int64_t kMaxSpatialDims = 3;

// The input index that output position u (in input coordinates: output index minus the leading
// pad) reads from an input dim of size n.
template <PadMode kMode>
KILN_ALWAYS_INLINE int64_t source_index(int64_t u, int64_t n) {
  if constexpr (kMode == PadMode::kReflection) {
    return u < 0 ? -u : (u >= n ? 2 * (n - 1) - u : u);
  } else {
    return u < 0 ? 0 : (u >= n ? n - 1 : u);
  }
}

// The shape of the padded dims, innermost last, with 1 for the dims a 1-d or 2-d op lacks.
struct PadGeometry {
  int64_t planes;     // product of the unpadded leading dims
  int64_t in[3];      // depth, height, width of the input
  int64_t out[3];     // ... and of the output
  int64_t before[3];  // leading pad per dim (negative crops)
};

// Copies every output row: one memcpy for the part inside the input, single elements for the
// padded edges. Elements move as `Word`s (1, 2, 4 or 8 bytes), so one loop serves every dtype.
template <typename Word, PadMode kMode>
KILN_ALWAYS_INLINE void pad_rows(const Word* __restrict src, Word* __restrict dst,
                                 const PadGeometry& g) {
  const int64_t planes = g.planes;
  const int64_t in_d = g.in[0], in_h = g.in[1], in_w = g.in[2];
  const int64_t out_d = g.out[0], out_h = g.out[1], out_w = g.out[2];
  const int64_t pad_d = g.before[0], pad_h = g.before[1], pad_w = g.before[2];
  // Output columns [mid_begin, mid_end) copy input columns straight; the rest are padding.
  const int64_t mid_begin = pad_w > 0 ? (pad_w < out_w ? pad_w : out_w) : 0;
  int64_t mid_end = pad_w + in_w < out_w ? pad_w + in_w : out_w;
  mid_end = mid_end > mid_begin ? mid_end : mid_begin;
  for (int64_t plane = 0; plane < planes; ++plane) {
    for (int64_t z = 0; z < out_d; ++z) {
      const int64_t zi = source_index<kMode>(z - pad_d, in_d);
      for (int64_t y = 0; y < out_h; ++y) {
        const int64_t yi = source_index<kMode>(y - pad_h, in_h);
        const Word* __restrict row = src + ((plane * in_d + zi) * in_h + yi) * in_w;
        Word* __restrict to = dst + ((plane * out_d + z) * out_h + y) * out_w;
        for (int64_t x = 0; x < mid_begin; ++x) to[x] = row[source_index<kMode>(x - pad_w, in_w)];
        std::memcpy(to + mid_begin, row + (mid_begin - pad_w),
                    static_cast<size_t>(mid_end - mid_begin) * sizeof(Word));
        for (int64_t x = mid_end; x < out_w; ++x) {
          to[x] = row[source_index<kMode>(x - pad_w, in_w)];
        }
      }
    }
  }
}

template <PadMode kMode>
KILN_HOT_LOOP void pad_words(const void* src, void* dst, size_t element_size,
                             const PadGeometry& g) {
  switch (element_size) {
    case 1:
      return pad_rows<uint8_t, kMode>(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst),
                                      g);
    case 2:
      return pad_rows<uint16_t, kMode>(static_cast<const uint16_t*>(src),
                                       static_cast<uint16_t*>(dst), g);
    case 4:
      return pad_rows<uint32_t, kMode>(static_cast<const uint32_t*>(src),
                                       static_cast<uint32_t*>(dst), g);
    default:
      return pad_rows<uint64_t, kMode>(static_cast<const uint64_t*>(src),
                                       static_cast<uint64_t*>(dst), g);
  }
}

// ATen's input rule: rank spatial + 1 (no batch) or spatial + 2 (a batch, which may be empty);
// every other dim non-empty.
bool check_input_shape(KernelRuntimeContext& ctx, const Tensor& self, int64_t spatial) {
  const int64_t rank = self.dim();
  bool valid = rank == spatial + 1 || rank == spatial + 2;
  for (int64_t d = rank == spatial + 2 ? 1 : 0; valid && d < rank; ++d) valid = self.size(d) > 0;
  KILN_KERNEL_CHECK_MSG(ctx, valid, InvalidArgument, false,
                        "Expected %lldD or %lldD (batch mode) tensor with possibly 0 batch size "
                        "and other non-zero dimensions for input, but got: %s",
                        static_cast<long long>(spatial + 1), static_cast<long long>(spatial + 2),
                        format_shape(self.sizes()).text);
  return true;
}

// "D: 4 H: 5, W: 6", the padded dims' sizes for the too-small message.
void format_dims(char* text, size_t capacity, int64_t spatial, const int64_t* sizes) {
  static const char* const kNames[kMaxSpatialDims] = {"D", "H", "W"};
  size_t used = 0;
  text[0] = '\0';
  for (int64_t i = kMaxSpatialDims - spatial; i < kMaxSpatialDims && used < capacity; ++i) {
    used += static_cast<size_t>(std::snprintf(text + used, capacity - used, "%s%s: %lld",
                                              used == 0 ? "" : (i == 2 ? ", " : " "), kNames[i],
                                              static_cast<long long>(sizes[i])));
  }
}

}  // namespace

Tensor& pad_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef padding,
                int64_t spatial_dims, PadMode mode, const char* op, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(padding.size()) == 2 * spatial_dims,
                        InvalidArgument, out, "padding size is expected to be %lld, but got: %zu",
                        static_cast<long long>(2 * spatial_dims), padding.size());
  if (!check_input_shape(ctx, self, spatial_dims)) return out;
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, dtype != ScalarType::Bool, InvalidType, out,
                        "\"%s\" not implemented for 'Bool'; convert the input to Byte first", op);

  const int64_t rank = self.dim();
  PadGeometry g{1, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}};
  for (int64_t d = 0; d < rank - spatial_dims; ++d) g.planes *= self.size(d);
  bool any_positive = false;
  for (int64_t i = 0; i < spatial_dims; ++i) {
    const int64_t slot = kMaxSpatialDims - 1 - i;  // padding pair i pads the i-th dim from last
    const int64_t dim = rank - 1 - i;
    const int64_t size = self.size(dim);
    const int64_t left = padding[2 * i], right = padding[2 * i + 1];
    if (mode == PadMode::kReflection) {
      KILN_KERNEL_CHECK_MSG(ctx, left < size && right < size, InvalidArgument, out,
                            "Argument #%lld: Padding size should be less than the corresponding "
                            "input dimension, but got: padding (%lld, %lld) at dimension %lld of "
                            "input %s",
                            static_cast<long long>(4 + 2 * i), static_cast<long long>(left),
                            static_cast<long long>(right), static_cast<long long>(dim),
                            format_shape(self.sizes()).text);
    }
    g.in[slot] = size;
    g.before[slot] = left;
    g.out[slot] = size + left + right;
    any_positive = any_positive || g.out[slot] >= 1;
  }
  if (!any_positive) {
    char in_text[64], out_text[64];
    format_dims(in_text, sizeof(in_text), spatial_dims, g.in);
    format_dims(out_text, sizeof(out_text), spatial_dims, g.out);
    ctx.fail(Error::InvalidArgument, "input (%s) is too small. Calculated output %s", in_text,
             out_text);
    return out;
  }
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t slot = d - (rank - kMaxSpatialDims);
    sizes[d] = d < rank - spatial_dims ? self.size(d) : g.out[slot];
    KILN_KERNEL_CHECK_MSG(ctx, sizes[d] >= 0, InvalidArgument, out,
                          "Trying to create tensor with negative dimension %lld: the padding "
                          "crops dimension %lld of input %s below size 0",
                          static_cast<long long>(sizes[d]), static_cast<long long>(d),
                          format_shape(self.sizes()).text);
  }
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)})) return out;
  if (out.numel() == 0) return out;
  if (mode == PadMode::kReflection) {
    pad_words<PadMode::kReflection>(self.const_data_ptr(), out.mutable_data_ptr(),
                                    self.element_size(), g);
  } else {
    pad_words<PadMode::kReplication>(self.const_data_ptr(), out.mutable_data_ptr(),
                                     self.element_size(), g);
  }
  return out;
}

}  // namespace kiln::portable
