// Unified Buffer checks: tensor state, bounds, alignment, overlap; vector and reduce operands.
#include <string>

#include "kernels/ascend/emu/api/vector_cast.h"
#include "kernels/ascend/emu/api/vector_ops.h"
#include "kernels/ascend/emu/api/vector_reduce.h"
#include "kernels/ascend/emu/api/vector_select.h"
#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu::detail {
namespace {

std::string element_range(uint64_t first, uint64_t count) {
  return "elements [" + std::to_string(first) + ", " + std::to_string(first + count) + ")";
}

uint64_t ub_start(const LocalRef& ref) { return uint64_t{ref.record->ub_offset} + ref.byte_offset; }

}  // namespace

std::string describe_buffer(const BufferRecord& record) {
  std::string name = record.is_queue_slot ? "TQue<" : "TBuf<";
  name += AscendC::position_name(record.position);
  name += ">#" + std::to_string(record.owner_id);
  if (record.is_queue_slot) name += " buffer " + std::to_string(record.slot);
  return name;
}

std::string describe_local(const LocalRef& ref, uint32_t elem_size) {
  std::string text = describe_buffer(*ref.record);
  if (ref.byte_offset != 0) {
    text += " + " + format_bytes(ref.byte_offset) + " (element " +
            std::to_string(ref.byte_offset / elem_size) + ")";
  }
  return text;
}

void fail_local(const LocalRef& ref, const char* api, const char* role, uint64_t first_elem,
                uint64_t count, uint32_t elem_size, uint32_t alignment) {
  const std::string what = std::string(api) + " " + role;
  const BufferRecord* record = ref.record;
  if (record == nullptr) {
    raise(what +
          ": the LocalTensor was never allocated (get one from AllocTensor, DeQue or "
          "TBuf::Get)");
  }
  const std::string name = describe_local(ref, elem_size);
  if (record->state == BufferState::Released) {
    raise(what + ": uses " + name + " after TPipe::Reset released it");
  }
  if (record->generation != ref.generation) {
    raise(what + ": uses " + name +
          (record->state == BufferState::Free
               ? " after FreeTensor returned it to its queue (use after free)"
               : ", which was freed and allocated again since this tensor was taken (use after "
                 "free of a stale tensor)"));
  }
  if (record->state == BufferState::Queued) {
    raise(what + ": uses " + name +
          " while it sits in the queue (EnQue'd and not yet DeQue'd); DeQue it before touching "
          "it");
  }
  if (record->state == BufferState::Free) {
    raise(what + ": uses " + name + " after FreeTensor (use after free)");
  }
  const uint64_t start = ref.byte_offset + first_elem * elem_size;
  const uint64_t end = start + count * elem_size;
  if (end > record->bytes) {
    raise(what + ": " + element_range(first_elem, count) + " of " + name + " are bytes [" +
          std::to_string(start) + ", " + std::to_string(end) + ") of " + describe_buffer(*record) +
          ", which has " + format_bytes(record->bytes) +
          ": UB access out of bounds (it would touch the neighbouring buffer)");
  }
  raise(what + ": " + name + " starts at UB address " + std::to_string(record->ub_offset + start) +
        ", which is not " + std::to_string(alignment) +
        "-byte aligned; UB operands of DataCopy and vector instructions must start on a 32 B "
        "boundary (slice at multiples of " +
        std::to_string(32 / elem_size) + " elements)");
}

void check_overlap(const char* api, const char* dst_role, const LocalRef& dst, uint64_t dst_bytes,
                   const char* src_role, const LocalRef& src, uint64_t src_bytes) {
  if (dst.record == nullptr || src.record == nullptr) return;
  const uint64_t a = ub_start(dst);
  const uint64_t b = ub_start(src);
  const bool disjoint = a + dst_bytes <= b || b + src_bytes <= a;
  const bool identical = a == b && dst_bytes == src_bytes;
  if (disjoint || identical || dst_bytes == 0 || src_bytes == 0) return;
  raise(std::string(api) + ": " + dst_role + " (UB bytes [" + std::to_string(a) + ", " +
        std::to_string(a + dst_bytes) + ") in " + describe_buffer(*dst.record) +
        ") partially overlaps " + src_role + " (UB bytes [" + std::to_string(b) + ", " +
        std::to_string(b + src_bytes) + ") in " + describe_buffer(*src.record) +
        "); operands must coincide exactly (in place) or not overlap at all");
}

