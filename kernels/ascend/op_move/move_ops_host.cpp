// Host wrappers of the shape ops on Ascend: permute_copy, expand_copy, select_copy,
// split_with_sizes_copy, cat and _clone_dim_order, each one strided move per output (cat: one
// per input, into a shared destination). Arguments the portable kernel would reject decline, so
// that kernel reports them.
#include <cstdint>
#include <optional>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/op_move/move_host.h"

namespace kiln::ascend {
namespace {

constexpr size_t kMaxRank = MoveShape::kMaxRank;

// `dim` in [-rank, rank) as a dim of a rank-`rank` tensor.
bool wrap(int64_t dim, int64_t rank, int64_t* wrapped) {
  if (dim < -rank || dim >= rank) return false;
  *wrapped = dim < 0 ? dim + rank : dim;
  return true;
}

// self and out of one dtype the kernel moves, both in the default dim order; the width.
bool accept_pair(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& out, size_t* width) {
  return accept_move_tensor(ctx, self, "self", width) &&
         accept_tensor(ctx, self, "self", self.scalar_type()) &&
         accept_tensor(ctx, out, "out", self.scalar_type());
}

// out (already resized) filled from self through the source strides of out's dims.
void move_self(KernelRuntimeContext& ctx, const Tensor& self, size_t width,
               const int64_t* src_strides, int64_t src_offset, Tensor& out) {
  if (out.numel() == 0) return;
  MoveSource src;
  if (!src.upload(ctx, self)) return;
  (void)move_into(ctx, src, width, out_shape(out, src_strides, src_offset), out);
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dims,
                         Tensor& out) {
  size_t width = 0;
  if (!accept_pair(ctx, self, out, &width)) return out;
  const int64_t rank = self.dim();
  if (static_cast<int64_t>(dims.size()) != rank) {
    decline(ctx, "dims that do not list each of self's dims once");
    return out;
  }
  bool seen[kMaxRank] = {};
  SizesType sizes[kMaxRank];
  int64_t src_strides[kMaxRank];
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = 0;
    if (!wrap(dims[i], rank, &d) || seen[d]) {
      decline(ctx, "dims that do not list each of self's dims once");
      return out;
    }
    seen[d] = true;
    sizes[i] = self.size(d);
    src_strides[i] = self.strides()[static_cast<size_t>(d)];
  }
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)})) return out;
  move_self(ctx, self, width, src_strides, 0, out);
  return out;
}

Tensor& expand_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef size,
                        bool /*implicit*/, Tensor& out) {
  size_t width = 0;
  if (!accept_pair(ctx, self, out, &width)) return out;
  const int64_t rank = self.dim();
  const int64_t ndim = static_cast<int64_t>(size.size());
  if (ndim < rank || ndim > static_cast<int64_t>(kMaxRank)) {
    decline(ctx, "an expand to %lld dims of a %lld-dim self", static_cast<long long>(ndim),
            static_cast<long long>(rank));
    return out;
  }
  SizesType sizes[kMaxRank];
  int64_t src_strides[kMaxRank];
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t d = i - (ndim - rank);
    int64_t target = size[i];
    const int64_t have = d < 0 ? 1 : self.size(d);
    if (d >= 0 && target == -1) target = have;
    if (target < 0 || (have != target && have != 1)) {
      decline(ctx, "the expand size %lld for dim %lld", static_cast<long long>(size[i]),
              static_cast<long long>(i));
      return out;
    }
    sizes[i] = static_cast<SizesType>(target);
    src_strides[i] = d >= 0 && have == target ? self.strides()[static_cast<size_t>(d)] : 0;
  }
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(ndim)})) return out;
  move_self(ctx, self, width, src_strides, 0, out);
  return out;
}

Tensor& select_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                            int64_t index, Tensor& out) {
  size_t width = 0;
  if (!accept_pair(ctx, self, out, &width)) return out;
  const int64_t rank = self.dim();
  int64_t d = 0;
  if (!wrap(dim, rank, &d) || index < -self.size(d) || index >= self.size(d)) {
    decline(ctx, "select(dim=%lld, index=%lld) of a %lld-dim self", static_cast<long long>(dim),
            static_cast<long long>(index), static_cast<long long>(rank));
    return out;
  }
  if (index < 0) index += self.size(d);
  SizesType sizes[kMaxRank];
  int64_t src_strides[kMaxRank];
  size_t m = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == d) continue;
    sizes[m] = self.size(i);
    src_strides[m++] = self.strides()[static_cast<size_t>(i)];
  }
  if (!resize_or_fail(ctx, out, {sizes, m})) return out;
  move_self(ctx, self, width, src_strides, index * self.strides()[static_cast<size_t>(d)], out);
  return out;
}

