// max_pool2d_with_indices_backward.grad_input: routes each grad_output element to the input
// element its window's max came from (indices, as max_pool2d_with_indices writes them: h * W + w
// within the plane), summing where windows share a max.
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/spatial/pooling.h"
#include "runtime/core/half.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// `tensor` has input's shape with the last two dims out_h, out_w (as the forward's outputs do).
bool check_pooled_shape(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                        const Tensor& input, const Pool2dGeometry& g) {
  const int64_t dim = input.dim();
  for (int64_t d = 0; d < dim; ++d) {
    const int64_t expected = d == dim - 2 ? g.out_h : d == dim - 1 ? g.out_w : input.size(d);
    const bool fits = tensor.dim() == dim && tensor.size(d) == expected;
    KILN_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, false,
                          "%s: Expected a tensor of dimension %lld and tensor.size[%lld] == %lld "
                          "but got: dimension %lld and tensor.size[%lld] = %lld",
                          name, static_cast<long long>(dim), static_cast<long long>(d),
                          static_cast<long long>(expected), static_cast<long long>(tensor.dim()),
                          static_cast<long long>(d),
                          static_cast<long long>(tensor.dim() > d ? tensor.size(d) : -1));
  }
  return true;
}

// grad_input[plane][index] += grad_output[plane][o], in T's own arithmetic (each sum rounded to
// T, in ATen's order); index -1 means no max, as in ATen. False on an index outside the plane.
template <typename T>
bool route_gradients(const T* grad_output, const int64_t* indices, const Pool2dGeometry& g,
                     T* grad_input, int64_t* bad_index) {
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t out_plane = g.out_h * g.out_w;
  for (int64_t i = 0; i < g.planes * in_plane; ++i) grad_input[i] = T(0);
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    T* dst = grad_input + plane * in_plane;
    for (int64_t o = 0; o < out_plane; ++o) {
      const int64_t index = *indices++;
      const T value = *grad_output++;
      if (index == -1) continue;
      if (index < 0 || index >= in_plane) {
        *bad_index = index;
        return false;
      }
      dst[index] = static_cast<T>(dst[index] + value);
    }
  }
  return true;
}

}  // namespace

Tensor& max_pool2d_with_indices_backward_out(KernelRuntimeContext& ctx, const Tensor& grad_output,
                                             const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding,
                                             IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& indices, Tensor& grad_input) {
  if (!check_tensor(ctx, grad_output, "grad_output") || !check_tensor(ctx, self, "self") ||
      !check_tensor(ctx, indices, "indices") || !check_tensor(ctx, grad_input, "grad_input")) {
    return grad_input;
  }
  Pool2dGeometry g;
  if (!pool2d_geometry(ctx, "max_pool2d_with_indices_backward", self, kernel_size, stride, padding,
                       dilation, ceil_mode, &g)) {
    return grad_input;
  }
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype), InvalidType, grad_input,
                        "\"max_pool2d_backward\" not implemented for '%s'", to_string(dtype));
  KILN_KERNEL_CHECK_MSG(ctx, grad_output.scalar_type() == dtype, InvalidArgument, grad_input,
                        "expected dtype %s for `gradOutput` but got dtype %s", to_string(dtype),
                        to_string(grad_output.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, indices.scalar_type() == ScalarType::Long, InvalidArgument, grad_input,
                        "expected scalar type Long but found %s for indices",
                        to_string(indices.scalar_type()));
  if (!check_out_dtype_is(ctx, grad_input, dtype) ||
      !check_pooled_shape(ctx, grad_output, "grad_output", self, g) ||
      !check_pooled_shape(ctx, indices, "indices", self, g) ||
      !resize_or_fail(ctx, grad_input, self.sizes())) {
    return grad_input;
  }
  bool ok = true;
  int64_t bad_index = 0;
  dispatch_element_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      ok = route_gradients(grad_output.const_data_ptr<T>(), indices.const_data_ptr<int64_t>(), g,
                           grad_input.mutable_data_ptr<T>(), &bad_index);
    }
  });
  KILN_KERNEL_CHECK_MSG(ctx, ok, InvalidArgument, grad_input,
                        "indices holds %lld, outside an input plane of %lld x %lld elements "
                        "(max_pool2d_with_indices gives such an index to a window that holds no "
                        "input element); pass the indices it returned for these arguments, with "
                        "windows that reach the input",
                        static_cast<long long>(bad_index), static_cast<long long>(g.in_h),
                        static_cast<long long>(g.in_w));
  return grad_input;
}

}  // namespace kiln::portable::native
