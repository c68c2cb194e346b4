// Data-parallel `shmtrain train` through the built binary, workers as real processes: P
// workers with B/P rows each train the model that one worker trains with B rows, replicated or
// with a sharded optimizer; runs are deterministic; a 2-worker checkpoint resumes exactly.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

// The PyTorch reference's settings (train_cli_test.cpp) with the global batch of 8 split over
// `workers`: the DistributedSampler gives worker r rows r, r+P, ... so that each step covers
// the same 8 rows as the single worker's.
std::string flags_for(const ReferenceRun& run, const fs::path& output_dir, int workers, bool shard) {
  return fmt::format(
      "train --do_train --model_name_or_path {} --train_file {} --do_eval false --output_dir {} --max_seq_length 32"
      " --per_device_train_batch_size {} --nproc_per_node {} --learning_rate 1e-3 --weight_decay 0.01"
      " --lr_scheduler_type constant --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0{}",
      run.model.string(), run.train_file.string(), output_dir.string(), 8 / workers, workers,
      shard ? " --shard_optimizer" : "");
}

class DataParallel : public ::testing::TestWithParam<bool> {};

TEST_P(DataParallel, TwoAndFourWorkersTrainTheModelOfOneWithTheSameGlobalBatch) {
  const bool shard = GetParam();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun single = run_shmtrain(flags_for(run, dir / "p1", 1, false));
  ASSERT_EQ(single.exit_code, 0) << single.output();
  const auto expected = metric_by_step(dir / "p1" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 20u);
  for (int workers : {2, 4}) {
    const fs::path out = dir / fmt::format("p{}", workers);
    const CliRun result = run_shmtrain(flags_for(run, out, workers, shard));
    ASSERT_EQ(result.exit_code, 0) << result.output();
    EXPECT_NE(result.out.find(fmt::format("training: {} worker(s)", workers)), std::string::npos) << result.out;
    const auto losses = metric_by_step(out / "metrics.jsonl", "loss");
    ASSERT_EQ(losses.size(), expected.size());
    for (std::size_t i = 0; i < losses.size(); ++i) {
      EXPECT_EQ(losses[i].first, expected[i].first);
      EXPECT_NEAR(losses[i].second, expected[i].second, 1e-5 * std::abs(expected[i].second))
          << workers << " workers, step " << i + 1;
    }
    expect_same_weights(out / "model.safetensors", dir / "p1" / "model.safetensors");
  }
}

// Dropout on, batches packed (the default): each row draws its masks from its own key (the
// dataset row, the step, the site), never from the worker that runs it, so 2 workers with 4
// rows each draw what 1 worker with the same 8 rows draws, and train the same model; with
// --group_by_length too (the sampler shards as DistributedSampler does), and with
// --balance_tokens (the default: the same 8 rows per step, dealt by tokens). Each log line says how long
// each of the 2 workers waited for the other.
TEST(DataParallelDropout, TwoWorkersDrawTheMasksOfOneAndTrainTheSameModel) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  int variant = 0;
  for (const char* sampler : {" --balance_tokens false", " --group_by_length true", ""}) {
    ++variant;
    const std::string extra =
        std::string(" --hidden_dropout_prob 0.1 --attention_probs_dropout_prob 0.1") + sampler;
    const fs::path one = dir / fmt::format("one{}", variant);
    const fs::path two = dir / fmt::format("two{}", variant);
    const CliRun single = run_shmtrain(flags_for(run, one, 1, false) + extra);
    ASSERT_EQ(single.exit_code, 0) << single.output();
    const CliRun pair = run_shmtrain(flags_for(run, two, 2, false) + extra);
    ASSERT_EQ(pair.exit_code, 0) << pair.output();
    const auto expected = metric_by_step(one / "metrics.jsonl", "loss");
    const auto losses = metric_by_step(two / "metrics.jsonl", "loss");
    ASSERT_EQ(losses.size(), expected.size());
    ASSERT_EQ(losses.size(), 20u);
    for (std::size_t i = 0; i < losses.size(); ++i) {
      EXPECT_NEAR(losses[i].second, expected[i].second, 1e-5 * std::abs(expected[i].second))
          << "step " << i + 1 << sampler;
    }
    expect_same_weights(two / "model.safetensors", one / "model.safetensors");
    const std::string log = read_file(two / "metrics.jsonl");
    const nlohmann::json first = nlohmann::json::parse(log.substr(0, log.find('\n')));
    ASSERT_TRUE(first.contains("worker_wait")) << first.dump();
    EXPECT_EQ(first.at("worker_wait").size(), 2u);
    for (const auto& share : first.at("worker_wait")) EXPECT_GE(share.get<double>(), 0.0);
  }
}

