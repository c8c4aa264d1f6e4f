// Method::load's activation fusion: a kernel call whose out only the activation right after it
// reads writes the activation's out and is offered its clamp; execute() skips the activation when
// the kernel takes the clamp, and runs it in place otherwise. Fusion stays away from outs read
// twice or returned, activations a jump lands on, and outs whose bytes the call still reads.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/executor/heap_memory.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/program_generated.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

constexpr size_t kCount = 4;  // every tensor is float[4]

int g_relu_runs = 0;
int g_taken = 0;  // calls of test::scale.out that took a clamp

float* data_of(EValue* value) {
  return static_cast<float*>(value->toTensor().unsafeGetTensorImpl()->mutable_data());
}

// test::scale.out(Tensor x, *, Tensor(a!) out): out = 2 x, clamped as stored when offered.
Error scale_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const KernelRuntimeContext::OutputClamp* clamp = ctx.take_output_clamp(ScalarType::Float);
  if (clamp != nullptr) ++g_taken;
  for (size_t i = 0; i < kCount; ++i) {
    float v = 2.0f * data_of(stack[0])[i];
    if (clamp != nullptr) {
      v = v < clamp->min   ? static_cast<float>(clamp->min)
          : v > clamp->max ? static_cast<float>(clamp->max)
                           : v;
    }
    data_of(stack[1])[i] = v;
  }
  return Error::Ok;
}

// test::shift.out(Tensor x, *, Tensor(a!) out): out = x - 1; it never takes a clamp.
Error shift_out(KernelRuntimeContext&, Span<EValue*> stack) {
  for (size_t i = 0; i < kCount; ++i) data_of(stack[1])[i] = data_of(stack[0])[i] - 1.0f;
  return Error::Ok;
}

// aten::relu.out(Tensor self, *, Tensor(a!) out), elementwise (so it may run in place).
Error relu_out(KernelRuntimeContext&, Span<EValue*> stack) {
  ++g_relu_runs;
  for (size_t i = 0; i < kCount; ++i) {
    const float x = data_of(stack[0])[i];
    data_of(stack[1])[i] = x < 0.0f ? 0.0f : x;
  }
  return Error::Ok;
}

// test::add.out(Tensor a, Tensor b, *, Tensor(a!) out)
Error add_out(KernelRuntimeContext&, Span<EValue*> stack) {
  for (size_t i = 0; i < kCount; ++i) {
    data_of(stack[2])[i] = data_of(stack[0])[i] + data_of(stack[1])[i];
  }
  return Error::Ok;
}

constexpr const char* kOps[] = {"test::scale.out", "test::shift.out", "aten::relu.out",
                                "test::add.out"};
enum Op : int32_t { kScale, kShift, kRelu, kAdd, kJump = -1 };

Kernel g_kernels[] = {
    {kOps[kScale], hash_operator_name(kOps[kScale]), "", Backend::Portable, scale_out, "test", 0, 2,
     0x2},
    {kOps[kShift], hash_operator_name(kOps[kShift]), "", Backend::Portable, shift_out, "test", 0, 2,
     0x2},
    {kOps[kRelu], hash_operator_name(kOps[kRelu]), "", Backend::Portable, relu_out, "test", 0, 2,
     0x2},
    {kOps[kAdd], hash_operator_name(kOps[kAdd]), "", Backend::Portable, add_out, "test", 0, 3, 0x4},
};
KernelTable g_tables[] = {{"fuse_scale", &g_kernels[0], 1},
                          {"fuse_shift", &g_kernels[1], 1},
                          {"fuse_relu", &g_kernels[2], 1},
                          {"fuse_add", &g_kernels[3], 1}};

// Values: float[4] tensors planned at a byte offset of arena 1, or (offset < 0) Bool false.
struct Call {
  int32_t op;  // an Op; kJump: JumpFalseCall {condition, destination}
  std::vector<int32_t> args;
};
struct Spec {
  std::vector<int32_t> offsets;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<Call> calls;
};

constexpr int64_t kArena = 256;

