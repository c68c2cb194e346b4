// The seqeval-compatible metric on hand-built sequences, each expectation what seqeval's
// default mode (conlleval chunking) documents or returns for it.
#include <gtest/gtest.h>

#include "shmtrain/task/ner/seqeval.hpp"

namespace shmtrain::task {
namespace {

using Entities = std::vector<std::tuple<std::string, std::int64_t, std::int64_t>>;

TEST(Seqeval, ChunksOfIob2IncludingOneAtTheSentenceEnd) {
  // seqeval's README: get_entities(['B-PER', 'I-PER', 'O', 'B-LOC']) == [('PER', 0, 1), ('LOC', 3, 3)]
  EXPECT_EQ(seqeval_entities({"B-PER", "I-PER", "O", "B-LOC"}), (Entities{{"PER", 0, 1}, {"LOC", 3, 3}}));
  EXPECT_EQ(seqeval_entities({"O", "B-MISC", "I-MISC", "I-MISC"}), (Entities{{"MISC", 1, 3}}));
}

TEST(Seqeval, AnITagStartsAChunkAfterOOrAnotherType) {
  // IOB1: I- begins an entity; an I- after O or after another type starts a new chunk.
  EXPECT_EQ(seqeval_entities({"I-PER", "I-PER", "O", "I-LOC"}), (Entities{{"PER", 0, 1}, {"LOC", 3, 3}}));
  EXPECT_EQ(seqeval_entities({"B-PER", "I-LOC", "I-LOC"}), (Entities{{"PER", 0, 0}, {"LOC", 1, 2}}));
  // B- of the same type right after an entity starts a new one (IOB1's use of B-).
  EXPECT_EQ(seqeval_entities({"I-PER", "B-PER", "I-PER"}), (Entities{{"PER", 0, 0}, {"PER", 1, 2}}));
  // B- of another type ends the previous chunk.
  EXPECT_EQ(seqeval_entities({"B-PER", "B-ORG", "I-ORG"}), (Entities{{"PER", 0, 0}, {"ORG", 1, 2}}));
}

TEST(Seqeval, ASentenceWithoutEntitiesHasNone) {
  EXPECT_TRUE(seqeval_entities({"O", "O", "O"}).empty());
  EXPECT_TRUE(seqeval_entities({}).empty());
}

TEST(Seqeval, OverallAndPerTypeScoresMatchSeqevalsExample) {
  // seqeval's README example: classification_report gives MISC 0/1 (precision 0, recall 0),
  // PER 1/1; micro precision 0.5, recall 0.5, f1 0.5; accuracy 8/10.
  const std::vector<TagSequence> gold = {{"O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"}, {"B-PER", "I-PER", "O"}};
  const std::vector<TagSequence> pred = {{"O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"}, {"B-PER", "I-PER", "O"}};
  const SeqevalScores s = seqeval_scores(gold, pred);
  EXPECT_DOUBLE_EQ(s.overall.precision, 0.5);
  EXPECT_DOUBLE_EQ(s.overall.recall, 0.5);
  EXPECT_DOUBLE_EQ(s.overall.f1, 0.5);
  EXPECT_DOUBLE_EQ(s.accuracy, 0.8);
  EXPECT_DOUBLE_EQ(s.by_type.at("MISC").f1, 0.0);
  EXPECT_EQ(s.by_type.at("MISC").number, 1);
  EXPECT_DOUBLE_EQ(s.by_type.at("PER").f1, 1.0);
}

TEST(Seqeval, NoPredictedEntitiesGiveZeroNotADivisionByZero) {
  const SeqevalScores s = seqeval_scores({{"B-PER", "O"}}, {{"O", "O"}});
  EXPECT_DOUBLE_EQ(s.overall.precision, 0.0);
  EXPECT_DOUBLE_EQ(s.overall.recall, 0.0);
  EXPECT_DOUBLE_EQ(s.overall.f1, 0.0);
  EXPECT_DOUBLE_EQ(s.accuracy, 0.5);
}

TEST(Seqeval, EntitiesOfDifferentSentencesNeverMerge) {
  // The same span in two sentences is two entities; one sentence's last chunk ends with it.
  const SeqevalScores s = seqeval_scores({{"B-LOC"}, {"I-LOC"}}, {{"B-LOC"}, {"O"}});
  EXPECT_DOUBLE_EQ(s.overall.precision, 1.0);
  EXPECT_DOUBLE_EQ(s.overall.recall, 0.5);
}

}  // namespace
}  // namespace shmtrain::task
