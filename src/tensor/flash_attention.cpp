#include "shmtrain/tensor/flash_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <tbb/parallel_for.h>

#include "element_math.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "vector_math.hpp"

namespace shmtrain::tensor {
namespace {

// Query and key tiles of 64 tokens: a 64 x 64 score tile and the four 64 x head_dim operand
// tiles of one task stay in L2 (head_dim 64: 80 KiB), and a local layer's window of 128 keys
// spans three key tiles.
constexpr std::int64_t kTile = 64;
constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// rows x head_dim of one third of qkv (0 = Q, 1 = K, 2 = V) for head h, from token `first`, as
// contiguous floats.
template <typename T>
void load_tile(float* tile, const T* qkv, std::int64_t first, std::int64_t rows, int third, std::int64_t h,
               const FlashAttentionShape& s) {
  const std::int64_t stride = 3 * s.hidden();
  const T* from = qkv + first * stride + third * s.hidden() + h * s.head_dim;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < s.head_dim; ++c) tile[r * s.head_dim + c] = as_float(from[r * stride + c]);
  }
}

// rows x head_dim of an (N, H) tensor, head h.
template <typename T>
void load_rows(float* tile, const T* x, std::int64_t first, std::int64_t rows, std::int64_t h,
               const FlashAttentionShape& s) {
  const T* from = x + first * s.hidden() + h * s.head_dim;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < s.head_dim; ++c) tile[r * s.head_dim + c] = as_float(from[r * s.hidden() + c]);
  }
}

float scale_of(const FlashAttentionShape& s) {
  return s.scale != 0.0f ? s.scale : 1.0f / std::sqrt(static_cast<float>(s.head_dim));
}

// The keys tokens [q0, q1) of a sequence [begin, end) may see.
struct KeyRange {
  std::int64_t begin, end;
};
KeyRange keys_of(std::int64_t q0, std::int64_t q1, std::int64_t begin, std::int64_t end, std::int64_t window) {
  if (window < 0) return {begin, end};
  return {std::max(begin, q0 - window), std::min(end, q1 + window)};
}

// The same the other way: the queries that keys [k0, k1) are seen by (the relation is symmetric).
KeyRange queries_of(std::int64_t k0, std::int64_t k1, std::int64_t begin, std::int64_t end, std::int64_t window) {
  return keys_of(k0, k1, begin, end, window);
}

// p[c] = exp(p[c] - shift) over [0, n): libmvec's 8-wide exp where the CPU has AVX2 (every
// element, the tail through masked loads, so a row's values do not depend on its length's
// remainder), std::exp elsewhere. exp(-infinity) is 0 either way.
__attribute__((target("avx2"))) void exp_minus_avx2(float* p, std::int64_t n, float shift) {
  const __m256 s = _mm256_set1_ps(shift);
  for (std::int64_t c = 0; c < n; c += 8) {
    const __m256i lanes = vector_math::tail_mask8(n - c);
    const __m256 x = _mm256_maskload_ps(p + c, lanes);
    _mm256_maskstore_ps(p + c, lanes, vector_math::exp8(_mm256_sub_ps(x, s)));
  }
}

void exp_minus(float* p, std::int64_t n, float shift) {
  if (vector_math::have_avx2()) {
    exp_minus_avx2(p, n, shift);
    return;
  }
  for (std::int64_t c = 0; c < n; ++c) p[c] = std::exp(p[c] - shift);
}

// The forward's per-row softmax step, 8 lanes at a time where the CPU has AVX2 (a scalar max and
// sum over a 64-wide row cost as much as the row's share of the two tile products): the row's
// maximum, then p = exp(p - shift) in place and the sum of p (lane sums added in a fixed order).
__attribute__((target("avx2"))) float row_max_avx2(const float* p, std::int64_t n) {
  __m256 m = _mm256_set1_ps(kMinusInfinity);
  for (std::int64_t c = 0; c < n; c += 8) {
    const __m256i lanes = vector_math::tail_mask8(n - c);
    const __m256 x = _mm256_blendv_ps(_mm256_set1_ps(kMinusInfinity), _mm256_maskload_ps(p + c, lanes),
                                      _mm256_castsi256_ps(lanes));
    m = _mm256_max_ps(m, x);
  }
  alignas(32) float lane[8];
  _mm256_store_ps(lane, m);
  return *std::max_element(lane, lane + 8);
}

