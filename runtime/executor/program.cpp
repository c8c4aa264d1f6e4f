#include "runtime/executor/program.h"

#include <cstring>

#include "runtime/executor/plan_checks.h"
#include "runtime/executor/program_generated.h"
#include "runtime/executor/stored_tensor.h"
#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

// ExecuTorch's extended header, right after the FlatBuffers root offset and file identifier.
constexpr size_t kHeaderOffset = 8;
constexpr char kHeaderMagic[4] = {'e', 'h', '0', '0'};
constexpr size_t kHeaderMinLength = 24;  // magic, length, program size, segment base offset

uint64_t read_le(const uint8_t* bytes, size_t count) {
  uint64_t value = 0;
  for (size_t i = 0; i < count; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

struct Layout {
  size_t program_size;    // bytes of the flatbuffer
  uint64_t segment_base;  // file offset of the segments, 0 when there are none
};

Result<Layout> read_layout(const uint8_t* data, size_t size) {
  if (size < kHeaderOffset) {
    KILN_SET_ERROR("program: %zu bytes is too short for a .pte file (at least 8 needed)", size);
    return Error::InvalidProgram;
  }
  if (!pte_format::ProgramBufferHasIdentifier(data)) {
    KILN_SET_ERROR("program: not a .pte file: bytes 4..8 are not the identifier \"ET12\"");
    return Error::InvalidProgram;
  }
  Layout layout{size, 0};
  if (size < kHeaderOffset + sizeof(kHeaderMagic) ||
      std::memcmp(data + kHeaderOffset, kHeaderMagic, sizeof(kHeaderMagic)) != 0) {
    return layout;  // no extended header: the whole file is the flatbuffer, no segments
  }
  if (size < kHeaderOffset + kHeaderMinLength) {
    KILN_SET_ERROR("program: the extended header is cut short: the file has %zu bytes (truncated?)",
                   size);
    return Error::InvalidProgram;
  }
  const uint8_t* header = data + kHeaderOffset;
  const uint64_t length = read_le(header + 4, 4);
  const uint64_t program_size = read_le(header + 8, 8);
  const uint64_t segment_base = read_le(header + 16, 8);
  if (length < kHeaderMinLength) {
    KILN_SET_ERROR("program: extended header length %llu is less than %zu",
                   static_cast<unsigned long long>(length), kHeaderMinLength);
    return Error::InvalidProgram;
  }
  if (length > size - kHeaderOffset) {
    KILN_SET_ERROR(
        "program: the %llu-byte extended header runs past the file's %zu bytes "
        "(truncated?)",
        static_cast<unsigned long long>(length), size);
    return Error::InvalidProgram;
  }
  if (program_size > size || program_size < kHeaderOffset + length) {
    KILN_SET_ERROR(
        "program: extended header gives a program size of %llu bytes, but the file "
        "has %zu (truncated?)",
        static_cast<unsigned long long>(program_size), size);
    return Error::InvalidProgram;
  }
  if (segment_base != 0 && (segment_base < program_size || segment_base > size)) {
    KILN_SET_ERROR(
        "program: segment base offset %llu is outside the file's %zu bytes after the "
        "%llu-byte program (truncated?)",
        static_cast<unsigned long long>(segment_base), size,
        static_cast<unsigned long long>(program_size));
    return Error::InvalidProgram;
  }
  layout.program_size = static_cast<size_t>(program_size);
  layout.segment_base = segment_base;
  return layout;
}

// Every segment lies inside the file; the constant and mutable sub-segments inside a segment.
Error check_segments(const pte_format::Program& root, const Layout& layout, size_t size) {
  const auto* segments = root.segments();
  const size_t count = segments == nullptr ? 0 : segments->size();
  // Without an extended header there is no segment data; ExecuTorch still lists empty segments.
  for (size_t i = 0; i < count && layout.segment_base == 0; ++i) {
    if (segments->Get(static_cast<flatbuffers::uoffset_t>(i))->size() > 0) {
      KILN_SET_ERROR(
          "program: segment %zu holds data, but there is no extended header giving "
          "where segment data starts",
          i);
      return Error::InvalidProgram;
    }
  }
  const uint64_t available = size - layout.segment_base;
  for (size_t i = 0; i < count; ++i) {
    const auto* segment = segments->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (segment->offset() > available || segment->size() > available - segment->offset()) {
      KILN_SET_ERROR(
          "program: segment %zu (offset %llu, %llu bytes) runs past the end of the "
          "file (truncated?)",
          i, static_cast<unsigned long long>(segment->offset()),
          static_cast<unsigned long long>(segment->size()));
      return Error::InvalidProgram;
    }
  }
  auto check_sub = [&](const pte_format::SubsegmentOffsets* sub, const char* what) {
    if (sub == nullptr || sub->offsets() == nullptr || sub->offsets()->size() == 0) {
      return Error::Ok;
    }
    if (sub->segment_index() >= count) {
      KILN_SET_ERROR("program: %s names segment %u of %zu", what, sub->segment_index(), count);
      return Error::InvalidProgram;
    }
    if (!is_aligned(sub->offsets()->data(), sizeof(uint64_t))) {
      KILN_SET_ERROR("program: the %s's offsets are not 8-byte aligned", what);
      return Error::InvalidProgram;
    }
    const uint64_t segment_size = segments->Get(sub->segment_index())->size();
    for (flatbuffers::uoffset_t i = 0; i < sub->offsets()->size(); ++i) {
      if (sub->offsets()->Get(i) > segment_size) {
        KILN_SET_ERROR("program: %s buffer %u starts at %llu, past its segment's %llu bytes", what,
                       i, static_cast<unsigned long long>(sub->offsets()->Get(i)),
                       static_cast<unsigned long long>(segment_size));
        return Error::InvalidProgram;
      }
    }
    return Error::Ok;
  };
  KILN_RETURN_IF_ERROR(check_sub(root.constant_segment(), "constant segment"));
  if (root.named_data() != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < root.named_data()->size(); ++i) {
      const auto* entry = root.named_data()->Get(i);
      if (entry->key() == nullptr || entry->segment_index() >= count) {
        KILN_SET_ERROR("program: named data %u %s", i,
                       entry->key() == nullptr ? "has no key" : "names a segment it lacks");
        return Error::InvalidProgram;
      }
    }
  }
  if (root.mutable_data_segments() != nullptr) {
    for (const auto* sub : *root.mutable_data_segments()) {
      KILN_RETURN_IF_ERROR(check_sub(sub, "mutable data segment"));
    }
  }
  return Error::Ok;
}

}  // namespace

