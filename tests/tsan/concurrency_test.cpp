// Kiln from several threads at once, built with -fsanitize=thread (tests/tsan/CMakeLists.txt):
// each concurrent use that docs/programs.md and docs/threads.md allow, run so that ThreadSanitizer
// sees every access. The results are checked too, bit for bit against single-threaded runs.
//
//   kiln_tsan_tests [gtest flags] NAME=PROGRAM.pte ...   the tests, on the named programs
//   kiln_tsan_tests --deliberate-race=threads|pool       a real data race, for the self-test
//
// tests/tsan/tsan_programs.py writes the programs: "wide" has tensors large enough that its kernels
// split their loops over a pool; "accumulator" mutates a buffer, so its runs depend on the ones
// before; the others are small models of the program zoo.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "RegisterKernels.h"
#include "runtime/core/dim_order.h"
#include "runtime/executor/heap_memory.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/kernel/random_generator.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/log.h"
#include "runtime/platform/mapped_file.h"
#include "runtime/threads/pthread_pool.h"

namespace {

using kiln::ArrayRef;
using kiln::Backend;
using kiln::Error;
using kiln::Method;
using kiln::Program;

constexpr int kThreads = 4;
constexpr int kRuns = 6;  // runs per Method in each thread
constexpr Backend kPortable[] = {Backend::Portable};

// NAME=PATH arguments of the command line.
std::map<std::string, std::string>& program_paths() {
  static std::map<std::string, std::string> paths;
  return paths;
}

std::vector<std::string> program_names() {
  std::vector<std::string> names;
  for (const auto& [name, path] : program_paths()) names.push_back(name);
  return names;
}

// Releases every waiting thread once `count` threads have arrived, so that the threads' work
// overlaps rather than running one after another as they happen to start.
class StartLine {
 public:
  explicit StartLine(int count) : left_(count) {}
  void arrive_and_wait() {
    left_.fetch_sub(1, std::memory_order_acq_rel);
    while (left_.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  }

 private:
  std::atomic<int> left_;
};

// Runs fn(t) on `count` threads that start together; returns each thread's result.
template <typename Fn>
std::vector<std::string> on_threads(int count, Fn fn) {
  std::vector<std::string> results(static_cast<size_t>(count));
  StartLine start(count);
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      results[static_cast<size_t>(t)] = fn(t);
    });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

void expect_all_ok(const std::vector<std::string>& results) {
  for (size_t t = 0; t < results.size(); ++t) EXPECT_EQ(results[t], "") << "thread " << t;
}

std::string describe(const char* what, Error error) {
  return std::string(what) + ": " + kiln::to_string(error) + " (" + kiln::last_error() + ")";
}

// A program file, mapped and verified.
struct LoadedProgram {
  explicit LoadedProgram(const std::string& path)
      : file(kiln::MappedFile::open(path.c_str())),
        program(file.ok() ? Program::load(file.data(), file.size())
                          : kiln::Result<Program>(Error::AccessFailed)) {}
  kiln::MappedFile file;
  kiln::Result<Program> program;
};

std::string path_of(const std::string& name) {
  const auto found = program_paths().find(name);
  return found == program_paths().end() ? "" : found->second;
}

// The inputs of one method: float tensors of the declared shapes, filled from a seed, so that
// every thread can feed the same values as the reference run.
class Inputs {
 public:
  explicit Inputs(const Method& method) {
    for (size_t i = 0; i < method.num_inputs(); ++i) {
      const kiln::EValue& declared = method.input(i);
      if (!declared.isTensor() || declared.toTensor().scalar_type() != kiln::ScalarType::Float) {
        error_ = "input " + std::to_string(i) + " is not a float tensor";
        return;
      }
      const kiln::TensorImpl& impl = *declared.toTensor().unsafeGetTensorImpl();
      auto slot = std::make_unique<Slot>();
      slot->sizes.assign(impl.sizes().begin(), impl.sizes().end());
      slot->order.assign(impl.dim_order().begin(), impl.dim_order().end());
      slot->strides.resize(impl.dim());
      slot->data.resize(static_cast<size_t>(impl.numel()));
      if (kiln::dim_order_to_strides({slot->sizes.data(), slot->sizes.size()},
                                     {slot->order.data(), slot->order.size()},
                                     {slot->strides.data(), slot->strides.size()}) != Error::Ok) {
        error_ = "input " + std::to_string(i) + ": no strides for its dim order";
        return;
      }
      slot->impl.emplace(kiln::ScalarType::Float, impl.dim(), slot->sizes.data(), slot->data.data(),
                         slot->order.data(), slot->strides.data());
      slots_.push_back(std::move(slot));
    }
  }