__attribute__((target("avx2"))) float exp_minus_sum_avx2(float* p, std::int64_t n, float shift) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 sum = _mm256_setzero_ps();
  for (std::int64_t c = 0; c < n; c += 8) {
    const __m256i lanes = vector_math::tail_mask8(n - c);
    const __m256 e = _mm256_and_ps(vector_math::exp8(_mm256_sub_ps(_mm256_maskload_ps(p + c, lanes), s)),
                                   _mm256_castsi256_ps(lanes));
    _mm256_maskstore_ps(p + c, lanes, e);
    sum = _mm256_add_ps(sum, e);
  }
  alignas(32) float lane[8];
  _mm256_store_ps(lane, sum);
  float total = 0.0f;
  for (const float x : lane) total += x;
  return total;
}

float max_of_row(const float* p, std::int64_t n) {
  if (vector_math::have_avx2()) return row_max_avx2(p, n);
  return *std::max_element(p, p + n);
}

float exp_minus_sum(float* p, std::int64_t n, float shift) {
  if (vector_math::have_avx2()) return exp_minus_sum_avx2(p, n, shift);
  float sum = 0.0f;
  for (std::int64_t c = 0; c < n; ++c) sum += p[c] = std::exp(p[c] - shift);
  return sum;
}

// scores (rows x cols) = scale * Q K^T, outside the window -infinity.
void score_tile(float* scores, const float* q, const float* k, std::int64_t rows, std::int64_t cols,
                std::int64_t q0, std::int64_t k0, float scale, const FlashAttentionShape& s) {
  gemm_serial(Trans::kNo, Trans::kYes, rows, cols, s.head_dim, scale, q, s.head_dim, k, s.head_dim, 0.0f, scores,
              cols);
  // Nothing to mask on a global layer, or when every pair of the tile is inside the window.
  if (s.window < 0 || std::max(q0 + rows - 1 - k0, k0 + cols - 1 - q0) <= s.window) return;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int64_t distance = (q0 + r) - (k0 + c);
      if (distance > s.window || distance < -s.window) scores[r * cols + c] = kMinusInfinity;
    }
  }
}

// Each (sequence, head, tile of 64 tokens), in a fixed order: body(b, h, first, rows).
template <typename Body>
void for_each_tile(const FlashAttentionShape& s, const Body& body) {
  std::vector<std::int64_t> tile_begin(static_cast<std::size_t>(s.batch) + 1, 0);
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t len = s.offsets[b + 1] - s.offsets[b];
    tile_begin[static_cast<std::size_t>(b) + 1] = tile_begin[static_cast<std::size_t>(b)] + (len + kTile - 1) / kTile;
  }
  const std::int64_t tiles = tile_begin.back();
  tbb::parallel_for(std::int64_t{0}, tiles * s.heads, [&](std::int64_t task) {
    const std::int64_t h = task % s.heads;
    const std::int64_t tile = task / s.heads;
    const auto b = static_cast<std::int64_t>(std::upper_bound(tile_begin.begin(), tile_begin.end(), tile) -
                                             tile_begin.begin()) - 1;
    const std::int64_t first = s.offsets[b] + (tile - tile_begin[static_cast<std::size_t>(b)]) * kTile;
    body(b, h, first, std::min(kTile, s.offsets[b + 1] - first));
  });
}

// A forward task's tiles, one set per thread (a task is a few microseconds of work: allocating
// them per task showed as malloc and page clearing in the profile).
struct ForwardTiles {
  std::vector<float> q, k, v, acc, scores, row_max, row_sum;
  void reset(std::int64_t head_dim) {
    const auto tile = static_cast<std::size_t>(kTile * head_dim);
    for (auto* t : {&q, &k, &v}) t->resize(tile);
    acc.assign(tile, 0.0f);
    scores.resize(static_cast<std::size_t>(kTile * kTile));
    row_max.assign(static_cast<std::size_t>(kTile), kMinusInfinity);
    row_sum.assign(static_cast<std::size_t>(kTile), 0.0f);
  }
};

