#include "runtime/executor/plan_checks.h"

#include <cstdint>
#include <cstdio>
#include <limits>

#include "runtime/core/dim_order.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor_types.h"
#include "runtime/executor/data_file_generated.h"
#include "runtime/executor/delegate.h"
#include "runtime/executor/limits.h"
#include "runtime/executor/program.h"
#include "runtime/executor/program_generated.h"
#include "runtime/executor/stored_tensor.h"
#include "runtime/executor/tensor_bytes.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/wording.h"

namespace kiln {
namespace {

using pte_format::KernelTypes;

// Context for messages: "method 'forward': value 12: ...".
struct Where {
  const char* method;
  int method_length;
};

#define KILN_PLAN_FAIL(where, error, format, ...)                                                 \
  do {                                                                                            \
    KILN_SET_ERROR("method '%.*s': " format, (where).method_length, (where).method, __VA_ARGS__); \
    return Error::error;                                                                          \
  } while (0)

class PlanChecker {
 public:
  PlanChecker(const Program& program, const pte_format::ExecutionPlan& plan, CheckBudget& budget,
              size_t& num_external)
      : program_(program), plan_(plan), budget_(budget), num_external_(num_external) {
    const auto* name = plan.name();
    where_ = {name == nullptr ? "" : name->c_str(),
              name == nullptr ? 0 : static_cast<int>(name->size())};
    num_values_ = plan.values() == nullptr ? 0 : plan.values()->size();
  }

  Error check() {
    if (plan_.name() == nullptr) KILN_PLAN_FAIL(where_, InvalidProgram, "%s", "no method name");
    KILN_RETURN_IF_ERROR(check_arenas());
    for (uint32_t i = 0; i < num_values_; ++i) KILN_RETURN_IF_ERROR(check_value(i));
    // Method::load compares each input with every value (does it share planned bytes?).
    KILN_RETURN_IF_ERROR(
        charge(uint64_t{plan_.inputs() ? plan_.inputs()->size() : 0} * num_values_));
    KILN_RETURN_IF_ERROR(check_io(plan_.inputs(), "input"));
    KILN_RETURN_IF_ERROR(check_io(plan_.outputs(), "output"));
    KILN_RETURN_IF_ERROR(check_operators());
    if (plan_.chains() != nullptr) {
      for (uint32_t c = 0; c < plan_.chains()->size(); ++c) {
        KILN_RETURN_IF_ERROR(check_chain(c, *plan_.chains()->Get(c)));
      }
    }
    return Error::Ok;
  }

 private:
  const pte_format::EValue& value(uint32_t index) const { return *plan_.values()->Get(index); }

  // Draws `work` from the program's budget: shared tables must not multiply the checks' work.
  Error charge(uint64_t work) {
    if (work <= budget_.remaining) {
      budget_.remaining -= work;
      return Error::Ok;
    }
    budget_.remaining = 0;
    KILN_PLAN_FAIL(where_, InvalidProgram,
                   "checking the program would examine more than %llu items (%llu per byte of "
                   "its %zu-byte file): its tables are shared or its lists repeated beyond what "
                   "any export makes",
                   static_cast<unsigned long long>(budget_.total),
                   static_cast<unsigned long long>(kCheckWorkPerFileByte), program_.size());
  }

  bool is_input(uint32_t index) const {
    if (plan_.inputs() == nullptr) return false;
    for (int32_t input : *plan_.inputs()) {
      if (input >= 0 && static_cast<uint32_t>(input) == index) return true;
    }
    return false;
  }

  Error check_arenas() {
    const auto* sizes = plan_.non_const_buffer_sizes();
    if (sizes == nullptr) return Error::Ok;
    if (!is_aligned(sizes->data(), sizeof(int64_t))) {
      KILN_PLAN_FAIL(where_, InvalidProgram, "%s",
                     "the memory arena sizes (non_const_buffer_sizes) are not 8-byte aligned");
    }
    for (uint32_t i = 0; i < sizes->size(); ++i) {
      const int64_t size = sizes->Get(i);
      if (size < 0 || static_cast<uint64_t>(size) > std::numeric_limits<size_t>::max() / 2) {
        KILN_PLAN_FAIL(where_, InvalidProgram, "memory arena %u has an invalid size %lld", i,
                       static_cast<long long>(size));
      }
    }
    return Error::Ok;
  }

