// One fuzz input holding a program and its data file (.ptd), so that every stage that handles
// inputs as single blobs (the driver's corpus, mutants, saved crashes, libFuzzer) carries both:
// "KILNPAIR", the program's size (u64, little-endian), the program, then the data file. Any other
// input is a program alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kiln_fuzz {

constexpr char kPairMagic[8] = {'K', 'I', 'L', 'N', 'P', 'A', 'I', 'R'};
constexpr size_t kPairHeader = sizeof(kPairMagic) + sizeof(uint64_t);

struct PairedInput {
  const uint8_t* program;
  size_t program_size;
  const uint8_t* data;  // nullptr: no data file
  size_t data_size;
};

inline PairedInput split_input(const uint8_t* bytes, size_t size) {
  if (size < kPairHeader || std::memcmp(bytes, kPairMagic, sizeof(kPairMagic)) != 0) {
    return {bytes, size, nullptr, 0};
  }
  uint64_t program_size = 0;
  for (size_t i = 0; i < 8; ++i) {
    program_size |= uint64_t{bytes[sizeof(kPairMagic) + i]} << (8 * i);
  }
  const size_t rest = size - kPairHeader;
  if (program_size > rest) program_size = rest;  // a mutated size: the program takes it all
  const uint8_t* program = bytes + kPairHeader;
  return {program, static_cast<size_t>(program_size), program + program_size,
          rest - static_cast<size_t>(program_size)};
}

inline std::vector<uint8_t> join_input(const std::vector<uint8_t>& program,
                                       const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out(kPairMagic, kPairMagic + sizeof(kPairMagic));
  for (size_t i = 0; i < 8; ++i)
    out.push_back(static_cast<uint8_t>(uint64_t{program.size()} >> (8 * i)));
  out.insert(out.end(), program.begin(), program.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace kiln_fuzz