// The same seed and worker count give the same bits: dropout, shuffling and the exchange's
// reductions are all fixed functions of the run.
TEST_P(DataParallel, TwoWorkerRunsAreBitIdentical) {
  const bool shard = GetParam();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const std::string flags = " --model_name_or_path " + run.model.string() + " --train_file " +
                            run.train_file.string() +
                            " --do_eval false --max_seq_length 32 --per_device_train_batch_size 4"
                            " --nproc_per_node 2 --hidden_dropout_prob 0.1 --logging_steps 1 --max_steps 12"
                            " --save_steps 0 --warmup_ratio 0.2" +
                            std::string(shard ? " --shard_optimizer" : "");
  for (const char* name : {"a", "b"}) {
    const CliRun result = run_shmtrain("train --do_train --output_dir " + (dir / name).string() + flags);
    ASSERT_EQ(result.exit_code, 0) << result.output();
  }
  const auto a = metric_by_step(dir / "a" / "metrics.jsonl", "loss");
  const auto b = metric_by_step(dir / "b" / "metrics.jsonl", "loss");
  ASSERT_EQ(a.size(), 12u);
  EXPECT_EQ(a, b);
  EXPECT_EQ(read_file(dir / "a" / "model.safetensors"), read_file(dir / "b" / "model.safetensors"));
}

// A 2-worker checkpoint (with a sharded optimizer, its moments gathered from both workers)
// resumes on 2 workers to the losses of the run that never stopped.
TEST_P(DataParallel, ATwoWorkerCheckpointResumesToTheSameLosses) {
  const bool shard = GetParam();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const std::string flags = " --model_name_or_path " + run.model.string() + " --train_file " +
                            run.train_file.string() +
                            " --do_eval false --max_seq_length 32 --per_device_train_batch_size 8"
                            " --gradient_accumulation_steps 2 --nproc_per_node 2 --learning_rate 1e-3"
                            " --warmup_ratio 0.2 --hidden_dropout_prob 0.1 --logging_steps 1 --max_steps 8"
                            " --save_steps 3" +
                            std::string(shard ? " --shard_optimizer" : "");
  const CliRun straight = run_shmtrain("train --do_train --output_dir " + (dir / "straight").string() + flags);
  ASSERT_EQ(straight.exit_code, 0) << straight.output();
  const CliRun resumed = run_shmtrain("train --do_train --output_dir " + (dir / "resumed").string() +
                                      " --resume_from_checkpoint " + (dir / "straight" / "checkpoint-3").string() +
                                      flags);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output();
  EXPECT_NE(resumed.out.find("resumed from"), std::string::npos) << resumed.out;
  const auto expected = metric_by_step(dir / "straight" / "metrics.jsonl", "loss");
  const auto after = metric_by_step(dir / "resumed" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 8u);
  ASSERT_EQ(after.size(), 5u);
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].first, expected[i + 3].first);
    EXPECT_EQ(after[i].second, expected[i + 3].second) << "step " << after[i].first;
  }
  EXPECT_EQ(read_file(dir / "resumed" / "model.safetensors"), read_file(dir / "straight" / "model.safetensors"));
}

