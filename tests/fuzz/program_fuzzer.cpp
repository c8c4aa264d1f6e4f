// The program fuzz target: DataFile::load of the data file when the input has one,
// Program::load, then for each method MethodMeta, HeapMethodMemory, Method::load against the
// corpus programs' portable kernels, zero inputs and execute().
#include "program_fuzzer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "RegisterKernels.h"
#include "paired_input.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/data_file.h"
#include "runtime/executor/heap_memory.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/program_generated.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/log.h"

#if defined(__SANITIZE_ADDRESS__)
#define KILN_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_FUZZ_ASAN 1
#endif
#endif
#if KILN_FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace kiln_fuzz {
namespace {

using kiln::Error;

[[noreturn]] __attribute__((format(printf, 1, 2))) void broken(const char* format, ...) {
  std::fprintf(stderr, "kiln_fuzz: contract broken: ");
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, "\n");
  std::abort();
}

// Load failures are reported on stderr by the executor; thousands a second are noise here.
void quiet_sink(kiln::LogLevel, const char*) {}

void set_up_once() {
  static const bool done = [] {
    if (std::getenv("KILN_FUZZ_VERBOSE") == nullptr) kiln::set_log_sink(quiet_sink);
    const Error registered = register_fuzz_ops_kernels();
    if (registered != Error::Ok) broken("registering the kernels: %s", kiln::to_string(registered));
    return true;
  }();
  (void)done;
}

void clear_load_error() { kiln::clear_last_error(); }

// A refusal must say what is wrong: an Error of the expected kinds and a message.
void check_refusal(const char* stage, Error error, std::initializer_list<Error> allowed) {
  bool expected = false;
  for (Error e : allowed) expected = expected || e == error;
  if (!expected) {
    broken("%s failed with %s: %s", stage, kiln::to_string(error), kiln::last_error());
  }
  if (kiln::last_error()[0] == '\0') {
    broken("%s failed with %s and no message", stage, kiln::to_string(error));
  }
}

struct Free {
  void operator()(void* p) const { std::free(p); }
};
using Bytes = std::unique_ptr<uint8_t, Free>;

// The input as runners hold a program: in a read-only mapping (kiln::MappedFile maps the file
// PROT_READ, as kiln_runner and kiln.load(path) do), so a write into the program's bytes, such as
// a kernel writing into a constant, faults here as it would there. The mapping is page-aligned
// like MappedFile's, and a PROT_NONE page follows it; under AddressSanitizer the bytes between
// `size` and that page are poisoned as well, so an over-read is caught at its first byte.
class ReadOnlyCopy {
 public:
  ReadOnlyCopy(const uint8_t* data, size_t size) : size_(size) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    readable_ = (size / page + 1) * page;
    mapped_ = readable_ + page;
    void* memory =
        mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) broken("no memory to map a %zu-byte input", size);
    bytes_ = static_cast<uint8_t*>(memory);
    if (size > 0) std::memcpy(bytes_, data, size);
    if (mprotect(bytes_, readable_, PROT_READ) != 0 ||
        mprotect(bytes_ + readable_, page, PROT_NONE) != 0) {
      broken("mprotect of the input's mapping failed");
    }
#if KILN_FUZZ_ASAN
    ASAN_POISON_MEMORY_REGION(bytes_ + size, readable_ - size);
#endif
  }
  ~ReadOnlyCopy() {
#if KILN_FUZZ_ASAN
    ASAN_UNPOISON_MEMORY_REGION(bytes_ + size_, readable_ - size_);
#endif
    munmap(bytes_, mapped_);
  }
  ReadOnlyCopy(const ReadOnlyCopy&) = delete;
  ReadOnlyCopy& operator=(const ReadOnlyCopy&) = delete;

  const uint8_t* data() const { return bytes_; }

 private:
  size_t size_;
  size_t readable_ = 0;
  size_t mapped_ = 0;
  uint8_t* bytes_ = nullptr;
};

