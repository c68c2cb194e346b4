#pragma once
// run_ner.py's data files: sentences of words, each word with a tag. Two forms:
//   - CoNLL text (.txt, .conll, anything not .json/.jsonl): one "WORD ... TAG" line per token,
//     fields split on spaces or tabs, the tag in `tag_column` (-1: the last field, NER's in
//     CoNLL-2003's "WORD POS CHUNK NER"); a blank line ends a sentence; -DOCSTART- lines are
//     skipped; empty sentences are dropped.
//   - JSON Lines (.json, .jsonl): one object per sentence with a word list (text_column) and
//     a tag list (label_column) of strings, or of integers (the names are then the integers,
//     as run_ner's get_label_list makes them for such files).
//   - Parquet (.parquet; the Hub's conll2003): rows as the JSON Lines form, integer tags named
//     by the column's ClassLabel.
// A test file may come without tags (CoNLL lines of one field, JSON rows without the tag list).
// Problems are InputError "FILE:LINE: problem".
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace shmtrain::task {

struct TaggedSentence {
  std::size_t line = 0;  // where it starts, 1-based
  std::vector<std::string> words;
  std::vector<std::string> tags;  // one per word; empty when the file has no tags
};

struct TaggedFile {
  std::string source;
  std::vector<TaggedSentence> sentences;
  bool has_tags = true;
  bool integer_tags = false;  // JSON tags given as integers
  // A parquet file's ClassLabel names of its tag column (conll2003's ner_tags): tag i is
  // class_names[i]. Empty otherwise.
  std::vector<std::string> class_names;
};

struct TaggedFileOptions {
  std::string text_column = "tokens";
  std::string label_column = "ner_tags";
  int tag_column = -1;         // CoNLL: the field holding the tag; -1 the last
  bool tags_required = true;   // false for a test file
};

TaggedFile read_tagged_file(const std::filesystem::path& path, const TaggedFileOptions& options);

// The parquet shards of a split of a dataset of the Hugging Face cache (--dataset_name).
TaggedFile read_tagged_split(const std::vector<std::filesystem::path>& shards, const TaggedFileOptions& options);

}  // namespace shmtrain::task
