// Method::set_input refuses a tensor that claims bytes but has no data, whether the input is
// copied into its planned memory or bound in place, instead of reading through a null pointer.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/tensor.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/program_generated.h"
#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

// One method "identity" with a float[4] input (value 0) and output (value 1), both planned in
// arena 1: at the same offset when `shared` (the input is then copied into its planned bytes),
// else apart (the input is bound in place).
std::vector<uint8_t> identity_program(bool shared) {
  flatbuffers::FlatBufferBuilder b;
  auto tensor = [&b](uint32_t offset) {
    auto allocation = pte_format::CreateAllocationDetails(b, 1, offset, 0);
    auto sizes = b.CreateVector(std::vector<int32_t>{4});
    auto dim_order = b.CreateVector(std::vector<uint8_t>{0});
    return pte_format::CreateEValue(b, pte_format::KernelTypes::Tensor,
                                    pte_format::CreateTensor(b, pte_format::ScalarType::FLOAT, 0,
                                                             sizes, dim_order, false, 0, allocation)
                                        .Union());
  };
  auto input = tensor(0);
  auto output = tensor(shared ? 0 : 16);
  auto values = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::EValue>>{input, output});
  auto inputs = b.CreateVector(std::vector<int32_t>{0});
  auto outputs = b.CreateVector(std::vector<int32_t>{1});
  auto instructions = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Instruction>>{});
  auto chain = pte_format::CreateChain(b, 0, 0, instructions);
  auto chains = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Chain>>{chain});
  auto sizes = b.CreateVector(std::vector<int64_t>{0, 32});
  auto plan = pte_format::CreateExecutionPlan(b, b.CreateString("identity"), 0, values, inputs,
                                              outputs, chains, 0, 0, sizes);
  auto plans = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::ExecutionPlan>>{plan});
  b.Finish(pte_format::CreateProgram(b, 0, plans), "ET12");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

class SetInputTest : public ::testing::Test {
 protected:
  // Loads "identity"; false when the load fails (the test then fails on last_error()).
  bool load(bool shared) {
    bytes_ = identity_program(shared);
    std::memcpy(file_, bytes_.data(), bytes_.size());
    Result<Program> program = Program::load(file_, bytes_.size());
    if (!program.ok()) return false;
    program_.emplace(*program);
    const Backend backend = Backend::Portable;
    Span<uint8_t> arenas[] = {{arena_, sizeof(arena_)}};
    Result<Method> method =
        Method::load(*program_, "identity", {{metadata_, sizeof(metadata_)}, {arenas, 1}},
                     ArrayRef<Backend>(&backend, 1));
    if (!method.ok()) return false;
    method_.emplace(std::move(*method));
    return true;
  }

  // set_input(0, a float[4] tensor on `data`): the error, and the message when it fails.
  Error set_float4(float* data) {
    SizesType sizes[] = {4};
    DimOrderType dim_order[] = {0};
    StridesType strides[] = {1};
    TensorImpl impl(ScalarType::Float, 1, sizes, data, dim_order, strides);
    return method_->set_input(0, EValue(Tensor(&impl)));
  }

  std::vector<uint8_t> bytes_;
  alignas(16) uint8_t file_[4096];
  alignas(16) uint8_t metadata_[4096];
  alignas(16) uint8_t arena_[32];
  std::optional<Program> program_;
  std::optional<Method> method_;
};

constexpr char kNoData[] = "input 0: the tensor has 16 bytes but no data";

TEST_F(SetInputTest, RefusesACopiedTensorWithBytesButNoData) {
  ASSERT_TRUE(load(/*shared=*/true)) << last_error();
  EXPECT_EQ(set_float4(nullptr), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error()).find(kNoData), std::string::npos) << last_error();
}

TEST_F(SetInputTest, RefusesABoundTensorWithBytesButNoData) {
  ASSERT_TRUE(load(/*shared=*/false)) << last_error();
  EXPECT_EQ(set_float4(nullptr), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error()).find(kNoData), std::string::npos) << last_error();
}

TEST_F(SetInputTest, TakesATensorWithData) {
  float data[] = {1, 2, 3, 4};
  ASSERT_TRUE(load(/*shared=*/true)) << last_error();
  EXPECT_EQ(set_float4(data), Error::Ok) << last_error();
  ASSERT_TRUE(load(/*shared=*/false)) << last_error();
  EXPECT_EQ(set_float4(data), Error::Ok) << last_error();
}

}  // namespace
}  // namespace kiln
