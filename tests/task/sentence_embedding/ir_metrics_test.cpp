// InformationRetrievalEvaluator's ranking and metrics against the port of its source in
// tools/make_ir_metrics_reference.py: exact ties, k past the corpus, queries without a relevant
// document dropped, the corpus pushed in chunks.
#include "shmtrain/task/sentence_embedding/ir_metrics.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace ir_metrics_test {

using namespace task::sentence_embedding;

TEST(IrMetrics, EqualTheEvaluatorsPortOnScoresWithTies) {
  std::ifstream in(fixtures_dir() / "sentence_embedding" / "ir_metrics.json");
  ASSERT_TRUE(in) << "run tools/make_ir_metrics_reference.py";
  const nlohmann::json fixture = nlohmann::json::parse(in);
  ASSERT_EQ(fixture["cases"].size(), 4u);
  for (const auto& c : fixture["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const auto corpus_ids = c["corpus_ids"].get<std::vector<std::string>>();
    const auto scores = c["scores"].get<std::vector<std::vector<float>>>();
    const auto relevant = c["relevant"].get<std::vector<std::vector<std::int64_t>>>();
    std::vector<std::vector<Hit>> hits;
    std::vector<std::set<std::int64_t>> relevant_sets;
    for (std::size_t q = 0; q < scores.size(); ++q) {
      if (relevant[q].empty()) continue;  // as the evaluator's query filter
      hits.push_back(ranked_hits(scores[q].data(), corpus_ids, IrCutoffs{}.max_k(), c["chunk"].get<std::int64_t>()));
      relevant_sets.emplace_back(relevant[q].begin(), relevant[q].end());
    }
    const auto expected_order = c["ranked"].get<std::vector<std::vector<std::int64_t>>>();
    ASSERT_EQ(hits.size(), expected_order.size());
    for (std::size_t q = 0; q < hits.size(); ++q) {
      std::vector<std::int64_t> order;
      for (const Hit& h : hits[q]) order.push_back(h.doc);
      EXPECT_EQ(order, expected_order[q]) << "query " << q;
    }
    const auto metrics = ir_metrics(hits, relevant_sets);
    ASSERT_EQ(metrics.size(), c["metrics"].size());
    for (const auto& [name, value] : c["metrics"].items()) {
      ASSERT_TRUE(metrics.count(name)) << name;
      EXPECT_NEAR(metrics.at(name), value.get<double>(), 1e-12) << name;
    }
  }
}

}  // namespace ir_metrics_test
}  // namespace shmtrain::testing
