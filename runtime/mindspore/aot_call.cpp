// MindSpore's AOT buffers as Kiln tensors and EValues, and the registry call that runs the op.
#include "runtime/mindspore/aot_call.h"

#include <array>
#include <cstdarg>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/dim_order.h"
#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/heap_memory.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/last_error.h"

namespace kiln::mindspore {
namespace {

// MindSpore runs the kernel on a thread of its own while kiln.mindspore asks why from Python's,
// where the failing thread's kiln::last_error() cannot be read. So the glue hands the channel's
// message over: a copy of what KILN_SET_ERROR wrote, never text of its own.
std::mutex handed_over_mutex;
std::string handed_over;  // guarded by handed_over_mutex

int fail(const char* format, ...) __attribute__((format(printf, 1, 2)));
int fail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  set_last_error_v(format, args);
  va_end(args);
  std::lock_guard<std::mutex> lock(handed_over_mutex);
  handed_over = ::kiln::last_error();
  return 1;
}

// MindSpore's dtype names (mindspore/ops/operations/custom_ops.py hands the kernel these).
std::optional<ScalarType> scalar_type_of(std::string_view name) {
  struct Name {
    std::string_view name;
    ScalarType type;
  };
  static constexpr Name kNames[] = {
      {"float32", ScalarType::Float},  {"float", ScalarType::Float},
      {"float16", ScalarType::Half},   {"bfloat16", ScalarType::BFloat16},
      {"float64", ScalarType::Double}, {"int8", ScalarType::Char},
      {"int16", ScalarType::Short},    {"int32", ScalarType::Int},
      {"int", ScalarType::Int},        {"int64", ScalarType::Long},
      {"uint8", ScalarType::Byte},     {"bool", ScalarType::Bool},
  };
  for (const auto& entry : kNames) {
    if (entry.name == name) return entry.type;
  }
  return std::nullopt;
}

// One MindSpore buffer seen as a Kiln tensor; the metadata arrays outlive the call's EValues.
struct TensorView {
  std::array<SizesType, kTensorDimensionLimit> sizes{};
  std::array<DimOrderType, kTensorDimensionLimit> dim_order{};
  std::array<StridesType, kTensorDimensionLimit> strides{};
  std::optional<TensorImpl> impl;
};

int64_t numel_of(const int64_t* shape, int dim) {
  int64_t numel = 1;
  for (int i = 0; i < dim; ++i) numel *= shape[i];
  return numel;
}

// The value of a one-element tensor as the EValue `kind` asks for, or None on a mismatch.
std::optional<EValue> scalar_value(AotArg kind, ScalarType type, const void* data) {
  const bool is_float = type == ScalarType::Float || type == ScalarType::Double;
  const bool is_int = type == ScalarType::Int || type == ScalarType::Long;
  auto as_double = [&] {
    return type == ScalarType::Float ? static_cast<double>(*static_cast<const float*>(data))
                                     : *static_cast<const double*>(data);
  };
  auto as_int = [&] {
    return type == ScalarType::Int ? static_cast<int64_t>(*static_cast<const int32_t*>(data))
                                   : *static_cast<const int64_t*>(data);
  };
  if (kind == AotArg::Double && is_float) return EValue(as_double());
  if (kind == AotArg::Int && is_int) return EValue(as_int());
  if ((kind == AotArg::Bool || kind == AotArg::Scalar) && type == ScalarType::Bool) {
    return EValue(*static_cast<const bool*>(data));
  }
  if (kind == AotArg::Scalar && is_float) return EValue(Scalar(as_double()));
  if (kind == AotArg::Scalar && is_int) return EValue(Scalar(as_int()));
  return std::nullopt;
}

const char* expected_dtypes(AotArg kind) {
  switch (kind) {
    case AotArg::Int:
      return "int32 or int64";
    case AotArg::Double:
      return "float32 or float64";
    case AotArg::Bool:
      return "bool";
    case AotArg::Scalar:
      return "float32, float64, int32, int64 or bool";
    default:
      return "uint8 or int8";
  }
}

}  // namespace

