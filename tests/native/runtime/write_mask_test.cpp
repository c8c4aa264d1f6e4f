// Method::load's write check reads which arguments a kernel writes from its table entry
// (Kernel::writes, the schema's Tensor(a!) arguments), so a call writing a method input through
// an argument in the middle of its signature is refused; an entry without the mask
// (kUnknownWrites, a table built by hand) keeps the name rule, which sees no write there.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/program_generated.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

Error boxed_ok(KernelRuntimeContext&, Span<EValue*>) { return Error::Ok; }

constexpr char kOp[] = "test::write_middle";  // (Tensor a, Tensor(a!) cache, Tensor b) -> ()

// One method "call": three float[4] tensors planned apart, value 0 the input; instruction 0
// calls test::write_middle with the values `args`.
std::vector<uint8_t> call_program(std::vector<int32_t> args) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<pte_format::EValue>> values;
  for (uint32_t offset : {0u, 16u, 32u}) {
    auto allocation = pte_format::CreateAllocationDetails(b, 1, offset, 0);
    auto sizes = b.CreateVector(std::vector<int32_t>{4});
    auto dim_order = b.CreateVector(std::vector<uint8_t>{0});
    values.push_back(
        pte_format::CreateEValue(b, pte_format::KernelTypes::Tensor,
                                 pte_format::CreateTensor(b, pte_format::ScalarType::FLOAT, 0,
                                                          sizes, dim_order, false, 0, allocation)
                                     .Union()));
  }
  auto value_table = b.CreateVector(values);
  auto inputs = b.CreateVector(std::vector<int32_t>{0});
  auto outputs = b.CreateVector(std::vector<int32_t>{2});
  auto call = pte_format::CreateKernelCall(b, 0, b.CreateVector(args));
  auto instruction =
      pte_format::CreateInstruction(b, pte_format::InstructionArguments::KernelCall, call.Union());
  auto instructions =
      b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Instruction>>{instruction});
  auto chain = pte_format::CreateChain(b, 0, 0, instructions);
  auto chains = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Chain>>{chain});
  auto op = pte_format::CreateOperator(b, b.CreateString(kOp), b.CreateString(""));
  auto operators = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Operator>>{op});
  auto sizes = b.CreateVector(std::vector<int64_t>{0, 48});
  auto plan = pte_format::CreateExecutionPlan(b, b.CreateString("call"), 0, value_table, inputs,
                                              outputs, chains, operators, 0, sizes);
  auto plans = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::ExecutionPlan>>{plan});
  b.Finish(pte_format::CreateProgram(b, 0, plans), "ET12");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

class WriteMaskTest : public ::testing::Test {
 protected:
  void TearDown() override { reset_registry_for_testing(); }

  // Registers test::write_middle with `writes`, then loads a call with the values `args`.
  Error load(uint64_t writes, std::vector<int32_t> args) {
    reset_registry_for_testing();
    kernel_[0] = {kOp,   hash_operator_name(kOp), "", Backend::Portable, boxed_ok, "test", 0, 3,
                  writes};
    table_ = {"lib_write_middle", kernel_, 1};
    if (register_kernels(table_) != Error::Ok) return Error::Internal;
    bytes_ = call_program(std::move(args));
    std::memcpy(file_, bytes_.data(), bytes_.size());
    Result<Program> program = Program::load(file_, bytes_.size());
    if (!program.ok()) return program.error();
    program_.emplace(*program);
    const Backend backend = Backend::Portable;
    Span<uint8_t> arenas[] = {{arena_, sizeof(arena_)}};
    Result<Method> method =
        Method::load(*program_, "call", {{metadata_, sizeof(metadata_)}, {arenas, 1}},
                     ArrayRef<Backend>(&backend, 1));
    return method.ok() ? Error::Ok : method.error();
  }

  Kernel kernel_[1] = {};
  KernelTable table_ = {};
  std::vector<uint8_t> bytes_;
  alignas(16) uint8_t file_[4096];
  alignas(16) uint8_t metadata_[4096];
  alignas(16) uint8_t arena_[48];
  std::optional<Program> program_;
};

TEST_F(WriteMaskTest, RefusesWritingAnInputThroughAMiddleArgument) {
  EXPECT_EQ(load(/*writes=*/0x2, {1, 0, 2}), Error::InvalidProgram);
  const std::string message = last_error();
  EXPECT_NE(message.find("instruction 0 (test::write_middle) writes value 0, a method input, "
                         "through its argument 1"),
            std::string::npos)
      << message;
}

TEST_F(WriteMaskTest, TakesAnInputAsAnArgumentTheKernelOnlyReads) {
  EXPECT_EQ(load(/*writes=*/0x2, {0, 1, 0}), Error::Ok) << last_error();
}

TEST_F(WriteMaskTest, WithoutAMaskTheNameRuleSeesNoWriteInTheMiddle) {
  EXPECT_EQ(load(kUnknownWrites, {1, 0, 2}), Error::Ok) << last_error();
}

}  // namespace
}  // namespace kiln
