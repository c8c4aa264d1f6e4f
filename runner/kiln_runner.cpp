// kiln_runner: loads a .pte program, runs one method on inputs from raw files (or seeded
// values), prints its outputs, and optionally times it and profiles each instruction.
//
//   kiln_runner program.pte [input.bin | scalar ...] [--method forward]
//               [--backends portable,ascend] [--repeat N] [--profile] [--output-dir DIR]
//               [--seed S] [--threads 1] [--max-memory BYTES] [--no-fold]
//               [--shape I=D0,D1,...]
//               [--no-fuse] [--data weights.ptd]
//
// --data names the program's data file (.ptd), which a program exported with external constants
// needs; it is mapped like the program. A data file the program does not use is a warning.
//
// An input file holds the tensor's bytes, little-endian, dense in the program's dim order (what
// numpy's tofile() writes for a contiguous array). Without input arguments every tensor input
// gets seeded values in [-1, 1). --threads N runs the kernels on a pool of N threads (default 1,
// at most kiln::PthreadPool::kMaxThreads). --max-memory bounds the planned memory the program
// may ask for (default 1 GiB), constant folding's results included. --no-fold runs every
// instruction at each run instead of folding those on constants at load; --no-fuse keeps the
// activations load would fuse into the calls before them (docs/programs.md). Counts are plain
// decimal integers; anything else is a usage error.
//
// Built by kiln_add_runner() against one operator library, whose registration function
// KILN_RUNNER_REGISTER names.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner_inputs.h"
#include "runtime/executor/data_file.h"
#include "runtime/executor/heap_memory.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/clock.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/mapped_file.h"
#include "runtime/threads/pthread_pool.h"

kiln::Error KILN_RUNNER_REGISTER();

