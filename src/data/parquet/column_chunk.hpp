#pragma once
// One column chunk (one leaf column of one row group) decoded: its pages read in order, the
// dictionary page first if there is one, each data page's levels and values appended. The
// levels are Dremel's: an entry per value or per null / empty list on the way to one, its
// repetition level saying which repeated field repeats, its definition level how many of
// the optional and repeated fields above it are present.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codecs.hpp"
#include "decode_budget.hpp"
#include "parquet_metadata.hpp"
#include "schema.hpp"
#include "value_sink.hpp"

namespace shmtrain::data::parquet {

struct LeafData {
  std::size_t entries = 0;
  std::vector<std::uint8_t> repetition;  // one per entry; empty when the column repeats nowhere
  std::vector<std::uint8_t> definition;  // one per entry; empty when nothing above it is optional
  std::vector<Json> values;              // the entries whose definition level is the column's
};

// `file`: the whole file; `data_end`: where the footer starts (column data must end before).
// InputError "page P: ..." (1-based) naming what is wrong.
LeafData read_column_chunk(std::span<const std::byte> file, std::size_t data_end, const ColumnMetaData& meta,
                           const SchemaNode& leaf, DecodeBudget& budget, PageBuffer& buffer);

}  // namespace shmtrain::data::parquet
