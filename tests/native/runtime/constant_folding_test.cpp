// Method::load's constant folding: a call whose inputs are all constants of the program (or
// results of such calls) runs once at load into the method's fold memory and is skipped by every
// execute(); calls that read state, write what others write, follow a jump, draw random numbers
// or do not fit the memory's bound run at each execute() as before.
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

constexpr size_t kElements = 4;
constexpr size_t kTensorBytes = kElements * sizeof(float);

// Calls of each test kernel since the test began.
int g_neg_calls = 0;
int g_add_calls = 0;

float* floats(EValue* value) {
  return static_cast<float*>(value->toTensor().unsafeGetTensorImpl()->mutable_data());
}

// test::neg.out(Tensor x, *, Tensor(a!) out)
Error neg_out(KernelRuntimeContext&, Span<EValue*> stack) {
  ++g_neg_calls;
  for (size_t i = 0; i < kElements; ++i) floats(stack[1])[i] = -floats(stack[0])[i];
  return Error::Ok;
}

// test::add.out(Tensor a, Tensor b, *, Tensor(a!) out)
Error add_out(KernelRuntimeContext&, Span<EValue*> stack) {
  ++g_add_calls;
  for (size_t i = 0; i < kElements; ++i) {
    floats(stack[2])[i] = floats(stack[0])[i] + floats(stack[1])[i];
  }
  return Error::Ok;
}

// test::acc_(Tensor(a!) self, Tensor other): self += other, a buffer that keeps its sum.
Error acc_(KernelRuntimeContext&, Span<EValue*> stack) {
  for (size_t i = 0; i < kElements; ++i) floats(stack[0])[i] += floats(stack[1])[i];
  return Error::Ok;
}

// test::rand.out(*, Tensor(a!) out): one random word per element, from the context's generator.
Error rand_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const RandomStream stream = ctx.random_generator().reserve(1);
  for (size_t i = 0; i < kElements; ++i) {
    floats(stack[0])[i] = static_cast<float>(stream.block(0).word[i] >> 8);
  }
  return Error::Ok;
}

// test::temp.out(Tensor x, *, Tensor(a!) out): out = -x through kTempBytes of temporary memory,
// which it first fills with NaN (so that a tensor wrongly left in reused temporaries shows).
constexpr size_t kTempBytes = 1024;
Error temp_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  Result<void*> memory = ctx.allocate_temp(kTempBytes);
  if (!memory.ok()) return memory.error();
  std::memset(memory.get(), 0xff, kTempBytes);
  auto* scratch = static_cast<float*>(memory.get());
  for (size_t i = 0; i < kElements; ++i) scratch[i] = -floats(stack[0])[i];
  std::memcpy(floats(stack[1]), scratch, kTensorBytes);
  return Error::Ok;
}

// test::made(Tensor x) -> Tensor: a functional op, its result 2 * x (kTempBytes of data) and its
// TensorImpl in temporary memory, as the portable kernels return tensors.
SizesType g_made_sizes[] = {kElements};
DimOrderType g_made_order[] = {0};
StridesType g_made_strides[] = {1};
Error made(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  Result<void*> data = ctx.allocate_temp(kTempBytes);
  Result<void*> impl = ctx.allocate_temp(sizeof(TensorImpl), alignof(TensorImpl));
  if (!data.ok() || !impl.ok()) return Error::MemoryAllocationFailed;
  auto* values = static_cast<float*>(data.get());
  for (size_t i = 0; i < kElements; ++i) values[i] = 2 * floats(stack[0])[i];
  *stack[1] = EValue(Tensor(new (impl.get()) TensorImpl(ScalarType::Float, 1, g_made_sizes, values,
                                                        g_made_order, g_made_strides)));
  return Error::Ok;
}

// test::fail.out(Tensor x, *, Tensor(a!) out)
Error fail_out(KernelRuntimeContext& ctx, Span<EValue*>) {
  ctx.fail(Error::InvalidArgument, "test::fail.out refuses its input");
  return Error::InvalidArgument;
}

constexpr const char* kOps[] = {"test::neg.out",  "test::add.out",  "test::acc_", "test::rand.out",
                                "test::fail.out", "test::temp.out", "test::made"};
enum Op : int32_t { kNeg, kAdd, kAcc, kRand, kFail, kTemp, kMade, kJump = -1 };

