#pragma once
// SQuAD v1.1 and 2.0 question-answering data, read from the JSON files the SQuAD site
// distributes (train-v1.1.json, dev-v1.1.json, train-v2.0.json, dev-v2.0.json):
//   {"data": [{"title": ..., "paragraphs": [{"context": "...",
//              "qas": [{"id": "...", "question": "...",
//                       "answers": [{"text": "...", "answer_start": 42}, ...]}]}]}]}
// where SQuAD 2.0's unanswerable questions carry "is_impossible": true and no answers (their
// "plausible_answers" are ignored, as datasets' squad_v2 loader ignores them),
// or in the flat form Hugging Face's run_qa.py --train_file reads (datasets' squad and
// squad_v2 rows; an unanswerable question's lists are empty):
//   {"data": [{"id": ..., "title": ..., "context": ..., "question": ...,
//              "answers": {"text": ["..."], "answer_start": [42]}}, ...]}
// answer_start counts code points (Python str indices), as SQuAD and datasets do.
//
// Every problem is an InputError "FILE: JSON.PATH: what", e.g.
// "dev.json: data[3].paragraphs[0].qas[2].answers: missing".
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "shmtrain/data/json_lines.hpp"

namespace shmtrain::task {

struct SquadAnswer {
  std::string text;
  std::int64_t answer_start = 0;  // code points into the context
};

struct SquadExample {
  std::string id;
  std::string question;
  std::size_t context = 0;  // index into SquadFile::contexts (questions share their paragraph)
  std::vector<SquadAnswer> answers;
};

struct SquadFile {
  std::string source;
  std::vector<std::string> contexts;
  std::vector<SquadExample> examples;  // in file order

  const std::string& context_of(const SquadExample& example) const { return contexts[example.context]; }
};

// Reads a SQuAD file (either form). Answers must lie inside their context. With
// `need_answers` (SQuAD v1.1 evaluation scores every question against its gold answers) a
// question without answers is an error; for training it is labelled "not in the window"
// ([CLS]), as run_qa.py does, and SQuAD 2.0's evaluation scores it as a no-answer question.
// is_impossible true with answers is an error. Ids must be unique.
// A .parquet path is read as the Hub's flat rows (rajpurkar/squad's id, title, context,
// question, answers{text, answer_start}); messages name a row as data[i], i from 0.
SquadFile read_squad_file(const std::filesystem::path& path, bool need_answers);

// The parquet shards of a split of rajpurkar/squad or squad_v2 (--dataset_name), in order.
SquadFile read_squad_split(const std::vector<std::filesystem::path>& shards, bool need_answers);

// Flat rows, each an object as one element of the flat form's "data" list.
SquadFile squad_from_rows(const data::JsonLines& rows, bool need_answers);

// The same from text; `source` names it in messages.
SquadFile parse_squad(std::string_view json_text, const std::string& source, bool need_answers);

}  // namespace shmtrain::task
