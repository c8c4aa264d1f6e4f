// The standalone fuzz driver, for compilers without libFuzzer (g++): runs the program fuzz target
// over a seed corpus and deterministic mutations of it for a time or iteration budget, and reports
// the iterations run and the crashes found. The inputs run in a child process, restarted after a
// crash (a sanitizer report, an abort, a signal) or a timeout; each such input is saved, so that
// `--replay` reproduces it under the debugger. Iteration i's input depends only on --seed and i.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <vector>

#include "mutations.h"
#include "paired_input.h"
#include "program_fuzzer.h"
#include "synthetic.h"

namespace {

using kiln_fuzz::Outcome;

constexpr size_t kNumOutcomes = static_cast<size_t>(Outcome::Ran) + 1;
constexpr size_t kMaxSeeds = 256;

const char kUsage[] =
    "usage: program_fuzz_driver [options] PATH...\n"
    "  PATH              .pte seed files, or directories of them; a .ptd data file beside\n"
    "                    a seed (same name) goes with it\n"
    "  --seconds S       stop after S seconds (default 60 when no --iterations)\n"
    "  --iterations N    stop after N iterations (the seeds themselves are the first ones)\n"
    "  --seed N          mutation seed (default 1)\n"
    "  --timeout S       an input running longer than S seconds is a failure (default 20)\n"
    "  --crash-dir DIR   where crashing inputs are saved (default .)\n"
    "  --max-crashes N   stop after N crashes (default 10)\n"
    "  --replay          run each PATH once as it is, in this process (no mutation)\n"
    "  --no-synthetic    only the PATHs' seeds, not also the driver's own (synthetic.h)\n"
    "  --mutate-to DIR   write the first --count inputs (seeds, then mutants) to DIR as\n"
    "                    <iteration>.pte, without running them\n"
    "  --count N         how many inputs --mutate-to writes (default 1000)\n"
    "  --from N          the first iteration --mutate-to writes (default 0)\n"
    "  --scaling         time loads of the synthetic programs at growing sizes (no PATH)\n"
    "  --scaling-min N   the smallest scale --scaling builds (default 1024)\n"
    "  --scaling-max N   the largest scale --scaling builds (default 65536)\n"
    "  --scaling-dir DIR also write each --scaling program to DIR/<shape>-<scale>.pte\n"
    "  --crash-at N      abort at iteration N (tests the driver's crash handling)\n"
    "  --write-at N      write into the program's bytes at iteration N (tests the mapping)\n";

struct Options {
  double seconds = 0;
  uint64_t iterations = 0;
  uint64_t seed = 1;
  double timeout = 20;
  std::string crash_dir = ".";
  uint64_t max_crashes = 10;
  bool replay = false;
  bool synthetic = true;
  std::string mutate_to;
  uint64_t count = 1000;
  uint64_t from = 0;
  bool scaling = false;
  uint64_t scaling_min = 1024;
  uint64_t scaling_max = 65536;
  std::string scaling_dir;
  uint64_t crash_at = UINT64_MAX;
  uint64_t write_at = UINT64_MAX;
  std::vector<std::string> paths;
};

struct Seed {
  std::string name;
  std::vector<uint8_t> bytes;  // the program
  kiln_fuzz::Layout layout;
  // The data file (.ptd) beside the program, when there is one: the seed's inputs then pair the
  // two (paired_input.h), and a mutation changes one of them.
  bool paired = false;
  std::vector<uint8_t> data;
  kiln_fuzz::Layout data_layout;