  Error check_value(uint32_t i) {
    const pte_format::EValue& v = value(i);
    KILN_RETURN_IF_ERROR(charge(1));
    if (v.val_type() != KernelTypes::Null && v.val() == nullptr) {
      KILN_PLAN_FAIL(where_, InvalidProgram, "value %u has a type but no content", i);
    }
    switch (v.val_type()) {
      case KernelTypes::NONE:
        KILN_PLAN_FAIL(where_, InvalidProgram, "value %u has no type tag", i);
      case KernelTypes::Null:
      case KernelTypes::Int:
      case KernelTypes::Bool:
      case KernelTypes::Double:
      case KernelTypes::String:
        return Error::Ok;
      case KernelTypes::DoubleList: {
        const auto* items = v.val_as_DoubleList()->items();
        if (items != nullptr && !is_aligned(items->data(), sizeof(double))) {
          KILN_PLAN_FAIL(where_, InvalidProgram,
                         "value %u (DoubleList): its items are not 8-byte aligned", i);
        }
        return Error::Ok;
      }
      case KernelTypes::Tensor:
        return check_tensor(i, *v.val_as_Tensor());
      case KernelTypes::IntList: {
        const auto* items = v.val_as_IntList()->items();
        if (items != nullptr && !is_aligned(items->data(), sizeof(int64_t))) {
          KILN_PLAN_FAIL(where_, InvalidProgram,
                         "value %u (IntList): its items are not 8-byte aligned", i);
        }
        return check_items(i, items, KernelTypes::Int, false);
      }
      case KernelTypes::BoolList: {
        const auto* items = v.val_as_BoolList()->items();
        if (items == nullptr) return Error::Ok;
        KILN_RETURN_IF_ERROR(charge(items->size()));
        for (uint32_t k = 0; k < items->size(); ++k) {
          if (items->Get(k) > 1) {
            KILN_PLAN_FAIL(where_, InvalidProgram, "value %u (BoolList) item %u is %u, not 0 or 1",
                           i, k, static_cast<unsigned>(items->Get(k)));
          }
        }
        return Error::Ok;
      }
      case KernelTypes::TensorList:
        return check_items(i, v.val_as_TensorList()->items(), KernelTypes::Tensor, false);
      case KernelTypes::OptionalTensorList:
        return check_items(i, v.val_as_OptionalTensorList()->items(), KernelTypes::Tensor, true);
    }
    KILN_PLAN_FAIL(where_, InvalidProgram, "value %u has unknown type tag %u", i,
                   static_cast<unsigned>(v.val_type()));
  }

  // List items are indices of other values of type `item_type` (-1 = None when optional).
  Error check_items(uint32_t i, const flatbuffers::Vector<int64_t>* items, KernelTypes item_type,
                    bool optional) {
    if (items == nullptr) return Error::Ok;
    KILN_RETURN_IF_ERROR(charge(items->size()));
    for (uint32_t k = 0; k < items->size(); ++k) {
      KILN_RETURN_IF_ERROR(check_item(i, k, items->Get(k), item_type, optional));
    }
    return Error::Ok;
  }
  Error check_items(uint32_t i, const flatbuffers::Vector<int32_t>* items, KernelTypes item_type,
                    bool optional) {
    if (items == nullptr) return Error::Ok;
    KILN_RETURN_IF_ERROR(charge(items->size()));
    for (uint32_t k = 0; k < items->size(); ++k) {
      KILN_RETURN_IF_ERROR(check_item(i, k, items->Get(k), item_type, optional));
    }
    return Error::Ok;
  }
  Error check_item(uint32_t i, uint32_t k, int64_t item, KernelTypes item_type, bool optional) {
    if (optional && item == -1) return Error::Ok;
    if (item < 0 || static_cast<uint64_t>(item) >= num_values_) {
      KILN_PLAN_FAIL(where_, InvalidProgram, "value %u: list item %u refers to value %lld of %u", i,
                     k, static_cast<long long>(item), num_values_);
    }
    const KernelTypes type = value(static_cast<uint32_t>(item)).val_type();
    if (type != item_type && !(optional && type == KernelTypes::Null)) {
      const char* found = pte_format::EnumNameKernelTypes(type);
      const char* expected = pte_format::EnumNameKernelTypes(item_type);
      KILN_PLAN_FAIL(where_, InvalidProgram,
                     "value %u: list item %u refers to value %lld, %s %s, not %s %s", i, k,
                     static_cast<long long>(item), indefinite_article(found), found,
                     indefinite_article(expected), expected);
    }
    return Error::Ok;
  }

