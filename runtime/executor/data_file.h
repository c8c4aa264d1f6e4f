// DataFile: a verified, read-only view of a program's data file (".ptd", ExecuTorch's named-data
// "flat_tensor" format): the tensors a program exported with external constants keeps outside the
// .pte, each found by its fully qualified name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/core/result.h"

namespace kiln {

namespace ptd_format {
struct FlatTensor;
struct TensorLayout;
}  // namespace ptd_format

// One named blob: its bytes inside the data file and, when the file records it, the tensor it
// holds (dtype, sizes, dim order) for the program's tensor to be checked against.
struct NamedBlob {
  const uint8_t* data;
  size_t size;
  const ptd_format::TensorLayout* layout;  // nullptr when the file gives none
};

// Where the next key lookup starts, and the work lookups did (entries and key bytes compared).
// Exporters write the keys in the order the program's values name them, so a lookup that starts
// after the previous hit finds the next key at once; any other order stays correct, just slower.
struct KeyCursor {
  uint32_t next = 0;
  uint64_t work = 0;
};

class DataFile {
 public:
  // Names in messages are cut to this many bytes.
  static constexpr size_t kMaxNameLength = 200;

  // Verifies the data file in `data` (`size` bytes; not copied: it must stay valid and unchanged
  // while the DataFile, and every Program and Method loaded with it, are used): the header, the
  // FlatBuffers verifier, every segment inside the file and every entry's segment index. `name`
  // (a path, say; copied) names the file in messages. A bad file is Error::InvalidProgram, a
  // newer format version NotSupported, with kiln::last_error() naming the file and what is wrong.
  // `data` must be 8-byte aligned (InvalidArgument otherwise).
  static Result<DataFile> load(const void* data, size_t size, std::string_view name = "<unnamed>");

  size_t num_keys() const;
  // Key `index` (< num_keys()).
  std::string_view key(size_t index) const;
  // The blob named `key`: NotFound (without a message: the caller knows what needed it) when the
  // file has no such key. The search starts at `cursor.next` and adds its work to `cursor.work`.
  Result<NamedBlob> find(std::string_view key, KeyCursor& cursor) const;

  // The name given to load(), NUL-terminated.
  const char* name() const { return name_; }
  size_t size() const { return size_; }

 private:
  DataFile(const uint8_t* data, size_t size, const ptd_format::FlatTensor* root,
           uint64_t segment_base, std::string_view name);

  const uint8_t* data_;
  size_t size_;
  const ptd_format::FlatTensor* root_;
  uint64_t segment_base_;  // file offset of the first segment
  char name_[kMaxNameLength + 1];
};

}  // namespace kiln
