#include "mutations.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "runtime/executor/program_generated.h"

namespace kiln_fuzz {
namespace {

namespace fmt = kiln::pte_format;
using flatbuffers::uoffset_t;
using flatbuffers::voffset_t;

// Vectors longer than this contribute only their first items (constant data is not interesting).
constexpr uoffset_t kItemsPerVector = 64;

// Collects the fields of one verified program, as offsets from its first byte.
class FieldFinder {
 public:
  explicit FieldFinder(const uint8_t* base) : base_(base) {}

  Layout take() { return std::move(layout_); }

  uint32_t at(const void* address) const {
    return static_cast<uint32_t>(static_cast<const uint8_t*>(address) - base_);
  }

  void add(const void* address, uint8_t width, FieldKind kind) {
    layout_.fields.push_back({at(address), width, kind});
  }

  // A uoffset_t at `address` (verified, so its target is inside the buffer).
  void ref(const void* address, RefGroup group) {
    const auto* field = static_cast<const uint8_t*>(address);
    layout_.refs.push_back(
        {at(field), at(field + flatbuffers::ReadScalar<uoffset_t>(field)), group});
  }

  // The offset field `field` of `table` (a table, vector, string or union member), when present.
  template <typename T>
  void table_ref(const T* table, voffset_t field, RefGroup group) {
    if (table == nullptr) return;
    const auto* raw = (const flatbuffers::Table*)table;  // NOLINT(google-readability-casting)
    if (const uint8_t* address = raw->GetAddressOf(field)) ref(address, group);
  }

  // The elements of a vector of tables or strings: each is an offset.
  template <typename V>
  void element_refs(const V* vector, RefGroup group) {
    if (vector == nullptr) return;
    const auto* data = reinterpret_cast<const uint8_t*>(vector->Data());
    for (uoffset_t i = 0; i < std::min(vector->size(), kItemsPerVector); ++i) {
      ref(data + i * sizeof(uoffset_t), group);
    }
  }

  // A scalar field of `table`, when it is stored (fields holding their default are not), and
  // the table's vtable entry for it: rewriting that moves the field, or makes it appear.
  template <typename T>
  void scalar(const T* table, voffset_t field, uint8_t width, FieldKind kind) {
    if (table == nullptr) return;
    // The generated tables derive privately from flatbuffers::Table; a C-style cast reaches it.
    const auto* raw = (const flatbuffers::Table*)table;  // NOLINT(google-readability-casting)
    const uint8_t* start = reinterpret_cast<const uint8_t*>(raw);
    const uint8_t* vtable = start - flatbuffers::ReadScalar<flatbuffers::soffset_t>(start);
    if (field < flatbuffers::ReadScalar<voffset_t>(vtable))
      add(vtable + field, 2, FieldKind::Offset);
    if (const uint8_t* address = raw->GetAddressOf(field)) add(address, width, kind);
  }

  template <typename T>
  void items(const flatbuffers::Vector<T>* vector, FieldKind kind) {
    if (vector == nullptr) return;
    length(vector);
    for (uoffset_t i = 0; i < std::min(vector->size(), kItemsPerVector); ++i) {
      add(vector->Data() + i * sizeof(T), sizeof(T), kind);
    }
  }

  template <typename V>
  void length(const V* vector) {
    if (vector != nullptr) add(vector, 4, FieldKind::Length);  // a vector starts with its length
  }