  const std::string& error() const { return error_; }

  // Values in [-1, 1) from a linear congruential sequence of `seed`, then bound to `method`.
  Error bind(Method& method, uint64_t seed) {
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < slots_.size(); ++i) {
      for (float& value : slots_[i]->data) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        value = static_cast<float>(static_cast<int32_t>(state >> 40) - (1 << 23)) / (1 << 23);
      }
      const Error error = method.set_input(i, kiln::EValue(kiln::Tensor(&*slots_[i]->impl)));
      if (error != Error::Ok) return error;
    }
    return Error::Ok;
  }

 private:
  struct Slot {
    std::vector<kiln::SizesType> sizes;
    std::vector<kiln::DimOrderType> order;
    std::vector<kiln::StridesType> strides;
    std::vector<float> data;
    std::optional<kiln::TensorImpl> impl;
  };
  std::vector<std::unique_ptr<Slot>> slots_;
  std::string error_;
};

// The outputs of one run: each output's sizes and bytes.
using Outputs = std::vector<std::vector<uint8_t>>;

Outputs outputs_of(const Method& method) {
  Outputs outputs;
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    std::vector<uint8_t> bytes;
    const kiln::EValue& value = method.output(i);
    if (value.isTensor()) {
      const kiln::Tensor& tensor = value.toTensor();
      for (kiln::SizesType size : tensor.sizes()) {
        const auto* raw = reinterpret_cast<const uint8_t*>(&size);
        bytes.insert(bytes.end(), raw, raw + sizeof(size));
      }
      const auto* data = static_cast<const uint8_t*>(tensor.const_data_ptr());
      bytes.insert(bytes.end(), data, data + tensor.nbytes());
    }
    outputs.push_back(std::move(bytes));
  }
  return outputs;
}

// How the runs of one Method are set up.
struct RunSetup {
  ArrayRef<Backend> backends{kPortable, 1};
  kiln::ThreadPool* pool = nullptr;  // for the runs and for the calls folded at load
  const std::atomic<bool>* cancel = nullptr;
  bool fold_constants = true;
};

// A Method of `program` in its own heap memory, with its inputs.
class Runner {
 public:
  Runner(const Program& program, const RunSetup& setup) {
    kiln::Result<kiln::MethodMeta> meta = program.method_meta("forward");
    if (!meta.ok()) {
      error_ = describe("method_meta", meta.error());
      return;
    }
    memory_ = std::make_unique<kiln::HeapMethodMemory>(*meta);
    if (memory_->status() != Error::Ok) {
      error_ = describe("memory", memory_->status());
      return;
    }
    kiln::LoadOptions options;
    options.fold_constants = setup.fold_constants;
    options.thread_pool = setup.pool;
    method_.emplace(
        Method::load(program, "forward", memory_->memory(), setup.backends, nullptr, options));
    if (!method_->ok()) {
      error_ = describe("Method::load", method_->error());
      return;
    }
    method().set_thread_pool(setup.pool);
    method().set_cancel_flag(setup.cancel);
    inputs_.emplace(method());
    error_ = inputs_->error();
  }

  const std::string& error() const { return error_; }
  Method& method() { return method_->get(); }

  // Binds the inputs of run `run` and executes.
  Error run(uint64_t run) {
    const Error bound = inputs_->bind(method(), run);
    return bound != Error::Ok ? bound : method().execute();
  }

 private:
  std::unique_ptr<kiln::HeapMethodMemory> memory_;
  std::optional<kiln::Result<Method>> method_;
  std::optional<Inputs> inputs_;
  std::string error_;
};