std::vector<uint8_t> build(const Spec& spec) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<pte_format::EValue>> values;
  for (int32_t offset : spec.offsets) {
    if (offset < 0) {
      values.push_back(pte_format::CreateEValue(b, pte_format::KernelTypes::Bool,
                                                pte_format::CreateBool(b, false).Union()));
      continue;
    }
    auto allocation = pte_format::CreateAllocationDetails(b, 1, static_cast<uint32_t>(offset), 0);
    auto sizes = b.CreateVector(std::vector<int32_t>{static_cast<int32_t>(kCount)});
    auto order = b.CreateVector(std::vector<uint8_t>{0});
    auto tensor = pte_format::CreateTensor(b, pte_format::ScalarType::FLOAT, 0, sizes, order, false,
                                           0, allocation);
    values.push_back(pte_format::CreateEValue(b, pte_format::KernelTypes::Tensor, tensor.Union()));
  }
  auto value_table = b.CreateVector(values);
  auto inputs = b.CreateVector(spec.inputs);
  auto outputs = b.CreateVector(spec.outputs);
  std::vector<flatbuffers::Offset<pte_format::Instruction>> instructions;
  for (const Call& call : spec.calls) {
    if (call.op == kJump) {
      instructions.push_back(pte_format::CreateInstruction(
          b, pte_format::InstructionArguments::JumpFalseCall,
          pte_format::CreateJumpFalseCall(b, call.args[0], call.args[1]).Union()));
      continue;
    }
    instructions.push_back(pte_format::CreateInstruction(
        b, pte_format::InstructionArguments::KernelCall,
        pte_format::CreateKernelCall(b, call.op, b.CreateVector(call.args)).Union()));
  }
  auto chain = pte_format::CreateChain(b, 0, 0, b.CreateVector(instructions));
  auto chains = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Chain>>{chain});
  std::vector<flatbuffers::Offset<pte_format::Operator>> ops;
  for (const char* op : kOps) {
    const char* dot = std::strchr(op, '.');
    ops.push_back(pte_format::CreateOperator(b, b.CreateString(std::string(op, dot)),
                                             b.CreateString(dot + 1)));
  }
  auto operators = b.CreateVector(ops);
  auto arena_sizes = b.CreateVector(std::vector<int64_t>{0, kArena});
  auto plan = pte_format::CreateExecutionPlan(b, b.CreateString("forward"), 0, value_table, inputs,
                                              outputs, chains, operators, 0, arena_sizes);
  auto plans = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::ExecutionPlan>>{plan});
  std::vector<flatbuffers::Offset<pte_format::Buffer>> buffers;
  buffers.push_back(pte_format::CreateBuffer(b, b.CreateVector(std::vector<uint8_t>{})));
  auto buffer_table = b.CreateVector(buffers);
  b.Finish(pte_format::CreateProgram(b, 0, plans, buffer_table), "ET12");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

const std::vector<float> kInput = {-3.0f, -0.25f, 0.5f, 7.0f};

class Fusion : public ::testing::Test {
 protected:
  void SetUp() override {
    reset_registry_for_testing();
    for (const KernelTable& table : g_tables) ASSERT_EQ(register_kernels(table), Error::Ok);
    g_relu_runs = g_taken = 0;
  }
  void TearDown() override { reset_registry_for_testing(); }

  void load(const Spec& spec, bool fuse = true) {
    method_.reset();
    memory_.reset();
    program_.reset();
    const std::vector<uint8_t> bytes = build(spec);
    file_.assign(bytes.size() / 16 + 1, Aligned{});
    std::memcpy(file_.data(), bytes.data(), bytes.size());
    Result<Program> program = Program::load(file_.data(), bytes.size());
    ASSERT_TRUE(program.ok()) << last_error();
    program_.emplace(*program);
    memory_.emplace(*program_->method_meta("forward"), HeapMethodMemory::kUnbounded);
    ASSERT_EQ(memory_->status(), Error::Ok);
    const Backend backend = Backend::Portable;
    LoadOptions options;
    options.fuse = fuse;
    Result<Method> method = Method::load(*program_, "forward", memory_->memory(),
                                         ArrayRef<Backend>(&backend, 1), nullptr, options);
    ASSERT_TRUE(method.ok()) << last_error();
    method_.emplace(std::move(*method));
  }

  // Binds kInput to input 0, runs, and returns output 0.
  std::vector<float> run() {
    std::vector<float> input = kInput;
    SizesType sizes[] = {kCount};
    DimOrderType order[] = {0};
    StridesType strides[] = {1};
    TensorImpl impl(ScalarType::Float, 1, sizes, input.data(), order, strides);
    EXPECT_EQ(method_->set_input(0, EValue(Tensor(&impl))), Error::Ok) << last_error();
    EXPECT_EQ(method_->execute(), Error::Ok) << last_error();
    const auto* out = static_cast<const float*>(method_->output(0).toTensor().const_data_ptr());
    return {out, out + kCount};
  }

