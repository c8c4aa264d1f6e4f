// Program: a verified, read-only view of an ExecuTorch .pte program in caller-owned memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/core/result.h"

namespace kiln {

namespace pte_format {
struct Program;
struct ExecutionPlan;
}  // namespace pte_format

// Bytes inside the program file.
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
  static Result<Program> load(const void* data, size_t size);

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

  const pte_format::Program& flatbuffer() const { return *root_; }
  // Bytes of the file, segments included.
  size_t size() const { return size_; }
  Result<const pte_format::ExecutionPlan*> plan(std::string_view name) const;

 private:
  Program(const uint8_t* data, size_t size, const pte_format::Program* root, uint64_t segment_base)
      : data_(data), size_(size), root_(root), segment_base_(segment_base) {}

  const uint8_t* data_;
  size_t size_;
  const pte_format::Program* root_;
  uint64_t segment_base_;  // file offset of the first segment
};

}  // namespace kiln
