// Operator registry: table registration with duplicate detection, lookup, fallback accounting and
// the missing-operator report.
#include "runtime/kernel/operator_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "runtime/kernel/kernel_key.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/log.h"

namespace kiln {
namespace {

constexpr size_t kMaxFallbackRecords = 64;

struct RegistryState {
  const KernelTable* tables[kMaxKernelTables] = {};
  size_t table_count = 0;
  size_t kernel_count = 0;
  uint64_t fallback_total = 0;
  FallbackRecord fallbacks[kMaxFallbackRecords] = {};
  size_t fallback_record_count = 0;
};

RegistryState& state() {
  static RegistryState registry;
  return registry;
}

// The fallback statistics change while programs run: Methods on several threads (one per thread
// over a shared Program, or separate Programs, as Python's runs are) record their fallbacks at
// the same time, and Python reads them meanwhile. The tables are written at start-up only.
std::mutex& fallback_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Orders kernels as the codegen sorts tables.
int compare(const Kernel& a, const Kernel& b) {
  if (a.name_hash != b.name_hash) return a.name_hash < b.name_hash ? -1 : 1;
  if (int c = std::strcmp(a.name, b.name)) return c;
  if (a.backend != b.backend) return a.backend < b.backend ? -1 : 1;
  return std::strcmp(a.key, b.key);
}

// First index in `table` whose hash is >= `hash`.
size_t lower_bound(const KernelTable& table, uint64_t hash) {
  size_t low = 0;
  size_t high = table.size;
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    if (table.kernels[mid].name_hash < hash) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

// Calls visit(kernel) for each registered kernel named `name`; stops when visit returns true.
template <typename Visitor>
const Kernel* visit_named(std::string_view name, uint64_t hash, Visitor visit) {
  const RegistryState& registry = state();
  for (size_t t = 0; t < registry.table_count; ++t) {
    const KernelTable& table = *registry.tables[t];
    for (size_t i = lower_bound(table, hash); i < table.size; ++i) {
      const Kernel& kernel = table.kernels[i];
      if (kernel.name_hash != hash) break;
      if (name == kernel.name && visit(kernel)) return &kernel;
    }
  }
  return nullptr;
}

const Kernel* find_in_backend(std::string_view name, uint64_t hash, std::string_view key,
                              Backend backend) {
  const Kernel* fallback_default = nullptr;
  const Kernel* exact = visit_named(name, hash, [&](const Kernel& kernel) {
    if (kernel.backend != backend) return false;
    if (!key.empty() && key == kernel.key) return true;
    if (kernel.key[0] == '\0' && fallback_default == nullptr) fallback_default = &kernel;
    return false;
  });
  return exact != nullptr ? exact : fallback_default;
}

Error check_sorted(const KernelTable& table) {
  for (size_t i = 0; i < table.size; ++i) {
    const Kernel& kernel = table.kernels[i];
    if (kernel.name == nullptr || kernel.key == nullptr || kernel.function == nullptr ||
        kernel.name_hash != hash_operator_name(kernel.name)) {
      KILN_SET_ERROR("library %s: kernel %zu has a null field or a wrong name hash", table.library,
                     i);
      return Error::InvalidArgument;
    }
    if (i > 0 && compare(table.kernels[i - 1], kernel) >= 0) {
      KILN_SET_ERROR("library %s: kernel table is not sorted or repeats %s (%s and %s)",
                     table.library, kernel.name, table.kernels[i - 1].origin, kernel.origin);
      return Error::InvalidArgument;
    }
  }
  return Error::Ok;
}

Error check_no_duplicates(const KernelTable& table) {
  const RegistryState& registry = state();
  for (size_t i = 0; i < table.size; ++i) {
    const Kernel& kernel = table.kernels[i];
    for (size_t t = 0; t < registry.table_count; ++t) {
      const KernelTable& other = *registry.tables[t];
      for (size_t j = lower_bound(other, kernel.name_hash); j < other.size; ++j) {
        const Kernel& existing = other.kernels[j];
        if (existing.name_hash != kernel.name_hash) break;
        if (compare(existing, kernel) != 0) continue;
        KILN_SET_ERROR(
            "duplicate kernel for %s (backend %s, key %s): library %s (%s) and library "
            "%s (%s); link only one of them or drop the entry from one YAML",
            kernel.name, to_string(kernel.backend), kernel.key[0] != '\0' ? kernel.key : "default",
            other.library, existing.origin, table.library, kernel.origin);
        return Error::RegistrationAlreadyRegistered;
      }
    }
  }
  return Error::Ok;
}

}  // namespace

Error register_kernels(const KernelTable& table) {
  RegistryState& registry = state();
  for (size_t t = 0; t < registry.table_count; ++t) {
    if (registry.tables[t] == &table) return Error::Ok;
  }
  Error error = check_sorted(table);
  if (error == Error::Ok) error = check_no_duplicates(table);
  if (error == Error::Ok && registry.table_count == kMaxKernelTables) {
    KILN_SET_ERROR("library %s: at most %zu kernel libraries can be registered", table.library,
                   kMaxKernelTables);
    error = Error::RegistrationExceedingMaxKernels;
  }
  if (error != Error::Ok) return error;
  registry.tables[registry.table_count++] = &table;
  registry.kernel_count += table.size;
  return Error::Ok;
}

size_t registered_kernel_count() { return state().kernel_count; }

const Kernel& registered_kernel(size_t index) {
  const RegistryState& registry = state();
  size_t t = 0;
  while (index >= registry.tables[t]->size) {
    index -= registry.tables[t]->size;
    ++t;
  }
  return registry.tables[t]->kernels[index];
}

void record_fallback(const Kernel& kernel, Backend requested, const char* reason) {
  const std::lock_guard<std::mutex> lock(fallback_mutex());
  RegistryState& registry = state();
  ++registry.fallback_total;
  for (size_t i = 0; i < registry.fallback_record_count; ++i) {
    FallbackRecord& record = registry.fallbacks[i];
    if (record.name == kernel.name && record.requested == requested) {
      ++record.count;
      return;
    }
  }
  if (registry.fallback_record_count < kMaxFallbackRecords) {
    FallbackRecord& record = registry.fallbacks[registry.fallback_record_count++];
    record = {kernel.name, requested, kernel.backend, 1, {}};
    std::snprintf(record.reason, sizeof(record.reason), "%s", reason);
  }
}

Result<const Kernel*> find_kernel(std::string_view name, std::string_view key,
                                  ArrayRef<Backend> backends) {
  const uint64_t hash = hash_operator_name(name);
  for (size_t i = 0; i < backends.size(); ++i) {
    const Kernel* kernel = find_in_backend(name, hash, key, backends[i]);
    if (kernel != nullptr) {
      if (i > 0) record_fallback(*kernel, backends[0], "no kernel");
      return kernel;
    }
  }
  return Error::NotFound;
}

Result<const Kernel*> find_kernel_for_stack(std::string_view name, Span<EValue*> stack,
                                            ArrayRef<Backend> backends) {
  const uint64_t hash = hash_operator_name(name);
  const Kernel* keyed =
      visit_named(name, hash, [](const Kernel& kernel) { return kernel.key[0] != '\0'; });
  if (keyed == nullptr) return find_kernel(name, "", backends);
  // Return slots may still hold an earlier call's results; the key describes the arguments.
  const size_t arguments = stack.size() - std::min<size_t>(keyed->return_slots, stack.size());
  char key[kMaxKernelKeyLength];
  if (build_kernel_key({stack.data(), arguments}, key, sizeof(key)) != Error::Ok)
    return find_kernel(name, "", backends);
  return find_kernel(name, key, backends);
}

namespace {

// Replaces ctx's failure with `error` and `message` (already prefixed with the op name).
void refail(KernelRuntimeContext& ctx, Error error, const char* message, const char* suffix) {
  char text[sizeof(FallbackRecord::reason) + 96];
  std::snprintf(text, sizeof(text), "%s%s", message, suffix);
  const char* op_name = ctx.op_name();
  ctx.reset_failure();
  ctx.set_op_name(nullptr);
  ctx.fail(error, "%s", text);
  ctx.set_op_name(op_name);
}

}  // namespace

Error call_operator(KernelRuntimeContext& ctx, std::string_view name, Span<EValue*> stack,
                    ArrayRef<Backend> backends, bool allow_fallback, const Kernel** served) {
  const size_t searched = allow_fallback || backends.size() == 0 ? backends.size() : 1;
  char declined[sizeof(FallbackRecord::reason)] = "";
  for (size_t i = 0; i < searched; ++i) {
    Result<const Kernel*> kernel =
        find_kernel_for_stack(name, stack, ArrayRef<Backend>(&backends[i], 1));
    if (!kernel.ok()) continue;
    if (i > 0) record_fallback(**kernel, backends[0], declined[0] ? declined : "no kernel");
    const Error error = (*kernel)->call(ctx, stack);
    if (error != Error::KernelDeclined) {
      if (served != nullptr) *served = *kernel;
      return error;
    }
    std::snprintf(declined, sizeof(declined), "%s", ctx.failure_message());
    ctx.reset_failure();
  }
  if (declined[0] != '\0') {
    refail(ctx, Error::NotSupported, declined,
           allow_fallback ? " (and no other backend has a kernel)"
                          : " (fallback to another backend is disabled)");
    return Error::NotSupported;
  }
  char searched_names[64] = "";
  for (size_t i = 0, used = 0; i < searched && used < sizeof(searched_names); ++i) {
    const int written = std::snprintf(searched_names + used, sizeof(searched_names) - used, "%s%s",
                                      i ? ", " : "", to_string(backends[i]));
    if (written < 0) break;
    used += static_cast<size_t>(written);
  }
  ctx.fail(Error::OperatorMissing, "%.*s has no kernel on %s%s", static_cast<int>(name.size()),
           name.data(), searched_names,
           allow_fallback ? "" : " (fallback to another backend is disabled)");
  return Error::OperatorMissing;
}

bool has_operator(std::string_view name, ArrayRef<Backend> backends) {
  const uint64_t hash = hash_operator_name(name);
  return visit_named(name, hash, [&](const Kernel& kernel) {
           for (Backend b : backends) {
             if (kernel.backend == b) return true;
           }
           return false;
         }) != nullptr;
}

uint64_t fallback_count() {
  const std::lock_guard<std::mutex> lock(fallback_mutex());
  return state().fallback_total;
}

size_t fallback_records(Span<FallbackRecord> records) {
  const std::lock_guard<std::mutex> lock(fallback_mutex());
  const RegistryState& registry = state();
  for (size_t i = 0; i < registry.fallback_record_count && i < records.size(); ++i) {
    records[i] = registry.fallbacks[i];
  }
  return registry.fallback_record_count;
}

void reset_fallback_stats() {
  const std::lock_guard<std::mutex> lock(fallback_mutex());
  state().fallback_total = 0;
  state().fallback_record_count = 0;
}

const char* to_string(MissingCause cause) {
  switch (cause) {
    case MissingCause::NotRegistered:
      return "not registered";
    case MissingCause::NoKernelForBackend:
      return "no kernel for the searched backends";
    case MissingCause::NoKernelForKey:
      return "no kernel for this kernel key";
  }
  return "unknown";
}

namespace {

// Why `name`/`key` has no kernel on `backends`; nullopt-like false when it does have one.
bool diagnose(const char* name, const char* key, ArrayRef<Backend> backends, MissingCause* cause) {
  const uint64_t hash = hash_operator_name(name);
  for (Backend b : backends) {
    if (find_in_backend(name, hash, key, b) != nullptr) return false;
  }
  const bool any_backend = visit_named(name, hash, [](const Kernel&) { return true; }) != nullptr;
  if (!any_backend) {
    *cause = MissingCause::NotRegistered;
  } else if (!has_operator(name, backends)) {
    *cause = MissingCause::NoKernelForBackend;
  } else {
    *cause = MissingCause::NoKernelForKey;
  }
  return true;
}

}  // namespace

size_t find_missing_operators(ArrayRef<OperatorRequest> requests, ArrayRef<Backend> backends,
                              Span<MissingOperator> missing) {
  BackendMask searched = 0;
  for (Backend b : backends) searched |= backend_bit(b);
  size_t missing_count = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const OperatorRequest& request = requests[i];
    const char* key = request.key != nullptr ? request.key : "";
    MissingCause cause;
    if (request.served_elsewhere || !diagnose(request.name, key, backends, &cause)) continue;
    if (key[0] == '\0') {
      KILN_LOG(Error, "Missing operator: [%zu] %s (%s)", i, request.name, to_string(cause));
    } else {
      KILN_LOG(Error, "Missing operator: [%zu] %s (kernel key %s: %s)", i, request.name, key,
               to_string(cause));
    }
    if (missing_count < missing.size()) {
      missing[missing_count] = {i, request.name, key, searched, cause};
    }
    ++missing_count;
  }
  if (missing_count > 0) {
    KILN_LOG(Error, "%zu of %zu operators are missing from the registry", missing_count,
             requests.size());
  }
  return missing_count;
}

void reset_registry_for_testing() { state() = RegistryState(); }

}  // namespace kiln