// Runs a fresh Method of `program` `runs` times: records each run's outputs in `recorded`, or
// compares them with `expected`. Returns "" or what went wrong.
std::string run_sequence(const Program& program, const RunSetup& setup, int runs,
                         const std::vector<Outputs>* expected,
                         std::vector<Outputs>* recorded = nullptr) {
  Runner runner(program, setup);
  if (!runner.error().empty()) return runner.error();
  for (int r = 0; r < runs; ++r) {
    const Error error = runner.run(static_cast<uint64_t>(r));
    if (error != Error::Ok) return describe(("run " + std::to_string(r)).c_str(), error);
    Outputs outputs = outputs_of(runner.method());
    if (recorded != nullptr) recorded->push_back(outputs);
    if (expected != nullptr && outputs != (*expected)[static_cast<size_t>(r)]) {
      return "run " + std::to_string(r) + ": outputs differ from the single-threaded run";
    }
  }
  return "";
}

// Single-threaded runs on one thread, without a pool: what every concurrent run must reproduce.
std::vector<Outputs> reference_runs(const Program& program, int runs = kRuns) {
  std::vector<Outputs> outputs;
  const std::string error = run_sequence(program, RunSetup{}, runs, nullptr, &outputs);
  EXPECT_EQ(error, "");
  return outputs;
}

// A ThreadPool in front of a PthreadPool that counts the batches kernels split, so that a test
// knows its runs really went through the pool.
class CountingPool final : public kiln::ThreadPool {
 public:
  explicit CountingPool(kiln::ThreadPool& pool) : pool_(pool) {}
  size_t num_threads() const override { return pool_.num_threads(); }
  void run(Task task, void* context, size_t count) override {
    if (count > 1) batches_.fetch_add(1, std::memory_order_relaxed);
    pool_.run(task, context, count);
  }
  uint64_t batches() const { return batches_.load(); }

 private:
  kiln::ThreadPool& pool_;
  std::atomic<uint64_t> batches_{0};
};

class Concurrency : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(register_tsan_ops_kernels(), Error::Ok); }

  // The program `name`, loaded once for the test; fails the test when it was not given.
  const Program* program(const std::string& name) {
    const std::string path = path_of(name);
    if (path.empty()) {
      ADD_FAILURE() << "no program named " << name << " on the command line";
      return nullptr;
    }
    loaded_.push_back(std::make_unique<LoadedProgram>(path));
    if (!loaded_.back()->program.ok()) {
      ADD_FAILURE() << path << ": " << describe("Program::load", loaded_.back()->program.error());
      return nullptr;
    }
    return &loaded_.back()->program.get();
  }

 private:
  std::vector<std::unique_ptr<LoadedProgram>> loaded_;
};

TEST_F(Concurrency, EveryProgramWasGiven) {
  for (const char* name : {"wide", "accumulator", "mlp", "transformer_block"}) {
    EXPECT_FALSE(path_of(name).empty()) << name;
  }
}

// docs/programs.md: a Program is read-only once loaded; every thread loads its own Method into its
// own memory and runs it. Loads (which fold the constant calls, or not) and runs overlap.
TEST_F(Concurrency, OneProgramMethodPerThread) {
  size_t folded = 0;
  for (const std::string& name : program_names()) {
    SCOPED_TRACE(name);
    const Program* shared = program(name);
    ASSERT_NE(shared, nullptr);
    const std::vector<Outputs> expected = reference_runs(*shared);
    Runner folding(*shared, RunSetup{});
    ASSERT_EQ(folding.error(), "");
    folded += folding.method().fold_report().instructions;
    expect_all_ok(on_threads(kThreads, [&](int t) {
      RunSetup setup;
      setup.fold_constants = t % 2 == 0;
      return run_sequence(*shared, setup, kRuns, &expected);
    }));
  }
  EXPECT_GT(folded, 0u);  // the loads above did fold calls at the same time
}