template <typename T>
void forward(T* out, float* lse, const T* qkv, const FlashAttentionShape& s) {
  const float scale = scale_of(s);
  const std::int64_t d = s.head_dim;
  for_each_tile(s, [&](std::int64_t b, std::int64_t h, std::int64_t q0, std::int64_t rows) {
    thread_local ForwardTiles tiles;
    tiles.reset(d);
    auto& [q, k, v, acc, scores, row_max, row_sum] = tiles;
    load_tile(q.data(), qkv, q0, rows, 0, h, s);
    const KeyRange keys = keys_of(q0, q0 + rows, s.offsets[b], s.offsets[b + 1], s.window);
    for (std::int64_t k0 = keys.begin; k0 < keys.end; k0 += kTile) {
      const std::int64_t cols = std::min(kTile, keys.end - k0);
      load_tile(k.data(), qkv, k0, cols, 1, h, s);
      load_tile(v.data(), qkv, k0, cols, 2, h, s);
      score_tile(scores.data(), q.data(), k.data(), rows, cols, q0, k0, scale, s);
      for (std::int64_t r = 0; r < rows; ++r) {
        float* p = scores.data() + r * cols;
        const float tile_max = max_of_row(p, cols);
        const float new_max = std::max(row_max[static_cast<std::size_t>(r)], tile_max);
        if (new_max == kMinusInfinity) {  // no key of this tile in the row's window yet
          std::fill(p, p + cols, 0.0f);
          continue;
        }
        const float correction = std::exp(row_max[static_cast<std::size_t>(r)] - new_max);
        const float sum = exp_minus_sum(p, cols, new_max);
        row_sum[static_cast<std::size_t>(r)] = row_sum[static_cast<std::size_t>(r)] * correction + sum;
        row_max[static_cast<std::size_t>(r)] = new_max;
        for (std::int64_t c = 0; c < d; ++c) acc[static_cast<std::size_t>(r * d + c)] *= correction;
      }
      gemm_serial(Trans::kNo, Trans::kNo, rows, d, cols, 1.0f, scores.data(), cols, v.data(), d, 1.0f, acc.data(),
                  d);
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const float inverse = 1.0f / row_sum[static_cast<std::size_t>(r)];
      T* o = out + (q0 + r) * s.hidden() + h * d;
      for (std::int64_t c = 0; c < d; ++c) store(o + c, acc[static_cast<std::size_t>(r * d + c)] * inverse);
      lse[(q0 + r) * s.heads + h] = row_max[static_cast<std::size_t>(r)] + std::log(row_sum[static_cast<std::size_t>(r)]);
    }
  });
}

// delta_i = sum_c dout_ic * out_ic per (token, head): the softmax backward's row term.
template <typename T>
std::vector<float> row_deltas(const T* dout, const T* out, const FlashAttentionShape& s) {
  std::vector<float> delta(static_cast<std::size_t>(s.tokens() * s.heads));
  tbb::parallel_for(std::int64_t{0}, s.tokens(), [&](std::int64_t i) {
    for (std::int64_t h = 0; h < s.heads; ++h) {
      float sum = 0.0f;
      for (std::int64_t c = 0; c < s.head_dim; ++c) {
        const std::int64_t at = i * s.hidden() + h * s.head_dim + c;
        sum += as_float(dout[at]) * as_float(out[at]);
      }
      delta[static_cast<std::size_t>(i * s.heads + h)] = sum;
    }
  });
  return delta;
}

// One (query tile, key tile) pair of the backward: probs = exp(scores - lse) and
// dscores = probs * (dout V^T - delta), both rows x cols.
struct PairTiles {
  std::vector<float> probs, dscores;
  explicit PairTiles() : probs(static_cast<std::size_t>(kTile * kTile)), dscores(probs.size()) {}
};

