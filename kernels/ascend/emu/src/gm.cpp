// Global memory checks: SetGlobalBuffer ranges, live allocations, alignment, write tracking.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu::detail {
namespace {

std::string hex_address(const void* address) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", address);
  return text;
}

// The kernel argument whose device allocation holds `address`, closest below it.
const ArgInfo* owning_argument(const uint8_t* address) {
  const LaunchContext& launch = launch_context();
  const ThreadState& state = thread_state();
  const Allocation* allocation = state.find(address);
  const ArgInfo* best = nullptr;
  const auto target = reinterpret_cast<uintptr_t>(address);
  for (const ArgInfo& arg : launch.args) {
    const auto base = reinterpret_cast<uintptr_t>(arg.address);
    if (arg.address == nullptr || base > target) continue;
    if (state.find(arg.address) != allocation) continue;
    // Outside device memory (a host pointer) only a nearby argument can own the address.
    if (allocation == nullptr && target - base >= (uintptr_t{1} << 30)) continue;
    if (best == nullptr || arg.address > best->address) best = &arg;
  }
  return best;
}

}  // namespace

std::string describe_gm(const void* address) {
  const auto* byte = static_cast<const uint8_t*>(address);
  if (const ArgInfo* arg = owning_argument(byte)) {
    return "`" + arg->name + "` + " + format_bytes(static_cast<uint64_t>(byte - arg->address));
  }
  if (const Allocation* allocation = thread_state().find(byte)) {
    return "device memory " + hex_address(allocation->begin) + " + " +
           format_bytes(static_cast<uint64_t>(byte - allocation->begin));
  }
  return "address " + hex_address(address);
}

void check_gm(const char* api, const GmView& view, uint64_t first_byte, uint64_t bytes, bool write,
              bool element_aligned) {
  const char* verb = write ? "writes" : "reads";
  if (view.address == nullptr) {
    raise(std::string(api) +
          ": the GlobalTensor has no address (SetGlobalBuffer was not called, "
          "or got a null pointer)");
  }
  const uint8_t* start = view.address + first_byte;
  // Kiln policy, not a device rule: Ascend C documents no alignment requirement for GM. Every
  // tensor Kiln hands a kernel starts on an element boundary, so a view that does not is an
  // offset counted in bytes where elements were meant.
  if (element_aligned && reinterpret_cast<uintptr_t>(start) % view.elem_size != 0) {
    raise(std::string(api) + ": GM address " + describe_gm(start) +
          " is not aligned to the element size (" + format_bytes(view.elem_size) +
          "); Kiln's policy (the device itself takes any GM address): Kiln's GM tensors start "
          "on element boundaries, so this offset was likely counted in bytes, not elements");
  }
  if (view.sized) {
    const int64_t from = start - view.range_begin;
    const int64_t to = from + static_cast<int64_t>(bytes);
    if (from < 0 || to > static_cast<int64_t>(view.range_bytes)) {
      const int64_t es = view.elem_size;
      raise(std::string(api) + " " + verb + " elements [" + std::to_string(from / es) + ", " +
            std::to_string((to + es - 1) / es) +
            ") of a GlobalTensor whose SetGlobalBuffer range is " +
            std::to_string(view.range_bytes / es) + " elements (it starts at " +
            describe_gm(view.range_begin) + "): GM access out of bounds");
    }
  }
  const Allocation* allocation = thread_state().find(start);
  if (allocation == nullptr) {
    raise(std::string(api) + " " + verb + " " + format_bytes(bytes) + " at " + describe_gm(start) +
          ", which is outside any live device_malloc allocation (a host pointer, freed memory "
          "or past an allocation's end)");
  }
  const uint8_t* allocation_end = allocation->begin + allocation->bytes;
  if (start + bytes > allocation_end) {
    raise(std::string(api) + " " + verb + " " + format_bytes(bytes) + " at " + describe_gm(start) +
          ", running " + format_bytes(static_cast<uint64_t>(start + bytes - allocation_end)) +
          " past the end of its " + format_bytes(allocation->bytes) +
          " device allocation: outside any live device_malloc allocation");
  }
}

void record_gm_write(const void* address, uint64_t bytes) {
  if (bytes == 0) return;
  auto& writes = launch_context().block.writes;
  const auto begin = reinterpret_cast<uintptr_t>(address);
  const uintptr_t end = begin + bytes;
  // Kernels write in order, so merging with the last interval keeps the list short.
  if (!writes.empty() && begin >= writes.back().begin && begin <= writes.back().end) {
    if (end > writes.back().end) writes.back().end = end;
    return;
  }
  writes.push_back({begin, end});
}

}  // namespace kiln::ascend::emu::detail
