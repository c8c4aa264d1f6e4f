// MindSpore's AOT buffers as Kiln tensors and EValues, and the registry call that runs the op.
#include "runtime/mindspore/aot_call.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/dim_order.h"
#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/heap_memory.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/log.h"

namespace kiln::mindspore {
namespace {

// MindSpore runs the kernel on a thread of its own while kiln.mindspore asks why from Python's,
// where the failing thread's kiln::last_error() cannot be read. So the glue hands the message
// over: a copy of what KILN_SET_ERROR wrote, or, while a reporting caller has a call in flight,
// the same text formatted here and not logged, since that caller raises it.
std::mutex handed_over_mutex;
std::string handed_over;              // guarded by handed_over_mutex
Error handed_over_error = Error::Ok;  // guarded by handed_over_mutex
std::atomic<int> reported_calls{0};

// As long as kiln::last_error()'s buffer: a message is cut at the same length either way.
constexpr size_t kMessageCapacity = 512;

int fail(Error error, const char* format, ...) __attribute__((format(printf, 2, 3)));
int fail(Error error, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string message;
  if (reported_calls.load(std::memory_order_acquire) > 0) {
    char raw[kMessageCapacity];
    const int written = std::vsnprintf(raw, sizeof(raw), format, args);
    const size_t length = written < 0 ? 0 : std::min(static_cast<size_t>(written), sizeof(raw) - 1);
    char clean[kMessageCapacity];
    printable(raw, length, clean, sizeof(clean));
    message = clean;
  } else {
    set_last_error_v(format, args);
    message = ::kiln::last_error();
  }
  va_end(args);
  std::lock_guard<std::mutex> lock(handed_over_mutex);
  handed_over = std::move(message);
  handed_over_error = error;
  return 1;
}

const char* plural(size_t count, const char* one, const char* many) {
  return count == 1 ? one : many;
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

// The tensor of shape `shape` (`dim` dims) and dtype `type` at `data`, in the default dim order.
void view_tensor(TensorView& view, ScalarType type, int dim, const int64_t* shape, void* data) {
  for (int d = 0; d < dim; ++d) view.sizes[d] = shape[d];
  fill_default_dim_order({view.dim_order.data(), static_cast<size_t>(dim)});
  (void)dim_order_to_strides({view.sizes.data(), static_cast<size_t>(dim)},
                             {view.dim_order.data(), static_cast<size_t>(dim)},
                             {view.strides.data(), static_cast<size_t>(dim)});
  // Static: an out keeps the shape MindSpore allocated, and a kernel asking for another shape
  // fails with both shapes named.
  view.impl.emplace(type, static_cast<size_t>(dim), view.sizes.data(), data, view.dim_order.data(),
                    view.strides.data());
}

bool same_shape(int dim, const int64_t* a, int other_dim, const int64_t* b) {
  if (dim != other_dim) return false;
  for (int d = 0; d < dim; ++d) {
    if (a[d] != b[d]) return false;
  }
  return true;
}

}  // namespace

int run_aot_op(const AotOp& op, int nparam, void** params, const int* ndims, int64_t* const* shapes,
               const char* const* dtypes) {
  if (op.registration != Error::Ok) {
    // The registration ran when the library was loaded, perhaps on another thread, whose
    // last_error() this thread cannot read; the log kept its message.
    return fail(op.registration,
                "%s: registering the library's kernels failed (%s); the log says why", op.name,
                to_string(op.registration));
  }
  const size_t inputs = op.arguments - op.outs;
  size_t written = 0;
  for (size_t i = 0; i < inputs; ++i) written += op.args[i] == AotArg::WrittenTensor;
  const size_t outputs = written + op.outs;
  if (nparam < 0 || static_cast<size_t>(nparam) != inputs + outputs) {
    return fail(Error::InvalidArgument, "%s takes %zu %s, then %zu %s; got %d tensors", op.name,
                inputs, plural(inputs, "input", "inputs"), outputs,
                plural(outputs, "output", "outputs"), nparam);
  }
  std::vector<TensorView> views(op.arguments);
  std::vector<EValue> values(op.arguments);
  std::vector<EValue*> stack(op.arguments);
  size_t next_written = inputs;  // MindSpore's output that receives the next written argument
  for (size_t i = 0; i < op.arguments; ++i) {
    const AotArg kind = op.args[i];
    // An out is one of MindSpore's outputs, after the written arguments' copies.
    const size_t p = i < inputs ? i : i + written;
    stack[i] = &values[i];
    const char* dtype = dtypes[p] != nullptr ? dtypes[p] : "";
    if (std::strcmp(dtype, "none") == 0) {
      if (kind != AotArg::OptionalTensor) {
        return fail(Error::InvalidArgument,
                    "%s: argument %zu is None, which only an optional tensor (Tensor?) can be",
                    op.name, i);
      }
      continue;  // values[i] stays None
    }
    const auto type = scalar_type_of(dtype);
    if (!type) {
      return fail(Error::InvalidType, "%s: argument %zu has dtype '%s', which Kiln does not take",
                  op.name, i, dtype);
    }
    const int dim = ndims[p];
    if (dim < 0 || static_cast<size_t>(dim) > kTensorDimensionLimit) {
      return fail(Error::InvalidArgument, "%s: argument %zu has %d dims; Kiln takes at most %zu",
                  op.name, i, dim, kTensorDimensionLimit);
    }
    const int64_t numel = numel_of(shapes[p], dim);
    if (kind == AotArg::Tensor || kind == AotArg::OptionalTensor) {
      view_tensor(views[i], *type, dim, shapes[p], params[p]);
      values[i] = EValue(Tensor(&*views[i].impl));
      continue;
    }
    if (kind == AotArg::WrittenTensor) {
      // The operator updates the argument in place; MindSpore's output is where it may write,
      // so the update goes to a copy of the input there.
      const size_t out = next_written++;
      const char* out_dtype = dtypes[out] != nullptr ? dtypes[out] : "";
      if (std::strcmp(out_dtype, dtype) != 0) {
        return fail(Error::InvalidArgument,
                    "%s: argument %zu is written in place, so output %zu must have its dtype %s, "
                    "but has %s",
                    op.name, i, out - inputs, dtype, out_dtype);
      }
      if (!same_shape(dim, shapes[p], ndims[out], shapes[out])) {
        return fail(Error::InvalidArgument,
                    "%s: argument %zu is written in place, so output %zu must have its shape",
                    op.name, i, out - inputs);
      }
      const size_t bytes = static_cast<size_t>(numel) * element_size(*type);
      if (bytes > 0) std::memcpy(params[out], params[p], bytes);
      view_tensor(views[i], *type, dim, shapes[out], params[out]);
      values[i] = EValue(Tensor(&*views[i].impl));
      continue;
    }
    if (kind == AotArg::String) {
      if (*type != ScalarType::Byte && *type != ScalarType::Char) {
        return fail(Error::InvalidArgument,
                    "%s: argument %zu is a str, passed as a uint8 tensor of its bytes; got %s",
                    op.name, i, dtype);
      }
      values[i] =
          EValue(std::string_view(static_cast<const char*>(params[p]), static_cast<size_t>(numel)));
      continue;
    }
    std::optional<EValue> value;
    if (numel == 1) value = scalar_value(kind, *type, params[p]);
    if (!value) {
      return fail(Error::InvalidArgument,
                  "%s: argument %zu is a scalar, passed as a one-element %s tensor; got %s with "
                  "%lld elements",
                  op.name, i, expected_dtypes(kind), dtype, static_cast<long long>(numel));
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
    // Kernels and the registry name the operator first, as kiln.call_op's messages do.
    const size_t name_length = std::strlen(op.name);
    if (std::strncmp(message, op.name, name_length) == 0 && message[name_length] == ':') {
      return fail(error, "%s", message);
    }
    if (message[0] == '\0') return fail(error, "%s failed (%s)", op.name, to_string(error));
    return fail(error, "%s: %s", op.name, message);
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

const char* last_error_code() {
  std::lock_guard<std::mutex> lock(handed_over_mutex);
  return handed_over.empty() ? "" : to_string(handed_over_error);
}

void clear_last_error() {
  ::kiln::clear_last_error();
  std::lock_guard<std::mutex> lock(handed_over_mutex);
  handed_over.clear();
  handed_over_error = Error::Ok;
}

void begin_reported_call() { reported_calls.fetch_add(1, std::memory_order_acq_rel); }

void end_reported_call() { reported_calls.fetch_sub(1, std::memory_order_acq_rel); }

}  // namespace kiln::mindspore