void pair_tiles(PairTiles& t, const float* q, const float* k, const float* v, const float* dout, const float* lse,
                const float* delta, std::int64_t q0, std::int64_t rows, std::int64_t k0, std::int64_t cols,
                std::int64_t h, float scale, const FlashAttentionShape& s) {
  const std::int64_t d = s.head_dim;
  score_tile(t.probs.data(), q, k, rows, cols, q0, k0, scale, s);
  gemm_serial(Trans::kNo, Trans::kYes, rows, cols, d, 1.0f, dout, d, v, d, 0.0f, t.dscores.data(), cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float row_lse = lse[(q0 + r) * s.heads + h];
    const float row_delta = delta[static_cast<std::size_t>((q0 + r) * s.heads + h)];
    float* p = t.probs.data() + r * cols;
    float* ds = t.dscores.data() + r * cols;
    exp_minus(p, cols, row_lse);  // 0 outside the window
    for (std::int64_t c = 0; c < cols; ++c) ds[c] = p[c] * (ds[c] - row_delta);
  }
}

// The backward's unit of work: up to kChunkTiles key tiles of one (sequence, head). Every
// (key tile, query tile) pair is visited once: its probabilities and score gradients give dV,
// dK (owned by the key tile) and the pair's dQ part, which goes to the chunk's own buffer over
// the queries that see its keys; the buffers are summed in chunk order afterwards, so no sum
// depends on the threads.
constexpr std::int64_t kChunkTiles = 8;

struct Chunk {
  std::int64_t b, h, k0, k1;  // keys [k0, k1)
  KeyRange queries;           // the queries that see them
  std::size_t partial;        // offset of its dQ buffer, (queries) x head_dim floats
};

// A backward task's buffers, one set per thread: the chunk's queries and output gradients
// (rows x head_dim), a key tile's K, V, dK and dV, the pair tiles.
struct BackwardTiles {
  std::vector<float> q, g, k, v, dk, dv;
  PairTiles pair;
  void reset(std::int64_t rows, std::int64_t head_dim) {
    const auto seen = static_cast<std::size_t>(rows * head_dim);
    for (auto* b : {&q, &g}) b->resize(std::max(b->size(), seen));
    for (auto* b : {&k, &v, &dk, &dv}) b->resize(static_cast<std::size_t>(kTile * head_dim));
  }
};

std::vector<Chunk> backward_chunks(const FlashAttentionShape& s, std::size_t& partial_floats) {
  std::vector<Chunk> chunks;
  partial_floats = 0;
  const std::int64_t span = kChunkTiles * kTile;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t begin = s.offsets[b];
    const std::int64_t end = s.offsets[b + 1];
    for (std::int64_t k0 = begin; k0 < end; k0 += span) {
      const std::int64_t k1 = std::min(end, k0 + span);
      const KeyRange queries = queries_of(k0, k1, begin, end, s.window);
      for (std::int64_t h = 0; h < s.heads; ++h) {
        chunks.push_back({b, h, k0, k1, queries, partial_floats});
        partial_floats += static_cast<std::size_t>((queries.end - queries.begin) * s.head_dim);
      }
    }
  }
  return chunks;
}

