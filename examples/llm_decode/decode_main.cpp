// decode_main: the llm_decode example's greedy loop in C++. Loads the decoder program that
// decode.py exports (--pte), feeds the prompt token by token, then runs --steps decode steps,
// each on the argmax of the previous logits, and prints the generated tokens and the mean
// thread CPU time of a decode step.
//
//   decode_main decoder.pte --prompt 1,72,101 --block-table 4,1,3 [--block-size 16]
//               [--steps 32] [--backends portable | ascend,portable]
//
// The program's inputs are decode.py's step_inputs(): tokens [1] Long, positions [1] Long,
// slot_mapping [1] Long, block_tables [1, blocks] Int, context_lens [1] Int; its output is the
// logits [1, vocab] Float. The KV caches live in the program's mutable buffers.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "runtime/executor/heap_memory.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/mapped_file.h"

kiln::Error DECODE_MAIN_REGISTER();

namespace {

enum InputIndex : size_t { kTokens, kPositions, kSlots, kBlockTables, kContextLens, kNumInputs };
constexpr kiln::ScalarType kInputTypes[kNumInputs] = {
    kiln::ScalarType::Long, kiln::ScalarType::Long, kiln::ScalarType::Long, kiln::ScalarType::Int,
    kiln::ScalarType::Int};

struct Options {
  const char* program = nullptr;
  std::vector<int64_t> prompt;
  std::vector<int64_t> block_table;
  int64_t block_size = 16;
  int64_t steps = 32;
  std::vector<kiln::Backend> backends{kiln::Backend::Portable};
};

int usage(const char* message) {
  std::fprintf(stderr,
               "decode_main: %s\n"
               "usage: decode_main decoder.pte --prompt T,T,... --block-table B,B,... "
               "[--block-size 16] [--steps 32] [--backends portable,ascend]\n",
               message);
  return 2;
}

bool parse_ints(const char* text, std::vector<int64_t>* out) {
  out->clear();
  for (const char* p = text; *p != '\0';) {
    char* end = nullptr;
    const long long value = std::strtoll(p, &end, 10);
    if (end == p || value < 0 || (*end != ',' && *end != '\0')) return false;
    out->push_back(value);
    p = *end == ',' ? end + 1 : end;
  }
  return !out->empty();
}

bool parse_backends(const char* text, std::vector<kiln::Backend>* out) {
  out->clear();
  const std::string list(text);
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = list.find(',', start);
    const std::string name = list.substr(start, comma == std::string::npos ? comma : comma - start);
    kiln::Backend backend;
    if (!kiln::backend_from_string(name, &backend)) return false;
    out->push_back(backend);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return !out->empty();
}

int parse(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      if (options->program != nullptr) return usage(("unexpected argument " + arg).c_str());
      options->program = argv[i];
      continue;
    }
    if (i + 1 >= argc) return usage((arg + " needs a value").c_str());
    const char* value = argv[++i];
    std::vector<int64_t> number;
    if (arg == "--prompt") {
      if (!parse_ints(value, &options->prompt)) return usage("--prompt needs tokens like 1,2,3");
    } else if (arg == "--block-table") {
      if (!parse_ints(value, &options->block_table)) {
        return usage("--block-table needs block numbers like 4,1,3");
      }
    } else if (arg == "--block-size" || arg == "--steps") {
      if (!parse_ints(value, &number) || number.size() != 1) {
        return usage((arg + " needs one number").c_str());
      }
      (arg == "--steps" ? options->steps : options->block_size) = number[0];
    } else if (arg == "--backends") {
      if (!parse_backends(value, &options->backends)) {
        return usage("--backends needs a list of portable and ascend");
      }
    } else {
      return usage(("unknown option " + arg).c_str());
    }
  }
  if (options->program == nullptr) return usage("no program given");
  if (options->prompt.empty()) return usage("--prompt is required");
  if (options->block_table.empty()) return usage("--block-table is required");
  if (options->block_size <= 0) return usage("--block-size must be positive");
  const int64_t positions = static_cast<int64_t>(options->prompt.size()) + options->steps;
  if (positions > static_cast<int64_t>(options->block_table.size()) * options->block_size) {
    return usage("the prompt and the steps do not fit in the block table's blocks");
  }
  return 0;
}

