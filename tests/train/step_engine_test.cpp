// StepEngine on 2 ranks as threads: overlapping the exchange with backward (any bucket size)
// gives the very bits of one all-reduce after backward, since each element is still summed in
// rank order; the sharded optimizer gives the same model within rounding.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/comm/thread_group.hpp"
#include "shmtrain/model/init.hpp"
#include "shmtrain/train/step_engine.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

model::BertConfig tiny_config() {
  model::BertConfig c;
  c.vocab_size = 50;
  c.hidden_size = 16;
  c.num_hidden_layers = 3;
  c.num_attention_heads = 2;
  c.intermediate_size = 32;
  c.max_position_embeddings = 16;
  c.hidden_dropout_prob = 0.1;
  c.attention_probs_dropout_prob = 0.1;
  return c;
}

data::Batch random_batch(int rank, int step) {
  std::mt19937 rng(static_cast<unsigned>(1000 * step + rank));
  data::Batch b;
  b.batch = 3;
  b.seq = 8;
  for (int i = 0; i < 24; ++i) {
    b.input_ids.push_back(static_cast<std::int32_t>(1 + rng() % 49));
    b.token_type_ids.push_back(i % 8 < 4 ? 0 : 1);
    b.attention_mask.push_back(i % 8 < 7 || i < 8 ? 1 : 0);
  }
  for (int i = 0; i < 3; ++i) b.labels.push_back(static_cast<std::int32_t>(rng() % 2));
  return b;
}

// The parameters of rank 0 and 1 after 4 steps of 2 micro-batches each.
std::vector<std::vector<float>> train(const train::EngineOptions& options) {
  const model::BertConfig config = tiny_config();
  const model::ParamTable table = model::ParamTable::for_sequence_classification(config);
  std::vector<std::vector<float>> result(2);
  comm::run_in_threads({2, std::size_t{1} << 16, std::size_t{4} << 20}, {}, [&](comm::Communicator& comm) {
    train::StepEngine engine(config, table, comm, options);
    model::init_all_parameters(table, engine.params(), config, 7);
    engine.sync_parameters();
    for (int step = 0; step < 4; ++step) {
      const std::vector<data::Batch> batches{random_batch(comm.rank(), 2 * step), random_batch(comm.rank(), 2 * step + 1)};
      const std::vector<model::StepContext> contexts{
          {true, 42, static_cast<std::uint64_t>(comm.rank()), static_cast<std::uint64_t>(2 * step)},
          {true, 42, static_cast<std::uint64_t>(comm.rank()), static_cast<std::uint64_t>(2 * step + 1)}};
      engine.step(batches, contexts, 1e-3f, 1.0);
    }
    result[static_cast<std::size_t>(comm.rank())].assign(engine.params().begin(), engine.params().end());
  });
  EXPECT_EQ(result[0], result[1]) << "the ranks' parameters differ";
  return result;
}

TEST(StepEngine, OverlappedBucketsGiveTheBitsOfOneAllreduce) {
  train::EngineOptions plain;
  plain.overlap_exchange = false;
  const auto expected = train(plain);
  for (std::size_t bucket : {std::size_t{1}, std::size_t{3000}, std::size_t{1} << 20}) {
    train::EngineOptions overlapped;
    overlapped.bucket_floats = bucket;
    EXPECT_EQ(train(overlapped)[0], expected[0]) << "bucket_floats " << bucket;
  }
}

TEST(StepEngine, ShardedOptimizerTrainsTheReplicatedModel) {
  const auto replicated = train({});
  train::EngineOptions options;
  options.shard_optimizer = true;
  const auto sharded = train(options);
  EXPECT_TRUE(all_close(sharded[0], replicated[0], 1e-6, 1e-5));
}

}  // namespace
}  // namespace shmtrain::testing
