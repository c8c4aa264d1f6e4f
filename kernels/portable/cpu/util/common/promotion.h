// torch.result_type for the portable kernels: dtype promotion across tensors and scalars.
#pragma once

#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"

namespace kiln::portable {

// Accumulates operands and yields the dtype torch.result_type gives them. Operands rank in three
// tiers: dimensioned tensors, zero-dim tensors, then wrapped numbers (Python scalars, which count
// as Long, Float (the default dtype) or Bool). A lower tier changes the result only when it is of
// a higher category (bool < integer < floating), as in `int_tensor * 2.5 -> Float`. Returns
// Undefined where torch refuses to promote (complex, wide unsigned mixes).
class ResultType {
 public:
  void add_tensor(const Tensor& tensor);
  void add_scalar(const Scalar& scalar);
  ScalarType get() const;

 private:
  static void update(ScalarType& state, ScalarType dtype);

  ScalarType dimensioned_ = ScalarType::Undefined;
  ScalarType zero_dim_ = ScalarType::Undefined;
  ScalarType wrapped_ = ScalarType::Undefined;
};

inline ScalarType result_type(const Tensor& a, const Tensor& b) {
  ResultType r;
  r.add_tensor(a);
  r.add_tensor(b);
  return r.get();
}

inline ScalarType result_type(const Tensor& a, const Scalar& b) {
  ResultType r;
  r.add_tensor(a);
  r.add_scalar(b);
  return r.get();
}

}  // namespace kiln::portable