// One step input: our own memory under the program's declared shape. Every step sets all inputs
// again, changed or not: the memory plan may reuse an input's bytes once it has been read, so a
// second execute() without set_input() could read another value's bytes.
struct StepInput {
  std::vector<int64_t> data;  // 8-byte aligned storage for Long or Int elements
  kiln::SizesType sizes[kiln::kTensorDimensionLimit] = {};
  kiln::DimOrderType dim_order[kiln::kTensorDimensionLimit] = {};
  kiln::StridesType strides[kiln::kTensorDimensionLimit] = {};
  std::optional<kiln::TensorImpl> impl;

  void set(int64_t index, int64_t value) {
    if (impl->scalar_type() == kiln::ScalarType::Long) {
      data[static_cast<size_t>(index)] = value;
    } else {
      reinterpret_cast<int32_t*>(data.data())[index] = static_cast<int32_t>(value);
    }
  }
};

// Checks input `index` is the decoder's and gives it memory; prints what is wrong otherwise.
bool prepare_input(const kiln::Method& method, size_t index, int64_t numel, StepInput* input) {
  const kiln::EValue& declared = method.input(index);
  if (!declared.isTensor() || declared.toTensor().scalar_type() != kInputTypes[index] ||
      declared.toTensor().numel() != numel) {
    std::fprintf(stderr,
                 "decode_main: input %zu is not the decoder's (%s of %" PRId64
                 " elements expected); export the program with decode.py --pte\n",
                 index, kiln::to_string(kInputTypes[index]), numel);
    return false;
  }
  const kiln::Tensor& tensor = declared.toTensor();
  const size_t dim = static_cast<size_t>(tensor.dim());
  for (size_t d = 0; d < dim; ++d) {
    input->sizes[d] = tensor.sizes()[d];
    input->dim_order[d] = tensor.dim_order()[d];
    input->strides[d] = tensor.strides()[d];
  }
  input->data.assign(static_cast<size_t>(numel), 0);
  input->impl.emplace(tensor.scalar_type(), dim, input->sizes, input->data.data(), input->dim_order,
                      input->strides);
  return true;
}

uint64_t thread_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

// The index of the largest logit (the first of equal ones, as torch.argmax).
int64_t argmax(const kiln::Tensor& logits) {
  const float* values = logits.const_data_ptr<float>();
  int64_t best = 0;
  for (int64_t i = 1; i < logits.numel(); ++i) {
    if (values[i] > values[best]) best = i;
  }
  return best;
}

class Decoder {
 public:
  Decoder(kiln::Method& method, const Options& options) : method_(method), options_(options) {}

  bool prepare() {
    const int64_t blocks = static_cast<int64_t>(options_.block_table.size());
    if (method_.num_inputs() != kNumInputs || method_.num_outputs() != 1) {
      std::fprintf(stderr,
                   "decode_main: the program takes %zu inputs and returns %zu outputs, "
                   "not the decoder's 5 and 1\n",
                   method_.num_inputs(), method_.num_outputs());
      return false;
    }
    for (size_t i = 0; i < kNumInputs; ++i) {
      if (!prepare_input(method_, i, i == kBlockTables ? blocks : 1, &inputs_[i])) return false;
    }
    for (int64_t b = 0; b < blocks; ++b) inputs_[kBlockTables].set(b, options_.block_table[b]);
    return true;
  }

