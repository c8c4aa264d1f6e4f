// The launch runner: blocks in shuffled order, violations to messages, cross-block write overlap.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu::detail {
namespace {

constexpr uint32_t kMaxBlockDim = 65535;

std::string trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  const size_t last = text.find_last_not_of(" \t\n");
  return text.substr(first, last - first + 1);
}

// "x, y, f(a, b), tiling" -> {"x", "y", "f(a, b)", "tiling"}: commas inside brackets stay.
std::vector<std::string> split_arguments(const char* arg_names) {
  std::vector<std::string> names;
  std::string current;
  int depth = 0;
  for (const char* c = arg_names == nullptr ? "" : arg_names; *c != '\0'; ++c) {
    if (*c == '(' || *c == '[' || *c == '{') ++depth;
    if (*c == ')' || *c == ']' || *c == '}') --depth;
    if (*c == ',' && depth == 0) {
      names.push_back(trim(current));
      current.clear();
    } else {
      current += *c;
    }
  }
  if (!trim(current).empty() || !names.empty()) names.push_back(trim(current));
  return names;
}

std::vector<ArgInfo> describe_arguments(const char* arg_names,
                                        const std::vector<const void*>& addresses) {
  std::vector<std::string> names = split_arguments(arg_names);
  std::vector<ArgInfo> args;
  for (size_t i = 0; i < addresses.size(); ++i) {
    std::string name = i < names.size() && names.size() == addresses.size()
                           ? names[i]
                           : "argument " + std::to_string(i);
    args.push_back({std::move(name), static_cast<const uint8_t*>(addresses[i])});
  }
  return args;
}

// Fisher-Yates with the raw mt19937_64 stream: the same seed gives the same order everywhere.
std::vector<uint32_t> shuffled_blocks(uint32_t block_dim, uint64_t seed) {
  std::vector<uint32_t> order(block_dim);
  for (uint32_t i = 0; i < block_dim; ++i) order[i] = i;
  std::mt19937_64 engine(seed);
  for (uint32_t i = block_dim; i > 1; --i) std::swap(order[i - 1], order[engine() % i]);
  return order;
}

std::string seed_text(uint64_t seed) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, seed);
  return text;
}

struct BlockWrite {
  uintptr_t begin;
  uintptr_t end;
  uint32_t block;
};

// Unions each block's writes, then sweeps all of them in address order. Within a block the
// unions are disjoint, so the first interval starting below the furthest end seen so far
// overlaps an interval of another block.
std::string find_write_overlap(const LaunchContext& launch) {
  std::vector<BlockWrite> all;
  for (uint32_t block = 0; block < launch.writes.size(); ++block) {
    std::vector<Interval> writes = launch.writes[block];
    std::sort(writes.begin(), writes.end(),
              [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    for (const Interval& w : writes) {
      if (!all.empty() && all.back().block == block && w.begin <= all.back().end) {
        all.back().end = std::max(all.back().end, w.end);
      } else {
        all.push_back({w.begin, w.end, block});
      }
    }
  }
  std::sort(all.begin(), all.end(),
            [](const BlockWrite& a, const BlockWrite& b) { return a.begin < b.begin; });
  const BlockWrite* furthest = nullptr;
  for (const BlockWrite& w : all) {
    if (furthest != nullptr && w.begin < furthest->end) {
      const uintptr_t end = std::min(w.end, furthest->end);
      const uint32_t first = std::min(w.block, furthest->block);
      const uint32_t second = std::max(w.block, furthest->block);
      return launch.kernel + ": blocks " + std::to_string(first) + " and " +
             std::to_string(second) + " both write " + format_bytes(end - w.begin) + " at " +
             describe_gm(reinterpret_cast<const void*>(w.begin)) +
             ": overlapping GM writes between blocks (the device runs blocks in any order, so "
             "the result depends on timing; the emulator ran them in shuffled order, seed " +
             seed_text(launch.seed) + ")";
    }
    if (furthest == nullptr || w.end > furthest->end) furthest = &w;
  }
  return "";
}

// Clears the thread's current launch however run_launch leaves.
class CurrentLaunch {
 public:
  CurrentLaunch(ThreadState& state, LaunchContext& launch) : state_(state) {
    state_.launch = &launch;
  }
  ~CurrentLaunch() { state_.launch = nullptr; }
  CurrentLaunch(const CurrentLaunch&) = delete;
  CurrentLaunch& operator=(const CurrentLaunch&) = delete;

 private:
  ThreadState& state_;
};

}  // namespace

LaunchOutcome run_launch(const char* kernel_name, const char* arg_names,
                         const std::vector<const void*>& arg_addresses, uint32_t block_dim,
                         KernelBody body) {
  ThreadState& state = thread_state();
  LaunchOutcome outcome;
  outcome.report.kernel = kernel_name;
  outcome.report.blocks = block_dim;
  const auto fail = [&](std::string message) {
    outcome.ok = false;
    outcome.message = std::move(message);
  };
  if (state.launch != nullptr) {
    fail(std::string(kernel_name) + ": launched from inside kernel " + state.launch->kernel +
         " (kernels cannot launch kernels)");
    return outcome;
  }
  if (block_dim == 0 || block_dim > kMaxBlockDim) {
    fail(std::string(kernel_name) + ": block_dim is " + std::to_string(block_dim) +
         (block_dim == 0 ? " (a launch needs at least one block)"
                         : " (the device takes at most 65535 blocks)"));
    state.history.push_back(outcome.report);
    return outcome;
  }

  LaunchContext launch(kernel_name, describe_arguments(arg_names, arg_addresses), *state.soc,
                       block_dim, state.seed);
  {
    CurrentLaunch current(state, launch);
    for (uint32_t block : shuffled_blocks(block_dim, state.seed)) {
      const std::string where = launch.kernel + " (block " + std::to_string(block) + "): ";
      launch.begin_block(block);
      try {
        body.invoke(body.state);
      } catch (const Violation& violation) {
        fail(where + violation.what());
      } catch (const std::exception& error) {
        fail(where + "the kernel threw " + error.what());
      } catch (...) {
        fail(where + "the kernel threw an exception");
      }
      launch.end_block();
      if (!outcome.ok) break;
    }
    if (outcome.ok) {
      std::string overlap = find_write_overlap(launch);
      if (!overlap.empty()) fail(std::move(overlap));
    }
  }
  outcome.report = launch.report;
  state.history.push_back(outcome.report);
  return outcome;
}

}  // namespace kiln::ascend::emu::detail
