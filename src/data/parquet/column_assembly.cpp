#include "column_assembly.hpp"

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data::parquet {

Json RowAssembler::next_row(std::size_t row_number) {
  try {
    for (std::size_t l = 0; l < leaves_.size(); ++l) {
      if (repetition(l) != 0) {
        fail_leaf(l, fmt::format("an entry of repetition level {} where a row starts", repetition(l)));
      }
    }
    Json row = Json::object();
    for (const std::size_t child : schema_.nodes[0].children) row[schema_.nodes[child].name] = read(child);
    return row;
  } catch (const InputError& e) {
    fail_input("row {}: {}", row_number, e.what());
  }
}

void RowAssembler::finish() const {
  for (std::size_t l = 0; l < leaves_.size(); ++l) {
    if (entry_[l] != leaves_[l].entries) {
      fail_leaf(l, fmt::format("{} entries after the row group's last row", leaves_[l].entries - entry_[l]));
    }
    if (value_[l] != leaves_[l].values.size()) {
      fail_leaf(l, fmt::format("{} values more than its definition levels say",
                               leaves_[l].values.size() - value_[l]));
    }
  }
}

Json RowAssembler::read(std::size_t node) {
  const SchemaNode& n = schema_.nodes[node];
  if (n.repetition == Repetition::repeated) return read_repeated(node, node);
  if (n.repetition == Repetition::optional && definition(n.leaf_begin) < n.definition_level) {
    skip_absent(node, n.definition_level);
    return nullptr;
  }
  return read_present(node);
}

Json RowAssembler::read_present(std::size_t node) {
  const SchemaNode& n = schema_.nodes[node];
  if (n.is_leaf) {
    const std::size_t l = n.leaf_begin;
    const int level = definition(l);
    if (level != n.definition_level) {
      fail_leaf(
          l, fmt::format("definition level {} where its columns' levels say {}", level, n.definition_level));
    }
    LeafData& leaf = leaves_[l];
    if (value_[l] >= leaf.values.size()) fail_leaf(l, "fewer values than its definition levels say");
    ++entry_[l];
    return std::move(leaf.values[value_[l]++]);
  }
  if (n.annotation == Annotation::list || n.annotation == Annotation::map) return read_list(node);
  Json object = Json::object();
  for (const std::size_t child : n.children) object[schema_.nodes[child].name] = read(child);
  return object;
}

Json RowAssembler::read_list(std::size_t group) {
  const SchemaNode& g = schema_.nodes[group];
  if (g.children.size() != 1 || schema_.nodes[g.children[0]].repetition != Repetition::repeated) {
    fail_input("field {}: a LIST or MAP group must hold one repeated field", g.path);
  }
  const std::size_t repeated = g.children[0];
  const SchemaNode& r = schema_.nodes[repeated];
  // Parquet's LogicalTypes.md, "Backward-compatibility rules": the repeated field is itself the
  // element when it is a leaf, has several fields, or is named "array" or "<list>_tuple".
  const bool two_level =
      r.is_leaf || r.children.size() > 1 || r.name == "array" || r.name == g.name + "_tuple";
  return read_repeated(repeated, two_level ? repeated : r.children[0]);
}

Json RowAssembler::read_repeated(std::size_t repeated, std::size_t element) {
  const SchemaNode& r = schema_.nodes[repeated];
  Json list = Json::array();
  if (definition(r.leaf_begin) < r.definition_level) {
    skip_absent(repeated, r.definition_level);
    return list;
  }
  for (;;) {
    list.push_back(element == repeated ? read_present(repeated) : read(element));
    const bool more = continues(r.leaf_begin, r.repetition_level);
    for (std::size_t l = r.leaf_begin + 1; l < r.leaf_end; ++l) {
      if (continues(l, r.repetition_level) != more) {
        fail_leaf(l, fmt::format("its repetition levels disagree with column {}'s about the list {}",
                                 schema_.nodes[schema_.leaves[r.leaf_begin]].path, r.path));
      }
    }
    if (!more) return list;
  }
}

void RowAssembler::skip_absent(std::size_t node, int below) {
  const SchemaNode& n = schema_.nodes[node];
  for (std::size_t l = n.leaf_begin; l < n.leaf_end; ++l) {
    if (definition(l) >= below) {
      fail_leaf(l, fmt::format("a value where column {} says {} is null or empty",
                               schema_.nodes[schema_.leaves[n.leaf_begin]].path, n.path));
    }
    ++entry_[l];
  }
}

int RowAssembler::definition(std::size_t leaf) const {
  const LeafData& data = leaves_[leaf];
  if (entry_[leaf] >= data.entries) fail_leaf(leaf, "its entries end inside the row");
  return data.definition.empty() ? 0 : data.definition[entry_[leaf]];
}

int RowAssembler::repetition(std::size_t leaf) const {
  const LeafData& data = leaves_[leaf];
  if (entry_[leaf] >= data.entries) fail_leaf(leaf, "its entries end before the row");
  return data.repetition.empty() ? 0 : data.repetition[entry_[leaf]];
}

bool RowAssembler::continues(std::size_t leaf, int level) const {
  return entry_[leaf] < leaves_[leaf].entries && repetition(leaf) == level;
}

void RowAssembler::fail_leaf(std::size_t leaf, std::string_view what) const {
  fail_input("column {}: {}", schema_.nodes[schema_.leaves[leaf]].path, what);
}

}  // namespace shmtrain::data::parquet
