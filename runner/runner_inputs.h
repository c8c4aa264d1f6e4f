// The runner's input binding (files, scalars or seeded values) and output writing.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/tensor.h"
#include "runtime/executor/method.h"

namespace kiln::runner {

// Input index -> the sizes to bind it with (the runner's --shape), for dynamic inputs.
using InputShapes = std::map<size_t, std::vector<SizesType>>;

// Owns the memory of the bound inputs; keep it alive while the method runs.
class Inputs {
 public:
  // Binds every input of `method`: from `args` (a raw file per tensor input, a number per
  // scalar input) when given, else seeded values in [-1, 1) (integers in [0, 4), bools
  // alternating). A tensor input has the sizes `shapes` gives it, else the program's (a dynamic
  // input's bounds). Prints what is wrong and returns false on a bad argument.
  bool bind(Method& method, const std::vector<const char*>& args, uint64_t seed,
            const InputShapes& shapes = {});
  // Sets the bound tensor inputs again before another run: the memory plan may reuse an input's
  // planned bytes once the input is read (ExecuTorch's planner does too), so a copied-in input
  // does not survive a run. Prints what is wrong and returns false on failure.
  bool rebind(Method& method);

 private:
  struct Free {
    void operator()(void* p) const;
  };
  // One input tensor: our buffer under the declared metadata.
  struct Bound {
    size_t index = 0;  // the method input it is
    std::unique_ptr<uint8_t, Free> data;
    std::array<SizesType, kTensorDimensionLimit> sizes{};
    std::array<DimOrderType, kTensorDimensionLimit> dim_order{};
    std::array<StridesType, kTensorDimensionLimit> strides{};
    std::optional<TensorImpl> impl;
  };
  std::deque<Bound> bound_;
};

// The first `count` elements of `t`, as "[1.5, -2, ...]".
std::string format_head(const Tensor& t, int64_t count);

// Writes each tensor output to <dir>/output<i>.bin (raw bytes, as the inputs are read).
bool write_outputs(const Method& method, const char* dir);

}  // namespace kiln::runner
