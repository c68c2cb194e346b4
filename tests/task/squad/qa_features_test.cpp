// SQuAD examples -> windows, on hand-made examples whose tokens are one word each (the text
// tests' vocabulary), so every position and offset below can be counted by hand.
#include "shmtrain/task/squad/qa_features.hpp"
#include "shmtrain/task/squad/squad_task.hpp"

#include <gtest/gtest.h>

#include "task/task_fixture.hpp"

namespace shmtrain::task {
namespace {

using shmtrain::testing::error_of;
using Spans = std::vector<text::CharSpan>;
using Pair = std::pair<std::int32_t, std::int32_t>;

// Context "a b c d e v w x y z": ten one-character words, word i at character 2i.
constexpr const char* kLetters = "a b c d e v w x y z";

class QaFeatures : public DataFiles {
 protected:
  SquadFile one(std::string question, std::string context, std::string answer, std::int64_t start) const {
    SquadFile file;
    file.source = "squad.json";
    file.contexts.push_back(std::move(context));
    SquadExample example{"id1", std::move(question), 0, {}};
    if (!answer.empty()) example.answers.push_back({std::move(answer), start});
    file.examples.push_back(std::move(example));
    return file;
  }
  shmtrain::task::QaFeatures build(SquadFile file, std::size_t max_seq_length, std::size_t doc_stride) const {
    return build_qa_features(std::move(file), tokenizer_,
                             {.max_seq_length = max_seq_length, .doc_stride = doc_stride, .max_samples = {}});
  }
  static std::vector<Pair> labels(const shmtrain::task::QaFeatures& f) {
    std::vector<Pair> out;
    for (const Example& e : f.dataset.examples) out.emplace_back(e.start_position, e.end_position);
    return out;
  }
};

TEST_F(QaFeatures, ShortExampleIsOneWindowQuestionFirst) {
  const auto f = build(one("the cat?", "a b c d e", "c d", 4), 384, 128);
  ASSERT_EQ(f.dataset.examples.size(), 1u);
  const Example& row = f.dataset.examples[0];
  EXPECT_EQ(tokens(row), (Tokens{"[CLS]", "the", "cat", "?", "[SEP]", "a", "b", "c", "d", "e", "[SEP]"}));
  EXPECT_EQ(row.token_type_ids, (Ids{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(row.attention_mask, Ids(11, 1));
  EXPECT_EQ(labels(f), (std::vector<Pair>{{7, 8}}));
  const QaWindow& window = f.text.windows[0];
  EXPECT_EQ(window.example, 0);
  EXPECT_EQ(window.context_begin, 5);
  EXPECT_EQ(window.offsets, (Spans{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}}));
}

// max_seq_length 9 with a 2-token question leaves room for 4 context tokens; doc_stride 2:
// windows start at tokens 0, 2, 4, 6 (the one reaching the end is the last), at position 4.
TEST_F(QaFeatures, LongContextIsCutIntoOverlappingWindows) {
  const auto f = build(one("the?", kLetters, "e v", 8), 9, 2);
  ASSERT_EQ(f.dataset.examples.size(), 4u);
  EXPECT_EQ(tokens(f.dataset.examples[0]),
            (Tokens{"[CLS]", "the", "?", "[SEP]", "a", "b", "c", "d", "[SEP]"}));
  EXPECT_EQ(tokens(f.dataset.examples[3]),
            (Tokens{"[CLS]", "the", "?", "[SEP]", "w", "x", "y", "z", "[SEP]"}));
  EXPECT_EQ(f.text.windows[1].offsets, (Spans{{4, 5}, {6, 7}, {8, 9}, {10, 11}}));
  for (const QaWindow& w : f.text.windows) EXPECT_EQ(w.context_begin, 4);
  // "e v" is tokens 4-5: whole in windows 1 (tokens 2-5) and 2 (tokens 4-7), [CLS] elsewhere.
  EXPECT_EQ(labels(f), (std::vector<Pair>{{0, 0}, {6, 7}, {4, 5}, {0, 0}}));
}

TEST_F(QaFeatures, AnswerAtAWindowEdge) {
  // "d" is the last context token of window 0 and the second of window 1. (run_qa.py's start
  // walk runs past the window's last context token into [SEP] and labels position 8 there.)
  EXPECT_EQ(labels(build(one("the?", kLetters, "d", 6), 9, 2)),
            (std::vector<Pair>{{7, 7}, {5, 5}, {0, 0}, {0, 0}}));
  // "a", the first context token of the first window; "z", the last of the last.
  EXPECT_EQ(labels(build(one("the?", kLetters, "a", 0), 9, 2)),
            (std::vector<Pair>{{4, 4}, {0, 0}, {0, 0}, {0, 0}}));
  EXPECT_EQ(labels(build(one("the?", kLetters, "z", 18), 9, 2)),
            (std::vector<Pair>{{0, 0}, {0, 0}, {0, 0}, {7, 7}}));
}

TEST_F(QaFeatures, AnswerSplitAcrossWindowsIsInNone) {
  // "c d e v w" (tokens 2-6) is longer than a window's 4 tokens: every window says [CLS].
  EXPECT_EQ(labels(build(one("the?", kLetters, "c d e v w", 4), 9, 2)), std::vector<Pair>(4, Pair{0, 0}));
  // An answer starting inside a token ends at that token's end: "b c" from its second half.
  EXPECT_EQ(labels(build(one("the?", "ab c", "b c", 1), 384, 128)), (std::vector<Pair>{{4, 5}}));
}

TEST_F(QaFeatures, LongQuestionLeavesLessRoomOrNone) {
  // A 4-token question (left-stripped) leaves 9 - 7 = 2 tokens per window: stride 1 advances
  // one token at a time.
  const auto f = build(one("\u3000 the the cat?", kLetters, "z", 18), 9, 1);
  EXPECT_EQ(tokens(f.dataset.examples[0]),
            (Tokens{"[CLS]", "the", "the", "cat", "?", "[SEP]", "a", "b", "[SEP]"}));
  EXPECT_EQ(f.dataset.examples.size(), 9u);
  EXPECT_EQ(labels(f).back(), (Pair{7, 7}));
  // Room 2 is not more than doc_stride 2: the windows would not advance.
  EXPECT_EQ(
      error_of([&] { build(one("the the cat?", kLetters, "z", 18), 9, 2); }),
      "squad.json: question 'id1' has 4 tokens, which leaves 2 of max_seq_length 9 for its context: fewer "
      "than doc_stride 2 + 1, so the context cannot be cut into windows; raise --max_seq_length or lower "
      "--doc_stride");
  // A long question with a context that fits needs no windows.
  EXPECT_EQ(build(one("the the cat?", "a b", "b", 2), 9, 2).dataset.examples.size(), 1u);
}

TEST_F(QaFeatures, UnicodeContextOffsetsCountCharacters) {
  // The emoji is one character ([UNK]); accents are stripped in the tokens but the offsets
  // point at the original characters, so the answer's text is cut from the context as is.
  const std::string context = "\U0001F600 caf\u00e9, na\u00efve cr\u00e8me br\u00fbl\u00e9e!";
  const auto f = build(one("the?", context, "cr\u00e8me br\u00fbl\u00e9e", 14), 384, 128);
  const Example& row = f.dataset.examples[0];
  EXPECT_EQ(tokens(row), (Tokens{"[CLS]", "the", "?", "[SEP]", "[UNK]", "cafe", ",", "naive", "creme",
                                 "brulee", "!", "[SEP]"}));
  EXPECT_EQ(f.text.windows[0].offsets,
            (Spans{{0, 1}, {2, 6}, {6, 7}, {8, 13}, {14, 19}, {20, 26}, {26, 27}}));
  EXPECT_EQ(labels(f), (std::vector<Pair>{{8, 9}}));
  // "brûlée" alone: the answer ends inside nothing but its own token.
  EXPECT_EQ(labels(build(one("the?", context, "br\u00fbl\u00e9e", 20), 384, 128)),
            (std::vector<Pair>{{9, 9}}));
}

TEST_F(QaFeatures, UnansweredTrainingQuestionsAndSampleLimits) {
  EXPECT_EQ(labels(build(one("the?", kLetters, "", 0), 9, 2)), std::vector<Pair>(4, Pair{0, 0}));
  // max_samples 3: the first three examples, then the first three of their windows.
  SquadFile file = one("the?", kLetters, "a", 0);
  for (const char* id : {"id2", "id3", "id4"}) file.examples.push_back({id, "the?", 0, {{"b", 2}}});
  const auto f =
      build_qa_features(file, tokenizer_, {.max_seq_length = 9, .doc_stride = 2, .max_samples = 3});
  EXPECT_EQ(f.text.file.examples.size(), 3u);
  EXPECT_EQ(f.dataset.examples.size(), 3u);
  EXPECT_EQ(f.text.windows.size(), 3u);
}

TEST_F(QaFeatures, LoadsThroughTaskNameSquad) {
  write("train.json", R"({"data": [{"paragraphs": [{"context": "a b c d e v w x y z", "qas": [
      {"id": "1", "question": "the?", "answers": [{"text": "e v", "answer_start": 8}]}]}]}]})");
  TaskOptions options;
  options.task_name = "SQuAD";
  options.train_file = dir_ / "train.json";
  options.validation_file = dir_ / "train.json";
  options.max_seq_length = 9;
  options.doc_stride = 2;
  const auto data = load(options);
  EXPECT_EQ(data->name(), "squad");
  EXPECT_EQ(data->target(), Target::kSpan);
  EXPECT_EQ(data->train()->examples.size(), 4u);
  const auto& windows = dynamic_cast<const SquadTask&>(*data).validation_windows();
  ASSERT_TRUE(windows.has_value());
  EXPECT_EQ(windows->windows.size(), 4u);
  EXPECT_EQ(data->validation()->examples[1].start_position, 6);

  options.validation_file.clear();
  EXPECT_EQ(error(options),
            "--task_name squad evaluation needs --validation_file (a SQuAD v1.1 JSON file such as "
            "dev-v1.1.json), or run without evaluation");
  options.task_name = "squad_v2";
  EXPECT_TRUE(contains(error(options), "SQuAD 2.0 is --task_name squad --version_2_with_negative"));
  TaskOptions folder;
  folder.task_name = "squad";
  folder.data_dir = dir_.path();
  EXPECT_EQ(error(folder), path("train-v1.1.json") + ": no such file; expected a SQuAD JSON file");
}