Kernel g_kernels[] = {
    {kOps[kNeg], hash_operator_name(kOps[kNeg]), "", Backend::Portable, neg_out, "test", 0, 2, 0x2},
    {kOps[kAdd], hash_operator_name(kOps[kAdd]), "", Backend::Portable, add_out, "test", 0, 3, 0x4},
    {kOps[kAcc], hash_operator_name(kOps[kAcc]), "", Backend::Portable, acc_, "test", 0, 2, 0x1},
    {kOps[kRand], hash_operator_name(kOps[kRand]), "", Backend::Portable, rand_out, "test", 0, 1,
     0x1},
    {kOps[kFail], hash_operator_name(kOps[kFail]), "", Backend::Portable, fail_out, "test", 0, 2,
     0x2},
    {kOps[kTemp], hash_operator_name(kOps[kTemp]), "", Backend::Portable, temp_out, "test", 0, 2,
     0x2},
    {kOps[kMade], hash_operator_name(kOps[kMade]), "", Backend::Portable, made, "test", 1, 1, 0x0},
};
// One table per kernel: a table must be sorted by hash, and one entry always is.
KernelTable g_tables[] = {{"fold_neg", &g_kernels[0], 1},  {"fold_add", &g_kernels[1], 1},
                          {"fold_acc", &g_kernels[2], 1},  {"fold_rand", &g_kernels[3], 1},
                          {"fold_fail", &g_kernels[4], 1}, {"fold_temp", &g_kernels[5], 1},
                          {"fold_made", &g_kernels[6], 1}};

// A value of the test programs: a float[4] tensor (a constant, or planned at an arena offset;
// an input is planned too), or Bool false (a jump's condition).
struct ValueSpec {
  enum Kind { Constant, Planned, Bool } kind;
  uint32_t where;  // constant buffer index (from 1), or arena offset
};
struct CallSpec {
  int32_t op;  // an Op; kJump: JumpFalseCall with args {condition, destination}
  std::vector<int32_t> args;
};
struct ProgramSpec {
  std::vector<ValueSpec> values;
  std::vector<std::vector<float>> constants;  // buffers 1, 2, ...
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<CallSpec> calls;
};

constexpr int64_t kArenaBytes = 128;

std::vector<uint8_t> build_program(const ProgramSpec& spec) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<pte_format::EValue>> values;
  for (const ValueSpec& value : spec.values) {
    if (value.kind == ValueSpec::Bool) {
      values.push_back(pte_format::CreateEValue(b, pte_format::KernelTypes::Bool,
                                                pte_format::CreateBool(b, false).Union()));
      continue;
    }
    const bool constant = value.kind == ValueSpec::Constant;
    auto allocation = constant ? 0 : pte_format::CreateAllocationDetails(b, 1, value.where, 0);
    auto sizes = b.CreateVector(std::vector<int32_t>{static_cast<int32_t>(kElements)});
    auto dim_order = b.CreateVector(std::vector<uint8_t>{0});
    auto tensor = pte_format::CreateTensor(b, pte_format::ScalarType::FLOAT, 0, sizes, dim_order,
                                           false, constant ? value.where : 0, allocation);
    values.push_back(pte_format::CreateEValue(b, pte_format::KernelTypes::Tensor, tensor.Union()));
  }
  auto value_table = b.CreateVector(values);
  auto inputs = b.CreateVector(spec.inputs);
  auto outputs = b.CreateVector(spec.outputs);
  std::vector<flatbuffers::Offset<pte_format::Instruction>> instructions;
  for (const CallSpec& call : spec.calls) {
    if (call.op == kJump) {
      instructions.push_back(pte_format::CreateInstruction(
          b, pte_format::InstructionArguments::JumpFalseCall,
          pte_format::CreateJumpFalseCall(b, call.args[0], call.args[1]).Union()));
      continue;
    }
    auto kernel_call = pte_format::CreateKernelCall(b, call.op, b.CreateVector(call.args));
    instructions.push_back(pte_format::CreateInstruction(
        b, pte_format::InstructionArguments::KernelCall, kernel_call.Union()));
  }
  auto chain = pte_format::CreateChain(b, 0, 0, b.CreateVector(instructions));
  auto chains = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Chain>>{chain});
  std::vector<flatbuffers::Offset<pte_format::Operator>> ops;
  for (const char* op : kOps) {
    const char* dot = std::strchr(op, '.');
    const std::string name = dot == nullptr ? op : std::string(op, dot);
    ops.push_back(pte_format::CreateOperator(b, b.CreateString(name),
                                             b.CreateString(dot == nullptr ? "" : dot + 1)));
  }
  auto operators = b.CreateVector(ops);
  auto arena_sizes = b.CreateVector(std::vector<int64_t>{0, kArenaBytes});
  auto plan = pte_format::CreateExecutionPlan(b, b.CreateString("forward"), 0, value_table, inputs,
                                              outputs, chains, operators, 0, arena_sizes);
  auto plans = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::ExecutionPlan>>{plan});
  std::vector<flatbuffers::Offset<pte_format::Buffer>> buffers;
  buffers.push_back(pte_format::CreateBuffer(b, b.CreateVector(std::vector<uint8_t>{})));
  for (const std::vector<float>& constant : spec.constants) {
    b.ForceVectorAlignment(constant.size() * sizeof(float), 1, 16);
    auto storage = b.CreateVector(reinterpret_cast<const uint8_t*>(constant.data()),
                                  constant.size() * sizeof(float));
    buffers.push_back(pte_format::CreateBuffer(b, storage));
  }
  auto buffer_table = b.CreateVector(buffers);
  b.Finish(pte_format::CreateProgram(b, 0, plans, buffer_table), "ET12");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

