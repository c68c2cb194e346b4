#pragma once
// A tokenizer over the text tests' small uncased vocabulary, and a temporary folder for the
// data files a test writes.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/task/task.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"
#include "support/test_support.hpp"
#include "text/vocab_fixture.hpp"

namespace shmtrain::task {

using data::Example;
using data::Target;
using Tokens = std::vector<std::string>;
using Ids = std::vector<std::int32_t>;

// `text` holds `part`; on failure prints both.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\"\n does not contain \"" << part << "\"";
}

class DataFiles : public ::testing::Test {
 protected:
  DataFiles()
      : tokenizer_(text::HfTokenizer::load_bert(
            shmtrain::testing::write_vocab_folder(vocab_dir_, shmtrain::testing::uncased_vocab()))) {}

  std::filesystem::path write(const std::string& name, const std::string& contents) const {
    shmtrain::testing::write_file(dir_ / name, contents);
    return dir_ / name;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  TaskOptions glue(const std::string& task) const {
    TaskOptions options;
    options.task_name = task;
    options.data_dir = dir_.path();
    return options;
  }
  TaskOptions custom(const std::string& train, const std::string& validation = "") const {
    TaskOptions options;
    options.train_file = dir_ / train;
    if (!validation.empty()) options.validation_file = dir_ / validation;
    return options;
  }

  std::unique_ptr<Task> load(const TaskOptions& options, bool need_train = true, bool need_eval = true) const {
    return load_task(options, tokenizer_, need_train, need_eval);
  }
  std::string error(const TaskOptions& options, bool need_train = true, bool need_eval = true) const {
    return shmtrain::testing::error_of([&] { load(options, need_train, need_eval); });
  }
  Tokens tokens(const Example& example) const { return tokenizer_.tokens(example.input_ids); }

  shmtrain::testing::TempDir vocab_dir_;
  shmtrain::testing::TempDir dir_;
  text::HfTokenizer tokenizer_;
};

}  // namespace shmtrain::task
