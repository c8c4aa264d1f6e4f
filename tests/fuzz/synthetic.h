// Programs the fuzz driver builds itself, with FlatBuffers' builder: plans far larger than the
// corpus's, sizes and offsets near their limits, and tables shared by many offsets (a small file
// that names one long list many times, the shape that once made loading quadratic).
#pragma once

#include <cstdint>
#include <vector>

namespace kiln_fuzz {

enum class Shape : uint8_t {
  Chain,              // n aten::mul.out calls in a row over planned tensors: a valid large plan
  SharedInstruction,  // n instructions, all one instruction whose call has 255 arguments
  SharedList,         // n values, all one IntList of n items
  SharedTensorList,   // n values, all one TensorList of n items
  SharedTensor,       // n tensor values, all one Tensor table (a valid plan)
  ConstantInput,      // a method input that is a constant tensor whose bytes another value shares
  ItemlessList,       // aten::cat.out of a TensorList stored without its items vector
  Limits,             // n values, arenas and operators with sizes, offsets and ids near limits
};
constexpr Shape kShapes[] = {
    Shape::Chain,        Shape::SharedInstruction, Shape::SharedList,   Shape::SharedTensorList,
    Shape::SharedTensor, Shape::ConstantInput,     Shape::ItemlessList, Shape::Limits};

const char* to_string(Shape shape);

// The .pte bytes (a bare flatbuffer, no extended header) of `shape` at scale `n` (n >= 1).
std::vector<uint8_t> synthetic_program(Shape shape, uint32_t n);

}  // namespace kiln_fuzz