  void tensor(const fmt::Tensor* t) {
    scalar(t, fmt::Tensor::VT_SCALAR_TYPE, 1, FieldKind::Tag);
    scalar(t, fmt::Tensor::VT_STORAGE_OFFSET, 4, FieldKind::Offset);
    items(t->sizes(), FieldKind::Size);
    table_ref(t, fmt::Tensor::VT_SIZES, RefGroup::Int32Vector);
    items(t->dim_order(), FieldKind::Index);
    table_ref(t, fmt::Tensor::VT_DIM_ORDER, RefGroup::ByteVector);
    scalar(t, fmt::Tensor::VT_REQUIRES_GRAD, 1, FieldKind::Tag);
    scalar(t, fmt::Tensor::VT_DATA_BUFFER_IDX, 4, FieldKind::Index);
    scalar(t, fmt::Tensor::VT_LAYOUT, 1, FieldKind::Tag);
    scalar(t, fmt::Tensor::VT_SHAPE_DYNAMISM, 1, FieldKind::Tag);
    table_ref(t, fmt::Tensor::VT_ALLOCATION_INFO, RefGroup::Allocation);
    if (const auto* a = t->allocation_info()) {
      scalar(a, fmt::AllocationDetails::VT_MEMORY_ID, 4, FieldKind::Index);
      scalar(a, fmt::AllocationDetails::VT_MEMORY_OFFSET_LOW, 4, FieldKind::Offset);
      scalar(a, fmt::AllocationDetails::VT_MEMORY_OFFSET_HIGH, 4, FieldKind::Offset);
    }
    if (const auto* extra = t->extra_tensor_info()) {
      // An external tensor's name: the key it is looked up by in the data file.
      length(extra->fully_qualified_name());
      table_ref(extra, fmt::ExtraTensorInfo::VT_FULLY_QUALIFIED_NAME, RefGroup::String);
      scalar(extra, fmt::ExtraTensorInfo::VT_MUTABLE_DATA_SEGMENTS_IDX, 8, FieldKind::Index);
      scalar(extra, fmt::ExtraTensorInfo::VT_LOCATION, 1, FieldKind::Tag);
      scalar(extra, fmt::ExtraTensorInfo::VT_DEVICE_TYPE, 1, FieldKind::Tag);
      scalar(extra, fmt::ExtraTensorInfo::VT_DEVICE_INDEX, 1, FieldKind::Index);
    }
  }

  void value(const fmt::EValue* v) {
    scalar(v, fmt::EValue::VT_VAL_TYPE, 1, FieldKind::Tag);
    switch (v->val_type()) {
      case fmt::KernelTypes::Int:
        scalar(v->val_as_Int(), fmt::Int::VT_INT_VAL, 8, FieldKind::Index);
        break;
      case fmt::KernelTypes::Bool:
        scalar(v->val_as_Bool(), fmt::Bool::VT_BOOL_VAL, 1, FieldKind::Tag);
        break;
      case fmt::KernelTypes::Double:
        scalar(v->val_as_Double(), fmt::Double::VT_DOUBLE_VAL, 8, FieldKind::Size);
        break;
      case fmt::KernelTypes::Tensor:
        table_ref(v, fmt::EValue::VT_VAL, RefGroup::Tensor);
        tensor(v->val_as_Tensor());
        break;
      case fmt::KernelTypes::IntList:
        table_ref(v, fmt::EValue::VT_VAL, RefGroup::IntList);
        items(v->val_as_IntList()->items(), FieldKind::Index);
        table_ref(v->val_as_IntList(), fmt::IntList::VT_ITEMS, RefGroup::Int64Vector);
        break;
      case fmt::KernelTypes::BoolList:
        items(v->val_as_BoolList()->items(), FieldKind::Tag);
        break;
      case fmt::KernelTypes::DoubleList:
        length(v->val_as_DoubleList()->items());
        break;
      case fmt::KernelTypes::TensorList:
        table_ref(v, fmt::EValue::VT_VAL, RefGroup::TensorList);
        items(v->val_as_TensorList()->items(), FieldKind::Index);
        table_ref(v->val_as_TensorList(), fmt::TensorList::VT_ITEMS, RefGroup::Int32Vector);
        break;
      case fmt::KernelTypes::OptionalTensorList:
        table_ref(v, fmt::EValue::VT_VAL, RefGroup::TensorList);
        items(v->val_as_OptionalTensorList()->items(), FieldKind::Index);
        table_ref(v->val_as_OptionalTensorList(), fmt::OptionalTensorList::VT_ITEMS,
                  RefGroup::Int32Vector);
        break;
      default:
        break;
    }
  }

