#pragma once
// The file's schema as a tree: Parquet stores it flattened depth-first (each group followed by
// its children), with the leaves in the order of the column chunks. Each node knows its
// definition and repetition levels (Dremel: how many optional-or-repeated and how many
// repeated fields lead to it, itself included), the leaves below it, and what JSON value
// its leaves' values become.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "parquet_metadata.hpp"

namespace shmtrain::data::parquet {

// The JSON a leaf's values become (see shmtrain/data/parquet.hpp).
enum class ValueKind {
  boolean,
  int32,
  uint32,
  int64,
  uint64,
  decimal32,
  decimal64,
  decimal_bytes,  // big-endian two's complement in BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY
  real,
  real16,
  text,
};

struct SchemaNode {
  std::string name;
  std::string path;  // dotted, from the root's children: "answers.text.list.element"
  Repetition repetition = Repetition::required;
  Annotation annotation = Annotation::none;
  std::vector<std::size_t> children;  // node indices; empty for a leaf
  int definition_level = 0;           // the maximum definition level of this node
  int repetition_level = 0;
  std::size_t leaf_begin = 0, leaf_end = 0;  // the leaves (column indices) under this node
  // Leaves only.
  bool is_leaf = false;
  PhysicalType type = PhysicalType::boolean;
  std::int32_t type_length = 0;
  ValueKind kind = ValueKind::int32;
  std::int32_t scale = 0;
};

struct Schema {
  std::vector<SchemaNode> nodes;    // nodes[0] is the root
  std::vector<std::size_t> leaves;  // the node of each column, in column chunk order
};

// Deeper nesting than any dataset has; keeps levels in a byte and recursion shallow.
inline constexpr int kMaxSchemaDepth = 32;

// InputError for a schema that is not a tree of the declared shape, a group without
// children, nesting deeper than kMaxSchemaDepth, or a leaf type this reader refuses.
Schema build_schema(const std::vector<SchemaElement>& elements);

}  // namespace shmtrain::data::parquet
