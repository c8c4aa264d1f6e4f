// Program: a verified, read-only view of an ExecuTorch .pte program in caller-owned memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/core/result.h"
#include "runtime/executor/data_file.h"

namespace kiln {

namespace pte_format {
struct Program;
struct ExecutionPlan;
struct Tensor;
}  // namespace pte_format

// Bytes inside the program file, or its data file.
struct ConstantSpan {
  const uint8_t* data;
  size_t size;
};

// Sizes and counts of one method, for sizing the memory Method::load needs.
class MethodMeta {
 public:
  std::string_view name() const;
  size_t num_inputs() const;
  size_t num_outputs() const;
  // Planned memory: arena i holds the program's memory id i + 1 (id 0 is reserved).
  size_t num_memory_arenas() const;
  size_t arena_size(size_t arena) const;
  // Bytes of metadata memory (values, tensor metadata, instruction stacks) Method::load uses.
  size_t metadata_bytes() const;
  // Instructions over all chains, in execution order.
  size_t num_instructions() const;
  size_t num_operators() const;

 private:
  friend class Program;
  explicit MethodMeta(const pte_format::ExecutionPlan* plan) : plan_(plan) {}
  const pte_format::ExecutionPlan* plan_;
};

class Program {
 public:
  // Verifies the program in `data` (`size` bytes; not copied: it must stay valid and unchanged
  // while the Program and its Methods are used): the extended header, the FlatBuffers verifier,
  // then every index, tag, size, offset and byte count the executor will use. A bad program is
  // Error::InvalidProgram; kiln::last_error() says what is wrong and where. `data` must be 8-byte
  // aligned (InvalidArgument otherwise), and 16-byte aligned for 16-byte constants.
  //
  // `data_file` is the program's data file (.ptd), for a program exported with external
  // constants; its bytes must outlive the Program and its Methods as the program's do (the
  // DataFile itself is copied). Every external tensor is resolved by its fully qualified name
  // now, and checked against its entry (size, dtype, shape, alignment): an external tensor and no
  // data file is InvalidArgument, a key the file lacks NotFound, an entry that does not match
  // InvalidProgram. A data file for a program without external tensors is accepted and unused
  // (num_external_tensors() is 0).
  static Result<Program> load(const void* data, size_t size, const DataFile* data_file = nullptr);

  size_t num_methods() const;
  // Name of method `index` (< num_methods()).
  std::string_view method_name(size_t index) const;
  // NotFound (with kiln::last_error()) for an unknown name.
  Result<MethodMeta> method_meta(std::string_view name) const;

  // Constant buffer `index` (Tensor.data_buffer_idx): where it starts and how many bytes of its
  // segment follow. InvalidProgram for an index the program does not have.
  Result<ConstantSpan> constant_bytes(uint32_t index) const;
  // Initial data of a mutable buffer: buffer `index` of mutable data segment list `list`
  // (ExtraTensorInfo.mutable_data_segments_idx).
  Result<ConstantSpan> mutable_initial_bytes(uint64_t list, uint32_t index) const;
  // The stored bytes of `tensor`, a tensor value of one of the program's plans: a constant's, or
  // a planned tensor's initial data, from the program or, for an external tensor, its data file
  // (looked up from `cursor`, see KeyCursor). InvalidProgram or NotFound when there are none.
  Result<ConstantSpan> stored_bytes(const pte_format::Tensor& tensor, KeyCursor& cursor) const;

  // The named data of `key` (ExecuTorch's NamedDataStore, where delegates keep their constants):
  // the program's own (Program.named_data, bytes in its segments), else its data file's.
  // NotFound, without a message, when neither has it. The program's keys are searched from
  // `cursor.next` on (exporters write them in the order they are looked up), adding the work to
  // `cursor.work`.
  Result<ConstantSpan> named_data(std::string_view key, KeyCursor& cursor) const;
  // The processed bytes of delegate `index` of `plan` (inline data or a segment), as checked at
  // load.
  ConstantSpan delegate_payload(const pte_format::ExecutionPlan& plan, size_t index) const;

  // The data file given to load(), or nullptr.
  const DataFile* data_file() const { return data_file_ ? &*data_file_ : nullptr; }
  // Tensor values of all plans whose bytes are in the data file.
  size_t num_external_tensors() const { return num_external_tensors_; }

  const pte_format::Program& flatbuffer() const { return *root_; }
  // Bytes of the file, segments included.
  size_t size() const { return size_; }
  Result<const pte_format::ExecutionPlan*> plan(std::string_view name) const;

 private:
  Program(const uint8_t* data, size_t size, const pte_format::Program* root, uint64_t segment_base,
          const DataFile* data_file)
      : data_(data), size_(size), root_(root), segment_base_(segment_base) {
    if (data_file != nullptr) data_file_.emplace(*data_file);
  }

  const uint8_t* data_;
  size_t size_;
  const pte_format::Program* root_;
  uint64_t segment_base_;  // file offset of the first segment
  std::optional<DataFile> data_file_;
  size_t num_external_tensors_ = 0;
};

}  // namespace kiln