  Error check_tensor(uint32_t i, const pte_format::Tensor& t) {
    KILN_RETURN_IF_ERROR(charge(t.sizes() == nullptr ? 0 : t.sizes()->size()));
    char why[128];
    Result<TensorBytes> bytes = tensor_bytes(t, why, sizeof(why));
    if (!bytes.ok()) KILN_PLAN_FAIL(where_, InvalidProgram, "value %u (Tensor): %s", i, why);
    const auto* extra = t.extra_tensor_info();
    const bool external = is_external(t);
    if (external &&
        (extra->fully_qualified_name() == nullptr || extra->fully_qualified_name()->size() == 0)) {
      KILN_PLAN_FAIL(where_, InvalidProgram,
                     "value %u (Tensor) keeps its data in a data file but has no name (its "
                     "fully_qualified_name) to find it by",
                     i);
    }
    const size_t nbytes = bytes->nbytes;
    const auto* allocation = t.allocation_info();
    if (allocation != nullptr) {
      const auto* arenas = plan_.non_const_buffer_sizes();
      const uint32_t id = allocation->memory_id();
      if (arenas == nullptr || id == 0 || id >= arenas->size()) {
        KILN_PLAN_FAIL(where_, InvalidProgram,
                       "value %u (Tensor) is planned in memory arena %u, but the plan has "
                       "arenas 1..%u",
                       i, id, arenas == nullptr || arenas->size() == 0 ? 0 : arenas->size() - 1);
      }
      const uint64_t offset = uint64_t{allocation->memory_offset_low()} |
                              uint64_t{allocation->memory_offset_high()} << 32;
      const uint64_t arena_size = static_cast<uint64_t>(arenas->Get(id));
      if (offset > arena_size || nbytes > arena_size - offset) {
        KILN_PLAN_FAIL(where_, InvalidProgram,
                       "value %u (Tensor, %zu bytes) at offset %llu runs past memory arena %u's "
                       "%llu bytes",
                       i, nbytes, static_cast<unsigned long long>(offset), id,
                       static_cast<unsigned long long>(arena_size));
      }
      // Kernels access elements as their type: a misaligned one is undefined behaviour.
      const size_t alignment = element_size(static_cast<ScalarType>(t.scalar_type()));
      if (offset % alignment != 0) {
        KILN_PLAN_FAIL(where_, InvalidProgram,
                       "value %u (Tensor) at offset %llu of memory arena %u is not aligned to its "
                       "%zu-byte elements",
                       i, static_cast<unsigned long long>(offset), id, alignment);
      }
      if (external) {
        KILN_RETURN_IF_ERROR(check_external(i, t, nbytes));  // Method::load copies it too
        return charge(nbytes);
      }
      if (t.data_buffer_idx() > 0) {
        const uint64_t list = extra == nullptr ? 0 : extra->mutable_data_segments_idx();
        Result<ConstantSpan> initial = program_.mutable_initial_bytes(list, t.data_buffer_idx());
        if (!initial.ok() || initial->size < nbytes) {
          KILN_PLAN_FAIL(where_, InvalidProgram,
                         "value %u (Tensor, %zu bytes): its initial data (mutable segment list "
                         "%llu, buffer %u) is missing or too short",
                         i, nbytes, static_cast<unsigned long long>(list), t.data_buffer_idx());
        }
        KILN_RETURN_IF_ERROR(charge(nbytes));  // Method::load copies the initial data
        KILN_RETURN_IF_ERROR(check_bools(i, t, initial->data, nbytes));
      }
      return Error::Ok;
    }
    if (external) return check_external(i, t, nbytes);
    if (t.data_buffer_idx() > 0) {
      Result<ConstantSpan> constant = program_.constant_bytes(t.data_buffer_idx());
      if (!constant.ok() || constant->size < nbytes) {
        KILN_PLAN_FAIL(where_, InvalidProgram,
                       "value %u (Tensor, %zu bytes): constant buffer %u is missing or holds "
                       "only %zu bytes",
                       i, nbytes, t.data_buffer_idx(), constant.ok() ? constant->size : 0);
      }
      const size_t alignment = element_size(static_cast<ScalarType>(t.scalar_type()));
      if (nbytes > 0 && reinterpret_cast<uintptr_t>(constant->data) % alignment != 0) {
        KILN_PLAN_FAIL(where_, InvalidProgram,
                       "value %u (Tensor): constant buffer %u is not aligned to its %zu-byte "
                       "elements",
                       i, t.data_buffer_idx(), alignment);
      }
      return check_bools(i, t, constant->data, nbytes);
    }
    if (nbytes > 0) KILN_RETURN_IF_ERROR(charge(plan_.inputs() ? plan_.inputs()->size() : 0));
    if (nbytes > 0 && !is_input(i)) {
      KILN_PLAN_FAIL(where_, InvalidProgram,
                     "value %u (Tensor, %zu bytes) has no memory: it is not a constant, not "
                     "planned and not a method input",
                     i, nbytes);
    }
    return Error::Ok;
  }