// Separate Programs on separate threads, each thread mapping and verifying its own copy of a file,
// two threads per file.
TEST_F(Concurrency, SeparateProgramsPerThread) {
  const std::vector<std::string> names = program_names();
  ASSERT_FALSE(names.empty());
  std::vector<std::vector<Outputs>> expected;
  for (const std::string& name : names) {
    const Program* reference = program(name);
    ASSERT_NE(reference, nullptr);
    expected.push_back(reference_runs(*reference));
  }
  const int threads = static_cast<int>(2 * names.size());
  expect_all_ok(on_threads(threads, [&](int t) {
    const size_t which = static_cast<size_t>(t) % names.size();
    LoadedProgram own(path_of(names[which]));
    if (!own.program.ok()) return describe("Program::load", own.program.error());
    return run_sequence(*own.program, RunSetup{}, kRuns, &expected[which]);
  }));
}

// docs/threads.md: the pool is the application's, and kernels give the same bits on any number of
// threads. One pool serves the Methods of several threads at once (Python's kiln.set_num_threads
// pool serves every Program that runs): PthreadPool::run is called from several threads together,
// by the runs and by the loads, whose constant folding splits the wide program's broadcast add.
TEST_F(Concurrency, OnePoolSharedByConcurrentMethods) {
  kiln::Result<kiln::PthreadPool> pool = kiln::PthreadPool::create(3);
  ASSERT_TRUE(pool.ok()) << kiln::last_error();
  CountingPool counting(*pool);
  for (const std::string& name : {"wide", "transformer_block"}) {
    SCOPED_TRACE(name);
    const Program* shared = program(name);
    ASSERT_NE(shared, nullptr);
    const std::vector<Outputs> expected = reference_runs(*shared);
    RunSetup setup;
    setup.pool = &counting;
    expect_all_ok(
        on_threads(kThreads, [&](int) { return run_sequence(*shared, setup, kRuns, &expected); }));
  }
  // The wide program's kernels split their loops: the pool really ran batches.
  EXPECT_GE(counting.batches(), uint64_t{kThreads * kRuns});
}

// A pool per thread, several pools running batches at the same time.
TEST_F(Concurrency, OwnPoolPerThread) {
  const Program* shared = program("wide");
  ASSERT_NE(shared, nullptr);
  const std::vector<Outputs> expected = reference_runs(*shared);
  std::atomic<uint64_t> batches{0};
  expect_all_ok(on_threads(kThreads, [&](int) -> std::string {
    kiln::Result<kiln::PthreadPool> pool = kiln::PthreadPool::create(2);
    if (!pool.ok()) return describe("PthreadPool::create", pool.error());
    CountingPool counting(*pool);
    RunSetup setup;
    setup.pool = &counting;
    const std::string error = run_sequence(*shared, setup, kRuns, &expected);
    batches.fetch_add(counting.batches());
    return error;
  }));
  EXPECT_GE(batches.load(), uint64_t{kThreads * kRuns});
}

// docs/programs.md: another thread sets the flag of Method::set_cancel_flag; the run stops before
// its next instruction, the caller clears the flag, and the next run is whole. With a pool, so
// that the flag is set while workers run a kernel.
TEST_F(Concurrency, CancelFlagSetFromAnotherThread) {
  const Program* shared = program("wide");
  ASSERT_NE(shared, nullptr);
  const std::vector<Outputs> expected = reference_runs(*shared, 1);
  kiln::Result<kiln::PthreadPool> pool = kiln::PthreadPool::create(2);
  ASSERT_TRUE(pool.ok()) << kiln::last_error();
  for (int round = 0; round < 3; ++round) {
    std::atomic<bool> cancel{false};
    std::atomic<int> runs_done{0};
    RunSetup setup;
    setup.pool = &*pool;
    setup.cancel = &cancel;
    std::string outcome;
    std::thread runner([&] {
      Runner method(*shared, setup);
      if (!method.error().empty()) {
        outcome = method.error();
        runs_done.store(-1);
        return;
      }
      // Runs until cancelled (bounded, in case the flag never arrives).
      Error error = Error::Ok;
      for (int r = 0; r < 100000 && error == Error::Ok; ++r) {
        error = method.run(0);
        if (error == Error::Ok) runs_done.fetch_add(1);
      }
      if (error != Error::InvalidState ||
          std::strstr(kiln::last_error(), "cancelled before instruction") == nullptr) {
        outcome = describe("the cancelled run", error);
        return;
      }
      cancel.store(false);  // the caller clears it; the next run is whole
      error = method.run(0);
      if (error != Error::Ok) {
        outcome = describe("the run after the cancel", error);
      } else if (outputs_of(method.method()) != expected[0]) {
        outcome = "the run after the cancel differs from the single-threaded run";
      }
    });
    while (runs_done.load() == 0) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + 3 * round));
    cancel.store(true);
    runner.join();
    EXPECT_EQ(outcome, "") << "round " << round;
  }
}

