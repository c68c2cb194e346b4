// SQuAD JSON files: both forms (SQuAD's nested articles, run_qa's flat rows) and the errors,
// each naming the file and the JSON path of the bad value.
#include "shmtrain/task/squad/squad_file.hpp"

#include <gtest/gtest.h>

#include "task/task_fixture.hpp"

namespace shmtrain::task {
namespace {

using shmtrain::testing::error_of;

constexpr const char* kNested = R"({"version": "1.1", "data": [
  {"title": "T1", "paragraphs": [
    {"context": "a b c d", "qas": [
      {"id": "q1", "question": "the a?", "answers": [{"text": "b", "answer_start": 2}, {"text": "b c", "answer_start": 2}]},
      {"id": "q2", "question": "the d?", "answers": [{"text": "d", "answer_start": 6}]}]},
    {"context": "caf\u00e9 x", "qas": [
      {"id": "q3", "question": "x?", "answers": [{"text": "x", "answer_start": 5}]}]}]},
  {"title": "T2", "paragraphs": []}]})";

TEST(Squad, ReadsTheNestedFormSharingContexts) {
  const SquadFile file = parse_squad(kNested, "dev.json", true);
  ASSERT_EQ(file.examples.size(), 3u);
  ASSERT_EQ(file.contexts.size(), 2u);
  EXPECT_EQ(file.examples[0].id, "q1");
  EXPECT_EQ(file.examples[0].question, "the a?");
  EXPECT_EQ(file.context_of(file.examples[1]), "a b c d");
  ASSERT_EQ(file.examples[0].answers.size(), 2u);
  EXPECT_EQ(file.examples[0].answers[1].text, "b c");
  EXPECT_EQ(file.examples[0].answers[1].answer_start, 2);
  // answer_start counts characters: "café x" has 6, x is the 6th although é takes 2 bytes.
  EXPECT_EQ(file.context_of(file.examples[2]), "caf\u00e9 x");
  EXPECT_EQ(file.examples[2].answers[0].answer_start, 5);
}

TEST(Squad, ReadsRunQasFlatForm) {
  const SquadFile file = parse_squad(R"({"data": [
      {"id": "1", "title": "T", "context": "a b", "question": "q?", "answers": {"text": ["b"], "answer_start": [2]}},
      {"id": "2", "title": "T", "context": "a b", "question": "r?", "answers": {"text": [], "answer_start": []}}]})",
                                     "train.json", false);
  ASSERT_EQ(file.examples.size(), 2u);
  EXPECT_EQ(file.contexts.size(), 1u);  // the repeated context is stored once
  EXPECT_EQ(file.examples[0].answers[0].text, "b");
  EXPECT_TRUE(file.examples[1].answers.empty());  // training: labelled [CLS]
}

// SQuAD 2.0's official form: is_impossible with no answers and plausible_answers (ignored).
constexpr const char* kV2 = R"({"version": "v2.0", "data": [{"title": "T", "paragraphs": [
  {"context": "a b c", "qas": [
    {"id": "q1", "question": "b?", "answers": [{"text": "b", "answer_start": 2}], "is_impossible": false},
    {"id": "q2", "question": "z?", "answers": [], "is_impossible": true,
     "plausible_answers": [{"text": "c", "answer_start": 4}]},
    {"id": "q3", "question": "y?", "is_impossible": true}]}]}]})";

TEST(Squad, ReadsSquad2UnanswerableQuestions) {
  const SquadFile file = parse_squad(kV2, "dev-v2.0.json", false);
  ASSERT_EQ(file.examples.size(), 3u);
  EXPECT_EQ(file.examples[0].answers.size(), 1u);
  EXPECT_TRUE(file.examples[1].answers.empty());  // plausible answers are not answers
  EXPECT_TRUE(file.examples[2].answers.empty());  // impossible: answers may be left out
  // The flat (datasets squad_v2) form: empty lists.
  const SquadFile flat = parse_squad(
      R"({"data": [{"id": "1", "context": "a b", "question": "q?", "answers": {"text": [], "answer_start": []}}]})",
      "dev.json", false);
  EXPECT_TRUE(flat.examples[0].answers.empty());
}

std::string error_for(const std::string& json, bool need_answers = false) {
  return error_of([&] { parse_squad(json, "f.json", need_answers); });
}

