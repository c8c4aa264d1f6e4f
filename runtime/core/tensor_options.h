// Enums that operator schemas carry besides ScalarType: MemoryFormat and Layout (ATen's codes).
#pragma once

#include <cstdint>

namespace kiln {

enum class MemoryFormat : int8_t {
  Contiguous = 0,
  Preserve = 1,
  ChannelsLast = 2,
  ChannelsLast3d = 3
};

enum class Layout : int8_t { Strided = 0 };

}  // namespace kiln
