// Delegates registered by name (runtime/executor/delegate.h): a program calling one nobody
// registered is refused when it loads, naming it; a registered one is initialized with its
// payload and arguments at Method::load, executed at each run and destroyed with the Method, and
// the arguments it declares written are held to the write invariants.
#include "runtime/executor/delegate.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/tensor.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/heap_memory.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/program_generated.h"
#include "runtime/platform/last_error.h"

namespace kiln {
namespace {

// Method "forward": a float[4] input (value 0) and output (value 1), planned apart in arena 1,
// and one DelegateCall to delegate `id` with arguments {0, 1}, whose payload (inline data 0) is
// `payload`.
std::vector<uint8_t> delegate_program(const char* id, const std::vector<uint8_t>& payload) {
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
  auto output = tensor(16);
  auto values = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::EValue>>{input, output});
  auto inputs = b.CreateVector(std::vector<int32_t>{0});
  auto outputs = b.CreateVector(std::vector<int32_t>{1});
  auto call = pte_format::CreateDelegateCall(b, 0, b.CreateVector(std::vector<int32_t>{0, 1}));
  auto instruction = pte_format::CreateInstruction(
      b, pte_format::InstructionArguments::DelegateCall, call.Union());
  auto instructions =
      b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Instruction>>{instruction});
  auto chain = pte_format::CreateChain(b, 0, 0, instructions);
  auto chains = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::Chain>>{chain});
  auto reference =
      pte_format::CreateBackendDelegateDataReference(b, pte_format::DataLocation::INLINE, 0);
  auto delegate = pte_format::CreateBackendDelegate(b, b.CreateString(id), reference);
  auto delegates =
      b.CreateVector(std::vector<flatbuffers::Offset<pte_format::BackendDelegate>>{delegate});
  auto sizes = b.CreateVector(std::vector<int64_t>{0, 32});
  auto plan = pte_format::CreateExecutionPlan(b, b.CreateString("forward"), 0, values, inputs,
                                              outputs, chains, 0, delegates, sizes);
  auto plans = b.CreateVector(std::vector<flatbuffers::Offset<pte_format::ExecutionPlan>>{plan});
  auto data = pte_format::CreateBackendDelegateInlineData(b, b.CreateVector(payload));
  auto inline_data =
      b.CreateVector(std::vector<flatbuffers::Offset<pte_format::BackendDelegateInlineData>>{data});
  b.Finish(pte_format::CreateProgram(b, 0, plans, 0, inline_data), "ET12");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// Multiplies its input by the payload's one byte. Counts its calls; writes argument
// `written_arg` (the output, unless a test says otherwise).
class ScaleDelegate final : public Delegate {
 public:
  Result<void*> init(DelegateInitContext& context) const override {
    ++inits;
    if (context.payload().size != 1) {
      KILN_SET_ERROR("ScaleBackend: a payload of %zu bytes; it takes 1", context.payload().size);
      return Error::InvalidProgram;
    }
    context.mark_written(written_arg);
    return const_cast<uint8_t*>(context.payload().data);  // the handle: the factor's byte
  }
  Error execute(void* handle, KernelRuntimeContext&, Span<EValue*> args, bool) const override {
    ++runs;
    const float factor = *static_cast<const uint8_t*>(handle);
    const auto* in = static_cast<const float*>(args[0]->toTensor().const_data_ptr());
    auto* out = static_cast<float*>(args[1]->toTensor().mutable_data_ptr());
    for (int i = 0; i < 4; ++i) out[i] = in[i] * factor;
    return Error::Ok;
  }
  void destroy(void*) const override { ++destroyed; }

  mutable int inits = 0, runs = 0, destroyed = 0;
  mutable size_t written_arg = 1;
};

ScaleDelegate& scale_delegate() {
  static ScaleDelegate delegate;
  static const Error registered = register_delegate("ScaleBackend", delegate);
  EXPECT_EQ(registered, Error::Ok) << last_error();
  return delegate;
}

