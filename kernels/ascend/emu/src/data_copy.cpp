// DataCopy / DataCopyPad: the DMA rules (32 B lengths, alignment, bounds), then the copy itself.
#include "kernels/ascend/emu/api/data_copy.h"

#include <cstring>
#include <string>

#include "kernels/ascend/emu/src/state.h"

namespace kiln::ascend::emu::detail {
namespace {

// Field widths of the DMA instructions, as CANN 8.1.RC1's CheckDataCopyParams and
// CheckDataCopyPadParams (impl/dav_c220 and dav_m200 kernel_operator_data_copy_impl.h) check them.
constexpr uint32_t kMaxBlockCount = 4095;           // 12 bits
constexpr uint64_t kMaxDataCopyBlocks = 65535;      // DataCopyParams::blockLen: 16 bits of 32 B
constexpr uint64_t kMaxDataCopyPadBytes = 2097151;  // DataCopyExtParams::blockLen: 21 bits of 1 B

uint64_t extent(const CopyShape& shape, uint64_t gap) {
  return (uint64_t{shape.block_count} - 1) * (shape.block_bytes + gap) + shape.block_bytes;
}

uint64_t round_up_32(uint64_t bytes) { return (bytes + 31) / 32 * 32; }

// The element count covering `bytes` (rounded up), for messages in elements.
uint64_t elems(uint64_t bytes, uint32_t elem_size) { return (bytes + elem_size - 1) / elem_size; }

// DataCopy moves whole 32 B blocks: a shorter tail is silently dropped by the device.
void check_length(const std::string& api, uint64_t bytes, const std::string& from,
                  const std::string& to) {
  if (bytes % 32 == 0 && bytes != 0) return;
  const uint64_t kept = bytes / 32 * 32;
  const SocProfile& soc = launch_context().soc;
  raise(api + " of " + format_bytes(bytes) + " from " + from + " into " + to +
        ": length is not a multiple of 32 B (the device silently truncates it to " +
        format_bytes(kept) + (kept == 0 ? ", copying nothing" : "") + "); " +
        (soc.has_data_copy_pad
             ? "use DataCopyPad or pad on the host"
             : "pad on the host (" + std::string(soc.name) + " has no DataCopyPad)"));
}

void check_blocks(const std::string& api, uint32_t block_count, uint64_t block_bytes) {
  if (block_count == 0) raise(api + ": blockCount is 0 (it must be at least 1)");
  if (block_bytes == 0) raise(api + ": nothing to copy (count or blockLen is 0)");
  if (block_count > kMaxBlockCount) {
    raise(api + ": blockCount " + std::to_string(block_count) + " is over " +
          std::to_string(kMaxBlockCount) +
          ", the largest the 12-bit field of the DMA instruction holds; split the copy into "
          "several calls of at most 4095 blocks");
  }
}

// DataCopy's length travels as blockLen, 16 bits of 32 B blocks.
void check_data_copy_length(const std::string& api, uint64_t block_bytes) {
  if (block_bytes / 32 <= kMaxDataCopyBlocks) return;
  raise(api + ": a block of " + format_bytes(block_bytes) + " is " +
        std::to_string(block_bytes / 32) + " 32 B units, over the " +
        std::to_string(kMaxDataCopyBlocks) +
        " that DataCopyParams::blockLen (16 bits) holds; split the copy");
}

// DataCopyPad's blockLen is bytes, 21 bits of them.
void check_pad_length(const char* api, uint64_t block_bytes) {
  if (block_bytes <= kMaxDataCopyPadBytes) return;
  raise(std::string(api) + ": blockLen " + format_bytes(block_bytes) + " is over " +
        format_bytes(kMaxDataCopyPadBytes) +
        ", the largest the 21-bit blockLen of DataCopyExtParams holds; split the copy");
}

void require_data_copy_pad() {
  const SocProfile& soc = launch_context().soc;
  if (!soc.has_data_copy_pad) {
    raise(std::string("DataCopyPad is not available on ") + soc.name +
          "; pad the tensor on the host to a multiple of 32 B and use DataCopy");
  }
}

void fill(uint8_t* out, uint32_t count, const void* value, uint32_t elem_size) {
  for (uint32_t i = 0; i < count; ++i) std::memcpy(out + i * elem_size, value, elem_size);
}

}  // namespace

void copy_gm_to_ub(const char* api_name, const LocalRef& dst, const GmView& src,
                   const CopyShape& shape) {
  const std::string api = std::string(api_name) + " GM->UB";
  const uint32_t es = src.elem_size;
  check_local(dst, api.c_str(), "dst", 0, 0, es, 32);
  check_blocks(api, shape.block_count, shape.block_bytes);
  check_data_copy_length(api, shape.block_bytes);
  check_length(api, shape.block_bytes, describe_gm(src.address), describe_local(dst, es));
  const uint64_t ub_bytes = extent(shape, shape.dst_gap_bytes);
  check_local(dst, api.c_str(), "dst", 0, elems(ub_bytes, es), es, 32);
  check_gm(api.c_str(), src, 0, extent(shape, shape.src_gap_bytes), false, true);
  note_ub_access(dst, 0, ub_bytes, UbPipe::MTE2, true, api_name, "dst");
  uint8_t* out = dst.record->data + dst.byte_offset;
  const uint8_t* in = src.address;
  for (uint32_t i = 0; i < shape.block_count; ++i) {
    std::memcpy(out + i * (shape.block_bytes + shape.dst_gap_bytes),
                in + i * (shape.block_bytes + shape.src_gap_bytes), shape.block_bytes);
  }
  note_gm_to_ub(uint64_t{shape.block_count} * shape.block_bytes);
}

void copy_ub_to_gm(const char* api_name, const GmView& dst, const LocalRef& src,
                   const CopyShape& shape) {
  const std::string api = std::string(api_name) + " UB->GM";
  const uint32_t es = dst.elem_size;
  check_local(src, api.c_str(), "src", 0, 0, es, 32);
  check_blocks(api, shape.block_count, shape.block_bytes);
  check_data_copy_length(api, shape.block_bytes);
  check_length(api, shape.block_bytes, describe_local(src, es), describe_gm(dst.address));
  const uint64_t ub_bytes = extent(shape, shape.src_gap_bytes);
  check_local(src, api.c_str(), "src", 0, elems(ub_bytes, es), es, 32);
  check_gm(api.c_str(), dst, 0, extent(shape, shape.dst_gap_bytes), true, true);
  note_ub_access(src, 0, ub_bytes, UbPipe::MTE3, false, api_name, "src");
  const uint8_t* in = src.record->data + src.byte_offset;
  auto* out = const_cast<uint8_t*>(dst.address);
  for (uint32_t i = 0; i < shape.block_count; ++i) {
    uint8_t* block = out + i * (shape.block_bytes + shape.dst_gap_bytes);
    std::memcpy(block, in + i * (shape.block_bytes + shape.src_gap_bytes), shape.block_bytes);
    record_gm_write(block, shape.block_bytes);
  }
  note_ub_to_gm(uint64_t{shape.block_count} * shape.block_bytes);
}

void copy_ub_to_ub(const char* api_name, const LocalRef& dst, const LocalRef& src,
                   uint32_t elem_size, const CopyShape& shape) {
  const std::string api = std::string(api_name) + " UB->UB";
  check_local(src, api.c_str(), "src", 0, 0, elem_size, 32);
  check_local(dst, api.c_str(), "dst", 0, 0, elem_size, 32);
  check_blocks(api, shape.block_count, shape.block_bytes);
  check_data_copy_length(api, shape.block_bytes);
  check_length(api, shape.block_bytes, describe_local(src, elem_size),
               describe_local(dst, elem_size));
  const uint64_t src_bytes = extent(shape, shape.src_gap_bytes);
  const uint64_t dst_bytes = extent(shape, shape.dst_gap_bytes);
  check_local(src, api.c_str(), "src", 0, elems(src_bytes, elem_size), elem_size, 32);
  check_local(dst, api.c_str(), "dst", 0, elems(dst_bytes, elem_size), elem_size, 32);
  check_overlap(api.c_str(), "dst", dst, dst_bytes, "src", src, src_bytes);
  note_ub_access(src, 0, src_bytes, UbPipe::V, false, api_name, "src");
  note_ub_access(dst, 0, dst_bytes, UbPipe::V, true, api_name, "dst");
  const uint8_t* in = src.record->data + src.byte_offset;
  uint8_t* out = dst.record->data + dst.byte_offset;
  for (uint32_t i = 0; i < shape.block_count; ++i) {
    std::memmove(out + i * (shape.block_bytes + shape.dst_gap_bytes),
                 in + i * (shape.block_bytes + shape.src_gap_bytes), shape.block_bytes);
  }
}

void copy_pad_gm_to_ub(const LocalRef& dst, const GmView& src, const AscendC::DataCopyExtParams& p,
                       const PadShape& pad) {
  const char* api = "DataCopyPad GM->UB";
  const uint32_t es = src.elem_size;
  require_data_copy_pad();
  check_local(dst, api, "dst", 0, 0, es, 32);
  check_blocks(api, p.blockCount, p.blockLen);
  check_pad_length(api, p.blockLen);
  if (p.blockLen % es != 0) {
    raise(std::string(api) + ": blockLen " + format_bytes(p.blockLen) +
          " is not a multiple of the element size (" + format_bytes(es) + ")");
  }
  if (pad.left_elems * es > 32 || pad.right_elems * es > 32) {
    raise(std::string(api) + ": leftPadding/rightPadding (" + std::to_string(pad.left_elems) + "/" +
          std::to_string(pad.right_elems) + " elements) must each stay within 32 B");
  }
  const uint64_t ub_block =
      round_up_32(uint64_t{pad.left_elems + pad.right_elems} * es + p.blockLen);
  const uint64_t ub_stride = ub_block + uint64_t{p.dstStride} * 32;
  const uint64_t gm_stride = uint64_t{p.blockLen} + p.srcStride;
  const uint64_t ub_bytes = (uint64_t{p.blockCount} - 1) * ub_stride + ub_block;
  check_local(dst, api, "dst", 0, elems(ub_bytes, es), es, 32);
  check_gm(api, src, 0, (uint64_t{p.blockCount} - 1) * gm_stride + p.blockLen, false, false);
  note_ub_access(dst, 0, ub_bytes, UbPipe::MTE2, true, "DataCopyPad", "dst");
  uint8_t* out = dst.record->data + dst.byte_offset;
  for (uint32_t i = 0; i < p.blockCount; ++i) {
    uint8_t* block = out + i * ub_stride;
    if (pad.fill) fill(block, pad.left_elems, pad.value, es);
    std::memcpy(block + pad.left_elems * es, src.address + i * gm_stride, p.blockLen);
    if (pad.fill) fill(block + pad.left_elems * es + p.blockLen, pad.right_elems, pad.value, es);
  }
  note_gm_to_ub(uint64_t{p.blockCount} * p.blockLen);
}

void copy_pad_ub_to_gm(const GmView& dst, const LocalRef& src, uint32_t elem_size,
                       const AscendC::DataCopyExtParams& p) {
  const char* api = "DataCopyPad UB->GM";
  require_data_copy_pad();
  check_local(src, api, "src", 0, 0, elem_size, 32);
  check_blocks(api, p.blockCount, p.blockLen);
  check_pad_length(api, p.blockLen);
  const uint64_t ub_stride = round_up_32(p.blockLen) + uint64_t{p.srcStride} * 32;
  const uint64_t gm_stride = uint64_t{p.blockLen} + p.dstStride;
  const uint64_t ub_bytes = (uint64_t{p.blockCount} - 1) * ub_stride + p.blockLen;
  check_local(src, api, "src", 0, elems(ub_bytes, elem_size), elem_size, 32);
  check_gm(api, dst, 0, (uint64_t{p.blockCount} - 1) * gm_stride + p.blockLen, true, false);
  note_ub_access(src, 0, ub_bytes, UbPipe::MTE3, false, "DataCopyPad", "src");
  const uint8_t* in = src.record->data + src.byte_offset;
  auto* out = const_cast<uint8_t*>(dst.address);
  for (uint32_t i = 0; i < p.blockCount; ++i) {
    std::memcpy(out + i * gm_stride, in + i * ub_stride, p.blockLen);
    record_gm_write(out + i * gm_stride, p.blockLen);
  }
  note_ub_to_gm(uint64_t{p.blockCount} * p.blockLen);
}

}  // namespace kiln::ascend::emu::detail
