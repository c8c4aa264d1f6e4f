// kiln::paged_attention's computation (paged_attention.h): vLLM's paged attention v1 and v2.
//
// A work item is a (sequence, head block, partition): a block of up to kAttentionHeadBlock query
// heads that read one kv head, attending to one partition of kAttentionPartition tokens of the
// sequence's context with attend()'s online softmax. A context that fits one partition is
// attended in one item, stored straight into out (v1). A longer one has an item per partition,
// each keeping its heads' largest logit, sum of exponentials and normalised result in float (the
// max_logits, exp_sums and tmp_out of vLLM's v2), and a second pass combines them per (sequence,
// head): each partition's result weighted by its sum rescaled to the largest maximum, over the
// rescaled sums' total. Items are spread over the context's threads in order, so a single long
// sequence keeps every thread busy; results do not depend on the number of threads.
#include "kernels/portable/cpu/util/llm/paged_attention.h"

#include <cmath>
#include <cstdint>

#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/llm/attention.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "kernels/portable/cpu/util/vec/float_math.h"

namespace kiln::portable {
namespace {

// The cached rows of one kv head of a sequence, from token `start` of its context on (a
// partition's first): row j is context token start + j, in block blocks[token / block_size] at
// offset token % block_size. Flash rows are dense; a paged key row is head_size / x chunks
// block_size * x elements apart and a paged value row is head_size elements block_size apart,
// gathered into the buffer.
struct PagedRows {
  const char* key_cache;
  const char* value_cache;
  ScalarType type;
  size_t size;
  const CacheGeometry* g;
  int64_t head;
  const int32_t* narrow_blocks;  // Int tables
  const int64_t* wide_blocks;    // Long tables
  int64_t start;

  const float* key(int64_t j, float* buffer) const {
    int64_t block = 0, offset = 0;
    locate(j, &block, &offset);
    const char* row = key_cache + g->key_element(block, offset, head, 0) * size;
    if (g->layout == CacheLayout::kFlash) return dense(row, buffer);
    const int64_t chunk_stride = g->block_size * g->x;
    for (int64_t d = 0; d < g->head_size; d += g->x) {
      load_floats(row + (d / g->x) * chunk_stride * size, type, 1, g->x, buffer + d);
    }
    return buffer;
  }

  const float* value(int64_t j, float* buffer) const {
    int64_t block = 0, offset = 0;
    locate(j, &block, &offset);
    const char* row = value_cache + g->value_element(block, offset, head, 0) * size;
    if (g->layout == CacheLayout::kFlash) return dense(row, buffer);
    load_floats(row, type, g->block_size, g->head_size, buffer);
    return buffer;
  }

 private:
  void locate(int64_t j, int64_t* block, int64_t* offset) const {
    const int64_t token = start + j;
    const int64_t index = token / g->block_size;
    *block = narrow_blocks != nullptr ? narrow_blocks[index] : wide_blocks[index];
    *offset = token % g->block_size;
  }

  // A dense row as float: in place for Float, else converted into `buffer`.
  const float* dense(const char* row, float* buffer) const {
    if (type == ScalarType::Float) return reinterpret_cast<const float*>(row);
    load_floats(row, type, 1, g->head_size, buffer);
    return buffer;
  }
};

// Alibi: slopes[h] * (token - length + 1), the distance back from the sequence's last token, for
// rows that start at context token `start`.
struct AlibiBias {
  const float* slopes;
  int64_t length;
  int64_t start;

  float operator()(int64_t h, int64_t j) const {
    return slopes[h] * static_cast<float>(start + j - length + 1);
  }
};

// A partition's record for one head: its largest logit, its sum of exponentials, then its
// normalised result (head_size floats).
constexpr int64_t kRecordHeader = 2;

// What every item reads, and where partitions keep their records.
struct Work {
  const char* query;
  char* out;
  RowView query_rows;
  RowView out_rows;
  const char* key_cache;
  const char* value_cache;
  ScalarType type;
  size_t size;
  const CacheGeometry* g;
  const Tensor* block_tables;
  const Tensor* context_lens;
  const float* slopes;  // nullptr: no alibi
  float scale;
  int64_t heads;
  int64_t group;                // query heads per kv head
  int64_t group_blocks;         // head blocks per kv head
  int64_t head_blocks;          // head blocks per sequence
  const int64_t* items_before;  // per sequence, the items of those before it; nullptr: v1 only
  const int64_t* first_record;  // per sequence, its first partition's records, or -1: v1
  float* records;

