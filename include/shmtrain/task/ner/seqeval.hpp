#pragma once
// run_ner.py's metrics, as seqeval computes them in its default mode (conlleval's chunking):
// entities are (type, first, last) chunks read from IOB tags, a chunk starting at a B- tag or
// at an I- tag whose type differs from the previous tag's or that follows O (so IOB1 and IOB2
// both read right); precision, recall and F1 are micro-averaged over the entities of all
// sentences, accuracy is token-level. A division by zero gives 0, as seqeval does (with its
// warning).
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace shmtrain::task {

using TagSequence = std::vector<std::string>;

// The chunks of one sentence: (type, first token, last token), in order.
std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> seqeval_entities(const TagSequence& tags);

struct EntityScores {
  double precision = 0;
  double recall = 0;
  double f1 = 0;
  std::int64_t number = 0;  // gold entities of the type
};

struct SeqevalScores {
  EntityScores overall;
  double accuracy = 0;
  std::map<std::string, EntityScores> by_type;  // every type seen in gold or predicted tags
};

// REQUIRES: gold and predicted have the same shape (sentence by sentence).
SeqevalScores seqeval_scores(const std::vector<TagSequence>& gold, const std::vector<TagSequence>& predicted);

}  // namespace shmtrain::task