bool saturation_mode() { return launch_context().soc.saturates_float; }
bool reduce_sum_repeats_as_tree() { return launch_context().soc.reduce_sum_repeats_as_tree; }

VectorCall::VectorCall(const char* api, int32_t count)
    : api_(api), count_(0), saturates_(saturation_mode()) {
  if (count < 0) raise(std::string(api) + ": count " + std::to_string(count) + " is negative");
  count_ = static_cast<uint32_t>(count);
  note_vector_instruction();
}

uint32_t reduce_work_elements(uint32_t count, uint32_t elem_size, bool pairs) {
  const uint32_t per_repeat = AscendC::ONE_REPEAT_BYTE_SIZE / elem_size;
  const uint32_t per_block = AscendC::ONE_BLK_SIZE / elem_size;
  const uint32_t repeats = (count + per_repeat - 1) / per_repeat;
  const uint32_t outputs = pairs ? 2 * repeats : repeats;
  return (outputs + per_block - 1) / per_block * per_block;
}

void check_reduce(const char* api, const LocalRef& dst, const LocalRef& src, const LocalRef& work,
                  int32_t count, uint32_t elem_size, bool with_index) {
  note_vector_instruction();
  if (count <= 0)
    raise(std::string(api) + ": count " + std::to_string(count) + " must be positive");
  const bool pairs = std::string(api) != "ReduceSum";
  const uint64_t dst_elems = pairs && with_index ? 2 : 1;
  const uint32_t need = reduce_work_elements(static_cast<uint32_t>(count), elem_size, pairs);
  check_local(src, api, "src", 0, static_cast<uint64_t>(count), elem_size, 32);
  check_local(dst, api, "dst", 0, dst_elems, elem_size, 2 * elem_size);
  check_local(work, api, "work", 0, 0, elem_size, 32);
  const uint64_t available =
      work.byte_offset < work.record->bytes ? work.record->bytes - work.byte_offset : 0;
  if (available < uint64_t{need} * elem_size) {
    raise(std::string(api) + " work: " + std::to_string(count) + " inputs need a work tensor of " +
          std::to_string(need) + " elements (one " + (pairs ? "value/index pair" : "partial sum") +
          " per 256 B repeat, rounded up to 32 B) but " + describe_local(work, elem_size) +
          " has " + std::to_string(available / elem_size) + ": UB access out of bounds");
  }
  // The device reads each repeat before it writes that repeat's result, so the operands may
  // share their first element (the result lands on consumed inputs), but no other overlap.
  struct Span {
    const char* role;
    uint64_t begin;
    uint64_t bytes;
  };
  const Span spans[] = {{"dst", ub_start(dst), dst_elems * elem_size},
                        {"src", ub_start(src), uint64_t(count) * elem_size},
                        {"work", ub_start(work), uint64_t{need} * elem_size}};
  note_ub_access(src, 0, uint64_t(count) * elem_size, UbPipe::V, false, api, "src");
  note_ub_access(work, 0, uint64_t{need} * elem_size, UbPipe::V, true, api, "work");
  note_ub_access(dst, 0, dst_elems * elem_size, UbPipe::V, true, api, "dst");
  for (const Span& a : spans) {
    for (const Span& b : spans) {
      if (&a >= &b || a.begin == b.begin) continue;
      if (a.begin < b.begin + b.bytes && b.begin < a.begin + a.bytes) {
        raise(std::string(api) + ": " + a.role + " (UB bytes [" + std::to_string(a.begin) + ", " +
              std::to_string(a.begin + a.bytes) + ")) partially overlaps " + b.role +
              " (UB bytes [" + std::to_string(b.begin) + ", " + std::to_string(b.begin + b.bytes) +
              ")); reduction operands may share their start or not overlap at all");
      }
    }
  }
}