class ConstantFolding : public ::testing::Test {
 protected:
  void SetUp() override {
    reset_registry_for_testing();
    for (const KernelTable& table : g_tables) ASSERT_EQ(register_kernels(table), Error::Ok);
    g_neg_calls = g_add_calls = 0;
  }
  void TearDown() override { reset_registry_for_testing(); }

  // Loads `spec` with folding on or off; `max_bytes` bounds the method's heap memory.
  Error load(const ProgramSpec& spec, bool fold = true,
             size_t max_bytes = HeapMethodMemory::kUnbounded) {
    method_.reset();
    memory_.reset();
    program_.reset();
    bytes_ = build_program(spec);
    file_.assign(bytes_.size() / 16 + 1, Aligned{});
    std::memcpy(file_.data(), bytes_.data(), bytes_.size());
    Result<Program> program = Program::load(file_.data(), bytes_.size());
    if (!program.ok()) return program.error();
    program_.emplace(*program);
    const MethodMeta meta = *program_->method_meta("forward");
    memory_.emplace(meta, max_bytes);
    if (memory_->status() != Error::Ok) return memory_->status();
    const Backend backend = Backend::Portable;
    LoadOptions options;
    options.fold_constants = fold;
    Result<Method> method = Method::load(*program_, "forward", memory_->memory(),
                                         ArrayRef<Backend>(&backend, 1), nullptr, options);
    if (!method.ok()) return method.error();
    method_.emplace(std::move(*method));
    return Error::Ok;
  }

  // Binds `input` to input 0 and runs; returns output 0.
  std::vector<float> run(std::vector<float> input = {}) {
    if (!input.empty()) {
      SizesType sizes[] = {kElements};
      DimOrderType order[] = {0};
      StridesType strides[] = {1};
      TensorImpl impl(ScalarType::Float, 1, sizes, input.data(), order, strides);
      EXPECT_EQ(method_->set_input(0, EValue(Tensor(&impl))), Error::Ok) << last_error();
      EXPECT_EQ(method_->execute(), Error::Ok) << last_error();
    } else {
      EXPECT_EQ(method_->execute(), Error::Ok) << last_error();
    }
    const auto* data = static_cast<const float*>(method_->output(0).toTensor().const_data_ptr());
    return {data, data + kElements};
  }

  bool in_arena(const EValue& value) {
    const auto* data = static_cast<const uint8_t*>(value.toTensor().const_data_ptr());
    const uint8_t* arena = memory_->memory().arenas[0].data();
    return data >= arena && data < arena + kArenaBytes;
  }

  struct alignas(16) Aligned {
    uint8_t bytes[16];
  };
  std::vector<uint8_t> bytes_;
  std::vector<Aligned> file_;
  std::optional<Program> program_;
  std::optional<HeapMethodMemory> memory_;
  std::optional<Method> method_;
};

const std::vector<float> kWeight = {1.5f, -2.0f, 3.25f, 0.0f};
const std::vector<float> kInput = {10.0f, 20.0f, 30.0f, 40.0f};