  // An external tensor's bytes: its entry in the data file, found by its name, must match it and
  // hold its bytes, aligned to its elements.
  Error check_external(uint32_t i, const pte_format::Tensor& t, size_t nbytes) {
    const char* key = t.extra_tensor_info()->fully_qualified_name()->c_str();
    const DataFile* file = program_.data_file();
    if (file == nullptr) {
      KILN_PLAN_FAIL(where_, InvalidArgument,
                     "value %u (Tensor '%s') keeps its data in a separate data file (.ptd), and "
                     "none was given: load the program with the .ptd written beside it "
                     "(kiln.load(pte, data=...), kiln_runner --data FILE, or a DataFile passed "
                     "to Program::load)",
                     i, key);
    }
    const uint64_t work = keys_.work;
    Result<NamedBlob> blob =
        file->find(t.extra_tensor_info()->fully_qualified_name()->string_view(), keys_);
    KILN_RETURN_IF_ERROR(charge(keys_.work - work));
    if (!blob.ok()) {
      KILN_PLAN_FAIL(where_, NotFound,
                     "value %u (Tensor '%s'): data file '%s' has no entry '%s' (it has %zu "
                     "entries): give the .ptd file exported with this program",
                     i, key, file->name(), key, file->num_keys());
    }
    ++num_external_;
    if (blob->layout != nullptr) KILN_RETURN_IF_ERROR(check_layout(i, t, key, *blob->layout));
    if (blob->size < nbytes) {
      KILN_PLAN_FAIL(where_, InvalidProgram,
                     "value %u (Tensor '%s', %zu bytes): its entry in data file '%s' holds only "
                     "%zu bytes: the file is corrupted or from another export",
                     i, key, nbytes, file->name(), blob->size);
    }
    const size_t alignment = element_size(static_cast<ScalarType>(t.scalar_type()));
    if (nbytes > 0 && !is_aligned(blob->data, alignment)) {
      KILN_PLAN_FAIL(where_, InvalidProgram,
                     "value %u (Tensor '%s'): its data in data file '%s' is not aligned to its "
                     "%zu-byte elements (give the file 8-byte aligned memory)",
                     i, key, file->name(), alignment);
    }
    return check_bools(i, t, blob->data, nbytes);
  }

