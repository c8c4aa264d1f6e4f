// Ascend C kernel of the KV cache writes (reshape_and_cache, llama::update_cache and its kin):
// each token's key row, and its value row when there are two caches, goes into its slot. A core
// takes consecutive tokens (RowSplit); a tile of them comes GM -> UB in one DataCopy (strided
// when the rows lie where a row view has them, tiling.keys / tiling.values) and each row leaves
// for the slot the scalar unit reads from `slots`. The host has turned padding and every
// write a later token overrides into slot -1, so no two cores write one slot. Elements move as
// unsigned integers of their width: the bytes are what a cache keeps.
#include "kernel_operator.h"
#include "kernels/ascend/common/kernel_util.h"
#include "kernels/ascend/common/row_io.h"
#include "kernels/ascend/op_kv_cache/kv_cache_kernels.h"
#include "kernels/ascend/op_kv_cache/kv_cache_tiling.h"

using namespace AscendC;

namespace kiln::ascend {
namespace {

template <typename T>
class KvCacheKernel {
  static constexpr int32_t kBufferNum = 2;

 public:
  __aicore__ inline void Init(GM_ADDR key, GM_ADDR value, GM_ADDR slots, GM_ADDR key_cache,
                              GM_ADDR value_cache, const KvCacheTiling& tiling) {
    t_ = tiling;
    block_ = row_block(t_.split);
    if (block_.rows == 0) return;
    const uint64_t last = t_.split.rows - 1;
    const uint64_t cached = t_.slots * t_.split.pitch;
    key_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(key),
                         gm_row_offset(t_.keys, last) + t_.split.pitch);
    slots_.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t*>(slots), t_.split.rows);
    key_cache_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(key_cache), cached);
    if (t_.caches == 2) {
      value_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(value),
                             gm_row_offset(t_.values, last) + t_.split.pitch);
      value_cache_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(value_cache), cached);
    }
    pipe_.InitBuffer(in_, kBufferNum, block_.tile_elems * sizeof(T));
    pipe_.InitBuffer(out_, kBufferNum, block_.tile_elems * sizeof(T));
  }

  __aicore__ inline void Process() {
    if (block_.rows == 0) return;
    Write(key_, t_.keys, key_cache_);
    if (t_.caches == 2) Write(value_, t_.values, value_cache_);
  }

 private:
  // This core's rows of `src`, laid out as `layout`, into their slots of `cache`.
  __aicore__ inline void Write(const GlobalTensor<T>& src, const GmRows& layout,
                               const GlobalTensor<T>& cache) {
    const uint32_t pitch = t_.split.pitch;
    if (block_.chunked) {
      for (uint64_t r = block_.first; r < block_.first + block_.rows; ++r) {
        const int64_t slot = slots_.GetValue(r);
        if (slot < 0) continue;
        for (uint32_t offset = 0; offset < pitch; offset += t_.split.chunk) {
          const uint32_t n = chunk_copied(t_.split, offset);
          copy_in(in_, src[gm_row_offset(layout, r) + offset], n);
          Stage(n);
          copy_out(cache[static_cast<uint64_t>(slot) * pitch + offset], out_, n);
        }
      }
      return;
    }
    for (uint64_t r = 0; r < block_.rows; r += block_.tile_rows) {
      const uint64_t first = block_.first + r;
      const uint32_t rows = block_.TileRowsAt(r);
      copy_rows_in(in_, src, layout, first, rows, pitch, pitch);
      Stage(rows * pitch);
      LocalTensor<T> tile = out_.template DeQue<T>();
      for (uint32_t i = 0; i < rows; ++i) {
        const int64_t slot = slots_.GetValue(first + i);
        if (slot >= 0) DataCopy(cache[static_cast<uint64_t>(slot) * pitch], tile[i * pitch], pitch);
      }
      out_.FreeTensor(tile);
    }
  }

  // The tile copy_in queued, moved to the out queue (UB -> UB) for the copies out.
  __aicore__ inline void Stage(uint32_t count) {
    LocalTensor<T> a = in_.template DeQue<T>();
    LocalTensor<T> b = out_.template AllocTensor<T>();
    DataCopy(b, a, count);
    out_.EnQue(b);
    in_.FreeTensor(a);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 1> in_;
  TQue<TPosition::VECOUT, 1> out_;
  GlobalTensor<T> key_;
  GlobalTensor<T> value_;
  GlobalTensor<int64_t> slots_;
  GlobalTensor<T> key_cache_;
  GlobalTensor<T> value_cache_;
  KvCacheTiling t_;
  RowBlock block_;
};

template <typename T>
__aicore__ inline void run_kv_cache(GM_ADDR key, GM_ADDR value, GM_ADDR slots, GM_ADDR key_cache,
                                    GM_ADDR value_cache, GM_ADDR tiling) {
  run_kernel<KvCacheKernel<T>>(load_tiling<KvCacheTiling>(tiling), key, value, slots, key_cache,
                               value_cache);
}

}  // namespace
}  // namespace kiln::ascend

#define KILN_KV_CACHE_RUN kiln::ascend::run_kv_cache
KILN_ASCEND_DEFINE_KERNELS(KILN_KV_CACHE)
