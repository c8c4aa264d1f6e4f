#include "runtime/executor/data_file.h"

#include <algorithm>
#include <cstring>

#include "runtime/executor/data_file_generated.h"
#include "runtime/executor/plan_checks.h"
#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

// The header, right after the FlatBuffers root offset and file identifier (data_file.fbs).
constexpr size_t kHeaderOffset = 8;
constexpr char kHeaderMagic[4] = {'F', 'H', '0', '1'};
// Magic, length, flatbuffer offset and size, segment base offset, segment data size.
constexpr size_t kHeaderMinLength = 40;
// The format version executorch 1.5.x writes, the newest Kiln reads.
constexpr uint32_t kMaxVersion = 0;

uint64_t read_le(const uint8_t* bytes, size_t count) {
  uint64_t value = 0;
  for (size_t i = 0; i < count; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

// `a + b` in `*sum`; false when it overflows.
bool add(uint64_t a, uint64_t b, uint64_t* sum) {
  *sum = a + b;
  return *sum >= a;
}

#define KILN_DATA_FAIL(error, format, ...)                        \
  do {                                                            \
    KILN_SET_ERROR("data file '%s': " format, name, __VA_ARGS__); \
    return Error::error;                                          \
  } while (0)

struct Layout {
  uint64_t flatbuffer_end;  // the flatbuffer, header included, is bytes [0, flatbuffer_end)
  uint64_t segment_base;
  uint64_t segment_data_size;
};

Result<Layout> read_layout(const uint8_t* data, size_t size, const char* name) {
  constexpr size_t kMinSize = kHeaderOffset + kHeaderMinLength;
  if (size >= kHeaderOffset && std::memcmp(data + 4, "FT01", 4) != 0) {
    if (std::memcmp(data + 4, "ET12", 4) == 0) {
      KILN_DATA_FAIL(InvalidProgram, "%s",
                     "this is a .pte program, not a data file: give the .ptd file that was "
                     "written beside the program");
    }
    KILN_DATA_FAIL(InvalidProgram, "%s",
                   "not a .ptd data file: bytes 4..8 are not the identifier \"FT01\"");
  }
  if (size < kMinSize) {
    KILN_DATA_FAIL(InvalidProgram,
                   "%zu bytes is too short for a .ptd data file (at least %zu needed; "
                   "truncated?)",
                   size, kMinSize);
  }
  const uint8_t* header = data + kHeaderOffset;
  if (std::memcmp(header, kHeaderMagic, sizeof(kHeaderMagic)) != 0) {
    KILN_DATA_FAIL(InvalidProgram, "%s",
                   "the header magic \"FH01\" is missing after the identifier: a corrupted file");
  }
  const uint64_t length = read_le(header + 4, 4);
  const uint64_t flatbuffer_offset = read_le(header + 8, 8);
  const uint64_t flatbuffer_size = read_le(header + 16, 8);
  Layout layout{0, read_le(header + 24, 8), read_le(header + 32, 8)};
  if (length < kHeaderMinLength || length > size - kHeaderOffset) {
    KILN_DATA_FAIL(InvalidProgram,
                   "header length %llu is outside [%zu, %zu], what the file's %zu bytes allow "
                   "(corrupted or truncated?)",
                   static_cast<unsigned long long>(length), kHeaderMinLength, size - kHeaderOffset,
                   size);
  }
  if (!add(flatbuffer_offset, flatbuffer_size, &layout.flatbuffer_end) ||
      layout.flatbuffer_end > size || layout.flatbuffer_end < kHeaderOffset + length) {
    KILN_DATA_FAIL(InvalidProgram,
                   "the header puts the flatbuffer at offset %llu, %llu bytes, outside the "
                   "file's %zu bytes (truncated?)",
                   static_cast<unsigned long long>(flatbuffer_offset),
                   static_cast<unsigned long long>(flatbuffer_size), size);
  }
  uint64_t segments_end = 0;
  if (!add(layout.segment_base, layout.segment_data_size, &segments_end) || segments_end > size ||
      layout.segment_base < layout.flatbuffer_end) {
    KILN_DATA_FAIL(InvalidProgram,
                   "the header puts the segment data at offset %llu, %llu bytes, outside the "
                   "file's %zu bytes after its %llu-byte flatbuffer (truncated?)",
                   static_cast<unsigned long long>(layout.segment_base),
                   static_cast<unsigned long long>(layout.segment_data_size), size,
                   static_cast<unsigned long long>(layout.flatbuffer_end));
  }
  return layout;
}

// Every segment inside the segment data, every entry keyed and naming a segment.
Error check_entries(const ptd_format::FlatTensor& root, const Layout& layout, const char* name) {
  const auto* segments = root.segments();
  const uint32_t count = segments == nullptr ? 0 : segments->size();
  for (uint32_t i = 0; i < count; ++i) {
    const auto* segment = segments->Get(i);
    uint64_t end = 0;
    if (!add(segment->offset(), segment->size(), &end) || end > layout.segment_data_size) {
      KILN_DATA_FAIL(InvalidProgram,
                     "segment %u (offset %llu, %llu bytes) runs past the file's %llu bytes of "
                     "segment data (truncated?)",
                     i, static_cast<unsigned long long>(segment->offset()),
                     static_cast<unsigned long long>(segment->size()),
                     static_cast<unsigned long long>(layout.segment_data_size));
    }
  }
  const auto* entries = root.named_data();
  for (uint32_t i = 0; entries != nullptr && i < entries->size(); ++i) {
    const auto* entry = entries->Get(i);
    if (entry->key() == nullptr) KILN_DATA_FAIL(InvalidProgram, "entry %u has no key", i);
    if (entry->segment_index() >= count) {
      KILN_DATA_FAIL(InvalidProgram, "entry %u ('%s') names segment %u of %u", i,
                     entry->key()->c_str(), entry->segment_index(), count);
    }
  }
  return Error::Ok;
}

}  // namespace

DataFile::DataFile(const uint8_t* data, size_t size, const ptd_format::FlatTensor* root,
                   uint64_t segment_base, std::string_view name)
    : data_(data), size_(size), root_(root), segment_base_(segment_base) {
  const size_t length = std::min(name.size(), kMaxNameLength);
  std::memcpy(name_, name.data(), length);
  name_[length] = '\0';
}

Result<DataFile> DataFile::load(const void* data, size_t size, std::string_view file_name) {
  char name[kMaxNameLength + 1];
  const size_t name_length = std::min(file_name.size(), kMaxNameLength);
  std::memcpy(name, file_name.data(), name_length);
  name[name_length] = '\0';
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (bytes == nullptr) KILN_DATA_FAIL(InvalidArgument, "%s", "no data (null pointer)");
  // FlatBuffers aligns scalars relative to the buffer's start; 8-byte ones are read as such.
  if (!is_aligned(bytes, sizeof(uint64_t))) {
    KILN_DATA_FAIL(InvalidArgument,
                   "the data must start at an 8-byte aligned address (it is at %p)", data);
  }
  Result<Layout> layout = read_layout(bytes, size, name);
  if (!layout.ok()) return layout.error();
  // The verifier asserts its buffer is below FlatBuffers' 2 GiB limit: refuse larger ones first.
  if (layout->flatbuffer_end >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    KILN_DATA_FAIL(InvalidProgram,
                   "the header gives a %llu-byte table of contents, over FlatBuffers' 2 GiB "
                   "limit: a corrupted file",
                   static_cast<unsigned long long>(layout->flatbuffer_end));
  }
  flatbuffers::Verifier verifier(bytes, static_cast<size_t>(layout->flatbuffer_end));
  if (!ptd_format::VerifyFlatTensorBuffer(verifier)) {
    KILN_DATA_FAIL(InvalidProgram,
                   "the FlatBuffers verifier rejects its %llu-byte table of contents: a "
                   "truncated or corrupted file, or not a .ptd data file",
                   static_cast<unsigned long long>(layout->flatbuffer_end));
  }
  const ptd_format::FlatTensor* root = ptd_format::GetFlatTensor(bytes);
  if (root->version() > kMaxVersion) {
    KILN_DATA_FAIL(NotSupported,
                   "format version %u is newer than the version %u Kiln reads (executorch "
                   "1.5.x writes %u): export the data file with that ExecuTorch",
                   root->version(), kMaxVersion, kMaxVersion);
  }
  KILN_RETURN_IF_ERROR(check_entries(*root, *layout, name));
  return DataFile(bytes, size, root, layout->segment_base, name);
}

size_t DataFile::num_keys() const {
  return root_->named_data() == nullptr ? 0 : root_->named_data()->size();
}

std::string_view DataFile::key(size_t index) const {
  return root_->named_data()->Get(static_cast<flatbuffers::uoffset_t>(index))->key()->string_view();
}

Result<NamedBlob> DataFile::find(std::string_view key, KeyCursor& cursor) const {
  const auto* entries = root_->named_data();
  const uint32_t count = entries == nullptr ? 0 : entries->size();
  const uint32_t start = cursor.next < count ? cursor.next : 0;
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t i = start + k < count ? start + k : start + k - count;
    const auto* entry = entries->Get(i);
    cursor.work += 1;
    if (entry->key()->size() != key.size()) continue;
    cursor.work += key.size();
    if (std::memcmp(entry->key()->data(), key.data(), key.size()) != 0) continue;
    cursor.next = i + 1;
    const auto* segment = root_->segments()->Get(entry->segment_index());
    return NamedBlob{data_ + segment_base_ + segment->offset(),
                     static_cast<size_t>(segment->size()), entry->tensor_layout()};
  }
  return Error::NotFound;
}

}  // namespace kiln