  // The data file's record of the tensor (dtype, sizes, dim order) is the program's.
  Error check_layout(uint32_t i, const pte_format::Tensor& t, const char* key,
                     const ptd_format::TensorLayout& layout) {
    const auto* sizes = layout.sizes();
    const auto* order = layout.dim_order();
    const uint32_t dim = t.sizes() == nullptr ? 0 : t.sizes()->size();
    bool same = static_cast<int8_t>(t.scalar_type()) == layout.scalar_type() &&
                (sizes == nullptr ? 0 : sizes->size()) == dim &&
                (order == nullptr ? 0 : order->size()) == dim;
    KILN_RETURN_IF_ERROR(charge(dim));
    for (uint32_t d = 0; same && d < dim; ++d) {
      same = sizes->Get(d) == t.sizes()->Get(d) && order->Get(d) == t.dim_order()->Get(d);
    }
    if (same) return Error::Ok;
    char program[96];
    char file[96];
    describe(static_cast<int8_t>(t.scalar_type()), t.sizes(), program, sizeof(program));
    describe(layout.scalar_type(), sizes, file, sizeof(file));
    KILN_PLAN_FAIL(where_, InvalidProgram,
                   "value %u (Tensor '%s') is %s in the program, but data file '%s' holds %s "
                   "(or another dim order) under that name: the files come from different "
                   "exports",
                   i, key, program, program_.data_file()->name(), file);
  }

  // "Float[32, 16]" (the first 8 sizes).
  static void describe(int8_t scalar_type, const flatbuffers::Vector<int32_t>* sizes, char* out,
                       size_t capacity) {
    const char* type = is_valid_scalar_type(scalar_type)
                           ? to_string(static_cast<ScalarType>(scalar_type))
                           : "an unknown dtype";
    int length = std::snprintf(out, capacity, "%s[", type);
    const uint32_t dim = sizes == nullptr ? 0 : sizes->size();
    for (uint32_t d = 0; d < dim && d < 8 && length > 0 && size_t(length) < capacity; ++d) {
      length += std::snprintf(out + length, capacity - length, d ? ", %d" : "%d", sizes->Get(d));
    }
    if (length > 0 && size_t(length) < capacity) {
      std::snprintf(out + length, capacity - length, dim > 8 ? ", ...]" : "]");
    }
  }

  // Kernels load Bool elements as bool, for which a byte other than 0 or 1 is undefined.
  Error check_bools(uint32_t i, const pte_format::Tensor& t, const uint8_t* data, size_t nbytes) {
    if (t.scalar_type() != pte_format::ScalarType::BOOL) return Error::Ok;
    KILN_RETURN_IF_ERROR(charge(nbytes));
    for (size_t b = 0; b < nbytes; ++b) {
      if (data[b] > 1) {
        KILN_PLAN_FAIL(where_, InvalidProgram,
                       "value %u (Tensor, Bool): its data holds %u at element %zu, not 0 or 1", i,
                       static_cast<unsigned>(data[b]), b);
      }
    }
    return Error::Ok;
  }

  Error check_io(const flatbuffers::Vector<int32_t>* indices, const char* what) {
    if (indices == nullptr) return Error::Ok;
    const bool inputs = indices == plan_.inputs();
    for (uint32_t k = 0; k < indices->size(); ++k) {
      const int32_t index = indices->Get(k);
      if (index < 0 || static_cast<uint32_t>(index) >= num_values_) {
        KILN_PLAN_FAIL(where_, InvalidProgram, "%s %u refers to value %d of %u", what, k, index,
                       num_values_);
      }
      // set_input writes an input's bytes (it copies the caller's tensor into them when other
      // values share them), and a constant's bytes are the program's own, mapped read-only.
      const auto* t = value(static_cast<uint32_t>(index)).val_as_Tensor();
      if (inputs && t != nullptr && is_constant(*t)) {
        KILN_PLAN_FAIL(where_, InvalidProgram,
                       "input %u is value %d, a constant tensor: an input is written when it is "
                       "bound, a constant is read-only",
                       k, index);
      }
    }
    return Error::Ok;
  }

