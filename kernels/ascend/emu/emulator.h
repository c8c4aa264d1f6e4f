// Host API of Kiln's Ascend C emulator: SoC profiles, emulated device memory, kernel launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/ascend/common/launch_outcome.h"

namespace kiln::ascend::emu {

enum class Soc { Ascend910B, Ascend310P };

// The limits the emulator checks kernels against. Sizes are bytes.
struct SocProfile {
  const char* name;
  size_t ub_bytes;         // physical Unified Buffer per core
  size_t ub_usable_bytes;  // what TPipe::InitBuffer may hand out (the rest is reserved)
  uint32_t vector_cores;
  uint32_t cube_cores;
  bool has_bfloat16;
  bool has_data_copy_pad;
  // Saturation mode (aclrtFloatOverflowMode): a floating vector result that is inf becomes the
  // largest finite value of its sign and NaN becomes 0. The only mode of 310P; 910B computes
  // IEEE inf/NaN by default.
  bool saturates_float;
  // How ReduceSum (count form) adds the partial sums of its 256 B repeats: in order (Atlas A2)
  // or, as each repeat, as a binary tree of adjacent pairs (Atlas inference products).
  bool reduce_sum_repeats_as_tree;
  uint32_t max_queue_buffers_per_position;
  size_t l1_bytes;  // per cube core, as the L0 buffers
  size_t l0a_bytes;
  size_t l0b_bytes;
  size_t l0c_bytes;
  Soc soc;
};

// State below is per host thread, like a device context set with aclrtSetDevice: the SoC, the
// seed, device memory and the launch history of one thread are invisible to the others.

// The current profile: from KILN_ASCEND_SOC when a thread first asks, else Ascend910B.
const SocProfile& soc();
// Accepts "Ascend910B" / "Ascend310P" and their variants ("Ascend910B3", "ascend310p3").
// Returns false (and keeps the current profile) for any other name.
bool set_soc(std::string_view name);

// Emulated device memory (HBM). Every GM access of a kernel must lie inside a live allocation
// and inside its GlobalTensor's SetGlobalBuffer range. Fresh memory holds a garbage pattern,
// as aclrtMalloc'ed memory does. The caller owns the allocation until device_free.
void* device_malloc(size_t bytes);
void device_free(void* ptr);

// Seed of the block shuffle: from KILN_ASCEND_EMU_SEED when a thread first asks, else fixed.
void set_seed(uint64_t seed);
uint64_t seed();

const std::vector<KernelReport>& launch_history();
void clear_launch_history();

namespace detail {

// A callable seen through a pointer, so the runner stays a plain function in the library.
struct KernelBody {
  void (*invoke)(void* state);
  void* state;
};

LaunchOutcome run_launch(const char* kernel_name, const char* arg_names,
                         const std::vector<const void*>& arg_addresses, uint32_t block_dim,
                         KernelBody body);

// Device pointers reach a kernel's GM_ADDR parameters whatever their host-side pointer type
// (as with aclrtLaunchKernel); every other argument converts as in a function call.
template <class Param, class Arg>
Param pass_argument(Arg&& arg) {
  if constexpr (std::is_pointer_v<Param> && std::is_pointer_v<std::decay_t<Arg>>) {
    return reinterpret_cast<Param>(const_cast<void*>(static_cast<const void*>(arg)));
  } else {
    return std::forward<Arg>(arg);
  }
}

template <class Arg>
const void* argument_address(const Arg& arg) {
  if constexpr (std::is_pointer_v<Arg>) {
    return static_cast<const void*>(arg);
  } else {
    return nullptr;
  }
}

}  // namespace detail

// Runs `block_dim` copies of `kernel`, in shuffled order, each with its own UB, and checks every
// rule. Nothing escapes: a violation comes back as ok=false with its message. `arg_names` is the
// stringified argument list ("x, y, z, tiling"), used to name GM tensors in messages.
template <class... Params, class... Args>
LaunchOutcome launch(const char* kernel_name, const char* arg_names, void (*kernel)(Params...),
                     uint32_t block_dim, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "launch: the kernel takes a different number of arguments");
  const std::vector<const void*> addresses{detail::argument_address(args)...};
  auto call = [&]() { kernel(detail::pass_argument<Params>(args)...); };
  using Call = decltype(call);
  detail::KernelBody body{[](void* state) { (*static_cast<Call*>(state))(); }, &call};
  return detail::run_launch(kernel_name, arg_names, addresses, block_dim, body);
}

}  // namespace kiln::ascend::emu
