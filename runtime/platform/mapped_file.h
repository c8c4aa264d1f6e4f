// MappedFile: a read-only file mapped into memory (mmap where available, else read into memory).
#pragma once

#include <cstddef>

#include "runtime/core/result.h"

namespace kiln {

class MappedFile {
 public:
  // AccessFailed when the file cannot be opened or read; the log says why.
  static Result<MappedFile> open(const char* path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) = delete;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Page-aligned, valid while the MappedFile lives.
  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile(void* data, size_t size, bool mapped) : data_(data), size_(size), mapped_(mapped) {}

  void* data_;
  size_t size_;
  bool mapped_;  // mmap'ed (else allocated and read)
};

}  // namespace kiln
