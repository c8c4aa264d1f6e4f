#include "runtime/executor/delegate.h"

#include <cstring>

#include "runtime/executor/delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/executor/method.h"
#include "runtime/executor/plan_checks.h"
#include "runtime/executor/program_generated.h"
#include "runtime/platform/last_error.h"

namespace kiln {

namespace {

constexpr size_t kMaxDelegateName = 63;

struct Registered {
  char name[kMaxDelegateName + 1];
  const Delegate* delegate;
};

// Kiln's own delegates come first, without registration (nothing runs at static initialisation).
Registered g_registered[kMaxDelegates];
size_t g_count = 0;

const Delegate* find_own(std::string_view name) {
  if (name == "XnnpackBackend") return &xnnpack_delegate();
  return nullptr;
}

const pte_format::BackendDelegate& backend(const void* delegate) {
  return *static_cast<const pte_format::BackendDelegate*>(delegate);
}

}  // namespace

Error register_delegate(std::string_view name, const Delegate& delegate) {
  if (name.empty() || name.size() > kMaxDelegateName) {
    KILN_SET_ERROR("register_delegate: a delegate's name has 1 to %zu bytes, not %zu",
                   kMaxDelegateName, name.size());
    return Error::InvalidArgument;
  }
  if (find_delegate(name) != nullptr) {
    KILN_SET_ERROR("register_delegate: a delegate named '%.*s' is already registered",
                   static_cast<int>(name.size()), name.data());
    return Error::RegistrationAlreadyRegistered;
  }
  if (g_count == kMaxDelegates) {
    KILN_SET_ERROR("register_delegate: cannot register '%.*s': %zu delegates are registered",
                   static_cast<int>(name.size()), name.data(), kMaxDelegates);
    return Error::RegistrationExceedingMaxKernels;
  }
  Registered& entry = g_registered[g_count++];
  std::memcpy(entry.name, name.data(), name.size());
  entry.name[name.size()] = '\0';
  entry.delegate = &delegate;
  return Error::Ok;
}

const Delegate* find_delegate(std::string_view name) {
  if (const Delegate* own = find_own(name)) return own;
  for (size_t i = 0; i < g_count; ++i) {
    if (name == g_registered[i].name) return g_registered[i].delegate;
  }
  return nullptr;
}

std::string_view DelegateInitContext::id() const { return backend(delegate_).id()->string_view(); }

size_t DelegateInitContext::num_compile_specs() const {
  const auto* specs = backend(delegate_).compile_specs();
  return specs == nullptr ? 0 : specs->size();
}

CompileSpec DelegateInitContext::compile_spec(size_t index) const {
  const auto* spec =
      backend(delegate_).compile_specs()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const auto* value = spec->value();
  return {spec->key() == nullptr ? std::string_view() : spec->key()->string_view(),
          {value == nullptr ? nullptr : value->data(), value == nullptr ? 0 : value->size()}};
}

void DelegateInitContext::mark_written(size_t index) {
  if (index < 64) written_ |= uint64_t{1} << index;
}

Result<ConstantSpan> DelegateInitContext::named_data(std::string_view key) {
  // Keys looked up in another order than the program lists them cost a search each: bounded by
  // the file's size, as the program's own checks are.
  if (named_work_ > check_budget(program_.size()).total) {
    KILN_SET_ERROR(
        "%s: instruction %zu (%.*s): its named data lookups exceed the work the file's "
        "size allows",
        method_, instruction_, static_cast<int>(id().size()), id().data());
    return Error::InvalidProgram;
  }
  KeyCursor cursor{named_next_, 0};
  Result<ConstantSpan> found = program_.named_data(key, cursor);
  named_next_ = cursor.next;
  named_work_ += cursor.work;
  return found;
}

void* DelegateInitContext::allocate(size_t size, size_t alignment) {
  return memory_ == nullptr ? nullptr : memory_->allocate(size, alignment);
}

DelegateHandles& DelegateHandles::operator=(DelegateHandles&& other) noexcept {
  if (this == &other) return *this;
  destroy();
  entries_ = other.entries_;
  capacity_ = other.capacity_;
  count_ = other.count_;
  other.entries_ = nullptr;
  other.capacity_ = other.count_ = 0;
  return *this;
}

void DelegateHandles::destroy() {
  for (size_t i = count_; i > 0; --i) entries_[i - 1].delegate->destroy(entries_[i - 1].handle);
  count_ = 0;
}

}  // namespace kiln