  int64_t length(int64_t s) const { return index_at(*context_lens, s); }

  // Partitions of sequence s: one when it fits one, or without records.
  int64_t partitions(int64_t s) const {
    if (items_before == nullptr) return 1;
    return (items_before[s + 1] - items_before[s]) / head_blocks;
  }

  float* record(int64_t s, int64_t partition, int64_t head) const {
    const int64_t width = g->head_size + kRecordHeader;
    return records + ((first_record[s] + partition) * heads + head) * width;
  }
};

// Item `item`: its sequence, head block and partition attend; the result goes to out (one
// partition) or to the partition's records.
void run_item(const Work& w, int64_t item) {
  int64_t s = 0;
  if (w.items_before == nullptr) {
    s = item / w.head_blocks;
  } else {
    int64_t low = 0, high = w.block_tables->size(0);  // the last s with items_before[s] <= item
    while (high - low > 1) {
      const int64_t mid = (low + high) / 2;
      (w.items_before[mid] <= item ? low : high) = mid;
    }
    s = low;
  }
  const int64_t parts = w.partitions(s);
  const int64_t local = w.items_before == nullptr ? item % w.head_blocks : item - w.items_before[s];
  const int64_t block = local / parts;
  const int64_t partition = local % parts;
  const int64_t kv_head = block / w.group_blocks;
  const int64_t in_group = (block % w.group_blocks) * kAttentionHeadBlock;
  const int64_t h0 = kv_head * w.group + in_group;
  const int64_t count =
      w.group - in_group < kAttentionHeadBlock ? w.group - in_group : kAttentionHeadBlock;
  const int64_t d = w.g->head_size;
  const int64_t length = w.length(s);
  const int64_t start = partition * kAttentionPartition;
  const int64_t tokens = parts == 1                             ? length
                         : length - start < kAttentionPartition ? length - start
                                                                : kAttentionPartition;

  float q[kAttentionHeadBlock * kMaxAttentionHeadSize];
  float result[kAttentionHeadBlock * kMaxAttentionHeadSize];
  float slopes[kAttentionHeadBlock];
  float maxima[kAttentionHeadBlock];
  float sums[kAttentionHeadBlock];
  load_floats(w.query + (s * w.query_rows.stride + h0 * d) * w.size, w.type, 1, count * d, q);
  for (int64_t h = 0; h < count; ++h) slopes[h] = w.slopes != nullptr ? w.slopes[h0 + h] : 0.0f;
  const int64_t max_blocks = w.block_tables->size(1);
  const bool narrow = w.block_tables->scalar_type() == ScalarType::Int;
  const PagedRows rows{
      w.key_cache,
      w.value_cache,
      w.type,
      w.size,
      w.g,
      kv_head,
      narrow ? w.block_tables->const_data_ptr<int32_t>() + s * max_blocks : nullptr,
      narrow ? nullptr : w.block_tables->const_data_ptr<int64_t>() + s * max_blocks,
      start};
  attend(rows, q, count, d, tokens, w.scale, AlibiBias{slopes, length, start}, result, maxima,
         sums);
  if (parts == 1) {
    store_floats(result, count * d, w.type, w.out + (s * w.out_rows.stride + h0 * d) * w.size);
    return;
  }
  for (int64_t h = 0; h < count; ++h) {
    float* record = w.record(s, partition, h0 + h);
    record[0] = maxima[h];
    record[1] = sums[h];
    for (int64_t i = 0; i < d; ++i) record[kRecordHeader + i] = result[h * d + i];
  }
}

// Head h of sequence s from its partitions' records (vLLM's paged_attention_v2_reduce_kernel).
void combine_partitions(const Work& w, int64_t s, int64_t h) {
  const int64_t parts = w.partitions(s);
  if (parts == 1) return;
  const int64_t d = w.g->head_size;
  float largest = -INFINITY;
  for (int64_t p = 0; p < parts; ++p) {
    const float maximum = w.record(s, p, h)[0];
    largest = maximum > largest ? maximum : largest;
  }
  float acc[kMaxAttentionHeadSize];
  for (int64_t i = 0; i < d; ++i) acc[i] = 0.0f;
  float total = 0.0f;
  for (int64_t p = 0; largest != -INFINITY && p < parts; ++p) {
    const float* record = w.record(s, p, h);
    if (record[1] == 0.0f) continue;  // every token of the partition masked out
    const float weight = record[1] * exp_float(record[0] - largest);
    total += weight;
    axpy_row(weight, record + kRecordHeader, acc, d);
  }
  if (total > 0.0f) scale_row(acc, 1.0f / total, acc, d);
  store_floats(acc, d, w.type, w.out + (s * w.out_rows.stride + h * d) * w.size);
}

// Lays out the partitions: items_before and first_record per sequence, and the records, from
// the context's temp memory. False (v1 only) without it or when no context needs two partitions.
bool plan_partitions(KernelRuntimeContext& ctx, Work& w, int64_t seqs) {
  int64_t records = 0;
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t parts = (w.length(s) + kAttentionPartition - 1) / kAttentionPartition;
    records += parts > 1 ? parts : 0;
  }
  if (records == 0) return false;
  const size_t indices = static_cast<size_t>(2 * seqs + 1) * sizeof(int64_t);
  const size_t floats =
      static_cast<size_t>(records * w.heads * (w.g->head_size + kRecordHeader)) * sizeof(float);
  auto* memory = static_cast<char*>(ctx.try_allocate_temp(indices + floats, 64));
  if (memory == nullptr) return false;
  auto* items_before = reinterpret_cast<int64_t*>(memory);
  int64_t* first_record = items_before + seqs + 1;
  items_before[0] = 0;
  int64_t next = 0;
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t parts = (w.length(s) + kAttentionPartition - 1) / kAttentionPartition;
    first_record[s] = parts > 1 ? next : -1;
    next += parts > 1 ? parts : 0;
    items_before[s + 1] = items_before[s] + (parts > 1 ? parts : 1) * w.head_blocks;
  }
  w.items_before = items_before;
  w.first_record = first_record;
  w.records = reinterpret_cast<float*>(memory + indices);
  return true;
}

}  // namespace