class DelegateTest : public ::testing::Test {
 protected:
  // Loads the program and its method; the first failing call's Error.
  Error load(const char* id, const std::vector<uint8_t>& payload) {
    method_.reset();
    memory_.reset();
    program_.reset();
    bytes_ = delegate_program(id, payload);
    std::memcpy(file_, bytes_.data(), bytes_.size());
    Result<Program> program = Program::load(file_, bytes_.size());
    if (!program.ok()) return program.error();
    program_.emplace(*program);
    memory_.emplace(*program_->method_meta("forward"));
    const Backend backend = Backend::Portable;
    Result<Method> method =
        Method::load(*program_, "forward", memory_->memory(), ArrayRef<Backend>(&backend, 1));
    if (!method.ok()) return method.error();
    method_.emplace(std::move(*method));
    return Error::Ok;
  }

  std::vector<uint8_t> bytes_;
  alignas(16) uint8_t file_[4096];
  std::optional<Program> program_;
  std::optional<HeapMethodMemory> memory_;
  std::optional<Method> method_;
};

bool says(const char* text) { return std::string(last_error()).find(text) != std::string::npos; }

TEST_F(DelegateTest, AProgramCallingAnUnregisteredDelegateIsRefusedNamingIt) {
  EXPECT_EQ(load("NobodysBackend", {3}), Error::NotSupported);
  EXPECT_TRUE(says("calls delegate 'NobodysBackend', which is not registered")) << last_error();
}

TEST_F(DelegateTest, ARegisteredDelegateRunsEachExecuteAndIsDestroyedWithTheMethod) {
  ScaleDelegate& delegate = scale_delegate();
  const int inits = delegate.inits, runs = delegate.runs, destroyed = delegate.destroyed;
  ASSERT_EQ(load("ScaleBackend", {3}), Error::Ok) << last_error();
  EXPECT_EQ(delegate.inits, inits + 1);
  float input[4] = {1, 2, 3, 4};
  SizesType sizes[] = {4};
  DimOrderType dim_order[] = {0};
  StridesType strides[] = {1};
  TensorImpl impl(ScalarType::Float, 1, sizes, input, dim_order, strides);
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(method_->set_input(0, EValue(Tensor(&impl))), Error::Ok) << last_error();
    ASSERT_EQ(method_->execute(), Error::Ok) << last_error();
    const auto* out = static_cast<const float*>(method_->output(0).toTensor().const_data_ptr());
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], input[i] * 3);
    input[0] = 10;
  }
  EXPECT_EQ(delegate.runs, runs + 2);
  const InstructionInfo info = method_->instruction_info(0);
  EXPECT_STREQ(info.kind, "DelegateCall");
  EXPECT_STREQ(info.op, "ScaleBackend");
  EXPECT_EQ(delegate.destroyed, destroyed);
  method_.reset();
  EXPECT_EQ(delegate.destroyed, destroyed + 1);
}

TEST_F(DelegateTest, AFailingInitFailsTheLoadWithItsMessage) {
  scale_delegate();
  EXPECT_EQ(load("ScaleBackend", {3, 4}), Error::InvalidProgram);
  EXPECT_TRUE(says("ScaleBackend: a payload of 2 bytes")) << last_error();
}

TEST_F(DelegateTest, ADelegateThatWouldWriteAnInputIsRefused) {
  ScaleDelegate& delegate = scale_delegate();
  const int destroyed = delegate.destroyed;
  delegate.written_arg = 0;
  const Error error = load("ScaleBackend", {3});
  delegate.written_arg = 1;
  EXPECT_EQ(error, Error::InvalidProgram);
  EXPECT_TRUE(says("writes value 0, a method input")) << last_error();
  EXPECT_EQ(delegate.destroyed, destroyed + 1);  // its handle, by the failed load
}

TEST_F(DelegateTest, NamesAreRegisteredOnce) {
  ScaleDelegate& delegate = scale_delegate();
  EXPECT_EQ(register_delegate("ScaleBackend", delegate), Error::RegistrationAlreadyRegistered);
  EXPECT_TRUE(says("'ScaleBackend' is already registered")) << last_error();
  EXPECT_EQ(register_delegate("XnnpackBackend", delegate), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(register_delegate("", delegate), Error::InvalidArgument);
  EXPECT_EQ(find_delegate("ScaleBackend"), &delegate);
  EXPECT_NE(find_delegate("XnnpackBackend"), nullptr);
}

}  // namespace
}  // namespace kiln
