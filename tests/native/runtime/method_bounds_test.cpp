// Method::execute is bounded: a program whose JumpFalseCall jumps back loops until the run's
// instruction budget or the caller's cancellation flag stops it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/program_generated.h"
#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

// One method "loop": value 0 is Bool false; instruction 0 is a FreeCall and instruction 1 jumps
// back to instruction 0 while value 0 is false, that is forever.
std::vector<uint8_t> looping_program() {
  flatbuffers::FlatBufferBuilder b;
  auto condition = pte_format::CreateEValue(b, pte_format::KernelTypes::Bool,
                                            pte_format::CreateBool(b, false).Union());
  auto values = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::EValue>>{condition});
  auto free = pte_format::CreateInstruction(b, pte_format::InstructionArguments::FreeCall,
                                            pte_format::CreateFreeCall(b, 0).Union());
  auto jump = pte_format::CreateInstruction(b, pte_format::InstructionArguments::JumpFalseCall,
                                            pte_format::CreateJumpFalseCall(b, 0, 0).Union());
  auto instructions =
      b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Instruction>>{free, jump});
  auto chain = pte_format::CreateChain(b, 0, 0, instructions);
  auto chains = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Chain>>{chain});
  auto sizes = b.CreateVector(std::vector<int64_t>{0});
  auto plan = pte_format::CreateExecutionPlan(b, b.CreateString("loop"), 0, values, 0, 0, chains, 0,
                                              0, sizes);
  auto plans = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::ExecutionPlan>>{plan});
  b.Finish(pte_format::CreateProgram(b, 0, plans), "ET12");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

class LoopingMethod : public ::testing::Test {
 protected:
  void SetUp() override {
    std::memcpy(file_, bytes_.data(), bytes_.size());
    Result<Program> program = Program::load(file_, bytes_.size());
    ASSERT_TRUE(program.ok()) << last_error();
    program_.emplace(*program);
    const Backend backend = Backend::Portable;
    Result<Method> method = Method::load(*program_, "loop", {{metadata_, sizeof(metadata_)}, {}},
                                         ArrayRef<Backend>(&backend, 1));
    ASSERT_TRUE(method.ok()) << last_error();
    method_.emplace(std::move(*method));
  }

  std::vector<uint8_t> bytes_ = looping_program();
  alignas(16) uint8_t file_[4096];
  alignas(16) uint8_t metadata_[4096];
  std::optional<Program> program_;
  std::optional<Method> method_;
};

TEST_F(LoopingMethod, StopsAtItsInstructionBudgetNamingTheInstruction) {
  method_->set_instruction_budget(1001);
  EXPECT_EQ(method_->execute(), Error::InvalidState);
  const std::string message = last_error();
  EXPECT_NE(message.find("method 'loop'"), std::string::npos) << message;
  EXPECT_NE(message.find("instruction 1 would exceed the run's budget of 1001"), std::string::npos)
      << message;
}

TEST_F(LoopingMethod, StopsAtTheDefaultBudget) {
  EXPECT_EQ(method_->instruction_budget(), 2 * Method::kDefaultRunsPerInstruction);
  EXPECT_EQ(method_->execute(), Error::InvalidState);
}

TEST_F(LoopingMethod, StopsWhenCancelledFromAnotherThread) {
  std::atomic<bool> cancel{false};
  method_->set_instruction_budget(UINT64_MAX);
  method_->set_cancel_flag(&cancel);
  std::thread canceller([&cancel] { cancel.store(true); });
  const Error error = method_->execute();
  canceller.join();
  EXPECT_EQ(error, Error::InvalidState);
  const std::string message = last_error();
  EXPECT_NE(message.find("method 'loop': cancelled before instruction"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace kiln
