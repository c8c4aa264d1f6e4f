// Per-thread emulator state, the launch context, and the small kernel-side queries on them.
#include "kernels/ascend/emu/src/state.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace kiln::ascend::emu {
namespace detail {

const SocProfile* initial_soc();

namespace {

constexpr uint64_t kDefaultSeed = 0x4b494c4eu;  // "KILN"
constexpr uint8_t kUbGarbage = 0xff;            // reads as NaN in half and float

uint64_t initial_seed() {
  const char* env = std::getenv("KILN_ASCEND_EMU_SEED");
  if (env == nullptr || *env == '\0') return kDefaultSeed;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(env, &end, 0);
  if (end == env || *end != '\0') {
    std::fprintf(stderr,
                 "kiln ascend emulator: KILN_ASCEND_EMU_SEED=%s is not a number; using %llu\n", env,
                 static_cast<unsigned long long>(kDefaultSeed));
    return kDefaultSeed;
  }
  return value;
}

}  // namespace

ThreadState::ThreadState() : soc(initial_soc()), seed(initial_seed()) {}

ThreadState::~ThreadState() {
  for (auto& [address, allocation] : allocations) {
    ::operator delete(allocation.begin, std::align_val_t{512});
  }
}

const Allocation* ThreadState::find(const void* address) const {
  const auto key = reinterpret_cast<uintptr_t>(address);
  auto it = allocations.upper_bound(key);
  if (it == allocations.begin()) return nullptr;
  --it;
  const Allocation& allocation = it->second;
  return key < it->first + allocation.bytes ? &allocation : nullptr;
}

ThreadState& thread_state() {
  thread_local ThreadState state;
  return state;
}

LaunchContext& launch_context() {
  LaunchContext* launch = thread_state().launch;
  if (launch == nullptr) {
    std::fprintf(stderr,
                 "kiln ascend emulator: an Ascend C kernel API was called outside a kernel "
                 "launch; run kernels through KILN_ASCEND_LAUNCH\n");
    std::abort();
  }
  return *launch;
}

LaunchContext::LaunchContext(const char* kernel_name, std::vector<ArgInfo> arguments,
                             const SocProfile& profile, uint32_t blocks, uint64_t launch_seed)
    : kernel(kernel_name),
      args(std::move(arguments)),
      soc(profile),
      block_dim(blocks),
      seed(launch_seed),
      writes(blocks),
      ub_storage_(profile.ub_bytes + 64),
      dirty_ub_bytes_(profile.ub_bytes) {
  // UB addresses are offsets from a 64 B aligned base, so host alignment matches device alignment.
  const auto base = reinterpret_cast<uintptr_t>(ub_storage_.data());
  ub = ub_storage_.data() + ((64 - base % 64) % 64);
  report.kernel = kernel;
  report.blocks = blocks;
}

LaunchContext::~LaunchContext() {
  if (workspace != nullptr) device_free(workspace);
}

void LaunchContext::begin_block(uint32_t block_index) {
  block = BlockState{};
  block.index = block_index;
  std::memset(ub, kUbGarbage, dirty_ub_bytes_);
  dirty_ub_bytes_ = 0;
}

void LaunchContext::end_block() {
  dirty_ub_bytes_ = block.ub_high_water;
  if (block.ub_high_water > report.ub_high_water_bytes) {
    report.ub_high_water_bytes = block.ub_high_water;
  }
  writes[block.index] = std::move(block.writes);
  block = BlockState{};
}

[[noreturn]] void raise(const std::string& message) { throw Violation(message); }

uint32_t block_idx() { return launch_context().block.index; }
uint32_t block_num() { return launch_context().block_dim; }
void note_vector_instruction() { ++launch_context().report.vector_instructions; }
void note_cube_instructions(uint64_t count) { launch_context().report.cube_instructions += count; }
void note_gm_to_ub(uint64_t bytes) { launch_context().report.gm_to_ub_bytes += bytes; }
void note_ub_to_gm(uint64_t bytes) { launch_context().report.ub_to_gm_bytes += bytes; }

void require_bfloat16(const char* api) {
  const SocProfile& profile = launch_context().soc;
  if (!profile.has_bfloat16) {
    raise(std::string(api) + ": bfloat16_t is not supported on " + profile.name +
          " (the SoC has no bfloat16 datapath); use half or float there");
  }
}

std::string format_bytes(uint64_t bytes) { return std::to_string(bytes) + " B"; }

}  // namespace detail

void set_seed(uint64_t value) { detail::thread_state().seed = value; }
uint64_t seed() { return detail::thread_state().seed; }
const std::vector<KernelReport>& launch_history() { return detail::thread_state().history; }
void clear_launch_history() { detail::thread_state().history.clear(); }

}  // namespace kiln::ascend::emu

namespace AscendC {

const char* position_name(TPosition position) {
  switch (position) {
    case TPosition::GM:
      return "GM";
    case TPosition::A1:
      return "A1";
    case TPosition::A2:
      return "A2";
    case TPosition::B1:
      return "B1";
    case TPosition::B2:
      return "B2";
    case TPosition::C1:
      return "C1";
    case TPosition::C2:
      return "C2";
    case TPosition::CO1:
      return "CO1";
    case TPosition::CO2:
      return "CO2";
    case TPosition::VECIN:
      return "VECIN";
    case TPosition::VECOUT:
      return "VECOUT";
    case TPosition::VECCALC:
      return "VECCALC";
    case TPosition::SPM:
      return "SPM";
    case TPosition::TSCM:
      return "TSCM";
    default:
      return "MAX";
  }
}

int64_t GetBlockIdx() { return kiln::ascend::emu::detail::block_idx(); }
int64_t GetBlockNum() { return kiln::ascend::emu::detail::block_num(); }

__gm__ uint8_t* GetSysWorkSpacePtr() {
  auto& launch = kiln::ascend::emu::detail::launch_context();
  if (launch.user_workspace != nullptr) return launch.user_workspace;
  // The Matmul API needs none in the emulator; a small real allocation keeps GM checks uniform.
  if (launch.workspace == nullptr) {
    launch.workspace = static_cast<uint8_t*>(kiln::ascend::emu::device_malloc(16 * 1024));
  }
  return launch.workspace;
}

void SetSysWorkspace(__gm__ uint8_t* workspace) {
  kiln::ascend::emu::detail::launch_context().user_workspace = workspace;
}

}  // namespace AscendC
