// Where the fields of a .ptd data file are, for the structure-aware mutations (mutations.h).
#include <algorithm>
#include <cstring>

#include "mutations.h"
#include "runtime/executor/data_file_generated.h"

namespace kiln_fuzz {
namespace {

namespace fmt = kiln::ptd_format;
using flatbuffers::uoffset_t;
using flatbuffers::voffset_t;

// Entries past this many contribute nothing more (the seeds have a few dozen).
constexpr uoffset_t kEntries = 64;

class DataFieldFinder {
 public:
  explicit DataFieldFinder(const uint8_t* base) : base_(base) {}

  Layout take() { return std::move(layout_); }

  void add(const void* address, uint8_t width, FieldKind kind) {
    const auto offset = static_cast<uint32_t>(static_cast<const uint8_t*>(address) - base_);
    layout_.fields.push_back({offset, width, kind});
  }

  // A scalar field of `table` when it is stored (a field holding its default is not).
  template <typename T>
  void scalar(const T* table, voffset_t field, uint8_t width, FieldKind kind) {
    if (table == nullptr) return;
    const auto* raw = (const flatbuffers::Table*)table;  // NOLINT(google-readability-casting)
    if (const uint8_t* address = raw->GetAddressOf(field)) add(address, width, kind);
  }

  template <typename V>
  void length(const V* vector) {
    if (vector != nullptr) add(vector, 4, FieldKind::Length);
  }

  template <typename T>
  void items(const flatbuffers::Vector<T>* vector, FieldKind kind) {
    if (vector == nullptr) return;
    length(vector);
    for (uoffset_t i = 0; i < std::min<uoffset_t>(vector->size(), 8); ++i) {
      add(vector->Data() + i * sizeof(T), sizeof(T), kind);
    }
  }

  void file(const fmt::FlatTensor* root) {
    scalar(root, fmt::FlatTensor::VT_VERSION, 4, FieldKind::Tag);
    if (const auto* segments = root->segments()) {
      length(segments);
      for (uoffset_t i = 0; i < std::min(segments->size(), kEntries); ++i) {
        scalar(segments->Get(i), fmt::DataSegment::VT_OFFSET, 8, FieldKind::Offset);
        scalar(segments->Get(i), fmt::DataSegment::VT_SIZE, 8, FieldKind::Size);
      }
    }
    if (const auto* entries = root->named_data()) {
      length(entries);
      for (uoffset_t i = 0; i < std::min(entries->size(), kEntries); ++i) {
        const auto* entry = entries->Get(i);
        length(entry->key());
        scalar(entry, fmt::NamedData::VT_SEGMENT_INDEX, 4, FieldKind::Index);
        if (const auto* layout = entry->tensor_layout()) {
          scalar(layout, fmt::TensorLayout::VT_SCALAR_TYPE, 1, FieldKind::Tag);
          items(layout->sizes(), FieldKind::Size);
          items(layout->dim_order(), FieldKind::Index);
        }
      }
    }
  }

 private:
  const uint8_t* base_;
  Layout layout_;
};

}  // namespace

Layout find_data_layout(const std::vector<uint8_t>& data_file) {
  constexpr size_t kHeaderEnd = 48;  // root offset, identifier, the 40-byte header
  if (data_file.size() < kHeaderEnd || std::memcmp(data_file.data() + 8, "FH01", 4) != 0) {
    return {};
  }
  flatbuffers::Verifier verifier(data_file.data(), data_file.size());
  if (!fmt::VerifyFlatTensorBuffer(verifier)) return {};
  DataFieldFinder finder(data_file.data());
  finder.add(data_file.data(), 4, FieldKind::Offset);       // the root table's offset
  finder.add(data_file.data() + 12, 4, FieldKind::Length);  // header length
  finder.add(data_file.data() + 16, 8, FieldKind::Offset);  // flatbuffer offset
  finder.add(data_file.data() + 24, 8, FieldKind::Size);    // flatbuffer size
  finder.add(data_file.data() + 32, 8, FieldKind::Offset);  // segment base offset
  finder.add(data_file.data() + 40, 8, FieldKind::Size);    // segment data size
  finder.file(fmt::GetFlatTensor(data_file.data()));
  return finder.take();
}

}  // namespace kiln_fuzz
