// p-norm distances between rows, shared by _cdist_forward and _pdist_forward: the norm chosen
// from p as ATen chooses it (0: count of differing entries, 1, 2, infinity, else general).
#pragma once

#include <cmath>
#include <cstdint>

namespace kiln::portable {

enum class NormKind { kZero, kOne, kTwo, kInfinity, kGeneral };

inline NormKind norm_kind(double p) {
  if (p == 0) return NormKind::kZero;
  if (p == 1) return NormKind::kOne;
  if (p == 2) return NormKind::kTwo;
  if (std::isinf(p)) return NormKind::kInfinity;
  return NormKind::kGeneral;
}

// One norm's steps: map each |a - b|, reduce the mapped values, finish the reduction. The
// infinity norm's reduction comes in two flavours, as in ATen: cdist's scalar max skips NaN,
// pdist's vector max propagates it.
template <NormKind kKind, bool kMaxPropagatesNan>
struct Norm {
  template <typename T>
  static T map(T diff, T p) {
    if constexpr (kKind == NormKind::kZero) {
      const T step = std::ceil(diff);
      return T(1) < step ? T(1) : step;  // std::min(step, 1): NaN stays NaN
    } else if constexpr (kKind == NormKind::kTwo) {
      return diff * diff;
    } else if constexpr (kKind == NormKind::kGeneral) {
      return std::pow(diff, p);
    } else {
      return diff;
    }
  }

  template <typename T>
  static T reduce(T acc, T value) {
    if constexpr (kKind == NormKind::kInfinity) {
      if constexpr (kMaxPropagatesNan) {
        if (std::isnan(value)) return value;
      }
      return acc < value ? value : acc;
    } else {
      return acc + value;
    }
  }

  template <typename T>
  static T finish(T acc, T p) {
    if constexpr (kKind == NormKind::kTwo) {
      return std::sqrt(acc);
    } else if constexpr (kKind == NormKind::kGeneral) {
      return static_cast<T>(std::pow(acc, 1.0 / p));
    } else {
      return acc;
    }
  }
};

// Calls f(Norm<kind, kMaxPropagatesNan>{}) for the norm of p.
template <bool kMaxPropagatesNan, typename F>
void dispatch_norm(double p, F&& f) {
  switch (norm_kind(p)) {
    case NormKind::kZero:
      return f(Norm<NormKind::kZero, kMaxPropagatesNan>{});
    case NormKind::kOne:
      return f(Norm<NormKind::kOne, kMaxPropagatesNan>{});
    case NormKind::kTwo:
      return f(Norm<NormKind::kTwo, kMaxPropagatesNan>{});
    case NormKind::kInfinity:
      return f(Norm<NormKind::kInfinity, kMaxPropagatesNan>{});
    default:
      return f(Norm<NormKind::kGeneral, kMaxPropagatesNan>{});
  }
}

}  // namespace kiln::portable