namespace {

// The planned memory a program may ask for unless --max-memory says otherwise: the sizes come from
// the file, so an untrusted one must not make the runner allocate whatever it names. Far above
// the plans of the models Kiln runs today, and the same default as kiln.load's max_memory.
constexpr uint64_t kDefaultMaxMemory = uint64_t{1} << 30;
// Bounds --repeat so a slip of the keyboard cannot make a run that never ends.
constexpr uint64_t kMaxRepeat = 1000000000;

struct Options {
  const char* program = nullptr;
  const char* data = nullptr;  // --data: the program's data file
  std::vector<const char*> inputs;
  std::string method = "forward";
  std::vector<kiln::Backend> backends{kiln::Backend::Portable};
  uint64_t repeat = 0;
  bool profile = false;
  const char* output_dir = nullptr;
  uint64_t seed = 0;
  uint64_t threads = 1;
  uint64_t max_memory = kDefaultMaxMemory;
  bool fold = true;
  bool fuse = true;
  kiln::runner::InputShapes shapes;  // --shape: a dynamic input's sizes for this run
};

int usage(const char* message) {
  std::fprintf(stderr,
               "kiln_runner: %s\n"
               "usage: kiln_runner program.pte [input.bin|scalar ...] [--method NAME] "
               "[--backends portable,ascend] [--repeat N] [--profile] [--output-dir DIR] "
               "[--seed S] [--threads N] [--max-memory BYTES] [--no-fold] [--no-fuse] "
               "[--shape I=D0,D1,...] [--data FILE.ptd]\n",
               message);
  return 2;
}

bool parse_backends(const char* text, std::vector<kiln::Backend>* out) {
  out->clear();
  std::string list(text);
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string name = list.substr(start, comma == std::string::npos ? comma : comma - start);
    kiln::Backend backend;
    if (!kiln::backend_from_string(name, &backend)) {
      std::fprintf(stderr, "kiln_runner: unknown backend '%s'; known:", name.c_str());
      for (const char* known : kiln::kBackendNames) std::fprintf(stderr, " %s", known);
      std::fprintf(stderr, "\n");
      return false;
    }
    out->push_back(backend);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return !out->empty();
}

// Parses `text` as a plain decimal integer in [low, high] (no sign, no exponent, nothing after the
// digits); on anything else prints a usage error naming `flag` and the range, and returns false.
bool parse_count(const std::string& flag, const char* text, uint64_t low, uint64_t high,
                 uint64_t* out) {
  bool ok = *text != '\0';
  uint64_t value = 0;
  for (const char* c = text; ok && *c != '\0'; ++c) {
    const auto digit = static_cast<uint64_t>(*c - '0');
    ok = *c >= '0' && *c <= '9' && value <= (UINT64_MAX - digit) / 10;
    value = value * 10 + digit;
  }
  if (!ok || value < low || value > high) {
    usage((flag + " takes an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
           "], got '" + text + "'")
              .c_str());
    return false;
  }
  *out = value;
  return true;
}

// "--shape I=D0,D1,...": input I's sizes (a dynamic input takes any shape within its bounds).
bool parse_shape(const char* text, kiln::runner::InputShapes* shapes) {
  const char* equals = std::strchr(text, '=');
  uint64_t index = 0;
  const std::string head = equals == nullptr ? "" : std::string(text, equals);
  if (equals == nullptr || !parse_count("--shape's input index", head.c_str(), 0, 4096, &index)) {
    if (equals == nullptr)
      usage((std::string("--shape takes I=D0,D1,..., got '") + text + "'").c_str());
    return false;
  }
  std::vector<kiln::SizesType> sizes;
  std::string rest = equals + 1;
  for (size_t start = 0; !rest.empty() && start <= rest.size();) {
    const size_t comma = std::min(rest.find(',', start), rest.size());
    uint64_t size = 0;
    const std::string item = rest.substr(start, comma - start);
    if (item.empty()) {
      usage((std::string("--shape takes I=D0,D1,..., got '") + text + "'").c_str());
      return false;
    }
    if (!parse_count("a --shape size", item.c_str(), 0, INT32_MAX, &size)) return false;
    sizes.push_back(static_cast<kiln::SizesType>(size));
    if (sizes.size() > kiln::kTensorDimensionLimit) {
      usage("--shape gives more dimensions than a tensor has");
      return false;
    }
    start = comma + 1;
  }
  (*shapes)[static_cast<size_t>(index)] = sizes;
  return true;
}

// Returns 0 when parsed, else the exit code.
int parse(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)flag;
      return argv[++i];
    };
    if (arg == "--method" || arg == "--backends" || arg == "--repeat" || arg == "--output-dir" ||
        arg == "--seed" || arg == "--threads" || arg == "--max-memory" || arg == "--shape" ||
        arg == "--data") {
      const char* v = value(arg.c_str());
      if (v == nullptr) return usage((arg + " needs a value").c_str());
      if (arg == "--shape" && !parse_shape(v, &options->shapes)) return 2;
      if (arg == "--method") options->method = v;
      if (arg == "--output-dir") options->output_dir = v;
      if (arg == "--data") options->data = v;
      if (arg == "--backends" && !parse_backends(v, &options->backends)) return 2;
      if (arg == "--repeat" && !parse_count(arg, v, 0, kMaxRepeat, &options->repeat)) return 2;
      if (arg == "--seed" && !parse_count(arg, v, 0, UINT64_MAX, &options->seed)) return 2;
      if (arg == "--threads" &&
          !parse_count(arg, v, 1, kiln::PthreadPool::kMaxThreads, &options->threads)) {
        return 2;
      }
      if (arg == "--max-memory" && !parse_count(arg, v, 0, SIZE_MAX, &options->max_memory)) {
        return 2;
      }
    } else if (arg == "--profile") {
      options->profile = true;
    } else if (arg == "--no-fold") {
      options->fold = false;
    } else if (arg == "--no-fuse") {
      options->fuse = false;
    } else if (arg == "-h" || arg == "--help") {
      return usage("runs a .pte program");
    } else if (arg.rfind("--", 0) == 0) {
      return usage(("unknown option " + arg).c_str());
    } else if (options->program == nullptr) {
      options->program = argv[i];
    } else {
      options->inputs.push_back(argv[i]);
    }
  }
  return options->program == nullptr ? usage("no program given") : 0;
}

