// Ascend C kernel of kiln::reshape_and_cache.paged_layout: each unit (a written cache block and
// kv head, paged_kv_cache_tiling.h) brings the block's key tile [head_size / x, block_size, x]
// and value tile [head_size, block_size] into UB, places the rows of every token the block takes
// (key element d at (d / x) * block_size * x + offset * x + d % x, value element d at
// d * block_size + offset) on the scalar unit, and writes the tiles back. Elements move as
// unsigned integers of their width: the bytes are what a cache keeps.
#include "kernel_operator.h"
#include "kernels/ascend/common/gm_rows.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_paged_kv_cache/paged_kv_cache_kernels.h"
#include "kernels/ascend/op_paged_kv_cache/paged_kv_cache_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

template <typename T>
class PagedKvCacheKernel {
 public:
  __aicore__ inline void Init(GM_ADDR keys, GM_ADDR values, GM_ADDR plan, GM_ADDR key_cache,
                              GM_ADDR value_cache, const PagedKvCacheTiling& tiling) {
    t_ = tiling;
    const BlockRange range = block_range(t_.units, t_.block_units);
    first_ = static_cast<uint32_t>(range.start);
    units_ = static_cast<uint32_t>(range.length);
    if (units_ == 0) return;
    tile_ = t_.head_size * t_.block_size;
    plan_.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(plan));
    keys_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(keys));
    values_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(values));
    key_cache_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(key_cache));
    value_cache_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(value_cache));
    pipe_.InitBuffer(key_tile_, tile_ * sizeof(T));
    pipe_.InitBuffer(value_tile_, tile_ * sizeof(T));
    pipe_.InitBuffer(key_row_, t_.row_copy * sizeof(T));
    pipe_.InitBuffer(value_row_, t_.row_copy * sizeof(T));
  }

  __aicore__ inline void Process() {
    for (uint32_t u = 0; u < units_; ++u) {
      const uint32_t unit = first_ + u;
      Unit(unit / t_.kv_heads, unit % t_.kv_heads);
    }
  }

 private:
  // The writes into written block `b`, kv head h.
  __aicore__ inline void Unit(uint32_t b, uint32_t h) {
    const int64_t block = plan_.GetValue(b);
    const int64_t first = plan_.GetValue(t_.touched + b);
    const int64_t last = plan_.GetValue(t_.touched + b + 1);
    const uint64_t writes = 2 * uint64_t{t_.touched} + 1;  // where the write list starts
    const uint64_t tile = (static_cast<uint64_t>(block) * t_.kv_heads + h) * tile_;
    LocalTensor<T> key_tile = key_tile_.Get<T>();
    LocalTensor<T> value_tile = value_tile_.Get<T>();
    LocalTensor<T> key_row = key_row_.Get<T>();
    LocalTensor<T> value_row = value_row_.Get<T>();
    // The last unit's tiles have left UB before this one's come in.
    wait_pipe<HardEvent::MTE3_MTE2>();
    DataCopy(key_tile, key_cache_[tile], tile_);
    DataCopy(value_tile, value_cache_[tile], tile_);
    const uint32_t chunk = t_.block_size * t_.x;  // elements between a key row's chunks
    for (int64_t w = first; w < last; ++w) {
      const uint64_t token = static_cast<uint64_t>(plan_.GetValue(writes + 2 * w));
      const uint32_t offset = static_cast<uint32_t>(plan_.GetValue(writes + 2 * w + 1));
      const uint64_t head = uint64_t{h} * t_.head_size;
      // The scalar unit is done with the last token's rows before MTE2 overwrites them.
      wait_pipe<HardEvent::S_MTE2>();
      DataCopy(key_row, keys_[gm_row_offset(t_.keys, token) + head], t_.row_copy);
      DataCopy(value_row, values_[gm_row_offset(t_.values, token) + head], t_.row_copy);
      wait_pipe<HardEvent::MTE2_S>();
      for (uint32_t d = 0; d < t_.head_size; ++d) {
        key_tile.SetValue((d / t_.x) * chunk + offset * t_.x + d % t_.x, key_row.GetValue(d));
        value_tile.SetValue(d * t_.block_size + offset, value_row.GetValue(d));
      }
    }
    wait_pipe<HardEvent::S_MTE3>();
    DataCopy(key_cache_[tile], key_tile, tile_);
    DataCopy(value_cache_[tile], value_tile, tile_);
  }

  TPipe pipe_;
  TBuf<TPosition::VECCALC> key_tile_;
  TBuf<TPosition::VECCALC> value_tile_;
  TBuf<TPosition::VECCALC> key_row_;
  TBuf<TPosition::VECCALC> value_row_;
  GlobalTensor<int64_t> plan_;
  GlobalTensor<T> keys_;
  GlobalTensor<T> values_;
  GlobalTensor<T> key_cache_;
  GlobalTensor<T> value_cache_;
  PagedKvCacheTiling t_{};
  uint32_t tile_ = 0;
  uint32_t first_ = 0;
  uint32_t units_ = 0;
};

template <typename T>
__aicore__ inline void run_paged_kv_cache(GM_ADDR keys, GM_ADDR values, GM_ADDR plan,
                                          GM_ADDR key_cache, GM_ADDR value_cache, GM_ADDR tiling) {
  run_kernel<PagedKvCacheKernel<T>>(load_tiling<PagedKvCacheTiling>(tiling), keys, values, plan,
                                    key_cache, value_cache);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_PAGED_KV_CACHE_RUN kiln::ascend::run_paged_kv_cache
KILN_ASCEND_DEFINE_KERNELS(KILN_PAGED_KV_CACHE)