TEST(Squad, Squad2ErrorsAndV1EvaluationRefusesUnanswerableQuestions) {
  const std::string para = R"({"data": [{"paragraphs": [{"context": "a b", "qas": [)";
  EXPECT_EQ(error_for(para + R"({"id": "a", "question": "q", "is_impossible": "yes", "answers": []}]}]}]})"),
            "f.json: data[0].paragraphs[0].qas[0].is_impossible: must be true or false, got \"yes\"");
  EXPECT_EQ(error_for(para + R"({"id": "a", "question": "q", "is_impossible": true,
                                  "answers": [{"text": "b", "answer_start": 2}]}]}]}]})"),
            "f.json: data[0].paragraphs[0].qas[0].answers: holds 1 answer(s) but is_impossible is true");
  EXPECT_EQ(error_for(kV2, true),
            "f.json: data[0].paragraphs[0].qas[1].answers: empty; SQuAD v1.1 evaluation scores every question "
            "against its gold answers (for SQuAD 2.0 files, whose unanswerable questions have none, pass "
            "--version_2_with_negative)");
}

TEST(Squad, NestedTooDeepIsRefusedNamingTheFile) {
  EXPECT_EQ(error_for("{\"data\": " + std::string(100000, '[') + std::string(100000, ']') + "}")
                .rfind("f.json: JSON nests arrays and objects deeper than 512 levels (byte 520)", 0),
            0u);
}

TEST(Squad, ErrorsNameTheFileAndTheJsonPath) {
  const std::string para = R"({"context": "a b", "qas": [)";
  EXPECT_EQ(error_for(R"({"version": "1.1"})"), "f.json: data: missing");
  EXPECT_EQ(error_for(R"({"data": {}})"), "f.json: data: must be a list, got object");
  EXPECT_EQ(
      error_for(R"({"data": [{"title": "x"}]})"),
      "f.json: data[0].paragraphs: missing (a SQuAD article holds \"paragraphs\"; a flat row \"question\" "
      "and \"context\")");
  EXPECT_EQ(error_for(R"({"data": [{"paragraphs": [{"qas": []}]}]})"),
            "f.json: data[0].paragraphs[0].context: missing");
  EXPECT_EQ(error_for(R"({"data": [{"paragraphs": [)" + para +
                      R"({"id": "a", "question": "q", "answers": []}, {"id": "b", "question": "q"}]}]}]})"),
            "f.json: data[0].paragraphs[0].qas[1].answers: missing");
  EXPECT_EQ(error_for(R"({"data": [{"paragraphs": [)" + para +
                      R"({"id": "a", "question": 5, "answers": []}]}]}]})"),
            "f.json: data[0].paragraphs[0].qas[0].question: must be a string, got number");
  EXPECT_EQ(
      error_for(R"({"data": [{"paragraphs": [)" + para +
                R"({"id": "a", "question": "q", "answers": [{"text": "b", "answer_start": -1}]}]}]}]})"),
      "f.json: data[0].paragraphs[0].qas[0].answers[0].answer_start: must be a non-negative integer (a "
      "character offset into the context), got -1");
  EXPECT_EQ(
      error_for(R"({"data": [{"paragraphs": [)" + para +
                R"({"id": "a", "question": "q", "answers": [{"text": "b c", "answer_start": 2}]}]}]}]})"),
      "f.json: data[0].paragraphs[0].qas[0].answers[0]: answer_start 2 + 3 characters of text ends past the "
      "context's 3 characters (answer_start counts characters, not bytes)");
  // Near INT64_MAX the sum would wrap negative and pass (issue #21).
  EXPECT_EQ(
      error_for(
          R"({"data": [{"paragraphs": [)" + para +
          R"({"id": "a", "question": "q", "answers": [{"text": "b c", "answer_start": 9223372036854775806}]}]}]}]})"),
      "f.json: data[0].paragraphs[0].qas[0].answers[0]: answer_start 9223372036854775806 + 3 characters of "
      "text ends "
      "past the context's 3 characters (answer_start counts characters, not bytes)");
  EXPECT_EQ(
      error_for(
          R"({"data": [{"paragraphs": [)" + para +
          R"({"id": "a", "question": "q", "answers": []}, {"id": "a", "question": "r", "answers": []}]}]}]})"),
      "f.json: data[0].paragraphs[0].qas[1].id: 'a' appears twice; question ids must be unique");
  EXPECT_EQ(
      error_for(
          R"({"data": [{"paragraphs": [)" + para + R"({"id": "a", "question": "q", "answers": []}]}]}]})",
          true),
      "f.json: data[0].paragraphs[0].qas[0].answers: empty; SQuAD v1.1 evaluation scores every question "
      "against its gold answers (for SQuAD 2.0 files, whose unanswerable questions have none, pass "
      "--version_2_with_negative)");
  EXPECT_EQ(
      error_for(R"({"data": [{"id": "a", "question": "q", "context": "c", "answers": {"text": ["c"]}}]})"),
      "f.json: data[0].answers.answer_start: missing");
  EXPECT_EQ(error_for(R"({"data": []})"), "f.json: data: holds no questions");
  EXPECT_TRUE(
      contains(error_for(R"({"data": [)"), "f.json: not valid JSON: parse error at line 1, column 11"));
}

}  // namespace
}  // namespace shmtrain::task