  void instruction(const fmt::Instruction* instruction) {
    scalar(instruction, fmt::Instruction::VT_INSTR_ARGS_TYPE, 1, FieldKind::Tag);
    if (const auto* call = instruction->instr_args_as_KernelCall()) {
      table_ref(instruction, fmt::Instruction::VT_INSTR_ARGS, RefGroup::KernelCall);
      scalar(call, fmt::KernelCall::VT_OP_INDEX, 4, FieldKind::Index);
      items(call->args(), FieldKind::Index);
      table_ref(call, fmt::KernelCall::VT_ARGS, RefGroup::Int32Vector);
    } else if (const auto* move = instruction->instr_args_as_MoveCall()) {
      scalar(move, fmt::MoveCall::VT_MOVE_FROM, 4, FieldKind::Index);
      scalar(move, fmt::MoveCall::VT_MOVE_TO, 4, FieldKind::Index);
    } else if (const auto* jump = instruction->instr_args_as_JumpFalseCall()) {
      scalar(jump, fmt::JumpFalseCall::VT_COND_VALUE_INDEX, 4, FieldKind::Index);
      scalar(jump, fmt::JumpFalseCall::VT_DESTINATION_INSTRUCTION, 4, FieldKind::Index);
    } else if (const auto* free = instruction->instr_args_as_FreeCall()) {
      scalar(free, fmt::FreeCall::VT_VALUE_INDEX, 4, FieldKind::Index);
    } else if (const auto* delegate = instruction->instr_args_as_DelegateCall()) {
      scalar(delegate, fmt::DelegateCall::VT_DELEGATE_INDEX, 4, FieldKind::Index);
      items(delegate->args(), FieldKind::Index);
    }
  }

  void plan(const fmt::ExecutionPlan* plan) {
    length(plan->name());
    table_ref(plan, fmt::ExecutionPlan::VT_NAME, RefGroup::String);
    if (const auto* values = plan->values()) {
      length(values);
      element_refs(values, RefGroup::Value);
      for (const auto* v : *values) value(v);
    }
    items(plan->inputs(), FieldKind::Index);
    table_ref(plan, fmt::ExecutionPlan::VT_INPUTS, RefGroup::Int32Vector);
    items(plan->outputs(), FieldKind::Index);
    table_ref(plan, fmt::ExecutionPlan::VT_OUTPUTS, RefGroup::Int32Vector);
    if (const auto* chains = plan->chains()) {
      length(chains);
      element_refs(chains, RefGroup::Chain);
      for (const auto* chain : *chains) {
        items(chain->inputs(), FieldKind::Index);
        items(chain->outputs(), FieldKind::Index);
        table_ref(chain, fmt::Chain::VT_INSTRUCTIONS, RefGroup::Instruction);
        if (const auto* instructions = chain->instructions()) {
          length(instructions);
          element_refs(instructions, RefGroup::Instruction);
          for (const auto* i : *instructions) instruction(i);
        }
      }
    }
    if (const auto* operators = plan->operators()) {
      length(operators);
      element_refs(operators, RefGroup::Operator);
      for (const auto* op : *operators) {
        length(op->name());
        length(op->overload());
        table_ref(op, fmt::Operator::VT_NAME, RefGroup::String);
        table_ref(op, fmt::Operator::VT_OVERLOAD, RefGroup::String);
      }
    }
    items(plan->non_const_buffer_sizes(), FieldKind::Size);
    table_ref(plan, fmt::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES, RefGroup::Int64Vector);
    if (const auto* devices = plan->non_const_buffer_device()) {
      length(devices);
      for (const auto* device : *devices) {
        scalar(device, fmt::NonConstBufferDevice::VT_BUFFER_IDX, 4, FieldKind::Index);
        scalar(device, fmt::NonConstBufferDevice::VT_DEVICE_TYPE, 1, FieldKind::Tag);
      }
    }
  }

  void subsegments(const fmt::SubsegmentOffsets* sub) {
    if (sub == nullptr) return;
    scalar(sub, fmt::SubsegmentOffsets::VT_SEGMENT_INDEX, 4, FieldKind::Index);
    items(sub->offsets(), FieldKind::Offset);
    table_ref(sub, fmt::SubsegmentOffsets::VT_OFFSETS, RefGroup::Int64Vector);
  }

  void program(const fmt::Program* program) {
    if (const auto* plans = program->execution_plan()) {
      length(plans);
      element_refs(plans, RefGroup::Plan);
      for (const auto* p : *plans) plan(p);
    }
    if (const auto* buffers = program->constant_buffer()) {
      length(buffers);
      for (const auto* buffer : *buffers) length(buffer->storage());
    }
    if (const auto* segments = program->segments()) {
      length(segments);
      for (const auto* segment : *segments) {
        scalar(segment, fmt::DataSegment::VT_OFFSET, 8, FieldKind::Offset);
        scalar(segment, fmt::DataSegment::VT_SIZE, 8, FieldKind::Size);
      }
    }
    subsegments(program->constant_segment());
    if (const auto* lists = program->mutable_data_segments()) {
      length(lists);
      for (const auto* sub : *lists) subsegments(sub);
    }
    if (const auto* named = program->named_data()) {
      length(named);
      for (const auto* entry : *named) {
        scalar(entry, fmt::NamedData::VT_SEGMENT_INDEX, 4, FieldKind::Index);
      }
    }
  }