void split_with_sizes_copy_out(KernelRuntimeContext& ctx, const Tensor& self,
                               IntArrayRef split_sizes, int64_t dim, ArrayRef<Tensor> out) {
  size_t width = 0;
  if (!accept_move_tensor(ctx, self, "self", &width) ||
      !accept_tensor(ctx, self, "self", self.scalar_type())) {
    return;
  }
  const int64_t rank = self.dim();
  int64_t d = 0;
  int64_t total = 0;
  bool valid = rank > 0 && wrap(dim, rank, &d) && out.size() == split_sizes.size();
  for (size_t i = 0; valid && i < split_sizes.size(); ++i) {
    valid = split_sizes[i] >= 0 && split_sizes[i] <= self.size(d) - total;
    total += split_sizes[i];
  }
  if (!valid || total != self.size(d)) {
    decline(ctx, "split_sizes that do not cut self's dim %lld", static_cast<long long>(dim));
    return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!accept_tensor(ctx, out[i], "out", self.scalar_type())) return;
  }
  SizesType sizes[kMaxRank];
  int64_t src_strides[kMaxRank];
  for (int64_t i = 0; i < rank; ++i) {
    sizes[i] = self.size(i);
    src_strides[i] = self.strides()[static_cast<size_t>(i)];
  }
  MoveSource src;
  if (self.numel() > 0 && !src.upload(ctx, self)) return;
  int64_t start = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    sizes[d] = static_cast<SizesType>(split_sizes[i]);
    Tensor piece = out[i];
    if (!resize_or_fail(ctx, piece, {sizes, static_cast<size_t>(rank)})) return;
    if (piece.numel() > 0) {
      const int64_t offset = start * self.strides()[static_cast<size_t>(d)];
      if (!move_into(ctx, src, width, out_shape(piece, src_strides, offset), piece)) return;
    }
    start += split_sizes[i];
  }
}

Tensor& cat_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t dim, Tensor& out) {
  size_t width = 0;
  if (tensors.size() == 0 || !accept_move_tensor(ctx, out, "out", &width) ||
      !accept_tensor(ctx, out, "out", out.scalar_type())) {
    if (tensors.size() == 0) decline(ctx, "an empty list of tensors");
    return out;
  }
  const Tensor& ref = tensors[0];
  const int64_t rank = ref.dim();
  int64_t d = 0;
  if (rank == 0 || !wrap(dim, rank, &d)) {
    decline(ctx, "cat(dim=%lld) of %lld-dim tensors", static_cast<long long>(dim),
            static_cast<long long>(rank));
    return out;
  }
  SizesType sizes[kMaxRank];
  for (int64_t j = 0; j < rank; ++j) sizes[j] = ref.size(j);
  sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (!accept_tensor(ctx, t, "tensors", out.scalar_type())) return out;
    bool same = t.dim() == rank;
    for (int64_t j = 0; same && j < rank; ++j) same = j == d || t.size(j) == ref.size(j);
    if (!same) {
      decline(ctx, "tensors whose sizes differ outside the cat dim");
      return out;
    }
    sizes[d] += t.size(d);
  }
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)}) || out.numel() == 0) {
    return out;
  }
  // Every input writes whole rows of out's trailing dims after the cat dim.
  uint64_t row_len = 1;
  for (int64_t j = d + 1; j < rank; ++j) row_len *= static_cast<uint64_t>(sizes[j]);
  const uint64_t rows = move_rows(static_cast<uint64_t>(out.numel()), row_len);
  MoveTiling tiling;
  MoveDestination dst;
  bool allocated = false;
  int64_t start = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.numel() == 0) continue;
    MoveShape shape;
    for (int64_t j = 0; j < rank; ++j) {
      const size_t k = static_cast<size_t>(j);
      shape.add(t.size(j), t.strides()[k], out.strides()[k]);
    }
    shape.dst_offset = start * out.strides()[static_cast<size_t>(d)];
    start += t.size(d);
    MoveSource src;
    if (!src.upload(ctx, t) ||
        !plan_move_or_decline(ctx, shape, row_len, rows, width, src.elems(), &tiling)) {
      return out;
    }
    if (!allocated && !dst.allocate(ctx, rows, tiling.row_len, tiling.pitch, width)) return out;
    allocated = true;
    if (!launch_move(ctx, width, tiling, src.get(), nullptr, dst.get())) return out;
  }
  (void)dst.download(ctx, out);
  return out;
}

Tensor& _clone_dim_order_out(KernelRuntimeContext& ctx, const Tensor& self, bool /*non_blocking*/,
                             std::optional<IntArrayRef> dim_order, Tensor& out) {
  size_t width = 0;
  if (!accept_move_tensor(ctx, self, "self", &width)) return out;
  if (out.scalar_type() != self.scalar_type()) {
    decline(ctx, "out of dtype %s with %s", to_string(out.scalar_type()),
            to_string(self.scalar_type()));
    return out;
  }
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  const size_t rank = static_cast<size_t>(self.dim());
  bool same = !dim_order.has_value() || dim_order->size() == rank;
  for (size_t i = 0; same && i < rank; ++i) {
    const int64_t wanted = dim_order.has_value() ? (*dim_order)[i] : self.dim_order()[i];
    same = out.dim_order()[i] == wanted;
  }
  if (!same) {
    decline(ctx, "out whose dim order is not the one asked for");
    return out;
  }
  int64_t src_strides[kMaxRank];
  for (size_t i = 0; i < rank; ++i) src_strides[i] = self.strides()[i];
  move_self(ctx, self, width, src_strides, 0, out);
  return out;
}

}  // namespace kiln::ascend::native