  std::vector<uint8_t> input() const { return paired ? kiln_fuzz::join_input(bytes, data) : bytes; }
};

// What the parent and the running child share (MAP_SHARED): progress, counts, the input.
struct Shared {
  std::atomic<uint64_t> next{0};        // the next iteration to run
  std::atomic<uint64_t> current{0};     // the iteration running, valid while started_ns != 0
  std::atomic<uint64_t> started_ns{0};  // when it started; 0 between iterations
  uint64_t counts[kNumOutcomes] = {};
  uint64_t slowest_ns = 0;  // the slowest input that finished, and its iteration
  uint64_t slowest_iteration = 0;
  uint8_t seed_outcomes[kMaxSeeds] = {};
  uint64_t input_size = 0;
  uint8_t input[1] = {};  // max_input bytes follow
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared between processes");

// This process's CPU time: other processes on the machine do not slow it down.
uint64_t cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

bool parse_number(const char* text, double* out) {
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(text, &end);
  return errno == 0 && end != text && *end == '\0' && *out >= 0;
}

bool parse_options(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    double number = 0;
    if (arg == "--replay") {
      options->replay = true;
    } else if (arg == "--no-synthetic") {
      options->synthetic = false;
    } else if (arg == "--scaling") {
      options->scaling = true;
    } else if (arg == "--crash-dir" && has_value) {
      options->crash_dir = argv[++i];
    } else if (arg == "--mutate-to" && has_value) {
      options->mutate_to = argv[++i];
    } else if (arg == "--scaling-dir" && has_value) {
      options->scaling_dir = argv[++i];
    } else if ((arg == "--seconds" || arg == "--iterations" || arg == "--seed" ||
                arg == "--timeout" || arg == "--max-crashes" || arg == "--crash-at" ||
                arg == "--write-at" || arg == "--count" || arg == "--from" ||
                arg == "--scaling-min" || arg == "--scaling-max") &&
               has_value) {
      if (!parse_number(argv[++i], &number)) {
        std::fprintf(stderr, "%s: '%s' is not a non-negative number\n", arg.c_str(), argv[i]);
        return false;
      }
      if (arg == "--seconds") options->seconds = number;
      if (arg == "--iterations") options->iterations = static_cast<uint64_t>(number);
      if (arg == "--seed") options->seed = static_cast<uint64_t>(number);
      if (arg == "--timeout") options->timeout = number;
      if (arg == "--max-crashes") options->max_crashes = static_cast<uint64_t>(number);
      if (arg == "--crash-at") options->crash_at = static_cast<uint64_t>(number);
      if (arg == "--write-at") options->write_at = static_cast<uint64_t>(number);
      if (arg == "--count") options->count = static_cast<uint64_t>(number);
      if (arg == "--from") options->from = static_cast<uint64_t>(number);
      if (arg == "--scaling-min") options->scaling_min = static_cast<uint64_t>(number);
      if (arg == "--scaling-max") options->scaling_max = static_cast<uint64_t>(number);
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "unknown option or missing value: %s\n", arg.c_str());
      return false;
    } else {
      options->paths.push_back(arg);
    }
  }
  if (options->paths.empty() && !options->scaling) {
    std::fprintf(stderr, "no PATH given\n");
    return false;
  }
  if (options->seconds == 0 && options->iterations == 0) options->seconds = 60;
  return true;
}

bool read_file(const std::string& path, std::vector<uint8_t>* bytes) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  bytes->assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  return true;
}

// The driver's own seeds, after the files': each synthetic shape at a scale that keeps inputs
// quick (the mutator rewrites the first items of each list; --scaling covers large sizes).
void add_synthetic_seeds(std::vector<Seed>* seeds) {
  using kiln_fuzz::Shape;
  const std::pair<Shape, uint32_t> chosen[] = {{Shape::Chain, 3},
                                               {Shape::Chain, 300},
                                               {Shape::SharedInstruction, 200},
                                               {Shape::SharedList, 200},
                                               {Shape::SharedTensorList, 200},
                                               {Shape::SharedTensor, 50},
                                               {Shape::ConstantInput, 1},
                                               {Shape::ItemlessList, 1},
                                               {Shape::Limits, 3},
                                               {Shape::Limits, 5},
                                               {Shape::Limits, 8},
                                               {Shape::Limits, 13},
                                               {Shape::Limits, 21},
                                               {Shape::Limits, 34}};
  for (const auto& [shape, n] : chosen) {
    Seed seed{std::string("synthetic:") + kiln_fuzz::to_string(shape) + "-" + std::to_string(n),
              kiln_fuzz::synthetic_program(shape, n),
              {}};
    seed.layout = kiln_fuzz::find_layout(seed.bytes);
    seeds->push_back(std::move(seed));
  }
}