void paged_attention(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key_cache,
                     const Tensor& value_cache, const Tensor& block_tables,
                     const Tensor& context_lens, float scale,
                     const std::optional<Tensor>& alibi_slopes, const CacheGeometry& g,
                     Tensor& out) {
  const int64_t seqs = query.size(0);
  const int64_t heads = query.size(1);
  const int64_t group = heads / g.kv_heads;
  const int64_t group_blocks = (group + kAttentionHeadBlock - 1) / kAttentionHeadBlock;
  Work w{static_cast<const char*>(query.const_data_ptr()),
         static_cast<char*>(out.mutable_data_ptr()),
         row_view(query),
         row_view(out),
         static_cast<const char*>(key_cache.const_data_ptr()),
         static_cast<const char*>(value_cache.const_data_ptr()),
         query.scalar_type(),
         static_cast<size_t>(query.element_size()),
         &g,
         &block_tables,
         &context_lens,
         alibi_slopes.has_value() ? alibi_slopes->const_data_ptr<float>() : nullptr,
         scale,
         heads,
         group,
         group_blocks,
         g.kv_heads * group_blocks,
         nullptr,
         nullptr,
         nullptr};
  if (seqs == 0 || heads == 0) return;
  const bool partitioned = plan_partitions(ctx, w, seqs);
  const int64_t items = partitioned ? w.items_before[seqs] : seqs * w.head_blocks;
  // Work per item, for the grain: its tokens' rows times the heads of a block.
  int64_t tokens = 0;
  for (int64_t s = 0; s < seqs; ++s) tokens += w.length(s) > 0 ? w.length(s) : 1;
  const int64_t work = tokens * heads * g.head_size / (items > 0 ? items : 1);
  parallel_for(ctx, 0, items, items_grain(work), [&](int64_t first, int64_t last) {
    for (int64_t item = first; item < last; ++item) run_item(w, item);
  });
  if (!partitioned) return;
  parallel_for(ctx, 0, seqs * heads, items_grain(g.head_size * 8),
               [&](int64_t first, int64_t last) {
                 for (int64_t i = first; i < last; ++i) combine_partitions(w, i / heads, i % heads);
               });
}

}  // namespace kiln::portable