// runtime/platform/last_error.h: each thread has its own message. Every thread fails with its
// own message, waits until all have, and then reads back its own.
TEST_F(Concurrency, LastErrorIsPerThread) {
  const Program* shared = program("mlp");
  ASSERT_NE(shared, nullptr);
  constexpr int kRounds = 20;
  // The sink is start-up configuration (set before the threads start): it drops the log lines of
  // the test's many deliberate failures.
  const kiln::LogSink previous = kiln::set_log_sink([](kiln::LogLevel, const char*) {});
  std::vector<std::unique_ptr<StartLine>> rounds;
  for (int r = 0; r < kRounds; ++r) rounds.push_back(std::make_unique<StartLine>(kThreads));
  expect_all_ok(on_threads(kThreads, [&](int t) -> std::string {
    Runner runner(*shared, RunSetup{});
    std::string problem = runner.error();
    for (int r = 0; r < kRounds; ++r) {
      const size_t index = static_cast<size_t>(1000 + 100 * t + r);
      if (runner.error().empty() &&
          runner.method().set_input(index, kiln::EValue(int64_t{0})) != Error::InvalidArgument) {
        problem = "set_input of input " + std::to_string(index) + " did not fail";
      }
      if (t % 2 == 1 && r % 5 == 4) kiln::clear_last_error();
      rounds[static_cast<size_t>(r)]->arrive_and_wait();  // every thread has written its own
      const std::string want =
          t % 2 == 1 && r % 5 == 4 ? "" : "input " + std::to_string(index) + ": the method has ";
      const std::string got = kiln::last_error();
      if (got.compare(0, want.size(), want) != 0 || (want.empty() && !got.empty())) {
        problem = "round " + std::to_string(r) + ": last_error() is '" + got + "'";
      }
    }
    return problem;
  }));
  kiln::set_log_sink(previous);
}

// runtime/kernel/operator_registry.h: registration happens at start-up; lookups may then come
// from any thread. Threads look kernels up while others load Methods (which look up every call)
// and run them.
TEST_F(Concurrency, RegistryLookupsWhileMethodsRun) {
  const Program* shared = program("transformer_block");
  ASSERT_NE(shared, nullptr);
  const std::vector<Outputs> expected = reference_runs(*shared);
  const char* const names[] = {"aten::addmm.out", "aten::_softmax.out", "aten::copy_",
                               "aten::native_layer_norm.out"};
  std::vector<const kiln::Kernel*> found;
  for (const char* name : names) {
    kiln::Result<const kiln::Kernel*> kernel = kiln::find_kernel(name, "", kPortable);
    ASSERT_TRUE(kernel.ok()) << name;
    found.push_back(*kernel);
  }
  const size_t registered = kiln::registered_kernel_count();
  std::atomic<bool> running{true};
  std::thread reader_a, reader_b;
  const auto read = [&]() -> std::string {
    for (int i = 0; running.load(std::memory_order_relaxed) || i < 200; ++i) {
      const size_t n = static_cast<size_t>(i) % found.size();
      kiln::Result<const kiln::Kernel*> kernel = kiln::find_kernel(names[n], "", kPortable);
      if (!kernel.ok() || *kernel != found[n]) return std::string("lookup of ") + names[n];
      if (!kiln::has_operator(names[n], kPortable)) return "has_operator";
      if (kiln::registered_kernel_count() != registered) return "registered_kernel_count";
      const kiln::Kernel& any = kiln::registered_kernel(static_cast<size_t>(i) % registered);
      if (any.name == nullptr || any.function == nullptr) return "registered_kernel";
      const kiln::OperatorRequest request{names[n], nullptr};
      if (kiln::find_missing_operators({&request, 1}, kPortable, {}) != 0) return "missing";
    }
    return "";
  };
  std::string read_a, read_b;
  reader_a = std::thread([&] { read_a = read(); });
  reader_b = std::thread([&] { read_b = read(); });
  expect_all_ok(on_threads(
      kThreads, [&](int) { return run_sequence(*shared, RunSetup{}, kRuns, &expected); }));
  running.store(false);
  reader_a.join();
  reader_b.join();
  EXPECT_EQ(read_a, "");
  EXPECT_EQ(read_b, "");
}