// v0 constant, v1 = neg(v0), v2 input, v3 = v1 + v2.
ProgramSpec linear_like() {
  return {{{ValueSpec::Constant, 1},
           {ValueSpec::Planned, 0},
           {ValueSpec::Planned, 16},
           {ValueSpec::Planned, 32}},
          {kWeight},
          {2},
          {3},
          {{kNeg, {0, 1, 1}}, {kAdd, {1, 2, 3, 3}}}};
}

std::vector<float> expected_linear(float sign = -1.0f) {
  std::vector<float> out(kElements);
  for (size_t i = 0; i < kElements; ++i) out[i] = sign * kWeight[i] + kInput[i];
  return out;
}

TEST_F(ConstantFolding, RunsACallOnConstantsOnceAtLoadAndSkipsItAtEveryRun) {
  const std::vector<uint8_t> constant_bytes(
      reinterpret_cast<const uint8_t*>(kWeight.data()),
      reinterpret_cast<const uint8_t*>(kWeight.data()) + kTensorBytes);
  ASSERT_EQ(load(linear_like()), Error::Ok) << last_error();
  EXPECT_EQ(g_neg_calls, 1);  // at load
  EXPECT_EQ(method_->fold_report().instructions, 1u);
  EXPECT_EQ(method_->fold_report().bytes, kTensorBytes);
  EXPECT_EQ(method_->fold_report().over_limit, 0u);
  EXPECT_TRUE(method_->instruction_info(0).folded);
  EXPECT_FALSE(method_->instruction_info(1).folded);
  EXPECT_EQ(run(kInput), expected_linear());
  EXPECT_EQ(run(kInput), expected_linear());
  EXPECT_EQ(g_neg_calls, 1);
  EXPECT_EQ(g_add_calls, 2);
  // The folded result lives outside the planned arena, whose bytes the plan gives to others.
  std::memset(memory_->memory().arenas[0].data(), 0x7f, 16);
  EXPECT_EQ(run(kInput), expected_linear());
}

TEST_F(ConstantFolding, OffRunsEveryCallAtEachRunWithTheSameResults) {
  ASSERT_EQ(load(linear_like(), /*fold=*/false), Error::Ok) << last_error();
  EXPECT_EQ(g_neg_calls, 0);
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  EXPECT_FALSE(method_->instruction_info(0).folded);
  EXPECT_EQ(run(kInput), expected_linear());
  EXPECT_EQ(run(kInput), expected_linear());
  EXPECT_EQ(g_neg_calls, 2);
}

