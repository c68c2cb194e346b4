#pragma once
// Dropout over a batch's rows, each row drawing its mask from a key of its
// own — the row's global id (data::Batch::row_ids), the micro-step and the site — and each
// element from its place in the row (token t, channel c: t * width + c). A row's mask then
// depends neither on the worker that runs it nor on the rows beside it: one worker and P
// workers draw the same masks for the same rows, and a packed row draws on its real tokens
// what its padded form draws there.
#include <cstdint>
#include <vector>

#include "shmtrain/data/batch.hpp"
#include "shmtrain/model/step_context.hpp"
#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/dropout.hpp"

namespace shmtrain::model {

// Where the rows of a (rows, width) activation lie: every token of the batch's layout
// (kTokens: row b is its tokens), or one vector per row (kOnePerRow: a head's pooled rows).
enum class RowUnit { kTokens, kOnePerRow };

// Row b's id for its dropout masks: batch.row_ids[b], or, in a batch built without row ids
// (benchmarks, tests), its place after the worker's rows: rank * batch.batch + b.
std::uint64_t dropout_row_id(const data::Batch& batch, const StepContext& context, std::int64_t row);

class RowDropout {
 public:
  // REQUIRES: batch outlives this object.
  RowDropout(const data::Batch& batch, const StepContext& context);

  // Row b's key at `site`.
  tensor::DropoutKey key(std::int64_t row, std::uint64_t site) const;
  // Every row's key at `site` (attention draws each (row, head) matrix from its row's key).
  std::vector<tensor::DropoutKey> keys(std::uint64_t site) const;

  // The words a recorded mask of a (tokens, width) activation needs (rows start on a word).
  std::int64_t mask_words(std::int64_t width, RowUnit unit = RowUnit::kTokens) const;

  // out = dropout(in) row by row; out may alias in. `mask` (mask_words) records the mask
  // when not null. p == 0 copies.
  void forward(float* out, const float* in, std::int64_t width, float p, std::uint64_t site,
               std::uint16_t* mask, RowUnit unit = RowUnit::kTokens) const;
  // dinp = dropout's backward from the recorded mask (float or, for bf16 products, bf16).
  void backward(float* dinp, const float* dout, std::int64_t width, float p, const std::uint16_t* mask) const;
  void backward(tensor::bf16* dinp, const float* dout, std::int64_t width, float p,
                const std::uint16_t* mask) const;
  // The same drawing the mask again, for sites whose forward kept none.
  void backward_redraw(float* dinp, const float* dout, std::int64_t width, float p, std::uint64_t site,
                       RowUnit unit = RowUnit::kTokens) const;

 private:
  struct Span {
    std::int64_t first, count, mask_word;  // elements, and the row's first mask word
  };
  std::vector<Span> spans(std::int64_t width, RowUnit unit) const;
  template <typename T>
  void backward_rows(T* dinp, const float* dout, std::int64_t width, float p, const std::uint16_t* mask) const;

  const data::Batch& batch_;
  StepContext context_;
};

}  // namespace shmtrain::model