Result<Program> Program::load(const void* data, size_t size, const DataFile* data_file) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (bytes == nullptr) {
    KILN_SET_ERROR("program: no data (null pointer)");
    return Error::InvalidArgument;
  }
  // FlatBuffers aligns scalars relative to the buffer's start; 8-byte ones are read as such.
  if (!is_aligned(bytes, sizeof(uint64_t))) {
    KILN_SET_ERROR("program: the data must start at an 8-byte aligned address (it is at %p)", data);
    return Error::InvalidArgument;
  }
  Result<Layout> layout = read_layout(bytes, size);
  if (!layout.ok()) return layout.error();
  flatbuffers::Verifier verifier(bytes, layout->program_size);
  if (!pte_format::VerifyProgramBuffer(verifier)) {
    KILN_SET_ERROR(
        "program: the FlatBuffers verifier rejects the program (%zu bytes): a "
        "truncated or corrupted file, or not a .pte program",
        layout->program_size);
    return Error::InvalidProgram;
  }
  const pte_format::Program* root = pte_format::GetProgram(bytes);
  KILN_RETURN_IF_ERROR(check_segments(*root, *layout, size));
  Program program(bytes, size, root, layout->segment_base, data_file);
  if (root->execution_plan() == nullptr || root->execution_plan()->size() == 0) {
    KILN_SET_ERROR("program: no execution plan (method)");
    return Error::InvalidProgram;
  }
  // Key lookups in the data file draw on the budget too: its size counts with the program's.
  CheckBudget budget = check_budget(size + (data_file == nullptr ? 0 : data_file->size()));
  for (flatbuffers::uoffset_t i = 0; i < root->execution_plan()->size(); ++i) {
    KILN_RETURN_IF_ERROR(check_plan(program, *root->execution_plan()->Get(i), budget,
                                    program.num_external_tensors_));
  }
  return program;
}

size_t Program::num_methods() const { return root_->execution_plan()->size(); }

std::string_view Program::method_name(size_t index) const {
  const auto* name =
      root_->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(index))->name();
  return name == nullptr ? std::string_view() : name->string_view();
}

Result<const pte_format::ExecutionPlan*> Program::plan(std::string_view name) const {
  for (const auto* plan : *root_->execution_plan()) {
    if (plan->name() != nullptr && plan->name()->string_view() == name) return plan;
  }
  KILN_SET_ERROR("program has no method '%.*s'", static_cast<int>(name.size()), name.data());
  return Error::NotFound;
}

