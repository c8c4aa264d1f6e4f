// SoC profiles: the capacities and features the emulator checks kernels against.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu {
namespace {

constexpr size_t kKiB = 1024;

// Ascend910B (Atlas A2, e.g. 910B1-B4): the AI cores are split into cube and vector cores.
constexpr SocProfile ascend910b() {
  SocProfile p{};
  p.name = "Ascend910B";
  p.soc = Soc::Ascend910B;
  p.ub_bytes = 192 * kKiB;         // per vector core
  p.ub_usable_bytes = 184 * kKiB;  // what TPipe hands out; the rest is reserved
  p.vector_cores = 48;
  p.cube_cores = 24;
  p.has_bfloat16 = true;
  p.has_data_copy_pad = true;
  p.saturates_float = false;  // Inf/NaN mode, the default of Atlas A2
  p.reduce_sum_repeats_as_tree = false;
  p.max_queue_buffers_per_position = 8;
  p.l1_bytes = 512 * kKiB;  // per cube core, as the L0 buffers
  p.l0a_bytes = 64 * kKiB;
  p.l0b_bytes = 64 * kKiB;
  p.l0c_bytes = 128 * kKiB;
  return p;
}

// Ascend310P (Atlas inference, e.g. 310P3): every AI core has a cube and a vector unit.
constexpr SocProfile ascend310p() {
  SocProfile p{};
  p.name = "Ascend310P";
  p.soc = Soc::Ascend310P;
  p.ub_bytes = 256 * kKiB;
  p.ub_usable_bytes = 248 * kKiB;
  p.vector_cores = 8;
  p.cube_cores = 8;
  p.has_bfloat16 = false;
  p.has_data_copy_pad = false;  // pad on the host instead
  p.saturates_float = true;     // the only overflow mode of Atlas inference products
  p.reduce_sum_repeats_as_tree = true;
  p.max_queue_buffers_per_position = 8;
  p.l1_bytes = 1024 * kKiB;
  p.l0a_bytes = 64 * kKiB;
  p.l0b_bytes = 64 * kKiB;
  p.l0c_bytes = 256 * kKiB;
  return p;
}

constexpr SocProfile kAscend910B = ascend910b();
constexpr SocProfile kAscend310P = ascend310p();

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

const SocProfile* parse_soc(std::string_view name) {
  if (starts_with_nocase(name, "Ascend910B")) return &kAscend910B;
  if (starts_with_nocase(name, "Ascend310P")) return &kAscend310P;
  return nullptr;
}

}  // namespace

namespace detail {

const SocProfile& profile_for(Soc soc) {
  return soc == Soc::Ascend310P ? kAscend310P : kAscend910B;
}

// A thread's profile starts from KILN_ASCEND_SOC; a name the emulator does not know is reported
// once and replaced by the default rather than silently ignored.
const SocProfile* initial_soc() {
  const char* env = std::getenv("KILN_ASCEND_SOC");
  if (env == nullptr || *env == '\0') return &kAscend910B;
  if (const SocProfile* profile = parse_soc(env)) return profile;
  std::fprintf(stderr,
               "kiln ascend emulator: KILN_ASCEND_SOC=%s is not a known SoC "
               "(Ascend910B*, Ascend310P*); using Ascend910B\n",
               env);
  return &kAscend910B;
}

}  // namespace detail

const SocProfile& soc() { return *detail::thread_state().soc; }

bool set_soc(std::string_view name) {
  const SocProfile* profile = parse_soc(name);
  if (profile == nullptr) return false;
  detail::thread_state().soc = profile;
  return true;
}

}  // namespace kiln::ascend::emu
