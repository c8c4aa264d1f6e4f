#include "runner_inputs.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/core/dim_order.h"
#include "runtime/core/scalar_type.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/mapped_file.h"
#include "runtime/platform/wording.h"

namespace kiln::runner {
namespace {

// splitmix64: a small, well-distributed generator for reproducible inputs.
uint64_t next_random(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
void fill_values(T* data, int64_t numel, uint64_t* state) {
  for (int64_t i = 0; i < numel; ++i) {
    const double unit = static_cast<double>(next_random(state) >> 11) * 0x1.0p-53;
    if constexpr (std::is_same_v<T, bool>) {
      data[i] = (i % 2) == 0;
    } else if constexpr (std::is_integral_v<T>) {
      data[i] = static_cast<T>(unit * 4);
    } else {
      data[i] = static_cast<T>(static_cast<float>(unit * 2 - 1));
    }
  }
}

bool fill_seeded(void* data, ScalarType dtype, int64_t numel, uint64_t* state) {
  switch (dtype) {
#define KILN_RUNNER_FILL(type, name)                     \
  case ScalarType::name:                                 \
    fill_values(static_cast<type*>(data), numel, state); \
    return true;
    KILN_RUNNER_FILL(uint8_t, Byte)
    KILN_RUNNER_FILL(int8_t, Char)
    KILN_RUNNER_FILL(int16_t, Short)
    KILN_RUNNER_FILL(int32_t, Int)
    KILN_RUNNER_FILL(int64_t, Long)
    KILN_RUNNER_FILL(float, Float)
    KILN_RUNNER_FILL(double, Double)
    KILN_RUNNER_FILL(bool, Bool)
    KILN_RUNNER_FILL(Half, Half)
    KILN_RUNNER_FILL(BFloat16, BFloat16)
#undef KILN_RUNNER_FILL
    default:
      return false;
  }
}

// Through MappedFile, as the program is: a named pipe or a directory is refused, never waited on.
bool read_file(const char* path, void* data, size_t nbytes, size_t index) {
  const MappedFile file = MappedFile::open(path);
  if (!file.ok()) {
    std::fprintf(stderr, "kiln_runner: input %zu: %s\n", index, last_error());
    return false;
  }
  if (file.size() != nbytes) {
    std::fprintf(stderr,
                 "kiln_runner: input %zu: %s has %zu bytes, the program's tensor needs %zu\n",
                 index, path, file.size(), nbytes);
    return false;
  }
  if (nbytes > 0) std::memcpy(data, file.data(), nbytes);
  return true;
}

bool bind_scalar(Method& method, size_t index, const EValue& declared, const char* text) {
  char* end = nullptr;
  EValue value;
  if (declared.isBool()) {
    value = EValue(std::strcmp(text, "true") == 0 || std::strcmp(text, "1") == 0);
  } else if (declared.isInt()) {
    value = EValue(static_cast<int64_t>(std::strtoll(text, &end, 10)));
  } else {
    value = EValue(std::strtod(text, &end));
  }
  if (end != nullptr && *end != '\0') {
    const char* kind = to_string(declared.tag());
    std::fprintf(stderr, "kiln_runner: input %zu: '%s' is not %s %s\n", index, text,
                 indefinite_article(kind), kind);
    return false;
  }
  if (method.set_input(index, value) != Error::Ok) {
    std::fprintf(stderr, "kiln_runner: %s\n", kiln::last_error());
    return false;
  }
  return true;
}

}  // namespace

void Inputs::Free::operator()(void* p) const { std::free(p); }

bool Inputs::bind(Method& method, const std::vector<const char*>& args, uint64_t seed,
                  const InputShapes& shapes) {
  if (!args.empty() && args.size() != method.num_inputs()) {
    std::fprintf(stderr, "kiln_runner: the method takes %zu %s, %zu %s given\n",
                 method.num_inputs(), method.num_inputs() == 1 ? "input" : "inputs", args.size(),
                 args.size() == 1 ? "was" : "were");
    return false;
  }
  for (const auto& [index, sizes] : shapes) {
    const bool tensor = index < method.num_inputs() && method.input(index).isTensor();
    if (!tensor || sizes.size() != static_cast<size_t>(method.input(index).toTensor().dim())) {
      std::fprintf(stderr, "kiln_runner: --shape %zu=...: %s\n", index,
                   !tensor ? "the method has no tensor input of that index"
                           : "give as many sizes as the input has dimensions");
      return false;
    }
  }
  uint64_t state = seed;
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    const EValue& declared = method.input(i);
    if (!declared.isTensor()) {
      if (!args.empty() && !bind_scalar(method, i, declared, args[i])) return false;
      continue;  // without arguments a scalar input keeps the program's value
    }
    const Tensor& tensor = declared.toTensor();
    const size_t dim = static_cast<size_t>(tensor.dim());
    const auto given = shapes.find(i);
    const ArrayRef<SizesType> sizes =
        given != shapes.end() ? ArrayRef<SizesType>(given->second.data(), dim) : tensor.sizes();
    size_t numel = 1;
    for (SizesType size : sizes) {
      if (__builtin_mul_overflow(numel, static_cast<size_t>(size), &numel)) numel = SIZE_MAX;
    }
    size_t nbytes = 0;
    if (__builtin_mul_overflow(numel, tensor.element_size(), &nbytes) || nbytes > SIZE_MAX / 2) {
      std::fprintf(stderr, "kiln_runner: input %zu: its --shape is too large\n", i);
      return false;
    }
    Bound& bound = bound_.emplace_back();
    bound.index = i;
    bound.data.reset(static_cast<uint8_t*>(std::aligned_alloc(64, (nbytes / 64 + 1) * 64)));
    if (bound.data == nullptr) {
      std::fprintf(stderr, "kiln_runner: input %zu: cannot allocate %zu bytes\n", i, nbytes);
      return false;
    }
    if (!args.empty()) {
      if (!read_file(args[i], bound.data.get(), nbytes, i)) return false;
    } else if (!fill_seeded(bound.data.get(), tensor.scalar_type(), static_cast<int64_t>(numel),
                            &state)) {
      std::fprintf(stderr, "kiln_runner: input %zu: no seeded values for dtype %s; give a file\n",
                   i, to_string(tensor.scalar_type()));
      return false;
    }
    for (size_t d = 0; d < dim; ++d) {
      bound.sizes[d] = sizes[d];
      bound.dim_order[d] = tensor.dim_order()[d];
    }
    (void)dim_order_to_strides({bound.sizes.data(), dim}, {bound.dim_order.data(), dim},
                               {bound.strides.data(), dim});
    bound.impl.emplace(tensor.scalar_type(), dim, bound.sizes.data(), bound.data.get(),
                       bound.dim_order.data(), bound.strides.data());
    if (method.set_input(i, EValue(Tensor(&*bound.impl))) != Error::Ok) {
      std::fprintf(stderr, "kiln_runner: %s\n", kiln::last_error());
      return false;
    }
  }
  return true;
}

bool Inputs::rebind(Method& method) {
  for (Bound& bound : bound_) {
    if (method.set_input(bound.index, EValue(Tensor(&*bound.impl))) != Error::Ok) {
      std::fprintf(stderr, "kiln_runner: %s\n", kiln::last_error());
      return false;
    }
  }
  return true;
}

std::string format_head(const Tensor& t, int64_t count) {
  std::string text = "[";
  char number[48];
  const int64_t shown = t.numel() < count ? t.numel() : count;
  for (int64_t i = 0; i < shown; ++i) {
    double value = 0;
    switch (t.scalar_type()) {
      case ScalarType::Float:
        value = t.const_data_ptr<float>()[i];
        break;
      case ScalarType::Double:
        value = t.const_data_ptr<double>()[i];
        break;
      case ScalarType::Long:
        value = static_cast<double>(t.const_data_ptr<int64_t>()[i]);
        break;
      case ScalarType::Int:
        value = t.const_data_ptr<int32_t>()[i];
        break;
      case ScalarType::Bool:
        value = t.const_data_ptr<bool>()[i];
        break;
      default:
        return "";
    }
    std::snprintf(number, sizeof(number), i ? ", %.6g" : "%.6g", value);
    text += number;
  }
  return text + (t.numel() > shown ? ", ...]" : "]");
}

bool write_outputs(const Method& method, const char* dir) {
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    const EValue& value = method.output(i);
    if (!value.isTensor()) continue;
    const std::string path = std::string(dir) + "/output" + std::to_string(i) + ".bin";
    FILE* file = std::fopen(path.c_str(), "wb");
    const Tensor& t = value.toTensor();
    const bool ok =
        file != nullptr &&
        (t.nbytes() == 0 || std::fwrite(t.const_data_ptr(), 1, t.nbytes(), file) == t.nbytes());
    if (file != nullptr) std::fclose(file);
    if (!ok) {
      std::fprintf(stderr, "kiln_runner: cannot write %s\n", path.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace kiln::runner