 private:
  const uint8_t* base_;
  Layout layout_;
};

uint64_t read_le(const uint8_t* bytes, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

void write_le(uint8_t* bytes, size_t width, uint64_t value) {
  for (size_t i = 0; i < width; ++i) bytes[i] = static_cast<uint8_t>(value >> (8 * i));
}

// A replacement for `old`, a field of `kind`: off by one, just past a limit, or extreme.
uint64_t field_value(FieldKind kind, uint64_t old, Rng& rng) {
  static const uint64_t kExtremes[] = {0,
                                       1,
                                       0xffffffffffffffffull,  // -1
                                       0x7fffffff,
                                       0x80000000,
                                       0xffffffff,
                                       0x100000000ull,
                                       0x4000000000000000ull,  // 2^62
                                       0x7fffffffffffffffull,
                                       0x8000000000000000ull};
  switch (rng.below(4)) {
    case 0:
      return old + 1;
    case 1:
      return old - 1;
    case 2:
      return kExtremes[rng.below(sizeof(kExtremes) / sizeof(kExtremes[0]))];
    default:
      break;
  }
  switch (kind) {
    case FieldKind::Tag:
      return rng.below(32);  // every union member and scalar type, and some past them
    case FieldKind::Index:
      return rng.below(64);
    case FieldKind::Size:
      return rng.one_in(2) ? old * 2 : rng.below(4096);
    case FieldKind::Offset:
      return old + 8 * (rng.below(16) + 1);
    case FieldKind::Length:
      return old + rng.below(16) + 1;
  }
  return old;
}

// Points the offset at `ref` to `target` (FlatBuffers offsets only point forwards).
void redirect(std::vector<uint8_t>& bytes, const Ref& ref, uint32_t target) {
  if (target > ref.offset) write_le(bytes.data() + ref.offset, 4, target - ref.offset);
}

// Makes tables and vectors shared: one offset, or every offset of a group, is pointed at the
// target of another offset of the group (seldom of any group: a table read as another type).
// Many values naming one long list, or many instructions one long argument vector, is the shape
// that once made loading quadratic in the file's size.
void share(std::vector<uint8_t>& bytes, const std::vector<Ref>& refs, Rng& rng) {
  const Ref& chosen = refs[rng.below(refs.size())];
  const bool any_group = rng.one_in(8);
  std::vector<uint32_t> targets;
  for (const Ref& r : refs) {
    if (any_group || r.group == chosen.group) targets.push_back(r.target);
  }
  // The furthest target is reachable from the most offsets; a random one gives variety.
  const uint32_t target = rng.one_in(2) ? *std::max_element(targets.begin(), targets.end())
                                        : targets[rng.below(targets.size())];
  if (rng.one_in(2)) {
    redirect(bytes, chosen, target);
    return;
  }
  for (const Ref& r : refs) {
    if (r.group == chosen.group) redirect(bytes, r, target);
  }
}

void mutate_field(std::vector<uint8_t>& bytes, const Field& field, Rng& rng) {
  uint8_t* at = bytes.data() + field.offset;
  write_le(at, field.width, field_value(field.kind, read_le(at, field.width), rng));
}

// Offsets an ExecuTorch file's parts start at: header fields, the end of the flatbuffer, the
// segments; truncations and interesting values there reach the layout checks.
size_t interesting_position(const std::vector<uint8_t>& bytes, Rng& rng) {
  static const size_t kHeader[] = {0, 4, 7, 8, 12, 16, 24, 32, 40};
  if (rng.one_in(3)) return std::min(bytes.size(), kHeader[rng.below(9)]);
  if (bytes.size() >= 32 && rng.one_in(2)) {
    const uint64_t program_size = read_le(bytes.data() + 16, 8);
    const uint64_t segments = read_le(bytes.data() + 24, 8);
    const uint64_t at = rng.one_in(2) ? program_size : segments;
    if (at <= bytes.size()) {
      const size_t from = at > 8 ? static_cast<size_t>(at) - 8 : 0;  // up to 8 bytes either side
      return std::min(bytes.size(), from + rng.below(17));
    }
  }
  return rng.below(bytes.size() + 1);
}

void mutate_bytes(std::vector<uint8_t>& bytes, const std::vector<uint8_t>& other, size_t max_size,
                  Rng& rng) {
  static const uint8_t kBytes[] = {0x00, 0xff, 0x7f, 0x80, 0x01};
  static const uint32_t kWords[] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0xffffu, 16};
  if (bytes.empty()) {
    bytes.push_back(kBytes[rng.below(5)]);
    return;
  }
  switch (rng.below(9)) {
    case 0: {  // flip a bit
      bytes[rng.below(bytes.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
      break;
    }
    case 1: {  // an interesting byte
      bytes[rng.below(bytes.size())] = kBytes[rng.below(5)];
      break;
    }
    case 2: {  // an interesting aligned 32-bit word (flatbuffer scalars and offsets are aligned)
      if (bytes.size() < 4) break;
      const size_t at = rng.below(bytes.size() / 4) * 4;
      write_le(bytes.data() + at, 4, kWords[rng.below(7)]);
      break;
    }
    case 3: {  // a small step of an aligned 32-bit word
      if (bytes.size() < 4) break;
      const size_t at = rng.below(bytes.size() / 4) * 4;
      const uint64_t step = rng.below(9);
      write_le(bytes.data() + at, 4, read_le(bytes.data() + at, 4) + step - 4);
      break;
    }
    case 4: {  // truncate
      bytes.resize(interesting_position(bytes, rng));
      break;
    }
    case 5: {  // duplicate a chunk somewhere else
      const size_t start = rng.below(bytes.size());
      const size_t length = std::min(bytes.size() - start, rng.below(64) + 1);
      if (bytes.size() + length > max_size) break;
      const std::vector<uint8_t> chunk(bytes.begin() + start, bytes.begin() + start + length);
      const size_t to = rng.below(bytes.size() + 1);
      bytes.insert(bytes.begin() + to, chunk.begin(), chunk.end());
      break;
    }
    case 6: {  // erase a chunk
      const size_t start = rng.below(bytes.size());
      const size_t length = std::min(bytes.size() - start, rng.below(64) + 1);
      bytes.erase(bytes.begin() + start, bytes.begin() + start + length);
      break;
    }
    case 7: {  // copy a chunk over another place
      const size_t start = rng.below(bytes.size());
      const size_t length = std::min(bytes.size() - start, rng.below(32) + 1);
      const size_t to = rng.below(bytes.size() - length + 1);
      std::memmove(bytes.data() + to, bytes.data() + start, length);
      break;
    }
    default: {  // splice: the other seed from some offset on
      if (other.empty()) break;
      const size_t at = rng.below(std::min(bytes.size(), other.size()));
      bytes.resize(at);
      bytes.insert(bytes.end(), other.begin() + at,
                   other.begin() + std::max(at, std::min(other.size(), max_size)));
      break;
    }
  }
}

}  // namespace

Layout find_layout(const std::vector<uint8_t>& program) {
  flatbuffers::Verifier verifier(program.data(), program.size());
  if (program.size() < 8 || !fmt::VerifyProgramBuffer(verifier)) return {};
  FieldFinder finder(program.data());
  finder.add(program.data(), 4, FieldKind::Offset);  // the root table's offset
  if (program.size() >= 32 && std::memcmp(program.data() + 8, "eh00", 4) == 0) {
    finder.add(program.data() + 12, 4, FieldKind::Length);  // header length
    finder.add(program.data() + 16, 8, FieldKind::Offset);  // program size
    finder.add(program.data() + 24, 8, FieldKind::Offset);  // segment base offset
  }
  finder.program(fmt::GetProgram(program.data()));
  return finder.take();
}

void mutate(std::vector<uint8_t>& bytes, const Layout& layout, const std::vector<uint8_t>& other,
            size_t max_size, Rng& rng) {
  const std::vector<Field>& fields = layout.fields;
  const size_t count = 1 + (rng.one_in(2) ? 0 : rng.below(4));
  const size_t original = bytes.size();
  for (size_t i = 0; i < count; ++i) {
    // Field offsets hold while no earlier mutation moved the bytes.
    const bool in_place = bytes.size() == original && rng.one_in(2);
    if (in_place && !layout.refs.empty() && rng.one_in(4)) {
      share(bytes, layout.refs, rng);
    } else if (in_place && !fields.empty()) {
      mutate_field(bytes, fields[rng.below(fields.size())], rng);
    } else {
      mutate_bytes(bytes, other, max_size, rng);
    }
  }
}

}  // namespace kiln_fuzz
