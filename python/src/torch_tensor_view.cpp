// TensorSlot: the Kiln view of a torch tensor's memory, and the resizer that keeps an out's view
// (and every view sharing its storage) in step with torch's resize_.
#include "torch_tensor_view.h"

#include <cstdint>
#include <utility>

#include "runtime/core/dim_order.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

std::string shape_text(ArrayRef<SizesType> sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(sizes[i]);
  }
  return text + "]";
}

// The bytes a view covers, empty for an empty tensor (which shares nothing). A view of several
// rows (dim 0) also records where its rows lie: every `row_stride` bytes, `row_bytes` long.
struct Range {
  uintptr_t begin;
  uintptr_t end;
  uintptr_t row_stride;
  uintptr_t row_bytes;
};

Range range_of(const TensorImpl& impl) {
  const auto begin = reinterpret_cast<uintptr_t>(impl.data());
  if (impl.numel() == 0) return {begin, begin, 0, 0};
  // The last element's offset: one past it ends the view (strides are never negative here).
  int64_t last = 0;
  for (size_t d = 0; d < impl.dim(); ++d) last += (impl.sizes()[d] - 1) * impl.strides()[d];
  const size_t size = impl.element_size();
  const int64_t rows = impl.dim() > 0 ? impl.sizes()[0] : 1;
  const auto row_bytes = static_cast<uintptr_t>(impl.numel() / rows * size);
  const auto row_stride = static_cast<uintptr_t>(rows > 1 ? impl.strides()[0] * size : 0);
  return {begin, begin + static_cast<uintptr_t>(last + 1) * size, row_stride, row_bytes};
}

// Whether two views whose rows repeat with one period (row views of one buffer, such as the
// query and key of `qkv.split(...)`) keep to disjoint bytes of each period.
bool rows_interleave(Range a, Range b) {
  if (a.row_stride == 0 || a.row_stride != b.row_stride) return false;
  if (b.begin < a.begin) std::swap(a, b);
  const uintptr_t shift = (b.begin - a.begin) % a.row_stride;
  return a.row_bytes <= shift && shift + b.row_bytes <= a.row_stride;
}

Overlap overlap_of(Range a, Range b) {
  if (a.begin == a.end || b.begin == b.end) return Overlap::None;
  if (a.end <= b.begin || b.end <= a.begin) return Overlap::None;
  if (a.begin == b.begin && a.end == b.end && a.row_stride == b.row_stride) return Overlap::Full;
  return rows_interleave(a, b) ? Overlap::None : Overlap::Partial;
}

// torch grew the storage that held [old_base, old_base + old_bytes) by moving it to new_base
// (keeping its contents): the call's other views into it follow, as torch's own views do.
void follow_moved_storage(TensorSlot& moved, uintptr_t old_base, size_t old_bytes,
                          uintptr_t new_base) {
  for (TensorSlot* peer = moved.call->last; peer != nullptr; peer = peer->previous) {
    if (peer == &moved || !peer->impl) continue;
    const auto data = reinterpret_cast<uintptr_t>(peer->impl->data());
    if (data < old_base || data >= old_base + old_bytes) continue;
    peer->impl->set_storage(reinterpret_cast<void*>(new_base + (data - old_base)),
                            peer->impl->capacity_bytes());
  }
}

Error resize_through_torch(TensorImpl& impl, ArrayRef<SizesType> sizes, void* user) {
  auto& slot = *static_cast<TensorSlot*>(user);
  const size_t dim = sizes.size();
  if (dim > kTensorDimensionLimit) return Error::NotSupported;
  if (slot.aliases_input) {
    // torch refuses to resize an out that is also an input ("output with shape ... doesn't
    // match the broadcast shape ..."): resizing would free the memory the input is read from.
    slot.resize_error =
        "the out tensor is also an input of this call and would have to be "
        "resized from " +
        shape_text(impl.sizes()) + " to " + shape_text(sizes) + "; pass a separate out tensor";
    return Error::InvalidArgument;
  }
  // The dim order stays when the rank does (as TensorImpl::resize keeps it); else contiguous.
  std::array<DimOrderType, kTensorDimensionLimit> dim_order = slot.dim_order;
  if (dim != impl.dim()) fill_default_dim_order({dim_order.data(), dim});
  std::array<StridesType, kTensorDimensionLimit> strides{};
  (void)dim_order_to_strides(sizes, {dim_order.data(), dim}, {strides.data(), dim});
  py::gil_scoped_acquire gil;
  try {
    py::tuple shape(dim);
    py::tuple torch_strides(dim);
    for (size_t i = 0; i < dim; ++i) {
      shape[i] = sizes[i];
      torch_strides[i] = strides[i];
    }
    py::object storage = slot.torch_tensor.attr("untyped_storage")();
    const auto old_base = storage.attr("data_ptr")().cast<uintptr_t>();
    const auto old_bytes = storage.attr("nbytes")().cast<size_t>();
    slot.torch_tensor.attr("resize_")(shape);
    if (!is_default_dim_order({dim_order.data(), dim})) {
      slot.torch_tensor.attr("as_strided_")(shape, torch_strides);
    }
    const auto new_base =
        slot.torch_tensor.attr("untyped_storage")().attr("data_ptr")().cast<uintptr_t>();
    const auto data = slot.torch_tensor.attr("data_ptr")().cast<uintptr_t>();
    for (size_t i = 0; i < dim; ++i) slot.sizes[i] = sizes[i];
    slot.dim_order = dim_order;
    slot.strides = strides;
    impl.set_metadata_arrays(dim, slot.sizes.data(), slot.dim_order.data(), slot.strides.data());
    impl.set_storage(reinterpret_cast<void*>(data), impl.nbytes());
    if (new_base != old_base && old_bytes > 0) {
      follow_moved_storage(slot, old_base, old_bytes, new_base);
    }
  } catch (py::error_already_set& e) {
    slot.resize_error = e.what();
    return Error::NotSupported;
  }
  return Error::Ok;
}

}  // namespace

bool TensorSlot::compute_strides(size_t dim) {
  return dim_order_to_strides({sizes.data(), dim}, {dim_order.data(), dim},
                              {strides.data(), dim}) == Error::Ok;
}

Overlap TensorSlot::make_view(py::object tensor, void* data, ScalarType dtype, size_t dim, bool out,
                              CallTensors& tensors, Tensor* view) {
  torch_tensor = std::move(tensor);
  resize_error.clear();
  is_out = out;
  aliases_input = false;
  impl.emplace(dtype, dim, sizes.data(), data, dim_order.data(), strides.data(),
               is_out ? TensorShapeDynamism::DynamicUnbound : TensorShapeDynamism::Static);
  if (is_out) impl->set_resizer(resize_through_torch, this);
  *view = Tensor(&*impl);
  Overlap worst = Overlap::None;
  const Range mine = range_of(*impl);
  for (TensorSlot* other = tensors.last; other != nullptr; other = other->previous) {
    if (other->is_out == is_out) continue;  // torch compares each out with each input
    const Overlap overlap = overlap_of(mine, range_of(*other->impl));
    if (overlap == Overlap::Full) (is_out ? aliases_input : other->aliases_input) = true;
    if (overlap == Overlap::Partial) worst = Overlap::Partial;
  }
  previous = tensors.last;
  call = &tensors;
  tensors.last = this;
  return worst;
}

}  // namespace kiln::python
