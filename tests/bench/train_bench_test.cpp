// `shmtrain bench train`'s plan: which configurations it runs, with which cores and batches, and
// the synthetic workloads it feeds them (tests/e2e/bench_train_cli_test.cpp runs it end to end).
#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "shmtrain/model/batch_validation.hpp"
#include "shmtrain/bench/bert_workload.hpp"
#include "shmtrain/bench/train_bench.hpp"
#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::bench {
namespace {

struct Planned {
  topo::Topology topology;
  TrainBenchPlan plan;
};

Planned plan_for(const std::string& synthetic, topo::PlacementOptions placement, std::int64_t batch,
                 const std::vector<std::string>& ids = {}) {
  topo::Topology topology = topo::Topology::load({synthetic, ""});
  const topo::PlacementPlan plan = topo::make_plan(topology, placement);
  TrainBenchPlan bench_plan = plan_train_bench(topology, placement, plan, batch, ids);
  return {std::move(topology), std::move(bench_plan)};
}

std::map<std::string, const TrainBenchConfiguration*> by_id(const TrainBenchPlan& plan) {
  std::map<std::string, const TrainBenchConfiguration*> out;
  for (const TrainBenchConfiguration& c : plan.configurations) out[c.id] = &c;
  return out;
}

TEST(TrainBenchPlan, TwoSocketsGiveFourConfigurationsWithTheirCoresAndBatches) {
  const Planned planned = plan_for("package:2 core:4 pu:2", {}, 32);
  ASSERT_EQ(planned.plan.configurations.size(), 4u);
  EXPECT_EQ(planned.plan.workers, 2);
  const auto c = by_id(planned.plan);
  EXPECT_EQ(c.at("1xall")->plan.workers.size(), 1u);
  EXPECT_EQ(c.at("1xall")->plan.workers[0].threads, 8);
  EXPECT_EQ(c.at("1xall")->batch, 32);
  EXPECT_EQ(c.at("Pxpart")->plan.workers.size(), 2u);
  EXPECT_EQ(c.at("Pxpart")->label, "2 x 4 cores");
  EXPECT_EQ(c.at("1xpart")->plan.workers[0].cpus, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(c.at("1xpart")->batch, 16);
  EXPECT_EQ(c.at("1x1")->plan.workers[0].cpus, (std::vector<int>{0}));
  EXPECT_EQ(c.at("1x1")->plan.workers[0].threads, 1);
}

TEST(TrainBenchPlan, OneWorkerSkipsThePWorkerRowsAndSaysHow) {
  const Planned planned = plan_for("package:1 core:4 pu:1", {}, 32);
  const auto c = by_id(planned.plan);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_TRUE(c.count("1xall") && c.count("1x1"));
  ASSERT_FALSE(planned.plan.notes.empty());
  EXPECT_NE(planned.plan.notes.back().find("--nproc_per_node"), std::string::npos);
}

TEST(TrainBenchPlan, IdenticalRunsAreMeasuredOnce) {
  // One core: 1 x all cores is 1 x 1 core.
  const Planned planned = plan_for("package:1 core:1 pu:1", {}, 8);
  ASSERT_EQ(planned.plan.configurations.size(), 1u);
  EXPECT_EQ(planned.plan.configurations[0].id, "1xall");
  ASSERT_FALSE(planned.plan.notes.empty());
  EXPECT_EQ(planned.plan.notes[0], "1x1 is the same run as 1xall: measured once");
}

TEST(TrainBenchPlan, SelectsAndRejects) {
  const Planned planned = plan_for("package:2 core:2 pu:1", {}, 8, {"Pxpart", "1xpart"});
  EXPECT_EQ(planned.plan.configurations.size(), 2u);
  EXPECT_THROW(plan_for("package:2 core:2 pu:1", {}, 8, {"2x1"}), InputError);
  EXPECT_THROW(plan_for("package:2 core:2 pu:1", {}, 7), InputError);
  EXPECT_THROW(plan_for("package:2 core:2 pu:1", {.nproc_per_node = 3}, 8), InputError);
}

TEST(TrainBenchWorkload, PresetsAndSyntheticBatchesAreValid) {
  for (const char* name : {"base", "large", "small", "tiny"}) {
    const model::BertConfig config = bench_preset(name);
    config.validate(name);
    const data::Batch batch = synthetic_batch(config, 3, 16, 5);
    model::validate_batch(batch, config, name);
    EXPECT_EQ(batch.input_ids, synthetic_batch(config, 3, 16, 5).input_ids);
  }
  EXPECT_EQ(bench_preset("large").num_hidden_layers, 24);
  EXPECT_THROW(bench_preset("huge"), InputError);
  // BERT-base at batch 32 x seq 128: ~2.2 TFLOP per training step (6 x 85M encoder
  // parameters x 4096 tokens, plus attention), less the last layer's rows the classifier never
  // reads (all but its first token's, but for their keys and values): ~2.0.
  EXPECT_NEAR(step_flops(bench_preset("base"), 32, 128) * 1e-12, 2.0, 0.05);
}

TEST(TrainBenchWorkload, ReadsLengthsAndNamesTheLineOfABadOne) {
  const testing::TempDir dir;
  testing::write_file(dir / "lengths.txt", "# MRPC\n53\n\n200\n 7 \n");
  EXPECT_EQ(read_lengths(dir / "lengths.txt", 128), (std::vector<std::int32_t>{53, 128, 7}));
  testing::write_file(dir / "bad.txt", "53\n12x\n");
  EXPECT_EQ(testing::error_of([&] { read_lengths(dir / "bad.txt", 128); }),
            (dir / "bad.txt").string() + ":2: '12x' is not a sequence length (a whole number from 1)");
  testing::write_file(dir / "zero.txt", "0\n");
  EXPECT_THROW(read_lengths(dir / "zero.txt", 128), InputError);
  testing::write_file(dir / "empty.txt", "# nothing\n");
  EXPECT_THROW(read_lengths(dir / "empty.txt", 128), InputError);
  EXPECT_THROW(read_lengths(dir / "missing.txt", 128), InputError);
}

}  // namespace
}  // namespace shmtrain::bench