void print_output(size_t index, const kiln::EValue& value) {
  if (!value.isTensor()) {
    if (value.isInt()) std::printf("output %zu: Int %" PRId64 "\n", index, value.toInt());
    if (value.isDouble()) std::printf("output %zu: Double %g\n", index, value.toDouble());
    if (value.isBool()) std::printf("output %zu: Bool %d\n", index, value.toBool());
    return;
  }
  const kiln::Tensor& t = value.toTensor();
  std::printf("output %zu: %s [", index, kiln::to_string(t.scalar_type()));
  for (int64_t d = 0; d < t.dim(); ++d) std::printf(d ? ", %" PRId64 : "%" PRId64, t.size(d));
  std::printf("]");
  const std::string head = kiln::runner::format_head(t, 6);
  std::printf(" %s\n", head.c_str());
}

void print_profile(kiln::Method& method, const std::vector<uint64_t>& total, uint64_t runs) {
  std::printf("%4s  %-48s %-9s %12s\n", "#", "instruction", "backend", "mean time");
  uint64_t sum = 0;
  for (size_t i = 0; i < method.num_instructions(); ++i) {
    const kiln::InstructionInfo info = method.instruction_info(i);
    const double us = static_cast<double>(total[i]) / static_cast<double>(runs) / 1000.0;
    sum += total[i];
    // A fused activation the call before it applied never ran: no kernel served it.
    const char* backend = info.folded   ? "folded"
                          : info.served ? kiln::to_string(info.served->backend)
                          : info.fused  ? "fused"
                                        : "";
    std::string op = info.op ? info.op : info.kind;
    if (info.activation != nullptr) op = op + " + " + info.activation;
    std::printf("%4zu  %-48s %-9s %9.2f us\n", i, op.c_str(), backend, us);
  }
  std::printf("%4s  %-48s %-9s %9.2f us\n", "", "total", "",
              static_cast<double>(sum) / static_cast<double>(runs) / 1000.0);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (const int code = parse(argc, argv, &options); code != 0) return code;
  if (KILN_RUNNER_REGISTER() != kiln::Error::Ok) {
    std::fprintf(stderr, "kiln_runner: kernel registration failed: %s\n", kiln::last_error());
    return 1;
  }
  const kiln::MappedFile file = kiln::MappedFile::open(options.program);
  if (!file.ok()) {
    std::fprintf(stderr, "kiln_runner: %s\n", kiln::last_error());
    return 1;
  }
  std::optional<kiln::MappedFile> data_file;
  if (options.data != nullptr) {
    data_file.emplace(kiln::MappedFile::open(options.data));
    if (!data_file->ok()) {
      std::fprintf(stderr, "kiln_runner: %s\n", kiln::last_error());
      return 1;
    }
  }
  const uint64_t load_start = kiln::monotonic_ns();
  std::optional<kiln::DataFile> data;
  if (data_file) {
    kiln::Result<kiln::DataFile> loaded =
        kiln::DataFile::load(data_file->data(), data_file->size(), options.data);
    if (!loaded.ok()) {
      std::fprintf(stderr, "kiln_runner: %s\n", kiln::last_error());
      return 1;
    }
    data.emplace(*loaded);
  }
  kiln::Result<kiln::Program> program =
      kiln::Program::load(file.data(), file.size(), data ? &*data : nullptr);
  if (!program.ok()) {
    std::fprintf(stderr, "kiln_runner: %s: %s\n", options.program, kiln::last_error());
    return 1;
  }
  if (data && program->num_external_tensors() == 0) {
    std::fprintf(stderr,
                 "kiln_runner: warning: %s keeps all its data inside: the data file %s is not "
                 "used\n",
                 options.program, options.data);
  }
  kiln::Result<kiln::MethodMeta> meta = program->method_meta(options.method);
  if (!meta.ok()) {
    std::fprintf(stderr, "kiln_runner: %s: %s\n", options.program, kiln::last_error());
    return 1;
  }
  kiln::HeapMethodMemory memory(*meta, static_cast<size_t>(options.max_memory));
  if (memory.status() != kiln::Error::Ok) {
    std::fprintf(stderr, "kiln_runner: %s: cannot allocate the method's planned memory: %s\n",
                 options.program, kiln::last_error());
    return 1;
  }
  kiln::Result<kiln::PthreadPool> pool =
      kiln::PthreadPool::create(static_cast<size_t>(options.threads));
  if (!pool.ok()) {
    std::fprintf(stderr, "kiln_runner: --threads %" PRIu64 ": %s\n", options.threads,
                 kiln::last_error());
    return 1;
  }
  kiln::LoadOptions load_options;
  load_options.fold_constants = options.fold;
  load_options.fuse = options.fuse;
  load_options.thread_pool = &pool.get();
  kiln::Result<kiln::Method> method =
      kiln::Method::load(*program, options.method, memory.memory(),
                         {options.backends.data(), options.backends.size()}, nullptr, load_options);
  if (!method.ok()) {
    std::fprintf(stderr, "kiln_runner: %s: %s\n", options.program, kiln::last_error());
    return 1;
  }
  const uint64_t load_ns = kiln::monotonic_ns() - load_start;
  method->set_thread_pool(&pool.get());

  kiln::runner::Inputs inputs;
  if (!inputs.bind(*method, options.inputs, options.seed, options.shapes)) return 1;

  std::vector<uint64_t> times(method->num_instructions()), total(method->num_instructions());
  auto run = [&](bool profile) {
    const kiln::Error error = method->execute(
        profile ? kiln::Span<uint64_t>(times.data(), times.size()) : kiln::Span<uint64_t>());
    if (error != kiln::Error::Ok) {
      std::fprintf(stderr, "kiln_runner: run failed (%s): %s\n", kiln::to_string(error),
                   kiln::last_error());
      return false;
    }
    if (profile) {
      for (size_t i = 0; i < times.size(); ++i) total[i] += times[i];
    }
    return true;
  };
  if (!run(options.profile)) return 1;
  for (size_t i = 0; i < method->num_outputs(); ++i) print_output(i, method->output(i));
  if (options.output_dir != nullptr && !kiln::runner::write_outputs(*method, options.output_dir)) {
    return 1;
  }
  std::printf("load: %.1f us\n", static_cast<double>(load_ns) / 1000.0);
  const kiln::FoldReport& folded = method->fold_report();
  std::printf("folded: %zu instructions, %zu bytes", folded.instructions, folded.bytes);
  if (folded.over_limit > 0) {
    std::printf(" (%zu more left to run: over --max-memory)", folded.over_limit);
  }
  std::printf("\n");
  std::printf("fused: %zu activations, %zu batch norms, %zu int8 chains\n",
              folded.fused_activations, folded.fused_batch_norms, folded.fused_int8);
  if (options.repeat > 0) {
    const uint64_t start = kiln::monotonic_ns();
    for (uint64_t r = 0; r < options.repeat; ++r) {
      if (!inputs.rebind(*method) || !run(options.profile)) return 1;
    }
    const double mean = static_cast<double>(kiln::monotonic_ns() - start) /
                        static_cast<double>(options.repeat) / 1000.0;
    std::printf("latency: %.2f us mean over %" PRIu64 " runs\n", mean, options.repeat);
  }
  if (options.profile) print_profile(*method, total, options.repeat + 1);
  return 0;
}
