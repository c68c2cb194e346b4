// run_ner's data through the NER task: CoNLL and JSON Lines readers on hand-made files (a
// DOCSTART line, empty sentences, tabs and spaces, a sentence longer than max_seq_length), tag
// alignment on WordPiece and on byte-level BPE sub-tokens, and bad input named by file and line.
#include <gtest/gtest.h>

#include "shmtrain/task/ner/ner_task.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"
#include "task/task_fixture.hpp"

namespace shmtrain::task {
namespace {

class NerFiles : public DataFiles {
 protected:
  TaskOptions ner(const std::string& train, const std::string& validation = "") const {
    TaskOptions options = custom(train, validation);
    options.task_name = "ner";
    return options;
  }
};

TEST_F(NerFiles, ConllSkipsDocstartAndEmptySentencesAndSplitsOnTabsOrSpaces) {
  write("train.txt",
        "-DOCSTART- -X- -X- O\n\n\nthe DT B-NP O\ncafe NN I-NP B-LOC\n\n\n"
        "hello\tUH\tB-INTJ\tO\nworld NN  B-NP B-MISC\n");
  TaggedFile file = read_tagged_file(dir_ / "train.txt", {});
  ASSERT_EQ(file.sentences.size(), 2u);
  EXPECT_EQ(file.sentences[0].words, (std::vector<std::string>{"the", "cafe"}));
  EXPECT_EQ(file.sentences[0].tags, (std::vector<std::string>{"O", "B-LOC"}));
  EXPECT_EQ(file.sentences[0].line, 4u);
  EXPECT_EQ(file.sentences[1].tags, (std::vector<std::string>{"O", "B-MISC"}));
  // pos and chunk read CoNLL-2003's second and third fields.
  TaggedFileOptions pos;
  pos.tag_column = 1;
  file = read_tagged_file(dir_ / "train.txt", pos);
  EXPECT_EQ(file.sentences[1].tags, (std::vector<std::string>{"UH", "NN"}));
}

TEST_F(NerFiles, JsonLinesWithStringOrIntegerTags) {
  write("train.jsonl", R"({"tokens": ["the", "cafe"], "ner_tags": ["O", "B-LOC"]})" "\n"
                       R"({"tokens": ["hello"], "ner_tags": ["O"]})" "\n");
  const TaggedFile strings = read_tagged_file(dir_ / "train.jsonl", {});
  EXPECT_FALSE(strings.integer_tags);
  EXPECT_EQ(strings.sentences[0].tags, (std::vector<std::string>{"O", "B-LOC"}));
  write("ints.jsonl", R"({"words": ["the", "cafe"], "tags": [0, 10]})" "\n" R"({"words": ["a"], "tags": [2]})" "\n");
  TaskOptions options = ner("ints.jsonl", "ints.jsonl");
  options.text_column_name = "words";
  options.label_column_name = "tags";
  const auto task = load(options);
  EXPECT_EQ(task->labels().names, (std::vector<std::string>{"0", "2", "10"}));  // sorted as numbers
  // --label_names: tag i is the i-th name, and the label list keeps that order (ClassLabel's).
  write("named.jsonl", R"({"words": ["the", "cafe"], "tags": [0, 2]})" "\n");
  TaskOptions named = ner("named.jsonl", "named.jsonl");
  named.text_column_name = "words";
  named.label_column_name = "tags";
  named.label_names = {"O", "B-LOC", "I-LOC"};
  const auto with_names = load(named);
  EXPECT_EQ(with_names->labels().names, (std::vector<std::string>{"O", "B-LOC", "I-LOC"}));
  EXPECT_EQ(with_names->train()->examples[0].token_labels, (std::vector<std::int32_t>{-100, 0, 2, -100}));
  named.label_names = {"O"};
  EXPECT_TRUE(contains(error(named), "named.jsonl:1: tag 2 has no name among the 1 --label_names"));
}

TEST_F(NerFiles, TagsGoOnEachWordsFirstWordPieceAndOnEveryPieceWithLabelAllTokens) {
  // "unaffable" is un ##aff ##able; "cats" is cat ##s.
  write("train.txt", "unaffable B-PER\ncats I-PER\nsat O\n");
  const auto task = load(ner("train.txt", "train.txt"));
  EXPECT_EQ(task->target(), data::Target::kTokens);
  EXPECT_EQ(task->labels().names, (std::vector<std::string>{"B-PER", "I-PER", "O"}));
  const data::Example& e = task->train()->examples[0];
  EXPECT_EQ(tokens(e), (Tokens{"[CLS]", "un", "##aff", "##able", "cat", "##s", "sat", "[SEP]"}));
  EXPECT_EQ(e.token_labels, (std::vector<std::int32_t>{-100, 0, -100, -100, 1, -100, 2, -100}));
  TaskOptions all = ner("train.txt", "train.txt");
  all.label_all_tokens = true;
  const auto every = load(all);
  // B-PER's later pieces take I-PER, as run_ner's b_to_i_label.
  EXPECT_EQ(every->train()->examples[0].token_labels, (std::vector<std::int32_t>{-100, 0, 1, 1, 1, 1, 2, -100}));
}

TEST_F(NerFiles, ByteLevelBpeWordsReadAsAfterASpace) {
  const auto roberta =
      text::load_tokenizer(shmtrain::testing::fixtures_dir() / "tokenizers" / "roberta_bpe", std::nullopt, true);
  write("train.txt", "Hello B-PER\nworld O\n");
  const auto task = load_task(ner("train.txt", "train.txt"), *roberta, true, true);
  const data::Example& e = task->train()->examples[0];
  const std::vector<std::string> pieces = roberta->tokens(e.input_ids);
  EXPECT_EQ(pieces.front(), "<s>");
  EXPECT_EQ(pieces[1].rfind("\xC4\xA0", 0), 0u) << pieces[1];  // "ĠH...": add_prefix_space, as run_ner loads it
  EXPECT_EQ(e.token_labels.front(), -100);
  EXPECT_EQ(e.token_labels[1], 0);
  EXPECT_EQ(e.token_labels.back(), -100);
}

TEST_F(NerFiles, ASentenceLongerThanMaxSeqLengthIsCut) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "cat O\n";
  write("train.txt", text);
  TaskOptions options = ner("train.txt", "train.txt");
  options.max_seq_length = 16;
  const auto task = load(options);
  EXPECT_EQ(task->train()->examples[0].input_ids.size(), 16u);
  EXPECT_EQ(task->train()->examples[0].token_labels.back(), -100);  // [SEP]
}

TEST_F(NerFiles, BadInputIsNamedByFileAndLine) {
  write("no_tag.txt", "cat O\nsat\n");
  EXPECT_TRUE(contains(error(ner("no_tag.txt", "no_tag.txt")), "no_tag.txt:2: 'sat' has 1 field(s)")) << error(ner("no_tag.txt", "no_tag.txt"));
  write("lengths.jsonl", R"({"tokens": ["a"], "ner_tags": ["O"]})" "\n" R"({"tokens": ["a", "b"], "ner_tags": ["O"]})" "\n");
  EXPECT_TRUE(contains(error(ner("lengths.jsonl", "lengths.jsonl")), "lengths.jsonl:2: 2 words but 1 tags"));
  write("train.txt", "cat O\nsat B-PER\n");
  write("dev.txt", "cat O\n\nsat B-XYZ\n");
  EXPECT_TRUE(contains(error(ner("train.txt", "dev.txt")), "dev.txt:3: word 1 'sat' has the tag 'B-XYZ', which is not among the 2 labels"));
  write("glue.tsv", "sentence\tlabel\nthe cat sat\t1\n");  // a file of another task
  EXPECT_FALSE(error(ner("train.txt", "glue.tsv")).empty());
}

}  // namespace
}  // namespace shmtrain::task