// The .pte files named or found in the named directories, in name order (for determinism).
bool load_seeds(const std::vector<std::string>& paths, bool synthetic, std::vector<Seed>* seeds) {
  std::vector<std::filesystem::path> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
        if (entry.path().extension() == ".pte") files.push_back(entry.path());
      }
    } else {
      files.emplace_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    Seed seed{file.filename().string(), {}, {}};
    if (!read_file(file.string(), &seed.bytes)) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return false;
    }
    seed.layout = kiln_fuzz::find_layout(seed.bytes);
    const std::filesystem::path data = std::filesystem::path(file).replace_extension(".ptd");
    std::error_code error;
    if (std::filesystem::is_regular_file(data, error)) {
      if (!read_file(data.string(), &seed.data)) {
        std::fprintf(stderr, "cannot read %s\n", data.c_str());
        return false;
      }
      seed.paired = true;
      seed.data_layout = kiln_fuzz::find_data_layout(seed.data);
    }
    seeds->push_back(std::move(seed));
  }
  if (synthetic) add_synthetic_seeds(seeds);
  if (seeds->empty() || seeds->size() > kMaxSeeds) {
    std::fprintf(stderr, "found %zu .pte seeds in the PATHs; give 1 to %zu\n", seeds->size(),
                 kMaxSeeds);
    return false;
  }
  return true;
}

// Each PATH as it is: a program (with the .ptd beside it, if any) or a saved paired input.
int replay(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    std::vector<uint8_t> bytes;
    if (!read_file(path, &bytes)) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 2;
    }
    std::vector<uint8_t> data;
    const std::filesystem::path data_path = std::filesystem::path(path).replace_extension(".ptd");
    std::error_code error;
    if (std::filesystem::is_regular_file(data_path, error) && read_file(data_path, &data)) {
      bytes = kiln_fuzz::join_input(bytes, data);
    }
    const Outcome outcome = kiln_fuzz::run_program(bytes.data(), bytes.size());
    std::printf("%s: %s\n", path.c_str(), kiln_fuzz::to_string(outcome));
  }
  return 0;
}

