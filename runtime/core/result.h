// Result<T>: a value or an Error, without exceptions or heap.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "runtime/core/error.h"

namespace kiln {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_reference_v<T>, "Result holds values; use a pointer for references");

 public:
  Result(const T& value) : error_(Error::Ok) { new (&storage_) T(value); }
  Result(T&& value) : error_(Error::Ok) { new (&storage_) T(std::move(value)); }
  // An error result; passing Error::Ok here is a programming error and becomes Internal.
  Result(Error error) : error_(error == Error::Ok ? Error::Internal : error) {}

  Result(const Result& other) : error_(other.error_) {
    if (ok()) new (&storage_) T(other.get());
  }
  Result(Result&& other) noexcept : error_(other.error_) {
    if (ok()) new (&storage_) T(std::move(other.get()));
  }
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (ok()) get().~T();
  }

  bool ok() const { return error_ == Error::Ok; }
  Error error() const { return error_; }

  // Only valid when ok().
  T& get() { return *std::launder(reinterpret_cast<T*>(&storage_)); }
  const T& get() const { return *std::launder(reinterpret_cast<const T*>(&storage_)); }
  T* operator->() { return &get(); }
  const T* operator->() const { return &get(); }
  T& operator*() { return get(); }
  const T& operator*() const { return get(); }

 private:
  Error error_;
  std::aligned_storage_t<sizeof(T), alignof(T)> storage_;
};

}  // namespace kiln
