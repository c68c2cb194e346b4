#pragma once
// SQuAD v1.1 question-answering data, read from the JSON files the SQuAD site distributes
// (train-v1.1.json, dev-v1.1.json):
//   {"data": [{"title": ..., "paragraphs": [{"context": "...",
//              "qas": [{"id": "...", "question": "...",
//                       "answers": [{"text": "...", "answer_start": 42}, ...]}]}]}]}
// or in the flat form Hugging Face's run_qa.py --train_file reads (datasets' squad rows):
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
// `need_answers` (evaluation: SQuAD v1.1 scores every question against its gold answers) a
// question without answers is an error; for training it is labelled "not in the window"
// ([CLS]), as run_qa.py does. Ids must be unique.
SquadFile read_squad_file(const std::filesystem::path& path, bool need_answers);

// The same from text; `source` names it in messages.
SquadFile parse_squad(std::string_view json_text, const std::string& source, bool need_answers);

}  // namespace shmtrain::task