class Fuzzer {
 public:
  Fuzzer(const Options& options, std::vector<Seed> seeds)
      : options_(options), seeds_(std::move(seeds)) {
    size_t largest = 0;
    for (const Seed& seed : seeds_) largest = std::max(largest, seed.input().size());
    max_input_ = 2 * largest + 4096;
    shared_size_ = sizeof(Shared) + max_input_;
    void* memory =
        mmap(nullptr, shared_size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    shared_ = memory == MAP_FAILED ? nullptr : new (memory) Shared();
  }
  ~Fuzzer() {
    if (shared_ != nullptr) {
      shared_->~Shared();
      munmap(shared_, shared_size_);
    }
  }
  Fuzzer(const Fuzzer&) = delete;
  Fuzzer& operator=(const Fuzzer&) = delete;

  int run() {
    if (shared_ == nullptr) {
      std::perror("mmap");
      return 2;
    }
    const uint64_t start = now_ns();
    deadline_ = options_.seconds > 0 ? start + uint64_t(options_.seconds * 1e9) : UINT64_MAX;
    limit_ = options_.iterations > 0 ? options_.iterations : UINT64_MAX;
    std::memset(shared_->seed_outcomes, 0xff, sizeof(shared_->seed_outcomes));
    uint64_t crashes = 0;
    uint64_t timeouts = 0;
    while (shared_->next < limit_ && now_ns() < deadline_ &&
           crashes + timeouts < options_.max_crashes) {
      std::fflush(nullptr);
      const pid_t child = fork();
      if (child < 0) {
        std::perror("fork");
        return 2;
      }
      if (child == 0) {
        run_child();
        std::_Exit(0);
      }
      bool timed_out = false;
      int status = 0;
      while (waitpid(child, &status, WNOHANG) == 0) {
        const uint64_t started = shared_->started_ns;
        if (started != 0 && now_ns() - started > uint64_t(options_.timeout * 1e9)) {
          kill(child, SIGKILL);
          waitpid(child, &status, 0);
          timed_out = true;
          break;
        }
        usleep(5000);
      }
      if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
      if (shared_->started_ns == 0) {
        std::fprintf(stderr, "the fuzz target failed outside any input (status %d)\n", status);
        return 2;
      }
      report_failure(timed_out, status);
      (timed_out ? timeouts : crashes) += 1;
      shared_->next = shared_->current + 1;
      shared_->started_ns = 0;
    }
    return summarize(crashes, timeouts, (now_ns() - start) / 1e9);
  }

 private:
  // Iteration i < number of seeds runs seed i as it is; later ones run a mutation.
  void make_input(uint64_t iteration, std::vector<uint8_t>* input) {
    if (iteration < seeds_.size()) {
      *input = seeds_[iteration].input();
      return;
    }
    kiln_fuzz::Rng rng(options_.seed * 0x9e3779b97f4a7c15ull ^ iteration);
    const Seed& seed = seeds_[rng.below(seeds_.size())];
    const Seed& other = seeds_[rng.below(seeds_.size())];
    // A paired input's parts share max_input_ (largest is at most half of it).
    const size_t room = seed.paired ? max_input_ - kiln_fuzz::kPairHeader : max_input_;
    if (seed.paired && rng.one_in(2)) {  // the data file changes, the program stays
      std::vector<uint8_t> data = seed.data;
      kiln_fuzz::mutate(data, seed.data_layout, other.paired ? other.data : seed.data,
                        room - seed.bytes.size(), rng);
      *input = kiln_fuzz::join_input(seed.bytes, data);
      return;
    }
    *input = seed.bytes;
    kiln_fuzz::mutate(*input, seed.layout, other.bytes, room - seed.data.size(), rng);
    if (seed.paired) *input = kiln_fuzz::join_input(*input, seed.data);
  }

 public:
  // --mutate-to: the first --count inputs of this seed's run, written instead of run.
  int write_inputs() {
    std::error_code error;
    std::filesystem::create_directories(options_.mutate_to, error);
    std::vector<uint8_t> input;
    for (uint64_t i = options_.from; i < options_.from + options_.count; ++i) {
      make_input(i, &input);
      const std::string path = options_.mutate_to + "/" + std::to_string(i) + ".pte";
      std::ofstream file(path, std::ios::binary);
      file.write(reinterpret_cast<const char*>(input.data()),
                 static_cast<std::streamsize>(input.size()));
      if (!file) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return 2;
      }
    }
    std::printf("wrote %" PRIu64 " inputs (%zu seeds, then mutants; seed %" PRIu64 ") to %s\n",
                options_.count, seeds_.size(), options_.seed, options_.mutate_to.c_str());
    return 0;
  }

 private:
  void run_child() {
    std::vector<uint8_t> input;
    for (uint64_t i = shared_->next; i < limit_ && now_ns() < deadline_; i = shared_->next) {
      make_input(i, &input);
      std::memcpy(shared_->input, input.data(), input.size());
      shared_->input_size = input.size();
      shared_->current = i;
      shared_->started_ns = now_ns();
      if (i == options_.crash_at) std::abort();
      kiln_fuzz::set_write_probe(i == options_.write_at);
      const Outcome outcome = kiln_fuzz::run_program(input.data(), input.size());
      const uint64_t took = now_ns() - shared_->started_ns;
      if (took > shared_->slowest_ns) {
        shared_->slowest_ns = took;
        shared_->slowest_iteration = i;
      }
      shared_->started_ns = 0;
      shared_->counts[static_cast<size_t>(outcome)] += 1;
      if (i < seeds_.size()) shared_->seed_outcomes[i] = static_cast<uint8_t>(outcome);
      shared_->next = i + 1;
    }
  }