  Error check_operators() {
    const auto* ops = plan_.operators();
    if (ops == nullptr) return Error::Ok;
    for (uint32_t k = 0; k < ops->size(); ++k) {
      const auto* op = ops->Get(k);
      if (op->name() == nullptr || op->name()->size() == 0) {
        KILN_PLAN_FAIL(where_, InvalidProgram, "operator %u has no name", k);
      }
      const size_t length = op->name()->size() + (op->overload() ? op->overload()->size() : 0);
      if (length > kMaxOperatorNameLength) {
        KILN_PLAN_FAIL(where_, InvalidProgram, "operator %u: name of %zu characters (at most %zu)",
                       k, length, kMaxOperatorNameLength);
      }
    }
    return Error::Ok;
  }

  Error check_index(uint32_t chain, uint32_t k, int64_t index, const char* what) {
    if (index < 0 || static_cast<uint64_t>(index) >= num_values_) {
      KILN_PLAN_FAIL(where_, InvalidProgram,
                     "chain %u instruction %u: %s refers to value %lld of %u", chain, k, what,
                     static_cast<long long>(index), num_values_);
    }
    return Error::Ok;
  }

  // Where a planned tensor's bytes are: [begin, end) of memory arena `arena`.
  struct Placement {
    uint32_t arena;
    uint64_t begin;
    uint64_t end;
  };

  // False for anything but a planned tensor with bytes (values are checked by now).
  bool placement(int64_t index, Placement* out) const {
    const auto* t = value(static_cast<uint32_t>(index)).val_as_Tensor();
    if (t == nullptr || t->allocation_info() == nullptr) return false;
    char why[128];
    Result<TensorBytes> bytes = tensor_bytes(*t, why, sizeof(why));
    if (!bytes.ok() || bytes->nbytes == 0) return false;
    const auto* allocation = t->allocation_info();
    const uint64_t offset = uint64_t{allocation->memory_offset_low()} |
                            uint64_t{allocation->memory_offset_high()} << 32;
    *out = {allocation->memory_id(), offset, offset + bytes->nbytes};
    return true;
  }

  // Kernels take their out arguments to be apart from their inputs (and copy with memcpy): two
  // values one call reads or writes must not partly share planned bytes. The same value twice is
  // fine (an in-place op's self), and so are two values on exactly the same bytes. Every tensor
  // argument is compared with every other one and with the items of the call's tensor lists (each
  // list once; outs like cat's are tensor arguments, and split's out list is compared with its
  // tensor input).
  Error check_overlaps(uint32_t c, uint32_t k, const flatbuffers::Vector<int32_t>& args) {
    KILN_RETURN_IF_ERROR(charge(uint64_t{args.size()} * args.size()));
    bool repeated[kMaxCallArguments] = {};  // the call has at most that many (checked)
    for (uint32_t j = 0; j < args.size(); ++j) {
      for (uint32_t before = 0; before < j && !repeated[j]; ++before) {
        repeated[j] = args.Get(before) == args.Get(j);
      }
      // Method::load examines each list argument's tensors once more (its write checks).
      if (!repeated[j]) KILN_RETURN_IF_ERROR(charge(tensor_list_size(args.Get(j))));
    }
    for (uint32_t i = 0; i < args.size(); ++i) {
      Placement a;
      if (!placement(args.Get(i), &a)) continue;
      KILN_RETURN_IF_ERROR(charge(args.size()));
      for (uint32_t j = 0; j < args.size(); ++j) {
        const pte_format::EValue& other = value(static_cast<uint32_t>(args.Get(j)));
        if (other.val_type() == KernelTypes::Tensor) {
          if (j > i) KILN_RETURN_IF_ERROR(check_apart(c, k, args.Get(i), a, args.Get(j)));
          continue;
        }
        if (repeated[j]) continue;
        const flatbuffers::Vector<int32_t>* items = nullptr;
        if (other.val_type() == KernelTypes::TensorList) items = other.val_as_TensorList()->items();
        if (other.val_type() == KernelTypes::OptionalTensorList) {
          items = other.val_as_OptionalTensorList()->items();
        }
        if (items == nullptr) continue;
        KILN_RETURN_IF_ERROR(charge(items->size()));
        for (int32_t item : *items) {
          if (item >= 0) KILN_RETURN_IF_ERROR(check_apart(c, k, args.Get(i), a, item));
        }
      }
    }
    return Error::Ok;
  }

