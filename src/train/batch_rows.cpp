#include "batch_rows.hpp"

#include <algorithm>

#include "shmtrain/data/sampler.hpp"
#include "shmtrain/data/token_balance.hpp"

namespace shmtrain::train {

BatchRows::BatchRows(const data::Dataset& dataset, const BatchRowsOptions& options, int rank, int world_size)
    : options_(options), rank_(rank), world_size_(world_size) {
  for (const data::Example& example : dataset.examples) {
    lengths_.push_back(static_cast<std::int64_t>(example.input_ids.size()));
    if (options_.no_duplicates) keys_.push_back(example.text_keys);
  }
}

std::vector<std::int64_t> BatchRows::order_of(std::int64_t epoch, int rank) const {
  if (options_.group_by_length) {
    return data::length_grouped_indices(lengths_, options_.batch_size, options_.seed, epoch, rank,
                                        world_size_);
  }
  return data::epoch_indices(static_cast<std::int64_t>(lengths_.size()), options_.shuffle, options_.seed,
                             epoch, rank, world_size_);
}

std::vector<std::int64_t> BatchRows::slice(const std::vector<std::int64_t>& order, std::int64_t first,
                                           std::int64_t count) {
  const auto begin = std::min(order.size(), static_cast<std::size_t>(first));
  const auto end = std::min(order.size(), static_cast<std::size_t>(first + count));
  return std::vector<std::int64_t>(order.begin() + static_cast<std::ptrdiff_t>(begin),
                                   order.begin() + static_cast<std::ptrdiff_t>(end));
}

std::vector<std::int64_t> BatchRows::rows(std::int64_t epoch, std::int64_t batch) {
  if (options_.no_duplicates) {
    if (epoch_ != epoch) {
      const auto n = static_cast<std::int64_t>(lengths_.size());
      unique_batches_ = data::no_duplicate_batches(
          keys_, data::epoch_indices(n, options_.shuffle, options_.seed, epoch, 0, 1), options_.batch_size);
      left_out_ = 0;
      const auto dealt = static_cast<std::size_t>(options_.batches_per_epoch * world_size_);
      for (std::size_t b = dealt; b < unique_batches_.size(); ++b) {
        left_out_ += static_cast<std::int64_t>(unique_batches_[b].size());
      }
      epoch_ = epoch;
    }
    if (unique_batches_.empty()) return {};
    const auto position = static_cast<std::size_t>(batch * world_size_ + rank_);
    return unique_batches_[position % unique_batches_.size()];
  }
  const bool balance = options_.balance_tokens && world_size_ > 1;
  if (epoch_ != epoch) {
    orders_.clear();
    if (balance) {
      for (int r = 0; r < world_size_; ++r) orders_.push_back(order_of(epoch, r));
    } else {
      orders_.push_back(order_of(epoch, rank_));
    }
    epoch_ = epoch;
  }
  const std::int64_t first = batch * options_.batch_size;
  if (!balance) return slice(orders_.front(), first, options_.batch_size);
  std::vector<std::int64_t> global;
  std::vector<std::int64_t> counts;
  for (const std::vector<std::int64_t>& order : orders_) {
    const std::vector<std::int64_t> share = slice(order, first, options_.batch_size);
    global.insert(global.end(), share.begin(), share.end());
    counts.push_back(static_cast<std::int64_t>(share.size()));
  }
  return data::balance_tokens(global, lengths_, counts)[static_cast<std::size_t>(rank_)];
}

}  // namespace shmtrain::train
