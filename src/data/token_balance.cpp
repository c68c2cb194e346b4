#include "shmtrain/data/token_balance.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {

std::vector<std::vector<std::int64_t>> balance_tokens(const std::vector<std::int64_t>& rows,
                                                      const std::vector<std::int64_t>& lengths,
                                                      const std::vector<std::int64_t>& counts) {
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  if (total != static_cast<std::int64_t>(rows.size())) {
    throw Error(
        fmt::format("balance_tokens: {} rows for worker counts that add up to {}", rows.size(), total));
  }
  const auto length_of = [&](std::int64_t row) {
    if (row < 0 || row >= static_cast<std::int64_t>(lengths.size())) {
      throw Error(fmt::format("balance_tokens: row {} is outside the {} lengths", row, lengths.size()));
    }
    return lengths[static_cast<std::size_t>(row)];
  };
  std::vector<std::int64_t> order = rows;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return length_of(a) > length_of(b); });
  std::vector<std::vector<std::int64_t>> dealt(counts.size());
  std::vector<std::int64_t> tokens(counts.size(), 0);
  for (const std::int64_t row : order) {
    std::size_t chosen = counts.size();
    for (std::size_t w = 0; w < counts.size(); ++w) {
      if (static_cast<std::int64_t>(dealt[w].size()) >= counts[w]) continue;
      if (chosen == counts.size() || tokens[w] < tokens[chosen]) chosen = w;
    }
    dealt[chosen].push_back(row);
    tokens[chosen] += length_of(row);
  }
  return dealt;
}

}  // namespace shmtrain::data
