// Emulated device memory (HBM): allocations that GM accesses are checked against.
#include <cstdio>
#include <cstring>
#include <new>

#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu {
namespace {

// aclrtMalloc returns memory with old contents; a recognisable pattern (NaN in half and float)
// makes a kernel that reads what nobody wrote produce visibly wrong results.
constexpr uint8_t kFreshMemory = 0xff;
constexpr size_t kAlignment = 512;

}  // namespace

void* device_malloc(size_t bytes) {
  // A zero-byte allocation still gets a unique address, which no access can fall in.
  auto* begin =
      static_cast<uint8_t*>(::operator new(bytes == 0 ? 1 : bytes, std::align_val_t{kAlignment}));
  std::memset(begin, kFreshMemory, bytes);
  detail::thread_state().allocations[reinterpret_cast<uintptr_t>(begin)] = {begin, bytes};
  return begin;
}

void device_free(void* ptr) {
  if (ptr == nullptr) return;
  auto& allocations = detail::thread_state().allocations;
  const auto it = allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations.end()) {
    // aclrtFree fails the same way; a host wrapper freeing twice has a bug worth seeing.
    std::fprintf(stderr,
                 "kiln ascend emulator: device_free(%p): not a live device_malloc allocation\n",
                 ptr);
    return;
  }
  ::operator delete(it->second.begin, std::align_val_t{kAlignment});
  allocations.erase(it);
}

}  // namespace kiln::ascend::emu
