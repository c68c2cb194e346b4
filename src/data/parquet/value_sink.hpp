#pragma once
// Where the value decoders put what they decode: each physical value becomes the JSON value
// of its column's kind (see shmtrain/data/parquet.hpp) and is appended to a vector. Strings
// are checked to be UTF-8 and charged to the budget.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "decode_budget.hpp"
#include "schema.hpp"

namespace shmtrain::data::parquet {

using Json = nlohmann::ordered_json;

class ValueSink {
 public:
  ValueSink(const SchemaNode& leaf, DecodeBudget& budget, std::vector<Json>& out)
      : leaf_(leaf), budget_(budget), out_(out), first_(out.size()) {}

  const SchemaNode& leaf() const { return leaf_; }
  void boolean(bool value);
  void int32(std::int32_t value);
  void int64(std::int64_t value);
  void real(double value);
  // BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY contents.
  void bytes(std::string_view value);
  // A copy of a decoded dictionary entry.
  void copy(const Json& value);

 private:
  const SchemaNode& leaf_;
  DecodeBudget& budget_;
  std::vector<Json>& out_;
  std::size_t first_;  // out_'s size when this sink began: values are numbered from it
};

}  // namespace shmtrain::data::parquet