// An Ascend kernel of aten::relu.out that declines every call, so that the portable kernel serves
// it as a fallback with the decline recorded. Registered by hand: this build has no Ascend kernels.
Error declining_relu(kiln::KernelRuntimeContext& ctx, kiln::Span<kiln::EValue*>) {
  ctx.fail(Error::KernelDeclined, "the test's relu declines");
  return Error::KernelDeclined;
}

constexpr kiln::Kernel kDecliningRelu[] = {
    {"aten::relu.out", kiln::hash_operator_name("aten::relu.out"), "", Backend::Ascend,
     declining_relu, "concurrency_test.cpp", 0, 2, uint64_t{1} << 1},
};
constexpr kiln::KernelTable kDecliningTable{"tsan_declining", kDecliningRelu, 1};

size_t kernel_calls(const Method& method) {
  size_t calls = 0;
  for (size_t i = 0; i < method.num_instructions(); ++i) {
    calls += std::strcmp(method.instruction_info(i).kind, "KernelCall") == 0;
  }
  return calls;
}

// Methods that prefer a backend before portable record a fallback for each call the first backend
// does not serve (kiln.fallback_records() in Python): runs on several threads, separate Programs
// or one, record them at once while another thread reads the records.
TEST_F(Concurrency, FallbackRecordsFromConcurrentRuns) {
  ASSERT_EQ(kiln::register_kernels(kDecliningTable), Error::Ok) << kiln::last_error();
  const Backend preference[] = {Backend::Ascend, Backend::Portable};
  RunSetup setup;
  setup.backends = {preference, 2};
  setup.fold_constants = false;  // every call runs (and falls back) at every execute()
  const std::vector<std::string> names = {"wide", "mlp"};
  std::vector<std::vector<Outputs>> expected;
  std::vector<size_t> calls;
  for (const std::string& name : names) {
    const Program* reference = program(name);
    ASSERT_NE(reference, nullptr);
    expected.push_back(reference_runs(*reference));
    Runner runner(*reference, setup);
    ASSERT_EQ(runner.error(), "");
    calls.push_back(kernel_calls(runner.method()));
  }
  kiln::reset_fallback_stats();
  std::atomic<bool> running{true};
  std::string reader_problem;
  std::thread reader([&] {
    kiln::FallbackRecord records[8];
    uint64_t last = 0;
    while (running.load(std::memory_order_relaxed)) {
      const uint64_t count = kiln::fallback_count();
      if (count < last) reader_problem = "fallback_count() went down";
      last = count;
      const size_t n = kiln::fallback_records({records, 8});
      for (size_t i = 0; i < n && i < 8; ++i) {
        if (records[i].name == nullptr || records[i].count == 0) reader_problem = "a torn record";
      }
    }
  });
  expect_all_ok(on_threads(kThreads, [&](int t) -> std::string {
    const size_t which = static_cast<size_t>(t) % names.size();
    LoadedProgram own(path_of(names[which]));
    if (!own.program.ok()) return describe("Program::load", own.program.error());
    return run_sequence(*own.program, setup, kRuns, &expected[which]);
  }));
  running.store(false);
  reader.join();
  EXPECT_EQ(reader_problem, "");
  // Every call of every run fell back once: none is lost to a concurrent update.
  EXPECT_EQ(kiln::fallback_count(), uint64_t{kThreads / 2 * kRuns} * (calls[0] + calls[1]));
  kiln::FallbackRecord records[32];
  const size_t n = kiln::fallback_records({records, 32});
  bool relu_declined = false;
  for (size_t i = 0; i < n && i < 32; ++i) {
    if (std::strcmp(records[i].name, "aten::relu.out") == 0) {
      relu_declined = std::strstr(records[i].reason, "the test's relu declines") != nullptr;
    }
  }
  EXPECT_TRUE(relu_declined);
  kiln::reset_fallback_stats();
}