namespace {

const char* round_mode_name(AscendC::RoundMode mode) {
  static const char* const kNames[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  return kNames[static_cast<int>(mode)];
}

std::string round_mode_list(uint32_t modes) {
  std::string list;
  for (int m = 0; m <= static_cast<int>(AscendC::RoundMode::CAST_ODD); ++m) {
    if ((modes & (1u << m)) == 0) continue;
    if (!list.empty()) list += ", ";
    list += round_mode_name(static_cast<AscendC::RoundMode>(m));
  }
  return list;
}

}  // namespace

void check_round_mode(const char* pair, CastModes modes, AscendC::RoundMode mode) {
  const std::string what = std::string("Cast ") + pair;
  if (static_cast<int>(mode) < 0 || mode > AscendC::RoundMode::CAST_ODD) {
    raise(what + ": unknown RoundMode " + std::to_string(static_cast<int>(mode)));
  }
  const SocProfile& soc = launch_context().soc;
  const uint32_t allowed = soc.soc == Soc::Ascend310P ? modes.ascend310p : modes.ascend910b;
  if (allowed == 0) {
    raise(what + ": the vector unit of " + soc.name +
          " has no such conversion (CANN 8.1.RC1 reports it unsupported there); convert "
          "through another type, e.g. float->int32_t->float to round to an integer");
  }
  if ((allowed & (1u << static_cast<int>(mode))) != 0) return;
  std::string hint;
  if (allowed == kCastNoneOnly) {
    hint = " (the conversion is exact or has one rounding: write RoundMode::CAST_NONE)";
  } else if (mode == AscendC::RoundMode::CAST_NONE) {
    hint = " (name the rounding: CAST_RINT rounds to nearest even)";
  } else if (mode == AscendC::RoundMode::CAST_RINT && (allowed & kCastNoneOnly) != 0) {
    hint = " (CAST_NONE rounds to nearest even there)";
  }
  raise(what + ": RoundMode::" + round_mode_name(mode) + " is not supported on " + soc.name +
        ", which takes " + round_mode_list(allowed) + " for this pair" + hint);
}

void check_compare_count(const char* api, uint32_t count, uint32_t elem_size) {
  const uint32_t per_repeat = AscendC::ONE_REPEAT_BYTE_SIZE / elem_size;
  if (count % per_repeat == 0) return;
  const uint32_t whole = count / per_repeat * per_repeat;
  raise(std::string(api) + ": count " + std::to_string(count) + " is " +
        format_bytes(uint64_t{count} * elem_size) +
        ", not a whole number of 256 B repeats; the device compares whole repeats only and "
        "leaves the mask bits of elements [" +
        std::to_string(whole) + ", " + std::to_string(count) +
        ") unwritten; compare a multiple of " + std::to_string(per_repeat) +
        " elements (size the operands for it)");
}

void require_int32_compare(const char* api, AscendC::CMPMODE mode) {
  const SocProfile& soc = launch_context().soc;
  if (soc.soc == Soc::Ascend310P) {
    raise(std::string(api) + ": int32_t operands are not supported on " + soc.name +
          " (its vector unit compares half and float only); Cast to float first");
  }
  if (mode != AscendC::CMPMODE::EQ) {
    raise(std::string(api) + ": int32_t operands take CMPMODE::EQ only on " + soc.name +
          "; Cast to float first (exact below 2^24) for an ordering");
  }
}

void require_select_mode(AscendC::SELMODE mode, AscendC::SELMODE expected) {
  if (mode == expected) return;
  raise(std::string("Select: this form takes SELMODE::") +
        (expected == AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE ? "VSEL_TENSOR_TENSOR_MODE"
                                                               : "VSEL_TENSOR_SCALAR_MODE") +
        " (VSEL_CMPMASK_SPR needs the compare register, which the emulator does not model)");
}

}  // namespace kiln::ascend::emu::detail
