#include "runtime/platform/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

// An empty file maps to this, so data() is never null.
alignas(16) const unsigned char kEmpty[16] = {};

}  // namespace

MappedFile MappedFile::failed() {
  return MappedFile(const_cast<unsigned char*>(kEmpty), 0, false, false);
}

MappedFile MappedFile::open(const char* path) {
  // O_NONBLOCK: opening a named pipe would otherwise wait for a writer forever; the check below
  // then refuses it like any other file that is not regular.
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    KILN_SET_ERROR("cannot read %s: %s", path, std::strerror(errno));
    return failed();
  }
  struct stat info{};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    KILN_SET_ERROR("cannot read %s: not a regular file", path);
    ::close(fd);
    return failed();
  }
  const auto size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    ::close(fd);
    return MappedFile(const_cast<unsigned char*>(kEmpty), 0, false, true);
  }
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (data == MAP_FAILED) {
    KILN_SET_ERROR("cannot map %s: %s", path, std::strerror(errno));
    return failed();
  }
  return MappedFile(data, size, true, true);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(other.data_), size_(other.size_), mapped_(other.mapped_), ok_(other.ok_) {
  other.data_ = const_cast<unsigned char*>(kEmpty);
  other.size_ = 0;
  other.mapped_ = false;
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(data_, size_);
}

}  // namespace kiln
