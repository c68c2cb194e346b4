#pragma once
// Internal to task/glue: the label rules of custom files (run_glue.py on a Hugging Face dataset
// whose "label" column Arrow typed from the train file):
//   all labels integers                    -> classes, sorted numerically, named by their text
//   all numbers, one of them not an integer -> regression (Arrow: a float column)
//   anything else                           -> classes, sorted as text
// A CSV/TSV value is typed by its text ("1" integer, "2.5" number, "x" text); a JSON value
// by its JSON type (1 integer, 1.0 number, "1" text).
#include <cstddef>
#include <string>
#include <vector>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/data/table.hpp"

namespace shmtrain::task {

struct LabelRules {
  data::LabelSet set;
  bool integer_names = false;  // classes are integers: look a value up by its integer
  bool class_indices = false;  // a ClassLabel column (parquet features): the value is the class's index
};

// A `datasets` ClassLabel's classes: the value i is the class names[i], as run_glue.py takes
// label_list from the features.
LabelRules class_label_rules(std::vector<std::string> names);

// The label set of the train labels. InputError "SOURCE:LINE: ..." for an empty, null,
// missing or array/object label.
LabelRules infer_label_rules(const std::vector<data::RawLabel>& labels, const std::string& source);

// Sets each example's label (or target) from labels[i]. InputError "SOURCE:LINE: ..." for a
// label not in the set, or not a number for a regression.
void apply_label_rules(const LabelRules& rules, const std::vector<data::RawLabel>& labels,
                       const std::string& source, std::vector<data::Example>& examples);

// The labels of column `column` of every record.
std::vector<data::RawLabel> column_labels(const data::Table& table, std::size_t column);

}  // namespace shmtrain::task