  // Loads `spec` unfused and fused, runs each twice; returns the fused run's output after
  // checking that both agree bit for bit.
  std::vector<float> run_both(const Spec& spec) {
    load(spec, false);
    const std::vector<float> plain = run();
    EXPECT_EQ(run(), plain);
    load(spec, true);
    const std::vector<float> fused = run();
    EXPECT_EQ(std::memcmp(fused.data(), plain.data(), kCount * sizeof(float)), 0);
    EXPECT_EQ(run(), fused);
    return fused;
  }

  struct alignas(16) Aligned {
    uint8_t bytes[16];
  };
  std::vector<Aligned> file_;
  std::optional<Program> program_;
  std::optional<HeapMethodMemory> memory_;
  std::optional<Method> method_;
};

// v0 input, v1 = op(v0), v2 = relu(v1), the output.
Spec chain_of(Op op) { return {{0, 16, 32}, {0}, {2}, {{op, {0, 1, 1}}, {kRelu, {1, 2, 2}}}}; }

TEST_F(Fusion, AKernelTakingTheClampRunsTheActivationAndTheRunSkipsIt) {
  const std::vector<float> out = run_both(chain_of(kScale));
  EXPECT_EQ(out, (std::vector<float>{0.0f, 0.0f, 1.0f, 14.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 1u);
  const int relu_runs = g_relu_runs;
  run();
  EXPECT_EQ(g_relu_runs, relu_runs);  // skipped on the fused method
  EXPECT_GT(g_taken, 0);
  const InstructionInfo first = method_->instruction_info(0);
  const InstructionInfo second = method_->instruction_info(1);
  ASSERT_NE(first.activation, nullptr);
  EXPECT_STREQ(first.activation, "aten::relu.out");
  EXPECT_FALSE(first.fused);
  EXPECT_TRUE(second.fused);
  EXPECT_EQ(second.served, nullptr);  // it never ran
  EXPECT_EQ(second.activation, nullptr);
}

TEST_F(Fusion, AKernelNotTakingTheClampLeavesTheActivationToRunInPlace) {
  const std::vector<float> out = run_both(chain_of(kShift));
  EXPECT_EQ(out, (std::vector<float>{0.0f, 0.0f, 0.0f, 6.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 1u);
  const int relu_runs = g_relu_runs;
  run();
  EXPECT_EQ(g_relu_runs, relu_runs + 1);
  EXPECT_TRUE(method_->instruction_info(1).fused);
  EXPECT_NE(method_->instruction_info(1).served, nullptr);
}

TEST_F(Fusion, OffKeepsEveryActivation) {
  load(chain_of(kScale), false);
  EXPECT_EQ(run(), (std::vector<float>{0.0f, 0.0f, 1.0f, 14.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 0u);
  EXPECT_EQ(g_relu_runs, 1);
  EXPECT_EQ(g_taken, 0);
  EXPECT_EQ(method_->instruction_info(0).activation, nullptr);
  EXPECT_FALSE(method_->instruction_info(1).fused);
}

TEST_F(Fusion, AnOutOnTheCallsInputMovesOntoTheCallsOut) {
  // v1 = shift(v0); v2 = scale(v1); v3 = relu(v2), planned on v1's bytes (dead after scale):
  // scale cannot write v3 while it reads v1, so v3 moves onto v2's bytes and relu runs (or is
  // skipped) there.
  const Spec spec = {
      {0, 16, 32, 16}, {0}, {3}, {{kShift, {0, 1, 1}}, {kScale, {1, 2, 2}}, {kRelu, {2, 3, 3}}}};
  const std::vector<float> out = run_both(spec);
  EXPECT_EQ(out, (std::vector<float>{0.0f, 0.0f, 0.0f, 12.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 1u);
  EXPECT_TRUE(method_->instruction_info(2).fused);
  const uint8_t* arena = memory_->memory().arenas[0].data();
  EXPECT_EQ(method_->output(0).toTensor().const_data_ptr(), arena + 32);
}

TEST_F(Fusion, NotWhenTheOutIsOnTheCallsInputAndTheCallsOutIsReusedWhileItLives) {
  // As above, but v4 = shift(v0) reuses v2's bytes while v3 lives (until the add): v3 can
  // neither be written by scale nor move.
  const Spec spec = {{0, 16, 32, 16, 32, 48},
                     {0},
                     {5},
                     {{kShift, {0, 1, 1}},
                      {kScale, {1, 2, 2}},
                      {kRelu, {2, 3, 3}},
                      {kShift, {0, 4, 4}},
                      {kAdd, {3, 4, 5, 5}}}};
  const std::vector<float> out = run_both(spec);
  EXPECT_EQ(out, (std::vector<float>{-4.0f, -1.25f, -0.5f, 18.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 0u);
  EXPECT_FALSE(method_->instruction_info(2).fused);
}

TEST_F(Fusion, AnOutMovedOntoTheCallsOutLetsAnInPlaceActivationReadItLast) {
  // v3 = relu(v2) moves onto v2's bytes (its own are scale's input's); its one reader, a
  // second relu, writes v4 on exactly those bytes: in place once v3 is there.
  const Spec spec = {
      {0, 16, 32, 16, 32},
      {0},
      {4},
      {{kShift, {0, 1, 1}}, {kScale, {1, 2, 2}}, {kRelu, {2, 3, 3}}, {kRelu, {3, 4, 4}}}};
  EXPECT_EQ(run_both(spec), (std::vector<float>{0.0f, 0.0f, 0.0f, 12.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 1u);
  EXPECT_TRUE(method_->instruction_info(2).fused);
}

TEST_F(Fusion, AViewOfTheOutsBytesReadAfterItsTensorRewritesThemLetsItFuse) {
  // v4 is a view (a planned tensor no call writes) on v1's bytes, which v3 rewrites before the
  // add reads v4: scale's result is not what v4 reads.
  const Spec spec = {
      {0, 16, 32, 16, 16, 48},
      {0},
      {5},
      {{kScale, {0, 1, 1}}, {kRelu, {1, 2, 2}}, {kShift, {0, 3, 3}}, {kAdd, {2, 4, 5, 5}}}};
  EXPECT_EQ(run_both(spec), (std::vector<float>{-4.0f, -1.25f, 0.5f, 20.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 1u);
}

TEST_F(Fusion, NotWhenAViewReadsTheOutsBytesWhileTheyHoldIt) {
  // v3 is a view on v1's bytes that the add reads: it reads scale's result there.
  const Spec spec = {{0, 16, 32, 16, 48},
                     {0},
                     {4},
                     {{kScale, {0, 1, 1}}, {kRelu, {1, 2, 2}}, {kAdd, {2, 3, 4, 4}}}};
  EXPECT_EQ(run_both(spec), (std::vector<float>{-6.0f, -0.5f, 2.0f, 28.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 0u);
}

TEST_F(Fusion, NotWhenAnotherInstructionReadsTheOut) {
  // v1 = scale(v0); v2 = relu(v1); v3 = v1 + v2.
  const Spec spec = {
      {0, 16, 32, 48}, {0}, {3}, {{kScale, {0, 1, 1}}, {kRelu, {1, 2, 2}}, {kAdd, {1, 2, 3, 3}}}};
  const std::vector<float> out = run_both(spec);
  EXPECT_EQ(out, (std::vector<float>{-6.0f, -0.5f, 2.0f, 28.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 0u);
}

TEST_F(Fusion, NotWhenTheOutIsAMethodOutput) {
  Spec spec = chain_of(kScale);
  spec.outputs = {2, 1};
  run_both(spec);
  EXPECT_EQ(method_->fold_report().fused_activations, 0u);
  const auto* raw = static_cast<const float*>(method_->output(1).toTensor().const_data_ptr());
  EXPECT_EQ(std::vector<float>(raw, raw + kCount), (std::vector<float>{-6.0f, -0.5f, 1.0f, 14.0f}));
}

TEST_F(Fusion, NotWhenAJumpLandsOnTheActivation) {
  // v3 is false: the jump (instruction 0) goes to relu (instruction 2), past scale. Everything
  // else would fuse (the next test), so only the landing keeps them apart. (No run: relu would
  // read bytes nothing wrote.)
  const Spec landing = {
      {0, 16, 32, -1}, {0}, {2}, {{kJump, {3, 2}}, {kScale, {0, 1, 1}}, {kRelu, {1, 2, 2}}}};
  load(landing);
  EXPECT_EQ(method_->fold_report().fused_activations, 0u);
  EXPECT_FALSE(method_->instruction_info(2).fused);
}

TEST_F(Fusion, AJumpElsewhereLeavesTheFusion) {
  // The jump (instruction 0) goes to scale (instruction 1), the fused call: relu is still only
  // reached from it.
  const Spec spec = {
      {0, 16, 32, -1}, {0}, {2}, {{kJump, {3, 1}}, {kScale, {0, 1, 1}}, {kRelu, {1, 2, 2}}}};
  EXPECT_EQ(run_both(spec), (std::vector<float>{0.0f, 0.0f, 1.0f, 14.0f}));
  EXPECT_EQ(method_->fold_report().fused_activations, 1u);
  EXPECT_TRUE(method_->instruction_info(2).fused);
}

}  // namespace
}  // namespace kiln
