#include "shmtrain/model/row_dropout.hpp"

namespace shmtrain::model {

std::uint64_t dropout_row_id(const data::Batch& batch, const StepContext& context, std::int64_t row) {
  return batch.row_ids.empty()
             ? context.rank * static_cast<std::uint64_t>(batch.batch) + static_cast<std::uint64_t>(row)
             : static_cast<std::uint64_t>(batch.row_ids[static_cast<std::size_t>(row)]);
}

RowDropout::RowDropout(const data::Batch& batch, const StepContext& context)
    : batch_(batch), context_(context) {}

tensor::DropoutKey RowDropout::key(std::int64_t row, std::uint64_t site) const {
  return tensor::dropout_key(context_.seed, dropout_row_id(batch_, context_, row), context_.step, site);
}

std::vector<tensor::DropoutKey> RowDropout::keys(std::uint64_t site) const {
  std::vector<tensor::DropoutKey> all;
  for (std::int64_t b = 0; b < batch_.batch; ++b) all.push_back(key(b, site));
  return all;
}

std::vector<RowDropout::Span> RowDropout::spans(std::int64_t width, RowUnit unit) const {
  std::vector<Span> all;
  std::int64_t word = 0;
  for (std::int64_t b = 0; b < batch_.batch; ++b) {
    const Span s = unit == RowUnit::kTokens
                       ? Span{batch_.row_begin(b) * width, batch_.row_length(b) * width, word}
                       : Span{b * width, width, word};
    all.push_back(s);
    word += tensor::dropout_mask_words(s.count);
  }
  return all;
}

std::int64_t RowDropout::mask_words(std::int64_t width, RowUnit unit) const {
  std::int64_t words = 0;
  for (const Span& s : spans(width, unit)) words += tensor::dropout_mask_words(s.count);
  return words;
}

void RowDropout::forward(float* out, const float* in, std::int64_t width, float p, std::uint64_t site,
                         std::uint16_t* mask, RowUnit unit) const {
  const std::vector<Span> rows = spans(width, unit);
  for (std::size_t b = 0; b < rows.size(); ++b) {
    const Span& s = rows[b];
    tensor::dropout_forward(out + s.first, in + s.first, s.count, p, key(static_cast<std::int64_t>(b), site),
                            0, mask != nullptr && p > 0.0f ? mask + s.mask_word : nullptr);
  }
}

template <typename T>
void RowDropout::backward_rows(T* dinp, const float* dout, std::int64_t width, float p,
                               const std::uint16_t* mask) const {
  if (p == 0.0f) {
    tensor::dropout_backward(dinp, dout, batch_.tokens() * width, p, mask);
    return;
  }
  for (const Span& s : spans(width, RowUnit::kTokens)) {
    tensor::dropout_backward(dinp + s.first, dout + s.first, s.count, p, mask + s.mask_word);
  }
}

void RowDropout::backward(float* dinp, const float* dout, std::int64_t width, float p,
                          const std::uint16_t* mask) const {
  backward_rows(dinp, dout, width, p, mask);
}

void RowDropout::backward(tensor::bf16* dinp, const float* dout, std::int64_t width, float p,
                          const std::uint16_t* mask) const {
  backward_rows(dinp, dout, width, p, mask);
}

void RowDropout::backward_redraw(float* dinp, const float* dout, std::int64_t width, float p,
                                 std::uint64_t site, RowUnit unit) const {
  forward(dinp, dout, width, p, site, nullptr, unit);
}

}  // namespace shmtrain::model