int run_aot_op(const AotOp& op, int nparam, void** params, const int* ndims, int64_t* const* shapes,
               const char* const* dtypes) {
  if (op.registration != Error::Ok) {
    // The registration ran when the library was loaded, perhaps on another thread, whose
    // last_error() this thread cannot read; the log kept its message.
    return fail("%s: registering the library's kernels failed (%s); the log says why", op.name,
                to_string(op.registration));
  }
  if (nparam < 0 || static_cast<size_t>(nparam) != op.arguments) {
    return fail("%s takes %zu inputs and outputs (%zu inputs, then %zu outputs), got %d", op.name,
                op.arguments, op.arguments - op.outs, op.outs, nparam);
  }
  std::vector<TensorView> views(op.arguments);
  std::vector<EValue> values(op.arguments);
  std::vector<EValue*> stack(op.arguments);
  for (size_t i = 0; i < op.arguments; ++i) {
    const AotArg kind = op.args[i];
    const auto type = scalar_type_of(dtypes[i] != nullptr ? dtypes[i] : "");
    if (!type) {
      return fail("%s: argument %zu has dtype '%s', which Kiln does not take", op.name, i,
                  dtypes[i] != nullptr ? dtypes[i] : "(none)");
    }
    const int dim = ndims[i];
    if (dim < 0 || static_cast<size_t>(dim) > kTensorDimensionLimit) {
      return fail("%s: argument %zu has %d dims; Kiln takes at most %zu", op.name, i, dim,
                  kTensorDimensionLimit);
    }
    const int64_t numel = numel_of(shapes[i], dim);
    stack[i] = &values[i];
    if (kind == AotArg::Tensor || kind == AotArg::OptionalTensor) {
      TensorView& view = views[i];
      for (int d = 0; d < dim; ++d) view.sizes[d] = shapes[i][d];
      fill_default_dim_order({view.dim_order.data(), static_cast<size_t>(dim)});
      (void)dim_order_to_strides({view.sizes.data(), static_cast<size_t>(dim)},
                                 {view.dim_order.data(), static_cast<size_t>(dim)},
                                 {view.strides.data(), static_cast<size_t>(dim)});
      // Static: an out keeps the shape MindSpore allocated, and a kernel asking for another
      // shape fails with both shapes named.
      view.impl.emplace(*type, static_cast<size_t>(dim), view.sizes.data(), params[i],
                        view.dim_order.data(), view.strides.data());
      values[i] = EValue(Tensor(&*view.impl));
      continue;
    }
    if (kind == AotArg::String) {
      if (*type != ScalarType::Byte && *type != ScalarType::Char) {
        return fail("%s: argument %zu is a str, passed as a uint8 tensor of its bytes; got %s",
                    op.name, i, dtypes[i]);
      }
      values[i] =
          EValue(std::string_view(static_cast<const char*>(params[i]), static_cast<size_t>(numel)));
      continue;
    }
    std::optional<EValue> value;
    if (numel == 1) value = scalar_value(kind, *type, params[i]);
    if (!value) {
      return fail(
          "%s: argument %zu is a scalar, passed as a one-element %s tensor; got %s with "
          "%lld elements",
          op.name, i, expected_dtypes(kind), dtypes[i], static_cast<long long>(numel));
    }
    values[i] = *value;
  }
  HeapAllocator temp;
  KernelRuntimeContext ctx(&temp);
  static constexpr Backend kBackends[] = {Backend::Portable};
  const Error error =
      call_operator(ctx, op.name, {stack.data(), stack.size()}, ArrayRef<Backend>(kBackends));
  if (error != Error::Ok) {
    const char* message = ctx.failure_message();
    return fail("%s failed (%s)%s%s", op.name, to_string(error), message[0] ? ": " : "", message);
  }
  return 0;
}

const char* last_error() {
  thread_local std::string
      copy;  // stays valid while another thread's failure replaces the original
  std::lock_guard<std::mutex> lock(handed_over_mutex);
  copy = handed_over;
  return copy.c_str();
}

void clear_last_error() {
  ::kiln::clear_last_error();
  std::lock_guard<std::mutex> lock(handed_over_mutex);
  handed_over.clear();
}

}  // namespace kiln::mindspore