Result<MethodMeta> Program::method_meta(std::string_view name) const {
  Result<const pte_format::ExecutionPlan*> found = plan(name);
  if (!found.ok()) return found.error();
  return MethodMeta(*found);
}

Result<ConstantSpan> Program::constant_bytes(uint32_t index) const {
  const auto* sub = root_->constant_segment();
  if (sub != nullptr && sub->offsets() != nullptr && sub->offsets()->size() > 0) {
    if (index >= sub->offsets()->size()) return Error::InvalidProgram;
    const auto* segment = root_->segments()->Get(sub->segment_index());
    const uint64_t start = sub->offsets()->Get(index);
    return ConstantSpan{data_ + segment_base_ + segment->offset() + start,
                        static_cast<size_t>(segment->size() - start)};
  }
  const auto* buffers = root_->constant_buffer();
  if (buffers == nullptr || index >= buffers->size()) return Error::InvalidProgram;
  const auto* storage = buffers->Get(index)->storage();
  if (storage == nullptr) return ConstantSpan{nullptr, 0};
  return ConstantSpan{storage->data(), storage->size()};
}

Result<ConstantSpan> Program::mutable_initial_bytes(uint64_t list, uint32_t index) const {
  const auto* lists = root_->mutable_data_segments();
  if (lists == nullptr || list >= lists->size()) return Error::InvalidProgram;
  const auto* sub = lists->Get(static_cast<flatbuffers::uoffset_t>(list));
  if (sub->offsets() == nullptr || index >= sub->offsets()->size()) return Error::InvalidProgram;
  const auto* segment = root_->segments()->Get(sub->segment_index());
  const uint64_t start = sub->offsets()->Get(index);
  return ConstantSpan{data_ + segment_base_ + segment->offset() + start,
                      static_cast<size_t>(segment->size() - start)};
}

Result<ConstantSpan> Program::stored_bytes(const pte_format::Tensor& tensor,
                                           KeyCursor& cursor) const {
  if (is_external(tensor)) {
    const auto* key = tensor.extra_tensor_info()->fully_qualified_name();
    if (!data_file_ || key == nullptr) {
      KILN_SET_ERROR("program: an external tensor ('%s') and no data file to find it in",
                     key == nullptr ? "" : key->c_str());
      return Error::InvalidArgument;
    }
    Result<NamedBlob> blob = data_file_->find(key->string_view(), cursor);
    if (!blob.ok()) return blob.error();
    return ConstantSpan{blob->data, blob->size};
  }
  if (tensor.allocation_info() != nullptr) {
    const auto* extra = tensor.extra_tensor_info();
    return mutable_initial_bytes(extra == nullptr ? 0 : extra->mutable_data_segments_idx(),
                                 tensor.data_buffer_idx());
  }
  return constant_bytes(tensor.data_buffer_idx());
}

Result<ConstantSpan> Program::named_data(std::string_view key, KeyCursor& cursor) const {
  const auto* entries = root_->named_data();
  const uint32_t count = entries == nullptr ? 0 : entries->size();
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t i = (cursor.next + k) % count;
    const auto* entry = entries->Get(i);
    cursor.work += 1 + key.size();
    if (entry->key()->string_view() != key) continue;
    cursor.next = i + 1;
    const auto* segment = root_->segments()->Get(entry->segment_index());
    return ConstantSpan{data_ + segment_base_ + segment->offset(),
                        static_cast<size_t>(segment->size())};
  }
  if (!data_file_) return Error::NotFound;
  KeyCursor file_cursor;
  Result<NamedBlob> blob = data_file_->find(key, file_cursor);
  cursor.work += file_cursor.work;
  if (!blob.ok()) return blob.error();
  return ConstantSpan{blob->data, blob->size};
}

ConstantSpan Program::delegate_payload(const pte_format::ExecutionPlan& plan, size_t index) const {
  const auto* reference =
      plan.delegates()->Get(static_cast<flatbuffers::uoffset_t>(index))->processed();
  if (reference->location() == pte_format::DataLocation::INLINE) {
    const auto* data = root_->backend_delegate_data()->Get(reference->index())->data();
    return {data == nullptr ? nullptr : data->data(), data == nullptr ? 0 : data->size()};
  }
  const auto* segment = root_->segments()->Get(reference->index());
  return {data_ + segment_base_ + segment->offset(), static_cast<size_t>(segment->size())};
}

}  // namespace kiln
