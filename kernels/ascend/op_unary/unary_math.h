// The multi-step unary formulas (gelu, sigmoid, tanh) as vector-instruction sequences in float.
//
// Each takes n elements (whole repeats) of x, writes dst (which may not alias x), and uses the
// scratch tiles and masks that unary_needs() reserves for it. The formulas avoid cancellation
// so that results stay within the fp32 tolerance across the whole range, tails included.
#pragma once

#include "kernel_operator.h"

namespace kiln::ascend {

struct UnaryWork {
  AscendC::LocalTensor<float> s0, s1, s2;
  AscendC::LocalTensor<uint8_t> m0, m1;
};

// sigmoid(x) = 1 / (1 + exp(-x)): exp overflows to inf for x < -88 and the result to 0, as in
// torch; no cancellation anywhere.
__aicore__ inline void sigmoid_float(const AscendC::LocalTensor<float>& dst,
                                     const AscendC::LocalTensor<float>& x, const UnaryWork& w,
                                     uint32_t n) {
  AscendC::Muls(w.s0, x, -1.0f, n);
  AscendC::Exp(w.s0, w.s0, n);
  AscendC::Adds(w.s0, w.s0, 1.0f, n);
  AscendC::Duplicate(w.s1, 1.0f, n);
  AscendC::Div(dst, w.s1, w.s0, n);
}

// gelu(x, 'tanh') = 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3):
// the second form does not cancel for negative x and gives -0 where exp overflows.
__aicore__ inline void gelu_tanh_float(const AscendC::LocalTensor<float>& dst,
                                       const AscendC::LocalTensor<float>& x, const UnaryWork& w,
                                       uint32_t n) {
  constexpr float kKappa = 0.044715f;
  constexpr float kMinusTwoBeta = -1.5957691216057308f;  // -2 sqrt(2 / pi)
  AscendC::Mul(w.s0, x, x, n);
  AscendC::Mul(w.s0, w.s0, x, n);
  AscendC::Muls(w.s0, w.s0, kKappa, n);
  AscendC::Add(w.s0, w.s0, x, n);
  AscendC::Muls(w.s0, w.s0, kMinusTwoBeta, n);
  AscendC::Exp(w.s0, w.s0, n);
  AscendC::Adds(w.s0, w.s0, 1.0f, n);
  AscendC::Div(dst, x, w.s0, n);
}

// gelu(x, 'none') = x Phi(x). With z = |x| / sqrt(2) and e = erfc(z) / 2 = Phi(-|x|),
// Phi(x) = e for x < 0 and 1 - e otherwise, so the small tail is never computed as 1 - (1 - e).
// erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z / 2), maps z in [0, inf) to t in (0, 1]; P is a
// degree-9 Chebyshev least-squares fit (Kiln's own, against 40-digit erfc) of log(erfc(z) / t) +
// z^2, so erfc has a relative error below 1.2e-7 for every z >= 0.
__aicore__ inline void gelu_erf_float(const AscendC::LocalTensor<float>& dst,
                                      const AscendC::LocalTensor<float>& x, const UnaryWork& w,
                                      uint32_t n) {
  constexpr float kP[10] = {-1.2655122417989966f, 1.000024677474721f,    0.37407442297174165f,
                            0.0969244122424822f,  -0.18689549724114254f, 0.28041393815299875f,
                            -1.1375818465586747f, 1.4906896472193951f,   -0.8232390057288247f,
                            0.17110155328721446f};
  constexpr float kSqrtHalf = 0.70710678118654752f;
  AscendC::Abs(w.s0, x, n);
  AscendC::Muls(w.s0, w.s0, kSqrtHalf, n);  // z
  AscendC::Muls(w.s1, w.s0, 0.5f, n);
  AscendC::Adds(w.s1, w.s1, 1.0f, n);
  AscendC::Duplicate(w.s2, 1.0f, n);
  AscendC::Div(w.s1, w.s2, w.s1, n);  // t
  AscendC::Muls(w.s2, w.s1, kP[9], n);
  for (int k = 8; k >= 1; --k) {
    AscendC::Adds(w.s2, w.s2, kP[k], n);
    AscendC::Mul(w.s2, w.s2, w.s1, n);
  }
  AscendC::Adds(w.s2, w.s2, kP[0], n);  // P(t)
  AscendC::Mul(w.s0, w.s0, w.s0, n);
  AscendC::Sub(w.s2, w.s2, w.s0, n);
  AscendC::Exp(w.s2, w.s2, n);
  AscendC::Mul(w.s2, w.s2, w.s1, n);
  AscendC::Muls(w.s2, w.s2, 0.5f, n);  // e = Phi(-|x|)
  AscendC::Muls(w.s1, w.s2, -1.0f, n);
  AscendC::Adds(w.s1, w.s1, 1.0f, n);  // 1 - e
  AscendC::CompareScalar(w.m0, x, 0.0f, AscendC::CMPMODE::LT, n);
  AscendC::Select(w.s0, w.m0, w.s2, w.s1, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
  AscendC::Mul(dst, x, w.s0, n);
}

// tanh(x): for |x| < 0.55, x P(x^2) with P a degree-5 least-squares fit of tanh(x) / x (relative
// error 8e-9; x P keeps the sign of -0); elsewhere sign(x) (1 - E) / (1 + E), E = exp(-2|x|),
// which no longer cancels there and saturates to +-1 for large |x|.
__aicore__ inline void tanh_float(const AscendC::LocalTensor<float>& dst,
                                  const AscendC::LocalTensor<float>& x, const UnaryWork& w,
                                  uint32_t n) {
  constexpr float kQ[5] = {-0.3333333070835755f, 0.1333306970585808f, -0.05390604936057124f,
                           0.02130282663876975f, -0.006612643734871813f};
  constexpr float kSmall = 0.55f;
  AscendC::Abs(w.s0, x, n);
  AscendC::CompareScalar(w.m0, w.s0, kSmall, AscendC::CMPMODE::LT, n);  // false for NaN
  AscendC::CompareScalar(w.m1, x, 0.0f, AscendC::CMPMODE::LT, n);
  AscendC::Muls(w.s1, w.s0, -2.0f, n);
  AscendC::Exp(w.s1, w.s1, n);  // E
  AscendC::Muls(w.s2, w.s1, -1.0f, n);
  AscendC::Adds(w.s2, w.s2, 1.0f, n);
  AscendC::Adds(w.s1, w.s1, 1.0f, n);
  AscendC::Div(w.s2, w.s2, w.s1, n);  // tanh(|x|)
  AscendC::Muls(w.s1, w.s2, -1.0f, n);
  AscendC::Select(w.s2, w.m1, w.s1, w.s2, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
  AscendC::Mul(w.s1, x, x, n);  // s = x^2
  AscendC::Muls(w.s0, w.s1, kQ[4], n);
  for (int k = 3; k >= 0; --k) {
    AscendC::Adds(w.s0, w.s0, kQ[k], n);
    AscendC::Mul(w.s0, w.s0, w.s1, n);
  }
  AscendC::Adds(w.s0, w.s0, 1.0f, n);
  AscendC::Mul(w.s0, w.s0, x, n);
  AscendC::Select(dst, w.m0, w.s0, w.s2, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
}

}  // namespace kiln::ascend
