// Mutations of .pte programs and their .ptd data files for the standalone fuzz driver: byte-level
// ones (bit flips, interesting values, truncations, chunk duplication, splices) and
// structure-aware ones that rewrite the fields the executor trusts once verified: indices, sizes,
// tags, offsets, lengths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln_fuzz {

// splitmix64: small, fast, and the same sequence on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound); bound > 0.
  size_t below(size_t bound) { return static_cast<size_t>(next() % bound); }
  bool one_in(size_t n) { return below(n) == 0; }

 private:
  uint64_t state_;
};

enum class FieldKind : uint8_t {
  Index,   // a value, operator, instruction, memory arena, buffer or segment index
  Size,    // a tensor dimension, an arena size, a segment size
  Tag,     // a union type, a scalar type, a shape dynamism, a data location
  Offset,  // a byte offset (planned memory, segments, the extended header)
  Length,  // a vector's element count
};

// Where one field of a seed program is: `width` bytes (1, 4 or 8, little-endian) at `offset`.
struct Field {
  uint32_t offset;
  uint8_t width;
  FieldKind kind;
};

// What a FlatBuffers offset of a seed points at: offsets of one group can be made to point at
// each other's targets, so that one table or vector is reached from many places (shared tables).
enum class RefGroup : uint8_t {
  Plan,
  Value,
  Tensor,
  IntList,
  TensorList,
  Chain,
  Instruction,
  KernelCall,
  Operator,
  Allocation,
  String,
  ByteVector,   // dim orders
  Int32Vector,  // sizes, kernel arguments, inputs and outputs, tensor list items
  Int64Vector,  // int list items, arena sizes, subsegment offsets
};

// A uoffset_t at `offset` of a seed, pointing (forwards, as FlatBuffers offsets do) at `target`.
struct Ref {
  uint32_t offset;
  uint32_t target;
  RefGroup group;
};

// Where a seed's fields and offsets are.
struct Layout {
  std::vector<Field> fields;
  std::vector<Ref> refs;
};

// The layout of a program that the FlatBuffers verifier accepts (empty for one it does not).
Layout find_layout(const std::vector<uint8_t>& program);

// The layout of a data file (.ptd) whose table the FlatBuffers verifier accepts: its header, its
// segments' offsets and sizes, its entries' keys, segment indices and tensor layouts
// (data_mutations.cpp).
Layout find_data_layout(const std::vector<uint8_t>& data_file);

// Applies one to four mutations to `bytes`, a copy of a seed whose layout is `layout`; `other`
// is another seed to splice from. The result is at most `max_size` bytes.
void mutate(std::vector<uint8_t>& bytes, const Layout& layout, const std::vector<uint8_t>& other,
            size_t max_size, Rng& rng);

}  // namespace kiln_fuzz
