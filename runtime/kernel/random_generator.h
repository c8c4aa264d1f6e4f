// RandomGenerator: the seeded random stream kernels draw from (rand, randn, dropout).
//
// Counter-based (Philox4x32-10, Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3",
// SC 2011): a block of four 32-bit words is a pure function of (seed, block index), so a kernel
// reserves a range of block indices and computes them in any order, with no state but a 64-bit
// seed and a 64-bit offset. No heap, no locks; the same seed gives the same numbers on every
// platform and thread count.
//
// Kernels use their context's generator (KernelRuntimeContext::set_random_generator); a context
// without one uses the process's default generator, which set_random_seed() seeds. ATen mode's
// kernels are libtorch's, which draw from libtorch's default CPU generator: there
// set_random_seed() seeds that one too.
#pragma once

#include <atomic>
#include <cstdint>

namespace kiln {

// The seed a generator starts from until it is seeded.
constexpr uint64_t kDefaultRandomSeed = 0x853c49e6748fea9bull;

// Four 32-bit random words.
struct RandomBlock {
  uint32_t word[4];
};

// Philox4x32-10: the block for a 128-bit counter (four words, lowest first) and a 64-bit key
// (two words). Inline so kernels' loops over blocks vectorise.
inline RandomBlock philox4x32_10(RandomBlock counter, uint32_t key0, uint32_t key1) {
  constexpr uint32_t kMultiplier0 = 0xD2511F53u;
  constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;
  uint32_t c0 = counter.word[0], c1 = counter.word[1], c2 = counter.word[2], c3 = counter.word[3];
  for (int round = 0; round < 10; ++round) {
    const uint64_t product0 = uint64_t{kMultiplier0} * c0;
    const uint64_t product1 = uint64_t{kMultiplier1} * c2;
    const uint32_t next0 = static_cast<uint32_t>(product1 >> 32) ^ c1 ^ key0;
    const uint32_t next2 = static_cast<uint32_t>(product0 >> 32) ^ c3 ^ key1;
    c1 = static_cast<uint32_t>(product1);
    c3 = static_cast<uint32_t>(product0);
    c0 = next0;
    c2 = next2;
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return {{c0, c1, c2, c3}};
}

// Block `counter` (the counter's upper 64 bits are 0) of the stream keyed by `key`.
inline RandomBlock philox4x32(uint64_t key, uint64_t counter) {
  return philox4x32_10(
      {{static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0}},
      static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32));
}

// A reserved range of a generator's blocks: block(i) for i in [0, count) (not checked).
struct RandomStream {
  uint64_t key;
  uint64_t first;
  RandomBlock block(uint64_t i) const { return philox4x32(key, first + i); }
};

class RandomGenerator {
 public:
  constexpr explicit RandomGenerator(uint64_t seed = kDefaultRandomSeed)
      : seed_(seed), offset_(0) {}
  RandomGenerator(const RandomGenerator&) = delete;
  RandomGenerator& operator=(const RandomGenerator&) = delete;

  // Restarts the stream at block 0 of `seed`. Not atomic with respect to a concurrent reserve():
  // seed a generator while no kernel draws from it.
  void set_seed(uint64_t seed) {
    seed_.store(seed, std::memory_order_relaxed);
    offset_.store(0, std::memory_order_relaxed);
  }
  uint64_t seed() const { return seed_.load(std::memory_order_relaxed); }

  // Blocks handed out since the last seeding; set_offset resumes a stream saved with offset().
  uint64_t offset() const { return offset_.load(std::memory_order_relaxed); }
  void set_offset(uint64_t offset) { offset_.store(offset, std::memory_order_relaxed); }

  // Takes the next `blocks` blocks of the stream; concurrent callers get disjoint ranges.
  RandomStream reserve(uint64_t blocks) {
    return {seed(), offset_.fetch_add(blocks, std::memory_order_relaxed)};
  }

 private:
  std::atomic<uint64_t> seed_;
  std::atomic<uint64_t> offset_;
};

// The process's default generator: what kernels use when their context names none.
RandomGenerator& default_random_generator();

// Seeds the default generator (and, in ATen mode, libtorch's default CPU generator, whose numbers
// libtorch's kernels use): after set_random_seed(s), the same calls give the same numbers.
void set_random_seed(uint64_t seed);

}  // namespace kiln