TEST_F(ConstantFolding, KeepsOnlyTheResultsThatRunsRead) {
  // v1 = neg(v0), v4 = neg(v1): v1 only feeds a folded call and is released after it.
  ProgramSpec spec = linear_like();
  spec.values.push_back({ValueSpec::Planned, 48});
  spec.calls = {{kNeg, {0, 1, 1}}, {kNeg, {1, 4, 4}}, {kAdd, {4, 2, 3, 3}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 2u);
  EXPECT_EQ(method_->fold_report().bytes, kTensorBytes);
  EXPECT_GE(method_->fold_report().peak_bytes, 2 * kTensorBytes);
  EXPECT_TRUE(in_arena(method_->output(0)));
  EXPECT_EQ(run(kInput), expected_linear(1.0f));
  EXPECT_EQ(g_neg_calls, 2);
}

TEST_F(ConstantFolding, LeavesABufferUpdatedInPlaceToEveryRun) {
  // v1 is a buffer: acc_(v1, v0) adds the constant at each run.
  ProgramSpec spec = {
      {{ValueSpec::Constant, 1}, {ValueSpec::Planned, 0}}, {kWeight}, {}, {1}, {{kAcc, {1, 0, 1}}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  run();
  const std::vector<float> twice = run();
  for (size_t i = 0; i < kElements; ++i) EXPECT_EQ(twice[i], 2 * kWeight[i]);
}

TEST_F(ConstantFolding, LeavesAValueTwoCallsWriteToEveryRun) {
  ProgramSpec spec = linear_like();
  spec.calls = {{kNeg, {0, 1, 1}}, {kAdd, {1, 2, 3, 3}}, {kNeg, {0, 1, 1}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  EXPECT_EQ(run(kInput), expected_linear());
}

TEST_F(ConstantFolding, LeavesAValueReadBeforeItsWriteToEveryRun) {
  // The add reads v1 before the neg writes it: the first run sees zeros.
  ProgramSpec spec = linear_like();
  spec.calls = {{kAdd, {1, 2, 3, 3}}, {kNeg, {0, 1, 1}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  EXPECT_EQ(run(kInput), kInput);
}

TEST_F(ConstantFolding, LeavesCallsAfterAJumpToEveryRun) {
  ProgramSpec spec = linear_like();
  spec.values.push_back({ValueSpec::Bool, 0});
  spec.calls = {{kJump, {4, 1}}, {kNeg, {0, 1, 1}}, {kAdd, {1, 2, 3, 3}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  EXPECT_EQ(run(kInput), expected_linear());
  EXPECT_EQ(g_neg_calls, 1);
}

TEST_F(ConstantFolding, LeavesAResultAViewSharesToEveryRun) {
  // v4 is planned on v1's bytes and no call writes it: a view of v1, which the add reads.
  ProgramSpec spec = linear_like();
  spec.values.push_back({ValueSpec::Planned, 0});
  spec.calls = {{kNeg, {0, 1, 1}}, {kAdd, {4, 2, 3, 3}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  EXPECT_EQ(run(kInput), expected_linear());
}

TEST_F(ConstantFolding, FoldsAResultWhoseBytesAViewOfALaterTensorReads) {
  // v1 = neg(v0) at offset 0 dies after the add; v4 = neg(v3) reuses its bytes, and v5 is a
  // view of v4 (same bytes, no writer) that the last add reads: v4's write comes between.
  ProgramSpec spec = linear_like();
  spec.values.push_back({ValueSpec::Planned, 0});   // v4
  spec.values.push_back({ValueSpec::Planned, 0});   // v5, the view of v4
  spec.values.push_back({ValueSpec::Planned, 48});  // v6
  spec.outputs = {6};
  spec.calls = {{kNeg, {0, 1, 1}}, {kAdd, {1, 2, 3, 3}}, {kNeg, {3, 4, 4}}, {kAdd, {5, 2, 6, 6}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 1u);
  EXPECT_TRUE(method_->instruction_info(0).folded);
  // v6 = -(-w + x) + x = w
  EXPECT_EQ(run(kInput), kWeight);
  EXPECT_EQ(run(kInput), kWeight);
}

// v2 is the input at offset 16 and v4 a view of it (its bytes, no writer; ExecuTorch leaves one
// for a view of a program input), so set_input copies the input into its planned bytes.
ProgramSpec input_view(std::vector<CallSpec> calls) {
  return {{{ValueSpec::Constant, 1},
           {ValueSpec::Planned, 16},  // v1 = neg(v0), on the input's bytes
           {ValueSpec::Planned, 16},  // v2, the input
           {ValueSpec::Planned, 48},  // v3, the output
           {ValueSpec::Planned, 16},  // v4, the view of the input
           {ValueSpec::Planned, 32}},
          {kWeight},
          {2},
          {3},
          std::move(calls)};
}

TEST_F(ConstantFolding, FoldsAResultOnBytesAViewOfTheInputReadsBeforeIt) {
  // The view's read comes first: each run's set_input writes its bytes before it, so the neg,
  // which reuses them afterwards, folds (ExecuTorch's language models plan the tied embedding's
  // transpose over the token ids this way).
  ASSERT_EQ(load(input_view({{kAdd, {4, 4, 5, 5}}, {kNeg, {0, 1, 1}}, {kAdd, {1, 5, 3, 3}}})),
            Error::Ok)
      << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 1u);
  EXPECT_TRUE(method_->instruction_info(1).folded);
  std::vector<float> expected(kElements);
  for (size_t i = 0; i < kElements; ++i) expected[i] = -kWeight[i] + 2 * kInput[i];
  EXPECT_EQ(run(kInput), expected);
  EXPECT_EQ(run(kInput), expected);
}

TEST_F(ConstantFolding, LeavesAResultAViewOfTheInputReadsAfterItToEveryRun) {
  // The neg overwrites the input's bytes before the view reads them: the view reads -w.
  ASSERT_EQ(load(input_view({{kNeg, {0, 1, 1}}, {kAdd, {4, 4, 5, 5}}, {kAdd, {1, 5, 3, 3}}})),
            Error::Ok)
      << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  std::vector<float> expected(kElements);
  for (size_t i = 0; i < kElements; ++i) expected[i] = -3 * kWeight[i];
  EXPECT_EQ(run(kInput), expected);
}

TEST_F(ConstantFolding, AKernelsTemporariesLastForItsCallOnly) {
  // The temp call runs at every run (it reads the input): its temporary memory is reused from
  // one call to the next, not held for the method's life.
  ProgramSpec spec = {
      {{ValueSpec::Planned, 0}, {ValueSpec::Planned, 16}}, {}, {0}, {1}, {{kTemp, {0, 1, 1}}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  std::vector<float> expected(kElements);
  for (size_t i = 0; i < kElements; ++i) expected[i] = -kInput[i];
  for (int r = 0; r < 50; ++r) ASSERT_EQ(run(kInput), expected);
  const auto* temp = static_cast<const HeapAllocator*>(memory_->memory().temp);
  EXPECT_GE(temp->held(), kTempBytes);
  EXPECT_LT(temp->held(), 2 * kTempBytes);
}

TEST_F(ConstantFolding, ATensorACallReturnsLastsUntilTheNextRun) {
  // v1 = made(v0) lives in temporary memory; the temp call after it takes temporaries of its own
  // (and fills them with NaN): they must not be v1's.
  ProgramSpec spec = {{{ValueSpec::Planned, 0}, {ValueSpec::Planned, 16}, {ValueSpec::Planned, 32}},
                      {},
                      {0},
                      {2},
                      {{kMade, {0, 1}}, {kTemp, {1, 2, 2}}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  std::vector<float> expected(kElements);
  for (size_t i = 0; i < kElements; ++i) expected[i] = -2 * kInput[i];
  for (int r = 0; r < 3; ++r) ASSERT_EQ(run(kInput), expected);
  // Each run starts over: its temporaries do not pile up.
  const auto* temp = static_cast<const HeapAllocator*>(memory_->memory().temp);
  EXPECT_LT(temp->held(), 3 * kTempBytes);
}

TEST_F(ConstantFolding, LeavesACallDrawingRandomNumbersToEveryRun) {
  ProgramSpec spec = {{{ValueSpec::Planned, 0}}, {}, {}, {0}, {{kRand, {0, 0}}}};
  ASSERT_EQ(load(spec), Error::Ok) << last_error();
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  EXPECT_EQ(method_->fold_report().bytes, 0u);
  EXPECT_NE(run(), run());
}

TEST_F(ConstantFolding, LeavesWhatPassesTheMemoryBoundToEveryRunAndSaysSo) {
  Result<Program> program = [&] {
    bytes_ = build_program(linear_like());
    file_.assign(bytes_.size() / 16 + 1, Aligned{});
    std::memcpy(file_.data(), bytes_.data(), bytes_.size());
    return Program::load(file_.data(), bytes_.size());
  }();
  ASSERT_TRUE(program.ok()) << last_error();
  const MethodMeta meta = *program->method_meta("forward");
  // Room for the metadata, the arena and the analysis, not for the folded result.
  const size_t fixed = meta.metadata_bytes() + kArenaBytes;
  size_t bound = fixed;
  for (; bound < fixed + 4096; bound += 8) {
    ASSERT_EQ(load(linear_like(), true, bound), Error::Ok) << last_error();
    if (method_->fold_report().over_limit == 0) break;
    EXPECT_EQ(method_->fold_report().instructions, 0u);
    EXPECT_EQ(run(kInput), expected_linear());
  }
  EXPECT_GT(bound, fixed);
  EXPECT_EQ(method_->fold_report().instructions, 1u);
  EXPECT_LE(method_->fold_report().peak_bytes, bound - fixed);
  // One byte less than what folded leaves the call to the runs.
  ASSERT_EQ(load(linear_like(), true, fixed + method_->fold_report().peak_bytes - 1), Error::Ok);
  EXPECT_EQ(method_->fold_report().instructions, 0u);
  EXPECT_EQ(method_->fold_report().over_limit, 1u);
  EXPECT_EQ(run(kInput), expected_linear());
}

TEST_F(ConstantFolding, AKernelFailingOnConstantsFailsTheLoadNamingTheCall) {
  ProgramSpec spec = linear_like();
  spec.calls = {{kFail, {0, 1, 1}}, {kAdd, {1, 2, 3, 3}}};
  EXPECT_EQ(load(spec), Error::InvalidProgram);
  const std::string message = last_error();
  EXPECT_NE(message.find("instruction 0 (test::fail.out) fails at load on the program's "
                         "constants"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("refuses its input"), std::string::npos) << message;
}

}  // namespace
}  // namespace kiln