  uint32_t tensor_list_size(int32_t index) const {
    const pte_format::EValue& v = value(static_cast<uint32_t>(index));
    const flatbuffers::Vector<int32_t>* items = nullptr;
    if (v.val_type() == KernelTypes::TensorList) items = v.val_as_TensorList()->items();
    if (v.val_type() == KernelTypes::OptionalTensorList) {
      items = v.val_as_OptionalTensorList()->items();
    }
    return items == nullptr ? 0 : items->size();
  }

  Error check_apart(uint32_t c, uint32_t k, int32_t index, const Placement& a,
                    int32_t other_index) const {
    Placement b;
    if (other_index == index || !placement(other_index, &b)) return Error::Ok;
    if (a.arena != b.arena || a.end <= b.begin || b.end <= a.begin) return Error::Ok;
    // Two values on exactly the same bytes are one tensor seen twice (kiln.export leaves a view
    // on its input's bytes); kernels may read it through both. Partial overlaps are refused.
    if (a.begin == b.begin && a.end == b.end) return Error::Ok;
    KILN_PLAN_FAIL(where_, InvalidProgram,
                   "chain %u instruction %u: its arguments value %d (bytes %llu..%llu) and "
                   "value %d (bytes %llu..%llu) overlap in memory arena %u",
                   c, k, index, static_cast<unsigned long long>(a.begin),
                   static_cast<unsigned long long>(a.end), other_index,
                   static_cast<unsigned long long>(b.begin), static_cast<unsigned long long>(b.end),
                   a.arena);
  }

  // A DelegateCall names a delegate of the plan whose payload the program holds, and that is
  // registered (register_delegate; Kiln's own XnnpackBackend always is).
  Error check_delegate(uint32_t c, uint32_t k, int32_t index) {
    const auto* delegates = plan_.delegates();
    const uint32_t count = delegates == nullptr ? 0 : delegates->size();
    if (index < 0 || static_cast<uint32_t>(index) >= count) {
      KILN_PLAN_FAIL(where_, InvalidProgram, "chain %u instruction %u calls delegate %d of %u", c,
                     k, index, count);
    }
    const auto* delegate = delegates->Get(static_cast<uint32_t>(index));
    if (delegate->id() == nullptr || delegate->processed() == nullptr) {
      KILN_PLAN_FAIL(where_, InvalidProgram, "chain %u instruction %u: delegate %d has no %s", c, k,
                     index, delegate->id() == nullptr ? "id" : "payload reference");
    }
    const char* id = delegate->id()->c_str();
    if (find_delegate(delegate->id()->string_view()) == nullptr) {
      KILN_PLAN_FAIL(where_, NotSupported,
                     "chain %u instruction %u calls delegate '%s', which is not registered: "
                     "Kiln runs XnnpackBackend itself; register your own with "
                     "kiln::register_delegate(\"%s\", ...) before loading, or export the "
                     "program without partitioning it to that backend",
                     c, k, id, id);
    }
    const auto* reference = delegate->processed();
    const auto* root = &program_.flatbuffer();
    const bool inline_data = reference->location() == pte_format::DataLocation::INLINE;
    const uint32_t available =
        inline_data ? (root->backend_delegate_data() ? root->backend_delegate_data()->size() : 0)
                    : (root->segments() ? root->segments()->size() : 0);
    if (reference->index() >= available) {
      KILN_PLAN_FAIL(where_, InvalidProgram,
                     "chain %u instruction %u: delegate '%s' has its payload in %s %u of %u", c, k,
                     id, inline_data ? "inline data" : "segment", reference->index(), available);
    }
    if (delegate->compile_specs() != nullptr) {
      KILN_RETURN_IF_ERROR(charge(delegate->compile_specs()->size()));
    }
    return Error::Ok;
  }

