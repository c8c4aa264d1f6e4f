// The executor's prim operators on boxed stacks: Python's scalar rules, errors instead of
// overflow or division by zero, and the tensor metadata operators (sym_size, et_view,
// et_copy_index).
#include "runtime/executor/prim_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "runtime/core/dense_tensor.h"
#include "tests/native/kiln_printers.h"

namespace {

using kiln::Error;
using kiln::EValue;

// Runs prim operator `name` on `arguments` plus a return slot; the slot's value, or the error.
struct Call {
  Error error;
  EValue result;
  std::string message;
};

Call call(const char* name, std::initializer_list<EValue> arguments) {
  const kiln::Kernel* kernel = kiln::find_prim_op(name);
  EXPECT_NE(kernel, nullptr) << name;
  if (kernel == nullptr) return {Error::NotFound, EValue(), ""};
  EValue values[8];
  EValue* stack[8];
  size_t n = 0;
  for (const EValue& argument : arguments) values[n++] = argument;
  EXPECT_EQ(n, kernel->arguments) << name;
  for (size_t i = 0; i <= n; ++i) stack[i] = &values[i];
  kiln::KernelRuntimeContext ctx;
  const Error error = kernel->call(ctx, {stack, n + kernel->return_slots});
  return {error, values[n], ctx.failure_message()};
}

int64_t int_of(const Call& c) {
  EXPECT_EQ(c.error, Error::Ok) << c.message;
  EXPECT_TRUE(c.result.isInt()) << kiln::to_string(c.result.tag());
  return c.result.isInt() ? c.result.toInt() : 0;
}

double double_of(const Call& c) {
  EXPECT_EQ(c.error, Error::Ok) << c.message;
  EXPECT_TRUE(c.result.isDouble()) << kiln::to_string(c.result.tag());
  return c.result.isDouble() ? c.result.toDouble() : 0;
}

bool bool_of(const Call& c) {
  EXPECT_EQ(c.error, Error::Ok) << c.message;
  EXPECT_TRUE(c.result.isBool()) << kiln::to_string(c.result.tag());
  return c.result.isBool() && c.result.toBool();
}

EValue i(int64_t v) { return EValue(v); }
EValue d(double v) { return EValue(v); }

TEST(PrimOps, ArithmeticKeepsIntsAndFollowsPythonsRounding) {
  EXPECT_EQ(int_of(call("executorch_prim::add.Scalar", {i(3), i(4)})), 7);
  EXPECT_EQ(int_of(call("executorch_prim::add.Scalar", {EValue(true), i(4)})), 5);
  EXPECT_DOUBLE_EQ(double_of(call("executorch_prim::add.Scalar", {i(3), d(0.5)})), 3.5);
  EXPECT_EQ(int_of(call("executorch_prim::sub.Scalar", {i(3), i(5)})), -2);
  EXPECT_EQ(int_of(call("executorch_prim::mul.Scalar", {i(-3), i(5)})), -15);
  // Floor division and modulo round toward negative infinity, as Python's // and %.
  EXPECT_EQ(int_of(call("executorch_prim::floordiv.Scalar", {i(-7), i(2)})), -4);
  EXPECT_EQ(int_of(call("executorch_prim::floordiv.Scalar", {i(7), i(-2)})), -4);
  EXPECT_EQ(int_of(call("executorch_prim::floordiv.Scalar", {i(7), i(2)})), 3);
  EXPECT_EQ(int_of(call("executorch_prim::mod.Scalar", {i(-7), i(2)})), 1);
  EXPECT_EQ(int_of(call("executorch_prim::mod.Scalar", {i(7), i(-2)})), -1);
  EXPECT_EQ(int_of(call("executorch_prim::mod.Scalar", {i(-8), i(2)})), 0);
  EXPECT_DOUBLE_EQ(double_of(call("executorch_prim::floordiv.Scalar", {d(-7.5), i(2)})), -4.0);
  EXPECT_DOUBLE_EQ(double_of(call("executorch_prim::mod.Scalar", {d(-7.5), i(2)})), 0.5);
  EXPECT_DOUBLE_EQ(double_of(call("executorch_prim::truediv.Scalar", {i(7), i(2)})), 3.5);
  EXPECT_EQ(int_of(call("executorch_prim::sym_max.Scalar", {i(7), i(9)})), 9);
  EXPECT_DOUBLE_EQ(double_of(call("executorch_prim::sym_min.Scalar", {i(7), d(6.5)})), 6.5);
  EXPECT_EQ(int_of(call("executorch_prim::neg.Scalar", {i(7)})), -7);
  EXPECT_DOUBLE_EQ(double_of(call("executorch_prim::sym_float.Scalar", {i(7)})), 7.0);
}

TEST(PrimOps, RoundingGivesInts) {
  EXPECT_EQ(int_of(call("executorch_prim::round.Scalar", {d(2.5)})), 2);  // half to even
  EXPECT_EQ(int_of(call("executorch_prim::round.Scalar", {d(3.5)})), 4);
  EXPECT_EQ(int_of(call("executorch_prim::round.Scalar", {d(-2.5)})), -2);
  EXPECT_EQ(int_of(call("executorch_prim::ceil.Scalar", {d(1.2)})), 2);
  EXPECT_EQ(int_of(call("executorch_prim::ceil.Scalar", {d(-1.2)})), -1);
  EXPECT_EQ(int_of(call("executorch_prim::trunc.Scalar", {d(-1.7)})), -1);
  EXPECT_EQ(int_of(call("executorch_prim::sym_int.Scalar", {d(-1.7)})), -1);
  EXPECT_EQ(int_of(call("executorch_prim::ceil.Scalar", {i(5)})), 5);
}

TEST(PrimOps, ComparisonsAndLogicGiveBools) {
  EXPECT_TRUE(bool_of(call("executorch_prim::eq.Scalar", {i(2), d(2.0)})));
  EXPECT_FALSE(bool_of(call("executorch_prim::eq.Scalar", {i(2), i(3)})));
  EXPECT_TRUE(bool_of(call("executorch_prim::gt.Scalar", {i(3), i(2)})));
  EXPECT_TRUE(bool_of(call("executorch_prim::lt.Scalar", {d(-0.5), i(0)})));
  EXPECT_TRUE(bool_of(call("executorch_prim::ge.Scalar", {i(2), i(2)})));
  EXPECT_FALSE(bool_of(call("executorch_prim::le.Scalar", {i(3), i(2)})));
  EXPECT_FALSE(bool_of(call("executorch_prim::ge.Scalar", {d(std::nan("")), i(2)})));
  EXPECT_TRUE(bool_of(call("executorch_prim::sym_not.Scalar", {EValue(false)})));
  EXPECT_EQ(int_of(call("executorch_prim::sym_ite.Scalar", {EValue(true), i(4), i(5)})), 4);
  EXPECT_EQ(int_of(call("executorch_prim::sym_ite.Scalar", {EValue(false), i(4), i(5)})), 5);
}

TEST(PrimOps, OverflowDivisionByZeroAndWrongTagsAreErrors) {
  const Call add = call("executorch_prim::add.Scalar", {i(INT64_MAX), i(1)});
  EXPECT_EQ(add.error, Error::InvalidArgument);
  EXPECT_NE(add.message.find("overflows a 64-bit Int"), std::string::npos) << add.message;
  EXPECT_EQ(call("executorch_prim::mul.Scalar", {i(INT64_MAX / 2), i(3)}).error,
            Error::InvalidArgument);
  EXPECT_EQ(call("executorch_prim::floordiv.Scalar", {i(INT64_MIN), i(-1)}).error,
            Error::InvalidArgument);
  EXPECT_EQ(call("executorch_prim::neg.Scalar", {i(INT64_MIN)}).error, Error::InvalidArgument);
  const Call zero = call("executorch_prim::floordiv.Scalar", {i(1), i(0)});
  EXPECT_EQ(zero.error, Error::InvalidArgument);
  EXPECT_NE(zero.message.find("division by zero"), std::string::npos) << zero.message;
  EXPECT_EQ(call("executorch_prim::mod.Scalar", {i(1), i(0)}).error, Error::InvalidArgument);
  EXPECT_EQ(call("executorch_prim::truediv.Scalar", {d(1), d(0)}).error, Error::InvalidArgument);
  EXPECT_EQ(call("executorch_prim::ceil.Scalar", {d(1e300)}).error, Error::InvalidArgument);
  EXPECT_EQ(call("executorch_prim::round.Scalar", {d(std::nan(""))}).error, Error::InvalidArgument);
  const Call tag = call("executorch_prim::add.Scalar", {EValue(), i(1)});
  EXPECT_EQ(tag.error, Error::InvalidArgument);
  EXPECT_NE(tag.message.find("argument 0 is None"), std::string::npos) << tag.message;
}

TEST(PrimOps, SymSizeAndNumelReadTheTensorsShape) {
  float data[24] = {};
  kiln::DenseTensor<3> t(kiln::ScalarType::Float, {2, 3, 4}, data);
  EXPECT_EQ(int_of(call("aten::sym_size.int", {EValue(t.tensor()), i(1)})), 3);
  EXPECT_EQ(int_of(call("aten::sym_size.int", {EValue(t.tensor()), i(-1)})), 4);
  EXPECT_EQ(int_of(call("aten::sym_numel", {EValue(t.tensor())})), 24);
  const Call out_of_range = call("aten::sym_size.int", {EValue(t.tensor()), i(3)});
  EXPECT_EQ(out_of_range.error, Error::InvalidArgument);
  EXPECT_NE(out_of_range.message.find("dim 3 is out of range for a tensor of 3 dimensions"),
            std::string::npos)
      << out_of_range.message;
  EXPECT_EQ(call("aten::sym_size.int", {i(1), i(0)}).error, Error::InvalidArgument);
}

TEST(PrimOps, LocalScalarDenseReadsTheOneElement) {
  int32_t seven = 7;
  kiln::DenseTensor<1> one(kiln::ScalarType::Int, {1}, &seven);
  EXPECT_EQ(int_of(call("aten::_local_scalar_dense", {EValue(one.tensor())})), 7);
  double half = 0.5;
  kiln::DenseTensor<1> d1(kiln::ScalarType::Double, {1}, &half);
  EXPECT_DOUBLE_EQ(double_of(call("aten::_local_scalar_dense", {EValue(d1.tensor())})), 0.5);
  float two[2] = {};
  kiln::DenseTensor<1> many(kiln::ScalarType::Float, {2}, two);
  EXPECT_EQ(call("aten::_local_scalar_dense", {EValue(many.tensor())}).error,
            Error::InvalidArgument);
}

TEST(PrimOps, EtViewInfersASizeAndSharesTheBytes) {
  float data[12] = {};
  float planned[12] = {};
  kiln::DenseTensor<2> self(kiln::ScalarType::Float, {2, 6}, data);
  kiln::DenseTensor<3> out(kiln::ScalarType::Float, {4, 3, 1}, planned,
                           kiln::TensorShapeDynamism::DynamicBound);
  const kiln::Kernel* view = kiln::find_prim_op("executorch_prim::et_view.default");
  ASSERT_NE(view, nullptr);
  kiln::KernelRuntimeContext ctx;
  auto run = [&](std::initializer_list<int64_t> sizes) {
    int64_t ints[3];
    size_t n = 0;
    for (int64_t s : sizes) ints[n++] = s;
    EValue values[3] = {EValue(self.tensor()), EValue(kiln::ArrayRef<int64_t>(ints, n)),
                        EValue(out.tensor())};
    EValue* stack[3] = {&values[0], &values[1], &values[2]};
    ctx.reset_failure();
    return view->call(ctx, {stack, 3});
  };
  ASSERT_EQ(run({-1, 3, 2}), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.impl().sizes()[0], 2);
  EXPECT_EQ(out.impl().sizes()[2], 2);
  EXPECT_EQ(out.impl().data(), static_cast<const void*>(data));
  EXPECT_EQ(run({2, 3, 3}), Error::InvalidArgument);
  EXPECT_NE(std::string(ctx.failure_message()).find("a view of 12 elements cannot have 18"),
            std::string::npos)
      << ctx.failure_message();
  EXPECT_EQ(run({-1, -1, 2}), Error::InvalidArgument);
  EXPECT_EQ(run({-1, 5, 2}), Error::InvalidArgument);
  EXPECT_EQ(run({12}), Error::InvalidArgument);  // out's rank is 3
}

TEST(PrimOps, EtCopyIndexStacksRows) {
  float rows[6] = {};
  float row[3] = {1, 2, 3};
  kiln::DenseTensor<2> to(kiln::ScalarType::Float, {2, 3}, rows,
                          kiln::TensorShapeDynamism::DynamicBound);
  kiln::DenseTensor<1> from(kiln::ScalarType::Float, {3}, row);
  const kiln::Kernel* copy = kiln::find_prim_op("executorch_prim::et_copy_index.tensor");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->writes, 1u);
  kiln::KernelRuntimeContext ctx;
  for (int64_t index = 0; index < 3; ++index) {
    EValue values[3] = {EValue(to.tensor()), EValue(from.tensor()), EValue(index)};
    EValue* stack[3] = {&values[0], &values[1], &values[2]};
    ctx.reset_failure();
    const Error error = copy->call(ctx, {stack, 3});
    if (index < 2) {
      ASSERT_EQ(error, Error::Ok) << ctx.failure_message();
      EXPECT_EQ(to.impl().sizes()[0], index + 1);
      row[0] += 10;
    } else {
      EXPECT_EQ(error, Error::NotSupported) << "a third row is past copy_to's capacity";
    }
  }
  EXPECT_EQ(rows[0], 1);
  EXPECT_EQ(rows[3], 11);
  EXPECT_EQ(rows[5], 3);
}

TEST(PrimOps, AreFoundByNameWithOrWithoutDefault) {
  EXPECT_EQ(kiln::find_prim_op("executorch_prim::et_view"),
            kiln::find_prim_op("executorch_prim::et_view.default"));
  EXPECT_EQ(kiln::find_prim_op("aten::sym_numel.default"), kiln::find_prim_op("aten::sym_numel"));
  EXPECT_EQ(kiln::find_prim_op("aten::add.out"), nullptr);
  EXPECT_EQ(kiln::find_prim_op("executorch_prim::add"), nullptr);
  for (size_t k = 0; k < kiln::prim_op_count(); ++k) {
    const kiln::Kernel& op = kiln::prim_op(k);
    EXPECT_EQ(kiln::find_prim_op(op.name), &op);
    EXPECT_TRUE(kiln::is_prim_op(op));
  }
}

}  // namespace
