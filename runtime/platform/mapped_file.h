// MappedFile: a read-only file mapped into memory (mmap where available, else read into memory).
#pragma once

#include <cstddef>

namespace kiln {

class MappedFile {
 public:
  // The file at `path`, mapped. When it cannot be opened or read, ok() is false, the file is
  // empty and kiln::last_error() says why. (Platform sits below core, so no Result here.)
  static MappedFile open(const char* path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) = delete;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  bool ok() const { return ok_; }
  // Page-aligned, valid while the MappedFile lives.
  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile(void* data, size_t size, bool mapped, bool ok)
      : data_(data), size_(size), mapped_(mapped), ok_(ok) {}
  static MappedFile failed();

  void* data_;
  size_t size_;
  bool mapped_;  // mmap'ed (else allocated and read)
  bool ok_;
};

}  // namespace kiln
