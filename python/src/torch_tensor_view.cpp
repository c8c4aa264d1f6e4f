// TensorSlot: the Kiln view of a torch tensor's memory, and the resizer that keeps an out's view
// in step with torch's resize_.
#include "torch_tensor_view.h"

#include "runtime/core/dim_order.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

Error resize_through_torch(TensorImpl& impl, ArrayRef<SizesType> sizes, void* user) {
  auto& slot = *static_cast<TensorSlot*>(user);
  const size_t dim = sizes.size();
  if (dim > kTensorDimensionLimit) return Error::NotSupported;
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
    slot.torch_tensor.attr("resize_")(shape);
    if (!is_default_dim_order({dim_order.data(), dim})) {
      slot.torch_tensor.attr("as_strided_")(shape, torch_strides);
    }
    const auto data = slot.torch_tensor.attr("data_ptr")().cast<uintptr_t>();
    for (size_t i = 0; i < dim; ++i) slot.sizes[i] = sizes[i];
    slot.dim_order = dim_order;
    slot.strides = strides;
    impl.set_metadata_arrays(dim, slot.sizes.data(), slot.dim_order.data(), slot.strides.data());
    impl.set_storage(reinterpret_cast<void*>(data), impl.nbytes());
  } catch (py::error_already_set& e) {
    slot.resize_error = e.what();
    return Error::NotSupported;
  }
  return Error::Ok;
}

}  // namespace

Tensor TensorSlot::make_view(py::object tensor, void* data, ScalarType dtype, size_t dim,
                             bool is_out) {
  torch_tensor = std::move(tensor);
  resize_error.clear();
  (void)dim_order_to_strides({sizes.data(), dim}, {dim_order.data(), dim}, {strides.data(), dim});
  impl.emplace(dtype, dim, sizes.data(), data, dim_order.data(), strides.data(),
               is_out ? TensorShapeDynamism::DynamicUnbound : TensorShapeDynamism::Static);
  if (is_out) impl->set_resizer(resize_through_torch, this);
  return Tensor(&*impl);
}

}  // namespace kiln::python