TEST_F(QaFeatures, Squad2FolderLabelsUnanswerableQuestionsAtClsAndEvaluatesThem) {
  const std::string squad2 = R"({"version": "v2.0", "data": [{"paragraphs": [{"context": "a b c d e v w x y z", "qas": [
      {"id": "1", "question": "the?", "answers": [{"text": "e v", "answer_start": 8}], "is_impossible": false},
      {"id": "2", "question": "the?", "answers": [], "is_impossible": true,
       "plausible_answers": [{"text": "x", "answer_start": 14}]}]}]}]})";
  write("train-v2.0.json", squad2);
  write("dev-v2.0.json", squad2);
  TaskOptions options;
  options.task_name = "squad";
  options.data_dir = dir_.path();
  options.max_seq_length = 9;
  options.doc_stride = 2;
  options.version_2_with_negative = true;
  const auto data = load(options);
  // Four windows each; the unanswerable question's are all labelled [CLS] (position 0).
  ASSERT_EQ(data->train()->examples.size(), 8u);
  for (std::size_t i = 4; i < 8; ++i) {
    EXPECT_EQ(data->train()->examples[i].start_position, 0);
    EXPECT_EQ(data->train()->examples[i].end_position, 0);
  }
  EXPECT_EQ(data->train()->examples[1].start_position, 6);
  EXPECT_EQ(data->validation()->examples.size(), 8u);
  // SQuAD v1.1 evaluation cannot score the unanswerable question; its folder names differ.
  options.version_2_with_negative = false;
  options.data_dir.clear();
  options.train_file = dir_ / "train-v2.0.json";
  options.validation_file = dir_ / "dev-v2.0.json";
  EXPECT_TRUE(contains(error(options), "pass --version_2_with_negative"));
  EXPECT_NO_THROW(load(options, true, false));
  TaskOptions folder;
  folder.task_name = "squad";
  folder.data_dir = dir_.path();
  EXPECT_EQ(error(folder), path("train-v1.1.json") + ": no such file; expected a SQuAD JSON file");
}

}  // namespace
}  // namespace shmtrain::task
