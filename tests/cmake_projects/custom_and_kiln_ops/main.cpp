// Runs the user's acme::double_it and Kiln's aten::sigmoid, aten::copy_ and
// dim_order_ops::_clone_dim_order (from Kiln's custom_ops.yaml) from one operator library.
#include <cstdio>
#include <optional>

#include "Functions.h"
#include "RegisterKernels.h"
#include "runtime/core/dense_tensor.h"

int main() {
  if (kiln::Error error = register_acme_ops_kernels(); error != kiln::Error::Ok) {
    std::printf("registration failed: %s\n", kiln::to_string(error));
    return 1;
  }
  float x_data[3] = {-1, 0, 2};
  float doubled_data[3] = {};
  float sigmoid_data[3] = {};
  kiln::DenseTensor<1> x(kiln::ScalarType::Float, {3}, x_data);
  kiln::DenseTensor<1> doubled(kiln::ScalarType::Float, {3}, doubled_data);
  kiln::DenseTensor<1> sigmoid(kiln::ScalarType::Float, {3}, sigmoid_data);
  kiln::Tensor doubled_out = doubled.tensor();
  kiln::Tensor sigmoid_out = sigmoid.tensor();
  kiln::KernelRuntimeContext ctx;
  kiln::acme::double_it_outf(ctx, x.tensor(), doubled_out);
  kiln::aten::sigmoid_outf(ctx, doubled_out, sigmoid_out);
  float rows_data[6] = {};
  kiln::DenseTensor<2> rows(kiln::ScalarType::Float, {2, 3}, rows_data);
  kiln::Tensor rows_self = rows.tensor();
  kiln::aten::copy_(ctx, rows_self, doubled_out, false);  // broadcasts the row
  float clone_data[6] = {};
  kiln::DenseTensor<2> clone(kiln::ScalarType::Float, {2, 3}, clone_data);
  kiln::Tensor clone_out = clone.tensor();
  kiln::dim_order_ops::_clone_dim_order_outf(ctx, rows_self, false, std::nullopt, clone_out);
  if (ctx.failure_state() != kiln::Error::Ok) {
    std::printf("failed: %s\n", ctx.failure_message());
    return 1;
  }
  std::printf("doubled: %g %g %g\n", doubled_data[0], doubled_data[1], doubled_data[2]);
  std::printf("sigmoid: %.4f %.4f %.4f\n", sigmoid_data[0], sigmoid_data[1], sigmoid_data[2]);
  std::printf("clone of copy_:");
  for (float value : clone_data) std::printf(" %g", value);
  std::printf("\n");
  return 0;
}