  // Runs `token` at `position`; returns the argmax of the logits, or -1 after printing why.
  int64_t step(int64_t token, int64_t position) {
    const int64_t block = options_.block_table[static_cast<size_t>(position / options_.block_size)];
    inputs_[kTokens].set(0, token);
    inputs_[kPositions].set(0, position);
    inputs_[kSlots].set(0, block * options_.block_size + position % options_.block_size);
    inputs_[kContextLens].set(0, position + 1);
    for (size_t i = 0; i < kNumInputs; ++i) {
      if (method_.set_input(i, kiln::EValue(kiln::Tensor(&*inputs_[i].impl))) != kiln::Error::Ok) {
        std::fprintf(stderr, "decode_main: %s\n", kiln::last_error());
        return -1;
      }
    }
    const kiln::Error error = method_.execute();
    if (error != kiln::Error::Ok) {
      std::fprintf(stderr, "decode_main: step at position %" PRId64 " failed (%s): %s\n", position,
                   kiln::to_string(error), kiln::last_error());
      return -1;
    }
    const kiln::EValue& logits = method_.output(0);
    if (!logits.isTensor() || logits.toTensor().scalar_type() != kiln::ScalarType::Float) {
      std::fprintf(stderr, "decode_main: the program's output is not Float logits\n");
      return -1;
    }
    return argmax(logits.toTensor());
  }

 private:
  kiln::Method& method_;
  const Options& options_;
  StepInput inputs_[kNumInputs];
};

int decode(kiln::Method& method, const Options& options) {
  Decoder decoder(method, options);
  if (!decoder.prepare()) return 1;
  int64_t next = -1;
  const int64_t prompt = static_cast<int64_t>(options.prompt.size());
  for (int64_t p = 0; p < prompt; ++p) {
    next = decoder.step(options.prompt[static_cast<size_t>(p)], p);
    if (next < 0) return 1;
  }
  std::vector<int64_t> tokens{next};
  uint64_t decode_ns = 0;
  for (int64_t p = prompt; p < prompt + options.steps; ++p) {
    const uint64_t start = thread_cpu_ns();
    next = decoder.step(tokens.back(), p);
    decode_ns += thread_cpu_ns() - start;
    if (next < 0) return 1;
    tokens.push_back(next);
  }
  std::printf("tokens:");
  for (const int64_t token : tokens) std::printf(" %" PRId64, token);
  std::printf("\n");
  if (options.steps > 0) {
    std::printf("decode step: %.1f us (thread CPU time, mean of %" PRId64 " steps)\n",
                static_cast<double>(decode_ns) / static_cast<double>(options.steps) / 1000.0,
                options.steps);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (const int code = parse(argc, argv, &options); code != 0) return code;
  if (DECODE_MAIN_REGISTER() != kiln::Error::Ok) {
    std::fprintf(stderr, "decode_main: kernel registration failed: %s\n", kiln::last_error());
    return 1;
  }
  kiln::MappedFile file = kiln::MappedFile::open(options.program);
  if (!file.ok()) {
    std::fprintf(stderr, "decode_main: %s\n", kiln::last_error());
    return 1;
  }
  kiln::Result<kiln::Program> program = kiln::Program::load(file.data(), file.size());
  if (!program.ok()) {
    std::fprintf(stderr, "decode_main: %s: %s\n", options.program, kiln::last_error());
    return 1;
  }
  kiln::Result<kiln::MethodMeta> meta = program->method_meta("forward");
  if (!meta.ok()) {
    std::fprintf(stderr, "decode_main: %s: %s\n", options.program, kiln::last_error());
    return 1;
  }
  kiln::HeapMethodMemory memory(*meta);
  if (memory.status() != kiln::Error::Ok) {
    std::fprintf(stderr, "decode_main: cannot allocate the program's planned memory\n");
    return 1;
  }
  kiln::Result<kiln::Method> method = kiln::Method::load(
      *program, "forward", memory.memory(), {options.backends.data(), options.backends.size()});
  if (!method.ok()) {
    std::fprintf(stderr, "decode_main: %s: %s\n", options.program, kiln::last_error());
    return 1;
  }
  return decode(*method, options);
}
