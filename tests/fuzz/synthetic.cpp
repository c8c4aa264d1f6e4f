#include "synthetic.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "mutations.h"
#include "runtime/executor/program_generated.h"

namespace kiln_fuzz {
namespace {

namespace fmt = kiln::pte_format;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using flatbuffers::Vector;

struct PlanParts {
  std::vector<Offset<fmt::EValue>> values;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<Offset<fmt::Instruction>> instructions;
  std::vector<int64_t> arenas{0};  // arena 0 is never planned into, as the exporters write it
  std::vector<std::vector<uint8_t>> constants;  // constant buffers 1, 2, ... (0 is empty)
  const char* op = "aten::mul";                 // the method's only operator, an out variant
};

Offset<fmt::EValue> planned_tensor(FlatBufferBuilder& b, fmt::ScalarType type,
                                   const std::vector<int32_t>& sizes, uint32_t memory_id,
                                   uint32_t offset_low, uint32_t offset_high = 0) {
  std::vector<uint8_t> dim_order(sizes.size());
  for (size_t d = 0; d < dim_order.size(); ++d) dim_order[d] = static_cast<uint8_t>(d);
  const auto size_vector = b.CreateVector(sizes);
  const auto order_vector = b.CreateVector(dim_order);
  const auto allocation = fmt::CreateAllocationDetails(b, memory_id, offset_low, offset_high);
  const auto tensor =
      fmt::CreateTensor(b, type, 0, size_vector, order_vector, false, 0, allocation);
  return fmt::CreateEValue(b, fmt::KernelTypes::Tensor, tensor.Union());
}

Offset<fmt::Instruction> kernel_call(FlatBufferBuilder& b, Offset<Vector<int32_t>> args) {
  const auto call = fmt::CreateKernelCall(b, 0, args);
  return fmt::CreateInstruction(b, fmt::InstructionArguments::KernelCall, call.Union());
}

// One method, "forward", whose only operator is parts.op (aten::mul.out unless set).
std::vector<uint8_t> finish(FlatBufferBuilder& b, const PlanParts& parts) {
  const auto chain =
      fmt::CreateChain(b, b.CreateVector(parts.inputs), b.CreateVector(parts.outputs),
                       b.CreateVector(parts.instructions));
  const std::vector<Offset<fmt::Operator>> operators{
      fmt::CreateOperator(b, b.CreateString(parts.op), b.CreateString("out"))};
  const auto plan = fmt::CreateExecutionPlan(
      b, b.CreateString("forward"), 0, b.CreateVector(parts.values), b.CreateVector(parts.inputs),
      b.CreateVector(parts.outputs), b.CreateVector(std::vector<Offset<fmt::Chain>>{chain}),
      b.CreateVector(operators), 0, b.CreateVector(parts.arenas));
  std::vector<Offset<fmt::Buffer>> buffers;
  if (!parts.constants.empty()) buffers.push_back(fmt::CreateBuffer(b));
  for (const std::vector<uint8_t>& bytes : parts.constants) {
    b.ForceVectorAlignment(bytes.size(), 1, 16);  // the schema's force_align
    buffers.push_back(fmt::CreateBuffer(b, b.CreateVector(bytes)));
  }
  const auto program = fmt::CreateProgram(b, 0, b.CreateVector(std::vector{plan}),
                                          buffers.empty() ? 0 : b.CreateVector(buffers));
  fmt::FinishProgramBuffer(b, program);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// x, then x*x, (x*x)^2, ... in two ping-pong slots after the input's: n kernel calls.
std::vector<uint8_t> chain(uint32_t n) {
  FlatBufferBuilder b;
  PlanParts parts;
  constexpr uint32_t kBytes = 8 * sizeof(float);
  for (uint32_t i = 0; i <= n; ++i) {
    const uint32_t slot = i == 0 ? 0 : 1 + i % 2;
    parts.values.push_back(planned_tensor(b, fmt::ScalarType::FLOAT, {8}, 1, slot * kBytes));
  }
  for (uint32_t i = 0; i < n; ++i) {
    const auto in = static_cast<int32_t>(i);
    parts.instructions.push_back(
        kernel_call(b, b.CreateVector(std::vector{in, in, in + 1, in + 1})));
  }
  parts.inputs = {0};
  parts.outputs = {static_cast<int32_t>(n)};
  parts.arenas.push_back(3 * kBytes);
  return finish(b, parts);
}

// n instructions that are one table, whose call names value 0 as often as a call may (255
// arguments; the checks compare a call's arguments pairwise).
std::vector<uint8_t> shared_instruction(uint32_t n) {
  FlatBufferBuilder b;
  PlanParts parts;
  parts.values.push_back(planned_tensor(b, fmt::ScalarType::FLOAT, {8}, 1, 0));
  const auto instruction =
      kernel_call(b, b.CreateVector(std::vector<int32_t>(std::min(n, uint32_t{255}), 0)));
  parts.instructions.assign(n, instruction);
  parts.outputs = {0};
  parts.arenas.push_back(32);
  return finish(b, parts);
}

// Value 0, then n values that are all one list table of n items naming value 0.
std::vector<uint8_t> shared_list(uint32_t n, bool tensors) {
  FlatBufferBuilder b;
  PlanParts parts;
  Offset<fmt::EValue> list;
  if (tensors) {
    parts.values.push_back(planned_tensor(b, fmt::ScalarType::FLOAT, {8}, 1, 0));
    const auto items = fmt::CreateTensorList(b, b.CreateVector(std::vector<int32_t>(n, 0)));
    list = fmt::CreateEValue(b, fmt::KernelTypes::TensorList, items.Union());
  } else {
    parts.values.push_back(
        fmt::CreateEValue(b, fmt::KernelTypes::Int, fmt::CreateInt(b, 0).Union()));
    const auto items = fmt::CreateIntList(b, b.CreateVector(std::vector<int64_t>(n, 0)));
    list = fmt::CreateEValue(b, fmt::KernelTypes::IntList, items.Union());
  }
  parts.values.insert(parts.values.end(), n, list);
  parts.outputs = {0};
  parts.arenas.push_back(32);
  return finish(b, parts);
}

// n values that are one planned tensor, squared in place n times.
std::vector<uint8_t> shared_tensor(uint32_t n) {
  FlatBufferBuilder b;
  PlanParts parts;
  parts.values.assign(n, planned_tensor(b, fmt::ScalarType::FLOAT, {8}, 1, 0));
  const int32_t last = static_cast<int32_t>(n - 1);
  const auto instruction = kernel_call(b, b.CreateVector(std::vector{0, last, last, last}));
  parts.instructions.assign(n, instruction);
  parts.outputs = {last};
  parts.arenas.push_back(32);
  return finish(b, parts);
}

// Input 0 is constant buffer 1, which value 1 reads too: binding the input would copy the
// caller's tensor into the program's bytes (read-only where the file is mapped).
std::vector<uint8_t> constant_input() {
  FlatBufferBuilder b;
  PlanParts parts;
  parts.constants.push_back(std::vector<uint8_t>(8 * sizeof(float), 0));
  for (int k = 0; k < 2; ++k) {
    const auto tensor =
        fmt::CreateTensor(b, fmt::ScalarType::FLOAT, 0, b.CreateVector(std::vector{8}),
                          b.CreateVector(std::vector<uint8_t>{0}), false, 1);
    parts.values.push_back(fmt::CreateEValue(b, fmt::KernelTypes::Tensor, tensor.Union()));
  }
  parts.values.push_back(planned_tensor(b, fmt::ScalarType::FLOAT, {8}, 1, 0));
  parts.instructions.push_back(kernel_call(b, b.CreateVector(std::vector{0, 1, 2, 2})));
  parts.inputs = {0};
  parts.outputs = {2};
  parts.arenas.push_back(32);
  return finish(b, parts);
}

// aten::cat.out of a tensor list whose items vector is absent (an empty list to the verifier):
// load once read that vector through a null pointer, deciding whether the call could be folded.
std::vector<uint8_t> itemless_list() {
  FlatBufferBuilder b;
  PlanParts parts;
  parts.op = "aten::cat";
  parts.values.push_back(
      fmt::CreateEValue(b, fmt::KernelTypes::TensorList, fmt::CreateTensorList(b).Union()));
  parts.values.push_back(fmt::CreateEValue(b, fmt::KernelTypes::Int, fmt::CreateInt(b, 0).Union()));
  parts.values.push_back(planned_tensor(b, fmt::ScalarType::FLOAT, {0}, 1, 0));
  parts.instructions.push_back(kernel_call(b, b.CreateVector(std::vector{0, 1, 2, 2})));
  parts.outputs = {2};
  parts.arenas.push_back(32);
  return finish(b, parts);
}

// n values and arenas, each drawn from sizes, offsets, memory ids and scalars at or near their
// limits (which ones depends on n), and n calls naming values near the ends of the list.
std::vector<uint8_t> limits(uint32_t n) {
  FlatBufferBuilder b;
  PlanParts parts;
  Rng rng(n);
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  const std::vector<std::vector<int32_t>> shapes = {
      {kMax32},
      {65536, 65536, 65536},
      {0},
      {-1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {46341, 46341},
      {8}};
  const uint32_t offsets[] = {0, 32, 0xffffffe0u, 0xffffffffu, 0x80000000u};
  const fmt::ScalarType types[] = {fmt::ScalarType::FLOAT,    fmt::ScalarType::LONG,
                                   fmt::ScalarType::BOOL,     fmt::ScalarType::UINT64,
                                   fmt::ScalarType::QUINT2X4, fmt::ScalarType::BFLOAT16};
  for (uint32_t i = 0; i < n; ++i) {
    switch (rng.below(4)) {
      case 0:
      case 1: {
        const uint32_t memory = rng.one_in(4) ? static_cast<uint32_t>(rng.below(n + 2)) : 1;
        const uint32_t high = rng.one_in(4) ? offsets[rng.below(5)] : 0;
        parts.values.push_back(planned_tensor(b, types[rng.below(6)], shapes[rng.below(8)], memory,
                                              offsets[rng.below(5)], high));
        break;
      }
      case 2: {
        const int64_t ints[] = {0, -1, kMax64, std::numeric_limits<int64_t>::min(), n};
        parts.values.push_back(fmt::CreateEValue(b, fmt::KernelTypes::Int,
                                                 fmt::CreateInt(b, ints[rng.below(5)]).Union()));
        break;
      }
      default: {
        const std::vector<int64_t> items{0, static_cast<int64_t>(n) - 1, n, kMax64};
        const auto list = fmt::CreateIntList(b, b.CreateVector(items));
        parts.values.push_back(fmt::CreateEValue(b, fmt::KernelTypes::IntList, list.Union()));
        break;
      }
    }
    const int64_t arenas[] = {0, 32, int64_t{1} << 31, int64_t{1} << 62, kMax64, -1};
    parts.arenas.push_back(arenas[rng.below(rng.one_in(2) ? 2 : 6)]);
  }
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<int32_t> args(4);
    for (int32_t& arg : args) {
      const int32_t near[] = {0, static_cast<int32_t>(n) - 1, static_cast<int32_t>(n), kMax32, -1};
      arg = near[rng.below(5)];
    }
    parts.instructions.push_back(kernel_call(b, b.CreateVector(args)));
  }
  parts.inputs = {0};
  parts.outputs = {static_cast<int32_t>(n) - 1};
  return finish(b, parts);
}

}  // namespace

const char* to_string(Shape shape) {
  switch (shape) {
    case Shape::Chain:
      return "chain";
    case Shape::SharedInstruction:
      return "shared_instruction";
    case Shape::SharedList:
      return "shared_list";
    case Shape::SharedTensorList:
      return "shared_tensor_list";
    case Shape::SharedTensor:
      return "shared_tensor";
    case Shape::ConstantInput:
      return "constant_input";
    case Shape::ItemlessList:
      return "itemless_list";
    case Shape::Limits:
      return "limits";
  }
  return "?";
}

std::vector<uint8_t> synthetic_program(Shape shape, uint32_t n) {
  if (n == 0) n = 1;
  switch (shape) {
    case Shape::Chain:
      return chain(n);
    case Shape::SharedInstruction:
      return shared_instruction(n);
    case Shape::SharedList:
      return shared_list(n, false);
    case Shape::SharedTensorList:
      return shared_list(n, true);
    case Shape::SharedTensor:
      return shared_tensor(n);
    case Shape::ConstantInput:
      return constant_input();
    case Shape::ItemlessList:
      return itemless_list();
    case Shape::Limits:
      return limits(n);
  }
  return {};
}

}  // namespace kiln_fuzz
