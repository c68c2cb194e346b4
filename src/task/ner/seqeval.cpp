#include "shmtrain/task/ner/seqeval.hpp"

#include <array>
#include <set>

namespace shmtrain::task {
namespace {

// A tag's prefix ("B", "I", "E", "S", "O") and type ("PER"; "" for O), as seqeval splits
// them: the prefix is the text before the first '-', and a tag without one is all prefix.
std::pair<std::string, std::string> split_tag(const std::string& tag) {
  const std::size_t dash = tag.find('-');
  if (dash == std::string::npos) return {tag, ""};
  return {tag.substr(0, dash), tag.substr(dash + 1)};
}

bool chunk_ends(const std::string& prev_tag, const std::string& tag, const std::string& prev_type,
                const std::string& type) {
  if (prev_tag == "E" || prev_tag == "S") return true;
  if ((prev_tag == "B" || prev_tag == "I") && (tag == "B" || tag == "S" || tag == "O")) return true;
  return prev_tag != "O" && prev_tag != "." && prev_type != type;
}

bool chunk_starts(const std::string& prev_tag, const std::string& tag, const std::string& prev_type,
                  const std::string& type) {
  if (tag == "B" || tag == "S") return true;
  if ((prev_tag == "E" || prev_tag == "S" || prev_tag == "O") && (tag == "E" || tag == "I")) return true;
  return tag != "O" && tag != "." && prev_type != type;
}

double ratio(std::int64_t a, std::int64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

EntityScores scores(std::int64_t correct, std::int64_t predicted, std::int64_t gold) {
  EntityScores s;
  s.precision = ratio(correct, predicted);
  s.recall = ratio(correct, gold);
  s.f1 = s.precision + s.recall == 0 ? 0.0 : 2 * s.precision * s.recall / (s.precision + s.recall);
  s.number = gold;
  return s;
}

}  // namespace

std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> seqeval_entities(const TagSequence& tags) {
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> out;
  std::string prev_tag = "O";
  std::string prev_type;
  std::int64_t begin = 0;
  const auto n = static_cast<std::int64_t>(tags.size());
  for (std::int64_t i = 0; i <= n; ++i) {  // a final O closes the last chunk
    const auto [tag, type] = i < n ? split_tag(tags[static_cast<std::size_t>(i)]) : std::pair<std::string, std::string>{"O", ""};
    if (chunk_ends(prev_tag, tag, prev_type, type)) out.emplace_back(prev_type, begin, i - 1);
    if (chunk_starts(prev_tag, tag, prev_type, type)) begin = i;
    prev_tag = tag;
    prev_type = type;
  }
  return out;
}

SeqevalScores seqeval_scores(const std::vector<TagSequence>& gold, const std::vector<TagSequence>& predicted) {
  using Entity = std::tuple<std::string, std::int64_t, std::int64_t, std::size_t>;  // with its sentence
  std::set<Entity> gold_entities;
  std::set<Entity> predicted_entities;
  std::int64_t tokens = 0;
  std::int64_t equal = 0;
  for (std::size_t s = 0; s < gold.size(); ++s) {
    for (const auto& [type, first, last] : seqeval_entities(gold[s])) gold_entities.emplace(type, first, last, s);
    for (const auto& [type, first, last] : seqeval_entities(predicted[s])) predicted_entities.emplace(type, first, last, s);
    for (std::size_t t = 0; t < gold[s].size(); ++t) {
      ++tokens;
      equal += t < predicted[s].size() && gold[s][t] == predicted[s][t];
    }
  }
  std::map<std::string, std::array<std::int64_t, 3>> counts;  // type -> correct, predicted, gold
  std::int64_t correct = 0;
  for (const Entity& e : predicted_entities) {
    ++counts[std::get<0>(e)][1];
    if (gold_entities.contains(e)) {
      ++correct;
      ++counts[std::get<0>(e)][0];
    }
  }
  for (const Entity& e : gold_entities) ++counts[std::get<0>(e)][2];
  SeqevalScores out;
  out.overall = scores(correct, static_cast<std::int64_t>(predicted_entities.size()),
                       static_cast<std::int64_t>(gold_entities.size()));
  out.accuracy = ratio(equal, tokens);
  for (const auto& [type, c] : counts) out.by_type[type] = scores(c[0], c[1], c[2]);
  return out;
}

}  // namespace shmtrain::task
