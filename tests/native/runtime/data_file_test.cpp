// DataFile: what the C++ caller alone can get wrong (null, misaligned memory), offsets whose sums
// wrap around 2^64, names cut to length, and the cost of key lookups in and out of order. The
// files ExecuTorch and kiln.export write, and damaged ones, are tested from Python
// (tests/program/test_external_weights.py).
#include "runtime/executor/data_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/executor/data_file_generated.h"
#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

struct Segment {
  uint64_t offset;
  uint64_t size;
};

void put_le(std::vector<uint8_t>& out, size_t at, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) out[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

// A data file with `keys` (entry i names segment i) over `segments`, and `data_size` bytes of
// segment data, laid out as ExecuTorch writes it: a 48-byte header after the first 8 bytes and
// the segments at a multiple of 128.
std::vector<uint8_t> data_file(const std::vector<std::string>& keys,
                               const std::vector<Segment>& segments, size_t data_size) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<ptd_format::DataSegment>> segment_tables;
  for (const Segment& s : segments) {
    segment_tables.push_back(ptd_format::CreateDataSegment(b, s.offset, s.size));
  }
  std::vector<flatbuffers::Offset<ptd_format::NamedData>> entries;
  for (size_t i = 0; i < keys.size(); ++i) {
    entries.push_back(
        ptd_format::CreateNamedData(b, b.CreateString(keys[i]), static_cast<uint32_t>(i)));
  }
  auto root =
      ptd_format::CreateFlatTensor(b, 0, b.CreateVector(segment_tables), b.CreateVector(entries));
  b.Finish(root, "FT01");
  const std::vector<uint8_t> flatbuffer(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  constexpr size_t kHeader = 48;
  const size_t base = (flatbuffer.size() + kHeader + 127) / 128 * 128;
  std::vector<uint8_t> out(base + data_size, 0);
  std::memcpy(out.data() + 4, flatbuffer.data() + 4, 4);
  std::memcpy(out.data() + 8 + kHeader, flatbuffer.data() + 8, flatbuffer.size() - 8);
  uint32_t root_offset = 0;
  std::memcpy(&root_offset, flatbuffer.data(), 4);
  put_le(out, 0, root_offset + kHeader, 4);
  std::memcpy(out.data() + 8, "FH01", 4);
  put_le(out, 12, 40, 4);
  put_le(out, 16, kHeader, 8);
  put_le(out, 24, flatbuffer.size(), 8);
  put_le(out, 32, base, 8);
  put_le(out, 40, data_size, 8);
  return out;
}

// The file in 16-byte aligned memory, as a mapping or kiln.load's copy gives it.
class Aligned {
 public:
  explicit Aligned(const std::vector<uint8_t>& bytes) : storage_(bytes.size() + 32) {
    const auto address = reinterpret_cast<uintptr_t>(storage_.data());
    data_ = storage_.data() + (16 - address % 16) % 16;
    std::memcpy(data_, bytes.data(), bytes.size());
  }
  uint8_t* data() { return data_; }

 private:
  std::vector<uint8_t> storage_;
  uint8_t* data_;
};

TEST(DataFile, FindsEachKeyInItsSegment) {
  const std::vector<uint8_t> bytes = data_file({"a", "b"}, {{0, 8}, {128, 4}}, 132);
  Aligned file(bytes);
  Result<DataFile> loaded = DataFile::load(file.data(), bytes.size(), "x.ptd");
  ASSERT_TRUE(loaded.ok()) << last_error();
  EXPECT_EQ(loaded->num_keys(), 2u);
  EXPECT_EQ(loaded->key(1), "b");
  KeyCursor cursor;
  Result<NamedBlob> b = loaded->find("b", cursor);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->size, 4u);
  EXPECT_EQ(b->data, file.data() + bytes.size() - 4);
  EXPECT_EQ(b->layout, nullptr);
  EXPECT_EQ(loaded->find("c", cursor).error(), Error::NotFound);
}

TEST(DataFile, RefusesNullAndMisalignedMemory) {
  const std::vector<uint8_t> bytes = data_file({"a"}, {{0, 8}}, 8);
  EXPECT_EQ(DataFile::load(nullptr, 64, "x.ptd").error(), Error::InvalidArgument);
  Aligned file(std::vector<uint8_t>(bytes.size() + 4));
  std::memcpy(file.data() + 4, bytes.data(), bytes.size());
  EXPECT_EQ(DataFile::load(file.data() + 4, bytes.size(), "x.ptd").error(), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error()).find("data file 'x.ptd': the data must start at an 8-byte"),
            std::string::npos)
      << last_error();
}

TEST(DataFile, RefusesSegmentsWhoseEndWrapsAround) {
  const std::vector<uint8_t> bytes = data_file({"a"}, {{UINT64_MAX - 7, 16}}, 8);
  Aligned file(bytes);
  EXPECT_EQ(DataFile::load(file.data(), bytes.size(), "x.ptd").error(), Error::InvalidProgram);
  EXPECT_NE(std::string(last_error())
                .find("segment 0 (offset 18446744073709551608, 16 bytes) "
                      "runs past the file's 8 bytes of segment data"),
            std::string::npos)
      << last_error();
}

TEST(DataFile, RefusesAHeaderWhoseSegmentEndWrapsAround) {
  std::vector<uint8_t> bytes = data_file({"a"}, {{0, 8}}, 8);
  put_le(bytes, 40, UINT64_MAX - 64, 8);  // segment base + data size wraps to a small number
  Aligned file(bytes);
  EXPECT_EQ(DataFile::load(file.data(), bytes.size(), "x.ptd").error(), Error::InvalidProgram);
  EXPECT_NE(std::string(last_error()).find("the header puts the segment data at offset"),
            std::string::npos)
      << last_error();
}

TEST(DataFile, CutsLongNames) {
  const std::vector<uint8_t> bytes = data_file({"a"}, {{0, 8}}, 8);
  Aligned file(bytes);
  const std::string name(1000, 'n');
  Result<DataFile> loaded = DataFile::load(file.data(), bytes.size(), name);
  ASSERT_TRUE(loaded.ok()) << last_error();
  EXPECT_EQ(std::string(loaded->name()), name.substr(0, DataFile::kMaxNameLength));
}

// Lookups in the order of the entries examine one entry each; in reverse order, most of them
// (Program::load charges that work to the load's budget).
TEST(DataFile, LookupsInTheFilesOrderExamineOneEntryEach) {
  std::vector<std::string> keys;
  std::vector<Segment> segments;
  for (int i = 0; i < 100; ++i) {
    keys.push_back("weight" + std::to_string(i));
    segments.push_back({0, 4});
  }
  const std::vector<uint8_t> bytes = data_file(keys, segments, 4);
  Aligned file(bytes);
  Result<DataFile> loaded = DataFile::load(file.data(), bytes.size(), "x.ptd");
  ASSERT_TRUE(loaded.ok()) << last_error();
  KeyCursor in_order;
  for (const std::string& key : keys) ASSERT_TRUE(loaded->find(key, in_order).ok());
  KeyCursor reversed;
  for (auto key = keys.rbegin(); key != keys.rend(); ++key) {
    ASSERT_TRUE(loaded->find(*key, reversed).ok());
  }
  // Each hit compares its key's bytes too; only keys of the same length are compared.
  EXPECT_LT(in_order.work, 100u * 10);
  EXPECT_GT(reversed.work, 100u * 90);
}

}  // namespace
}  // namespace kiln