// A jump backwards can repeat forever (a loop whose condition never changes); such a method is
// loaded but not run, so that every input finishes.
bool may_loop(const kiln::Program& program, std::string_view name) {
  const auto* plan = *program.plan(name);
  if (plan->chains() == nullptr) return false;
  for (const auto* chain : *plan->chains()) {
    if (chain->instructions() == nullptr) continue;
    for (flatbuffers::uoffset_t k = 0; k < chain->instructions()->size(); ++k) {
      const auto* jump = chain->instructions()->Get(k)->instr_args_as_JumpFalseCall();
      if (jump != nullptr && jump->destination_instruction() <= static_cast<int32_t>(k)) {
        return true;
      }
    }
  }
  return false;
}

// Planned memory and metadata of the method, or SIZE_MAX when that does not fit a size_t.
size_t planned_bytes(const kiln::MethodMeta& meta) {
  size_t total = meta.metadata_bytes();
  for (size_t i = 0; i < meta.num_memory_arenas(); ++i) {
    if (meta.arena_size(i) > SIZE_MAX - total) return SIZE_MAX;
    total += meta.arena_size(i);
  }
  return total;
}

// A zero tensor with the declared input's metadata, owned here.
struct ZeroInput {
  std::vector<kiln::SizesType> sizes;
  std::vector<kiln::DimOrderType> dim_order;
  std::vector<kiln::StridesType> strides;
  Bytes data;
  std::unique_ptr<kiln::TensorImpl> impl;
};

Outcome run_method(const kiln::Program& program, std::string_view name) {
  clear_load_error();
  kiln::Result<kiln::MethodMeta> meta = program.method_meta(name);
  if (!meta.ok())
    broken("method_meta of listed method '%.*s' failed", int(name.size()), name.data());
  size_t budget = planned_bytes(*meta);
  if (budget > kMaxMethodBytes) return Outcome::TooLarge;

  // The bound leaves constant folding what the plan does not take of the fuzzer's memory.
  kiln::HeapMethodMemory memory(*meta, kMaxMethodBytes);
  if (memory.status() != Error::Ok) return Outcome::NoMemory;
  const kiln::Backend backends[] = {kiln::Backend::Portable};
  std::vector<kiln::MissingOperator> missing(meta->num_operators());
  kiln::MissingReport report{{missing.data(), missing.size()}, 0};
  clear_load_error();
  kiln::Result<kiln::Method> method =
      kiln::Method::load(program, name, memory.memory(), backends, &report);
  if (!method.ok()) {
    // InvalidArgument would mean the memory sized from MethodMeta was not enough.
    // MemoryAllocationFailed: a delegate's graph needs more than the memory bound leaves it.
    check_refusal("Method::load", method.error(),
                  {Error::InvalidProgram, Error::NotSupported, Error::OperatorMissing,
                   Error::MemoryAllocationFailed});
    return Outcome::MethodRefused;
  }

  std::vector<ZeroInput> inputs(method->num_inputs());
  for (size_t i = 0; i < method->num_inputs(); ++i) {
    const kiln::EValue& declared = method->input(i);
    kiln::EValue value = declared;
    if (declared.isTensor()) {
      const kiln::TensorImpl& impl = *declared.toTensor().unsafeGetTensorImpl();
      if (impl.nbytes() > kMaxMethodBytes - budget) return Outcome::TooLarge;
      budget += impl.nbytes();
      ZeroInput& input = inputs[i];
      input.sizes.assign(impl.sizes().begin(), impl.sizes().end());
      input.dim_order.assign(impl.dim_order().begin(), impl.dim_order().end());
      input.strides.assign(impl.strides().begin(), impl.strides().end());
      input.data.reset(static_cast<uint8_t*>(std::calloc(impl.nbytes() + 1, 1)));
      if (input.data == nullptr) return Outcome::NoMemory;
      input.impl = std::make_unique<kiln::TensorImpl>(impl.scalar_type(), impl.dim(),
                                                      input.sizes.data(), input.data.get(),
                                                      input.dim_order.data(), input.strides.data());
      value = kiln::EValue(kiln::Tensor(input.impl.get()));
    }
    const Error bound = method->set_input(i, value);
    if (bound != Error::Ok) {
      broken("set_input(%zu) refused the declared input: %s", i, kiln::last_error());
    }
  }
  if (may_loop(program, name)) return Outcome::NotRun;

  for (int run = 0; run < 2; ++run) {  // the second run starts from the first one's state
    const Error ran = method->execute();
    if (ran != Error::Ok) {
      if (kiln::last_error()[0] == '\0') {
        broken("execute failed with %s and no message", kiln::to_string(ran));
      }
      return Outcome::RunFailed;
    }
  }
  // Read every output byte: an output must point at memory the method owns.
  unsigned checksum = 0;
  for (size_t i = 0; i < method->num_outputs(); ++i) {
    const kiln::EValue& output = method->output(i);
    if (!output.isTensor()) continue;
    const kiln::Tensor& tensor = output.toTensor();
    const auto* bytes = static_cast<const volatile uint8_t*>(tensor.unsafeGetTensorImpl()->data());
    for (size_t b = 0; b < tensor.nbytes(); ++b) checksum += bytes[b];
  }
  static volatile unsigned sink;
  sink = checksum;
  return Outcome::Ran;
}

}  // namespace

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::ProgramRefused:
      return "program refused";
    case Outcome::TooLarge:
      return "too large to run";
    case Outcome::NoMemory:
      return "no memory";
    case Outcome::MethodRefused:
      return "method refused";
    case Outcome::NotRun:
      return "not run (may loop)";
    case Outcome::RunFailed:
      return "run failed";
    case Outcome::Ran:
      return "ran";
  }
  return "?";
}