  // A kernel or delegate call's arguments: at most kMaxCallArguments values of the plan, their
  // overlaps checked (check_overlaps).
  Error check_call_arguments(uint32_t c, uint32_t k, const flatbuffers::Vector<int32_t>* args) {
    if (args == nullptr) return Error::Ok;
    if (args->size() > kMaxCallArguments) {
      KILN_PLAN_FAIL(where_, InvalidProgram,
                     "chain %u instruction %u has %u arguments (at most %zu)", c, k, args->size(),
                     kMaxCallArguments);
    }
    KILN_RETURN_IF_ERROR(charge(args->size()));
    for (int32_t arg : *args) KILN_RETURN_IF_ERROR(check_index(c, k, arg, "an argument"));
    return check_overlaps(c, k, *args);
  }

  Error check_chain(uint32_t c, const pte_format::Chain& chain) {
    const auto* instructions = chain.instructions();
    if (instructions == nullptr) return Error::Ok;
    const uint32_t count = instructions->size();
    KILN_RETURN_IF_ERROR(charge(count));
    for (uint32_t k = 0; k < count; ++k) {
      const pte_format::Instruction& instruction = *instructions->Get(k);
      if (instruction.instr_args() == nullptr) {
        KILN_PLAN_FAIL(where_, InvalidProgram, "chain %u instruction %u has no arguments", c, k);
      }
      switch (instruction.instr_args_type()) {
        case pte_format::InstructionArguments::KernelCall: {
          const auto* call = instruction.instr_args_as_KernelCall();
          const uint32_t ops = plan_.operators() ? plan_.operators()->size() : 0;
          if (call->op_index() < 0 || static_cast<uint32_t>(call->op_index()) >= ops) {
            KILN_PLAN_FAIL(where_, InvalidProgram,
                           "chain %u instruction %u calls operator %d of %u", c, k,
                           call->op_index(), ops);
          }
          KILN_RETURN_IF_ERROR(check_call_arguments(c, k, call->args()));
          break;
        }
        case pte_format::InstructionArguments::DelegateCall: {
          const auto* call = instruction.instr_args_as_DelegateCall();
          KILN_RETURN_IF_ERROR(check_delegate(c, k, call->delegate_index()));
          KILN_RETURN_IF_ERROR(check_call_arguments(c, k, call->args()));
          break;
        }
        case pte_format::InstructionArguments::MoveCall: {
          const auto* move = instruction.instr_args_as_MoveCall();
          KILN_RETURN_IF_ERROR(check_index(c, k, move->move_from(), "the move source"));
          KILN_RETURN_IF_ERROR(check_index(c, k, move->move_to(), "the move destination"));
          break;
        }
        case pte_format::InstructionArguments::JumpFalseCall: {
          const auto* jump = instruction.instr_args_as_JumpFalseCall();
          KILN_RETURN_IF_ERROR(check_index(c, k, jump->cond_value_index(), "the condition"));
          if (jump->destination_instruction() < 0 ||
              static_cast<uint32_t>(jump->destination_instruction()) >= count) {
            KILN_PLAN_FAIL(where_, InvalidProgram,
                           "chain %u instruction %u jumps to instruction %d of %u", c, k,
                           jump->destination_instruction(), count);
          }
          break;
        }
        case pte_format::InstructionArguments::FreeCall:
          KILN_RETURN_IF_ERROR(check_index(
              c, k, instruction.instr_args_as_FreeCall()->value_index(), "the freed value"));
          break;
        default:
          KILN_PLAN_FAIL(where_, InvalidProgram, "chain %u instruction %u has unknown kind %u", c,
                         k, static_cast<unsigned>(instruction.instr_args_type()));
      }
    }
    return Error::Ok;
  }

  const Program& program_;
  const pte_format::ExecutionPlan& plan_;
  CheckBudget& budget_;
  size_t& num_external_;
  KeyCursor keys_;  // Method::load looks the same keys up in the same order
  Where where_;
  uint32_t num_values_;
};

}  // namespace

Error check_plan(const Program& program, const pte_format::ExecutionPlan& plan, CheckBudget& budget,
                 size_t& num_external) {
  return PlanChecker(program, plan, budget, num_external).check();
}

}  // namespace kiln