  void report_failure(bool timed_out, int status) {
    const uint64_t iteration = shared_->current;
    char path[4096];
    std::snprintf(path, sizeof(path), "%s/%s-%" PRIu64 "-%" PRIu64 ".pte",
                  options_.crash_dir.c_str(), timed_out ? "timeout" : "crash", options_.seed,
                  iteration);
    std::filesystem::create_directories(options_.crash_dir);
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(shared_->input),
               static_cast<std::streamsize>(shared_->input_size));
    char how[64];
    if (timed_out) {
      std::snprintf(how, sizeof(how), "ran longer than %g s", options_.timeout);
    } else if (WIFSIGNALED(status)) {
      std::snprintf(how, sizeof(how), "ended by signal %d", WTERMSIG(status));
    } else {
      std::snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(status));
    }
    std::printf("%s: iteration %" PRIu64 " %s; input saved to %s (replay: --replay %s)\n",
                timed_out ? "timeout" : "crash", iteration, how, path, path);
    std::fflush(stdout);
  }

  int summarize(uint64_t crashes, uint64_t timeouts, double seconds) {
    for (size_t s = 0; s < seeds_.size(); ++s) {
      const uint8_t outcome = shared_->seed_outcomes[s];
      std::printf(
          "seed %s: %s\n", seeds_[s].name.c_str(),
          outcome < kNumOutcomes ? kiln_fuzz::to_string(static_cast<Outcome>(outcome)) : "not run");
    }
    uint64_t total = 0;
    for (uint64_t count : shared_->counts) total += count;
    total += crashes + timeouts;
    std::printf("iterations: %" PRIu64 " in %.1f s (%.0f/s), seed %" PRIu64 "\n", total, seconds,
                seconds > 0 ? total / seconds : 0.0, options_.seed);
    for (size_t o = 0; o < kNumOutcomes; ++o) {
      std::printf("  %s: %" PRIu64 "\n", kiln_fuzz::to_string(static_cast<Outcome>(o)),
                  shared_->counts[o]);
    }
    std::printf("slowest input: %.1f ms (iteration %" PRIu64 ")\n", shared_->slowest_ns / 1e6,
                shared_->slowest_iteration);
    std::printf("crashes: %" PRIu64 "\ntimeouts: %" PRIu64 "\n", crashes, timeouts);
    return crashes + timeouts == 0 ? 0 : 1;
  }

  const Options& options_;
  std::vector<Seed> seeds_;
  size_t max_input_ = 0;
  size_t shared_size_ = 0;
  Shared* shared_ = nullptr;
  uint64_t deadline_ = 0;
  uint64_t limit_ = 0;
};

}  // namespace

// --scaling: the whole fuzz target (loads, and runs of what loads) on each synthetic shape at
// scales from --scaling-min, times 4, up to --scaling-max: the least CPU time of two. Work linear
// in the file's size gives a time per byte that stays level as the scale grows; a quadratic load's
// grows with it.
int scaling(uint64_t smallest, uint64_t largest, const std::string& dir) {
  if (!dir.empty()) std::filesystem::create_directories(dir);
  for (const kiln_fuzz::Shape shape : kiln_fuzz::kShapes) {
    // Not sized by their scale, or refused at once.
    if (shape == kiln_fuzz::Shape::Limits || shape == kiln_fuzz::Shape::ConstantInput ||
        shape == kiln_fuzz::Shape::ItemlessList) {
      continue;
    }
    for (uint64_t n = std::max<uint64_t>(smallest, 1); n <= largest; n *= 4) {
      const std::vector<uint8_t> program =
          kiln_fuzz::synthetic_program(shape, static_cast<uint32_t>(n));
      if (!dir.empty()) {
        std::ofstream file(
            dir + "/" + kiln_fuzz::to_string(shape) + "-" + std::to_string(n) + ".pte",
            std::ios::binary);
        file.write(reinterpret_cast<const char*>(program.data()),
                   static_cast<std::streamsize>(program.size()));
      }
      uint64_t fastest = UINT64_MAX;
      Outcome outcome = Outcome::ProgramRefused;
      for (int attempt = 0; attempt < 2; ++attempt) {
        const uint64_t start = cpu_ns();
        outcome = kiln_fuzz::run_program(program.data(), program.size());
        fastest = std::min(fastest, cpu_ns() - start);
      }
      std::printf("scaling %s n=%" PRIu64 " bytes=%zu ns=%" PRIu64 " outcome=%s\n",
                  kiln_fuzz::to_string(shape), n, program.size(), fastest,
                  kiln_fuzz::to_string(outcome));
      std::fflush(stdout);
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, &options)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (options.scaling) {
    return scaling(options.scaling_min, options.scaling_max, options.scaling_dir);
  }
  if (options.replay) return replay(options.paths);
  std::vector<Seed> seeds;
  if (!load_seeds(options.paths, options.synthetic, &seeds)) return 2;
  Fuzzer fuzzer(options, std::move(seeds));
  if (!options.mutate_to.empty()) return fuzzer.write_inputs();
  return fuzzer.run();
}