template <typename T>
void backward(T* dqkv, const T* dout, const T* qkv, const T* out, const float* lse, const FlashAttentionShape& s) {
  const float scale = scale_of(s);
  const std::int64_t d = s.head_dim;
  const std::vector<float> delta = row_deltas(dout, out, s);
  const auto tile_floats = static_cast<std::size_t>(kTile * d);
  std::size_t partial_floats = 0;
  const std::vector<Chunk> chunks = backward_chunks(s, partial_floats);
  // Buffers kept from call to call (every layer's backward asks for the same sizes): fresh ones
  // of these sizes cost page faults each time.
  thread_local std::vector<float> kept;
  kept.resize(std::max(kept.size(), partial_floats));
  float* const partials = kept.data();  // the calling thread's: the tasks below run on others
  tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t index) {
    const Chunk& c = chunks[index];
    const std::int64_t rows_seen = c.queries.end - c.queries.begin;
    // The chunk's queries and output gradients, converted once.
    thread_local BackwardTiles tiles;
    tiles.reset(rows_seen, d);
    auto& [q, g, k, v, dk, dv, t] = tiles;
    load_tile(q.data(), qkv, c.queries.begin, rows_seen, 0, c.h, s);
    load_rows(g.data(), dout, c.queries.begin, rows_seen, c.h, s);
    float* dq = partials + c.partial;
    std::fill_n(dq, rows_seen * d, 0.0f);
    for (std::int64_t k0 = c.k0; k0 < c.k1; k0 += kTile) {
      const std::int64_t cols = std::min(kTile, c.k1 - k0);
      load_tile(k.data(), qkv, k0, cols, 1, c.h, s);
      load_tile(v.data(), qkv, k0, cols, 2, c.h, s);
      std::fill(dk.begin(), dk.end(), 0.0f);
      std::fill(dv.begin(), dv.end(), 0.0f);
      const KeyRange queries = queries_of(k0, k0 + cols, s.offsets[c.b], s.offsets[c.b + 1], s.window);
      for (std::int64_t q0 = queries.begin; q0 < queries.end; q0 += kTile) {
        const std::int64_t rows = std::min(kTile, queries.end - q0);
        const float* q_rows = q.data() + (q0 - c.queries.begin) * d;
        const float* g_rows = g.data() + (q0 - c.queries.begin) * d;
        pair_tiles(t, q_rows, k.data(), v.data(), g_rows, lse, delta.data(), q0, rows, k0, cols, c.h, scale, s);
        gemm_serial(Trans::kYes, Trans::kNo, cols, d, rows, 1.0f, t.probs.data(), cols, g_rows, d, 1.0f, dv.data(),
                    d);
        gemm_serial(Trans::kYes, Trans::kNo, cols, d, rows, scale, t.dscores.data(), cols, q_rows, d, 1.0f,
                    dk.data(), d);
        gemm_serial(Trans::kNo, Trans::kNo, rows, d, cols, scale, t.dscores.data(), cols, k.data(), d, 1.0f,
                    dq + (q0 - c.queries.begin) * d, d);
      }
      for (std::int64_t r = 0; r < cols; ++r) {
        T* row = dqkv + (k0 + r) * 3 * s.hidden() + c.h * d;
        for (std::int64_t e = 0; e < d; ++e) {
          store(row + s.hidden() + e, dk[static_cast<std::size_t>(r * d + e)]);
          store(row + 2 * s.hidden() + e, dv[static_cast<std::size_t>(r * d + e)]);
        }
      }
    }
  });
  // dQ: each query row, the chunks that saw it summed in chunk order (chunks of one sequence
  // are listed key chunk by key chunk, each with every head).
  for_each_tile(s, [&](std::int64_t b, std::int64_t h, std::int64_t q0, std::int64_t rows) {
    std::vector<float> dq(tile_floats, 0.0f);
    for (const Chunk& c : chunks) {
      if (c.b != b || c.h != h) continue;
      const std::int64_t from = std::max(q0, c.queries.begin);
      const std::int64_t to = std::min(q0 + rows, c.queries.end);
      for (std::int64_t r = from; r < to; ++r) {
        const float* part = partials + c.partial + (r - c.queries.begin) * d;
        float* sum = dq.data() + (r - q0) * d;
        for (std::int64_t e = 0; e < d; ++e) sum[e] += part[e];
      }
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      T* row = dqkv + (q0 + r) * 3 * s.hidden() + h * d;
      for (std::int64_t e = 0; e < d; ++e) store(row + e, dq[static_cast<std::size_t>(r * d + e)]);
    }
  });
}

}  // namespace

void flash_attention_forward(float* out, float* lse, const float* qkv, const FlashAttentionShape& shape) {
  forward(out, lse, qkv, shape);
}

void flash_attention_backward(float* dqkv, const float* dout, const float* qkv, const float* out,
                              const float* lse, const FlashAttentionShape& shape) {
  backward(dqkv, dout, qkv, out, lse, shape);
}

void flash_attention_forward(bf16* out, float* lse, const bf16* qkv, const FlashAttentionShape& shape) {
  forward(out, lse, qkv, shape);
}

void flash_attention_backward(bf16* dqkv, const bf16* dout, const bf16* qkv, const bf16* out, const float* lse,
                              const FlashAttentionShape& shape) {
  backward(dqkv, dout, qkv, out, lse, shape);
}

}  // namespace shmtrain::tensor
