#pragma once
// The batches of a PyTorch reference fixture (batches.json: input_ids, token_type_ids,
// attention_mask and labels or start/end positions per batch; multiple choice's with a level of
// choices), and the relative L2 difference
// the bf16 tests compare gradients with.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "shmtrain/model/batch_validation.hpp"
#include "shmtrain/data/batch.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {

// The numbers of nested lists in order (multiple choice's [examples][choices][T] included).
inline void append_ints(const nlohmann::json& value, std::vector<std::int32_t>& out) {
  if (!value.is_array()) {
    out.push_back(value.get<int>());
    return;
  }
  for (const auto& item : value) append_ints(item, out);
}

inline std::vector<std::int32_t> flat_ints(const nlohmann::json& rows) {
  std::vector<std::int32_t> out;
  append_ints(rows, out);
  return out;
}

// Every batch of folder/batches.json, validated against `config`.
inline std::vector<data::Batch> read_fixture_batches(const std::filesystem::path& folder,
                                                     const model::BertConfig& config) {
  std::vector<data::Batch> batches;
  const nlohmann::json file = nlohmann::json::parse(read_file(folder / "batches.json"));
  for (const auto& j : file.at("batches")) {
    data::Batch b;
    const nlohmann::json& ids = j.at("input_ids");
    if (ids[0][0].is_array()) {  // multiple choice: [examples][choices][T], rows example-major
      b.choices = static_cast<std::int64_t>(ids[0].size());
      b.batch = static_cast<std::int64_t>(ids.size()) * b.choices;
      b.seq = static_cast<std::int64_t>(ids[0][0].size());
    } else {
      b.batch = static_cast<std::int64_t>(ids.size());
      b.seq = static_cast<std::int64_t>(ids[0].size());
    }
    b.input_ids = flat_ints(j.at("input_ids"));
    b.token_type_ids = flat_ints(j.at("token_type_ids"));
    b.attention_mask = flat_ints(j.at("attention_mask"));
    if (j.contains("labels")) b.labels = flat_ints(j.at("labels"));
    if (j.contains("start_positions")) {
      b.start_positions = flat_ints(j.at("start_positions"));
      b.end_positions = flat_ints(j.at("end_positions"));
    }
    model::validate_batch(b, config, "batches.json");
    batches.push_back(std::move(b));
  }
  return batches;
}

// The rows of a padded batch laid end to end without their padding (data/batch.hpp's packed
// layout). REQUIRES: each row's padding trails it.
inline data::Batch packed_copy(const data::Batch& padded) {
  data::Batch out = padded;
  out.input_ids.clear();
  out.token_type_ids.clear();
  out.attention_mask.clear();
  out.offsets = {0};
  std::int64_t longest = 0;
  for (std::int64_t b = 0; b < padded.batch; ++b) {
    std::int64_t length = 0;
    while (length < padded.seq && padded.attention_mask[b * padded.seq + length] != 0) ++length;
    const auto first = b * padded.seq;
    out.input_ids.insert(out.input_ids.end(), padded.input_ids.begin() + first,
                         padded.input_ids.begin() + first + length);
    out.token_type_ids.insert(out.token_type_ids.end(), padded.token_type_ids.begin() + first,
                              padded.token_type_ids.begin() + first + length);
    out.offsets.push_back(out.offsets.back() + static_cast<std::int32_t>(length));
    longest = std::max(longest, length);
  }
  out.seq = longest;
  return out;
}

// |a - b| / |b| over the whole vectors.
inline double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    norm += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(diff / norm);
}

}  // namespace shmtrain::testing