// Elastic resume: a 2-worker checkpoint goes on with 1 worker (and a 1-worker one with 2), the
// global batch kept, to the losses of the 2-worker run that never stopped (up to summation
// order: the workers' gradients are summed in another order).
TEST_P(DataParallel, ACheckpointResumesOnAnotherWorkerCountWithTheSameGlobalBatch) {
  const bool shard = GetParam();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const std::string flags = " --model_name_or_path " + run.model.string() + " --train_file " +
                            run.train_file.string() +
                            " --do_eval false --max_seq_length 32 --learning_rate 1e-3 --warmup_ratio 0.2"
                            " --hidden_dropout_prob 0.1 --logging_steps 1 --max_steps 8 --save_steps 3" +
                            std::string(shard ? " --shard_optimizer" : "");
  const std::string two = " --nproc_per_node 2 --per_device_train_batch_size 4";
  const std::string one = " --nproc_per_node 1 --per_device_train_batch_size 8";
  const CliRun straight = run_shmtrain("train --do_train --output_dir " + (dir / "straight").string() + flags + two);
  ASSERT_EQ(straight.exit_code, 0) << straight.output();
  const CliRun shrunk = run_shmtrain("train --do_train --output_dir " + (dir / "shrunk").string() + flags + one +
                                     " --resume_from_checkpoint " + (dir / "straight" / "checkpoint-3").string());
  ASSERT_EQ(shrunk.exit_code, 0) << shrunk.output();
  EXPECT_NE(shrunk.out.find("(written by 2 worker(s), continued by 1)"), std::string::npos) << shrunk.out;
  // ... and back: the 1-worker run's checkpoint at step 6 on 2 workers.
  const CliRun grown = run_shmtrain("train --do_train --output_dir " + (dir / "grown").string() + flags + two +
                                    " --resume_from_checkpoint " + (dir / "shrunk" / "checkpoint-6").string());
  ASSERT_EQ(grown.exit_code, 0) << grown.output();
  const auto expected = metric_by_step(dir / "straight" / "metrics.jsonl", "loss");
  const auto after_shrink = metric_by_step(dir / "shrunk" / "metrics.jsonl", "loss");
  const auto after_grow = metric_by_step(dir / "grown" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 8u);
  ASSERT_EQ(after_shrink.size(), 5u);
  ASSERT_EQ(after_grow.size(), 2u);
  for (std::size_t i = 0; i < after_shrink.size(); ++i) {
    EXPECT_EQ(after_shrink[i].first, expected[i + 3].first);
    EXPECT_NEAR(after_shrink[i].second, expected[i + 3].second, 2e-6) << "step " << after_shrink[i].first;
  }
  for (std::size_t i = 0; i < after_grow.size(); ++i) {
    EXPECT_EQ(after_grow[i].first, expected[i + 6].first);
    EXPECT_NEAR(after_grow[i].second, expected[i + 6].second, 2e-6) << "step " << after_grow[i].first;
  }
}

INSTANTIATE_TEST_SUITE_P(Optimizer, DataParallel, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? std::string("sharded") : std::string("replicated");
                         });

TEST(DataParallelCli, ACheckpointOfAnotherGlobalBatchIsRefusedByName) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const std::string flags = " --model_name_or_path " + run.model.string() + " --train_file " +
                            run.train_file.string() +
                            " --do_eval false --max_seq_length 32 --per_device_train_batch_size 4 --max_steps 4"
                            " --save_steps 2";
  ASSERT_EQ(run_shmtrain("train --do_train --nproc_per_node 2 --output_dir " + (dir / "two").string() + flags).exit_code, 0);
  const CliRun one = run_shmtrain("train --do_train --output_dir " + (dir / "one").string() + " --resume_from_checkpoint " +
                                  (dir / "two" / "checkpoint-2").string() + flags);
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_NE(one.err.find("the checkpoint was made with 2 worker(s)"), std::string::npos) << one.err;
}

TEST(DataParallelCli, DryRunPrintsThePlacementAndWorkers) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun result = run_shmtrain("train --do_train --dry_run --nproc_per_node 2 --model_name_or_path " +
                                     run.model.string() + " --train_file " + run.train_file.string() +
                                     " --do_eval false --output_dir " + (dir / "out").string() +
                                     " --max_seq_length 32 --per_device_train_batch_size 4 --shard_optimizer");
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_NE(result.out.find("rank  package"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("training: 2 worker(s) x "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("sharded optimizer | batch 4 x 2 worker(s) x 1 accumulation = 8 | 20 steps/epoch"),
            std::string::npos)
      << result.out;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace shmtrain::testing