namespace {
bool write_probe = false;
}  // namespace

void set_write_probe(bool on) { write_probe = on; }

Outcome run_program(const uint8_t* bytes, size_t size) {
  set_up_once();
  const PairedInput input = split_input(bytes, size);
  const ReadOnlyCopy copy(input.program, input.program_size);
  // The data file is mapped read-only too, as kiln_runner --data and kiln.load(data=path) do.
  const ReadOnlyCopy data_copy(input.data, input.data_size);
  std::optional<kiln::DataFile> data;
  if (input.data != nullptr) {
    clear_load_error();
    kiln::Result<kiln::DataFile> loaded =
        kiln::DataFile::load(data_copy.data(), input.data_size, "fuzz.ptd");
    if (!loaded.ok()) {
      check_refusal("DataFile::load", loaded.error(), {Error::InvalidProgram, Error::NotSupported});
      return Outcome::ProgramRefused;
    }
    data.emplace(*loaded);
  }
  clear_load_error();
  kiln::Result<kiln::Program> program =
      kiln::Program::load(copy.data(), input.program_size, data ? &*data : nullptr);
  Outcome furthest = Outcome::ProgramRefused;
  if (!program.ok()) {
    // InvalidArgument and NotFound: an external tensor without a data file, or without its key.
    check_refusal(
        "Program::load", program.error(),
        {Error::InvalidProgram, Error::NotSupported, Error::InvalidArgument, Error::NotFound});
  } else {
    if (write_probe) *const_cast<volatile uint8_t*>(copy.data()) = 0;
    for (size_t m = 0; m < program->num_methods(); ++m) {
      const Outcome outcome = run_method(*program, program->method_name(m));
      if (outcome > furthest) furthest = outcome;
    }
  }
  return furthest;
}

}  // namespace kiln_fuzz

// Sanitizer settings of both fuzz executables (ASAN_OPTIONS and UBSAN_OPTIONS still override
// them): an allocation the heap cannot give returns null, as it does in production, so that the
// code's handling of it is what is tested; leak checks do not apply to the driver's forked
// children; an abort (a broken contract) gets a report with its stack.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=0:handle_abort=1";
}
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)kiln_fuzz::run_program(data, size);
  return 0;
}