// runtime/kernel/random_generator.h: concurrent reserve() calls get disjoint ranges of blocks,
// from the default generator and from a generator the threads share.
TEST_F(Concurrency, RandomGeneratorsHandOutDisjointRanges) {
  kiln::RandomGenerator shared(42);
  for (kiln::RandomGenerator* generator : {&kiln::default_random_generator(), &shared}) {
    const uint64_t start = generator->offset();
    constexpr int kReserves = 500;
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> ranges(kThreads);
    expect_all_ok(on_threads(kThreads, [&](int t) {
      for (int i = 0; i < kReserves; ++i) {
        const uint64_t blocks = static_cast<uint64_t>(1 + (i + t) % 7);
        const kiln::RandomStream stream = generator->reserve(blocks);
        ranges[static_cast<size_t>(t)].emplace_back(stream.first, blocks);
      }
      return std::string();
    }));
    std::vector<std::pair<uint64_t, uint64_t>> all;
    for (const auto& own : ranges) all.insert(all.end(), own.begin(), own.end());
    std::sort(all.begin(), all.end());
    uint64_t next = start;
    for (const auto& [first, blocks] : all) {
      ASSERT_EQ(first, next) << "ranges overlap or leave a gap";
      next = first + blocks;
    }
    EXPECT_EQ(generator->offset(), next);
  }
}

// ---- The self-test: a real race, which ThreadSanitizer must report ----

int raced_counter = 0;  // written without synchronisation by the deliberate race

// Each caller waits (up to a few seconds) until `parties` callers have arrived, then increments
// the plain counter. The arrivals are relaxed atomics: they order nothing, so the increments race.
std::atomic<int> arrived{0};
bool all_arrived_then_increment(int parties) {
  arrived.fetch_add(1, std::memory_order_relaxed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (arrived.load(std::memory_order_relaxed) < parties) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  raced_counter = raced_counter + 1;
  return true;
}

std::atomic<bool> pool_tasks_met{true};
void racing_task(void*, size_t) {
  if (!all_arrived_then_increment(2)) pool_tasks_met.store(false);
}

// Two threads, or the two tasks of one PthreadPool batch (which then run on two threads at once),
// increment a plain int: a data race in code compiled like Kiln's. A working ThreadSanitizer build
// reports it and exits non-zero; the pool case shows that PthreadPool's annotations order a
// batch's tasks after its start and before its end, but not among themselves.
int deliberate_race(const std::string& how) {
  if (how == "threads") {
    std::thread a([] { all_arrived_then_increment(2); });
    std::thread b([] { all_arrived_then_increment(2); });
    a.join();
    b.join();
  } else if (how == "pool") {
    kiln::Result<kiln::PthreadPool> pool = kiln::PthreadPool::create(2);
    if (!pool.ok()) {
      std::fprintf(stderr, "PthreadPool::create: %s\n", kiln::last_error());
      return 2;
    }
    pool->run(racing_task, nullptr, 2);
    if (!pool_tasks_met.load()) {
      std::fprintf(stderr, "the pool did not run its two tasks at the same time\n");
      return 3;
    }
  } else {
    std::fprintf(stderr, "--deliberate-race takes threads or pool, not '%s'\n", how.c_str());
    return 2;
  }
  std::printf("deliberate race (%s) ran: counter %d\n", how.c_str(), raced_counter);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string race_flag = "--deliberate-race=";
    if (arg.compare(0, race_flag.size(), race_flag) == 0) {
      return deliberate_race(arg.substr(race_flag.size()));
    }
    const size_t equals = arg.find('=');
    if (equals == std::string::npos || equals == 0) {
      std::fprintf(stderr, "usage: %s [gtest flags] NAME=PROGRAM.pte ... | --deliberate-race=HOW\n",
                   argv[0]);
      return 2;
    }
    program_paths()[arg.substr(0, equals)] = arg.substr(equals + 1);
  }
  return RUN_ALL_TESTS();
}
