#pragma once
// Rows put back together from the decoded leaf columns of one row group: the record
// assembly of the Dremel paper (Melnik et al., 2010), written as a walk down the schema.
// Each leaf has a cursor on its entries; reading a node consumes exactly the entries of one
// instance of it from every leaf below it:
//   - an optional node whose first leaf's definition level is below the node's is null, and
//     takes one entry from each of its leaves;
//   - a repeated node is a list: empty when the definition level is below the node's, else
//     instances for as long as the next entries repeat at the node's repetition level;
//   - a LIST (or MAP) group is the list of its repeated child, whose element is the child's
//     only field (3-level lists), or the repeated child itself (the legacy 2-level forms);
//   - other groups are objects of their fields, leaves their next value.
// The leaves below a node must agree about its instances; where a crafted file makes them
// disagree, or a row's entries run out or remain, that is an InputError.
#include <cstddef>
#include <vector>

#include "column_chunk.hpp"
#include "schema.hpp"
#include "value_sink.hpp"

namespace shmtrain::data::parquet {

class RowAssembler {
 public:
  // `leaves[i]` is column i of `schema` for one row group; its values are moved out.
  RowAssembler(const Schema& schema, std::vector<LeafData>& leaves) : schema_(schema), leaves_(leaves) {
    entry_.assign(leaves.size(), 0);
    value_.assign(leaves.size(), 0);
  }

  // The next row as an object of the top-level columns; `row_number` is for messages.
  Json next_row(std::size_t row_number);
  // InputError when a leaf holds entries or values past the last row.
  void finish() const;

 private:
  Json read(std::size_t node);
  Json read_present(std::size_t node);
  Json read_list(std::size_t group);
  Json read_repeated(std::size_t repeated, std::size_t element);
  void skip_absent(std::size_t node, int below);
  int definition(std::size_t leaf) const;
  int repetition(std::size_t leaf) const;
  bool continues(std::size_t leaf, int level) const;
  [[noreturn]] void fail_leaf(std::size_t leaf, std::string_view what) const;

  const Schema& schema_;
  std::vector<LeafData>& leaves_;
  std::vector<std::size_t> entry_;  // per leaf: its next entry
  std::vector<std::size_t> value_;  // per leaf: its next value
};

}  // namespace shmtrain::data::parquet
