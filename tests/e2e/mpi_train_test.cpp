// The MPI bridge through the built binary under mpiexec: 4 ranks as 2 simulated hosts x 2
// train the model that 4 forked workers on one host train (replicated and sharded optimizer),
// and repeat it bit for bit; a rank killed mid-run stops every rank within seconds, leaves no
// segment in /dev/shm, and the run resumes; bad input is one error; --hostfile starts mpirun.
// Skipped, saying why, when shmtrain was built without MPI.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "job_processes.hpp"
#include "reference_run.hpp"
#include "shmtrain/comm/shm/segment.hpp"
#include "shmtrain/launch/mpirun_command.hpp"
#include "shmtrain/train/output_dir.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

#define SKIP_WITHOUT_MPI()                                                      \
  do {                                                                          \
    if (const std::string reason = mpi_unavailable_reason(); !reason.empty()) { \
      GTEST_SKIP() << reason;                                                   \
    }                                                                           \
  } while (false)

// The PyTorch reference's settings (as data_parallel_test.cpp), with the optimizer sharded or not.
std::string reference_flags(const ReferenceRun& run, const fs::path& output_dir, bool shard) {
  return four_rank_reference_flags(run, output_dir) + (shard ? " --shard_optimizer" : "");
}

CliRun run_under_mpi(int ranks, const std::string& arguments) {
  return run_command(mpiexec_prefix(ranks) + " " + shmtrain_binary().string() + " " + arguments);
}

class MpiTrain : public ::testing::TestWithParam<bool> {};

TEST_P(MpiTrain, TwoSimulatedHostsTrainTheModelOfFourWorkersOnOneHostBitIdenticallyRunAfterRun) {
  SKIP_WITHOUT_MPI();
  const bool shard = GetParam();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun box = run_shmtrain(reference_flags(run, dir / "box", shard) + " --nproc_per_node 4");
  ASSERT_EQ(box.exit_code, 0) << box.output();
  const auto expected = metric_by_step(dir / "box" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 20u);

  for (const char* name : {"hosts", "again"}) {
    const CliRun hosts = run_under_mpi(4, reference_flags(run, dir / name, shard) + " --simulated_hosts 2");
    ASSERT_EQ(hosts.exit_code, 0) << hosts.output();
    EXPECT_NE(hosts.out.find("MPI: 4 ranks = 2 host(s) x 2 rank(s)"), std::string::npos) << hosts.out;
    EXPECT_NE(hosts.out.find("training: 4 worker(s)"), std::string::npos) << hosts.out;
  }
  const auto losses = metric_by_step(dir / "hosts" / "metrics.jsonl", "loss");
  ASSERT_EQ(losses.size(), expected.size());
  double worst = 0;
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_EQ(losses[i].first, expected[i].first);
    // Within 1e-5 relative: within a host the ranks' gradients add as on one box, then the hosts'
    // sums add; a different order of the same additions.
    EXPECT_NEAR(losses[i].second, expected[i].second, 1e-5 * std::abs(expected[i].second))
        << "step " << i + 1;
    worst = std::max(worst, std::abs(losses[i].second - expected[i].second) / std::abs(expected[i].second));
  }
  std::printf("2 simulated hosts x 2 ranks vs 4 workers on one host: largest relative loss difference %.2e\n",
              worst);
  expect_same_weights(dir / "hosts" / "model.safetensors", dir / "box" / "model.safetensors");
  EXPECT_EQ(metric_by_step(dir / "again" / "metrics.jsonl", "loss"), losses);
  EXPECT_EQ(read_file(dir / "again" / "model.safetensors"), read_file(dir / "hosts" / "model.safetensors"));
}

INSTANTIATE_TEST_SUITE_P(Optimizer, MpiTrain, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? std::string("sharded") : std::string("replicated");
                         });

// RoBERTa over the bridge: 2 simulated hosts x 2 ranks, one row each, train the PyTorch
// fixture's RobertaForSequenceClassification to its losses (pad id 1, positions from the ids).
TEST(MpiTrainRoberta, TwoSimulatedHostsReproducePyTorch) {
  SKIP_WITHOUT_MPI();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir, "reference_heads/roberta_cls");
  const CliRun hosts = run_under_mpi(
      4, fmt::format("train --do_train --model_name_or_path {} --train_file {} --do_eval false --output_dir {} --max_seq_length 24"
                     " --per_device_train_batch_size 1 --learning_rate 1e-3 --weight_decay 0.01 --lr_scheduler_type"
                     " constant --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0 --simulated_hosts 2",
                     run.model.string(), run.train_file.string(), (dir / "hosts").string()));
  ASSERT_EQ(hosts.exit_code, 0) << hosts.output();
  const auto losses = metric_by_step(dir / "hosts" / "metrics.jsonl", "loss");
  ASSERT_EQ(losses.size(), run.losses.size());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_NEAR(losses[i].second, run.losses[i], 1e-4 * std::abs(run.losses[i])) << "step " << i + 1;
  }
}

// --ddp_bf16_grads: the arena holds the gradients' bf16 copy too, forked or under MPI, and the
// hosts' exchange (bf16 between hosts: each host's partial rounded, then their sum) follows one
// host's. 1e-4 rather than 1e-5: where the two round to neighbouring bf16 values, an element
// moves by 2^-8 of itself.
TEST(MpiTrainBf16, Bf16GradientsAcrossHostsTrainAsOnOneHost) {
  SKIP_WITHOUT_MPI();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun box =
      run_shmtrain(reference_flags(run, dir / "box", false) + " --ddp_bf16_grads --nproc_per_node 4");
  ASSERT_EQ(box.exit_code, 0) << box.output();
  const CliRun hosts =
      run_under_mpi(4, reference_flags(run, dir / "hosts", false) + " --ddp_bf16_grads --simulated_hosts 2");
  ASSERT_EQ(hosts.exit_code, 0) << hosts.output();
  const auto expected = metric_by_step(dir / "box" / "metrics.jsonl", "loss");
  const auto losses = metric_by_step(dir / "hosts" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 20u);
  ASSERT_EQ(losses.size(), expected.size());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_NEAR(losses[i].second, expected[i].second, 1e-4 * std::abs(expected[i].second))
        << "step " << i + 1;
  }
}

// run_mlm over the bridge: 2 simulated hosts x 2 ranks train the masked-LM model of one worker
// (the masks a function of the row, the loss the mean over the global batch's masked tokens).
TEST(MpiTrainMlm, TwoSimulatedHostsTrainTheMaskedLmModelOfOneWorker) {
  SKIP_WITHOUT_MPI();
  const TempDir dir;
  std::string text;
  for (int i = 0; i < 64; ++i) text += fmt::format("the cat sat on mat {} and the dog ran to the park\n", i % 7);
  write_file(dir / "text.txt", text);
  const auto flags = [&](const std::string& name, int per_device) {
    return fmt::format("train --do_train --task_name mlm --config_name {} --tokenizer_name demo/paraphrase --train_file {}"
                       " --output_dir {} --max_seq_length 32 --per_device_train_batch_size {} --learning_rate 1e-3"
                       " --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0 --seed 5"
                       " --max_train_samples 24",  // 3 whole global batches: DistributedSampler pads none
                       (source_dir() / "demo/paraphrase/config.json").string(), (dir / "text.txt").string(),
                       (dir / name).string(), per_device);
  };
  const CliRun one = run_command(fmt::format("cd {} && {} {}", source_dir().string(), shmtrain_binary().string(),
                                             flags("one", 8) + " --nproc_per_node 1"));
  ASSERT_EQ(one.exit_code, 0) << one.output();
  const CliRun hosts = run_command(fmt::format("cd {} && {}", source_dir().string(),
                                               mpiexec_prefix(4) + " " + shmtrain_binary().string() + " " +
                                                   flags("hosts", 2) + " --simulated_hosts 2"));
  ASSERT_EQ(hosts.exit_code, 0) << hosts.output();
  const auto expected = metric_by_step(dir / "one" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 3u);
  expect_same_losses(metric_by_step(dir / "hosts" / "metrics.jsonl", "loss"), expected);
}

TEST(MpiTrainFailure, AKilledRankStopsEveryRankWithinSecondsLeavesNoSegmentAndTheRunResumes) {
  SKIP_WITHOUT_MPI();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const fs::path out = dir / "out";
  // Thousands of epochs: the run is still training when the rank dies.
  const std::string flags = "train --do_train --simulated_hosts 2 --model_name_or_path " + run.model.string() +
                            " --train_file " + run.train_file.string() + " --output_dir " + out.string() +
                            " --do_eval false --max_seq_length 32 --per_device_train_batch_size 2"
                            " --num_train_epochs 5000 --save_steps 25 --logging_steps 1000";
  std::vector<std::string> argv =
      split_words(mpiexec_prefix(4) + " " + shmtrain_binary().string() + " " + flags);
  const pid_t mpiexec = start_process(argv, dir / "stdout.txt", dir / "stderr.txt");
  ASSERT_GT(mpiexec, 0);
  const auto started = std::chrono::steady_clock::now();
  while (!fs::exists(out / "checkpoint-50") && std::chrono::steady_clock::now() - started < 60s) {
    std::this_thread::sleep_for(20ms);
  }
  const std::vector<pid_t> ranks = descendants_running(mpiexec, shmtrain_binary());
  ASSERT_TRUE(fs::exists(out / "checkpoint-50")) << read_file(dir / "stderr.txt");
  ASSERT_EQ(ranks.size(), 4u) << read_file(dir / "stderr.txt");
  // The hosts' segments were unlinked as soon as their ranks had mapped them.
  EXPECT_EQ(segments_created_by(ranks), std::vector<std::string>{});

  ASSERT_EQ(kill(ranks[2], SIGKILL), 0);
  const auto killed = std::chrono::steady_clock::now();
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = waitpid(mpiexec, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() - killed < 30s) {
    std::this_thread::sleep_for(10ms);
  }
  if (reaped == 0) {
    for (pid_t rank : ranks) kill(rank, SIGKILL);
    kill(mpiexec, SIGKILL);
    waitpid(mpiexec, &status, 0);
    FAIL() << "mpiexec still ran 30 s after a rank was killed";
  }
  bool ranks_gone = false;
  while (!ranks_gone && std::chrono::steady_clock::now() - killed < 30s) {
    ranks_gone = true;
    for (pid_t rank : ranks) ranks_gone = ranks_gone && !comm::process_alive(rank);  // a zombie has exited
    if (!ranks_gone) std::this_thread::sleep_for(10ms);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  std::printf("every rank had stopped %.2f s after one was killed\n", seconds);
  EXPECT_TRUE(ranks_gone) << "a rank outlived the job by 30 s";
  EXPECT_LT(seconds, 30.0);
  std::printf("%s", read_file(dir / "stderr.txt").c_str());
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::string err = read_file(dir / "stderr.txt");
  // The launcher names the killed rank, or a surviving rank that noticed first names it.
  EXPECT_TRUE(err.find("signal 9") != std::string::npos || err.find("is gone") != std::string::npos) << err;
  EXPECT_EQ(segments_created_by(ranks), std::vector<std::string>{});

  // Rerun into the same output_dir: rank 0 finds the newest checkpoint and every rank resumes.
  const std::vector<fs::path> checkpoints = train::list_checkpoints(out);
  ASSERT_FALSE(checkpoints.empty());
  const std::string last = checkpoints.back().filename().string();
  const long step = std::stol(last.substr(11));
  const CliRun resumed = run_under_mpi(4, flags + fmt::format(" --max_steps {}", step + 2));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output();
  EXPECT_NE(resumed.out.find("resuming from " + last), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find(fmt::format("step {}/{}", step + 2, step + 2)), std::string::npos)
      << resumed.out;
}

TEST(MpiTrainFailure, BadInputIsOneErrorFromRankZeroAndEveryRankExitsNonZero) {
  SKIP_WITHOUT_MPI();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun result =
      run_under_mpi(4, "train --do_train --simulated_hosts 2 --model_name_or_path " + run.model.string() +
                           " --train_file " + (dir / "missing.jsonl").string() + " --output_dir " +
                           (dir / "out").string() + " --do_eval false --max_seq_length 32");
  EXPECT_NE(result.exit_code, 0);
  const std::string message = "shmtrain: error: " + (dir / "missing.jsonl").string() + ": no such file";
  const std::size_t first = result.err.find(message);
  ASSERT_NE(first, std::string::npos) << result.err;
  EXPECT_EQ(result.err.find(message, first + 1), std::string::npos) << "reported more than once:\n"
                                                                    << result.err;
  EXPECT_FALSE(fs::exists(dir / "out"));

  const CliRun uneven = run_under_mpi(4, "train --do_train --simulated_hosts 3 --model_name_or_path " +
                                             run.model.string() + " --train_file " + run.train_file.string() +
                                             " --output_dir " + (dir / "out").string());
  EXPECT_NE(uneven.exit_code, 0);
  EXPECT_NE(uneven.err.find("--simulated_hosts 3 does not divide the job's 4 ranks"), std::string::npos)
      << uneven.err;
}

// `train --hostfile FILE --nnodes N` prints the mpirun line it builds and runs it.
TEST(MpiTrainLauncher, HostfileStartsMpirunWithTheRanksPerHost) {
  SKIP_WITHOUT_MPI();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const launch::MpiFlavor flavor = launch::detect_mpi_flavor("mpirun");
  write_file(dir / "hostfile",
             flavor == launch::MpiFlavor::open_mpi ? "localhost slots=4\n" : "localhost:4\n");
  // The mpirun that shmtrain starts inherits this; see mpi_session_dir().
  setenv("OMPI_MCA_orte_tmpdir_base", mpi_session_dir().c_str(), 0);
  const CliRun result = run_shmtrain(
      "train --do_train --hostfile " + (dir / "hostfile").string() +
      " --nnodes 1 --nproc_per_node 4 --simulated_hosts 2 --model_name_or_path " + run.model.string() +
      " --train_file " + run.train_file.string() + " --output_dir " + (dir / "out").string() +
      " --do_eval false --max_seq_length 32 --per_device_train_batch_size 2"
      " --max_steps 4 --logging_steps 1 --save_steps 0 --ddp_timeout 30");
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_NE(result.out.find("shmtrain: 1 host(s) x 4 rank(s): mpirun "), std::string::npos) << result.out;
  // Open MPI's default keepalive would notice a cut host after 480 s, after --ddp_timeout 30: the
  // line sets one that notices within 10 s (launch/open_mpi_keepalive.hpp).
  if (flavor == launch::MpiFlavor::open_mpi) {
    EXPECT_NE(result.out.find("--mca oob_tcp_keepalive_time 8 --mca oob_tcp_keepalive_intvl 1 --mca "
                              "oob_tcp_keepalive_probes 2 "),
              std::string::npos)
        << result.out;
  }
  EXPECT_EQ(result.err.find("note: Open MPI notices"), std::string::npos) << result.err;
  EXPECT_NE(
      result.out.find(flavor == launch::MpiFlavor::open_mpi ? "-np 4 --map-by ppr:4:node" : "-n 4 -ppn 4"),
      std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("MPI: 4 ranks = 2 host(s) x 2 rank(s)"), std::string::npos) << result.out;
  EXPECT_EQ(metric_by_step(dir / "out" / "metrics.jsonl", "loss").size(), 4u);
}

// Open MPI binds each of 1 rank to a core when asked: shmtrain keeps that binding and says so;
// unbound, shmtrain binds the rank itself.
TEST(MpiTrainLauncher, ALaunchersBindingIsKeptAndSaid) {
  SKIP_WITHOUT_MPI();
  if (launch::detect_mpi_flavor("mpirun") != launch::MpiFlavor::open_mpi)
    GTEST_SKIP() << "uses Open MPI's --bind-to";
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const std::string flags = fmt::format(
      " {} train --dry_run --model_name_or_path {} --train_file {} --output_dir {} --do_eval false"
      " --max_seq_length 32",
      shmtrain_binary().string(), run.model.string(), run.train_file.string(), (dir / "out").string());
  const CliRun bound = run_command(fmt::format("{} --bind-to core{}", mpiexec_prefix(1), flags));
  ASSERT_EQ(bound.exit_code, 0) << bound.output();
  EXPECT_NE(bound.out.find("kept from the MPI launcher"), std::string::npos) << bound.out;
  const CliRun unbound = run_command(fmt::format("{} --bind-to none{}", mpiexec_prefix(1), flags));
  ASSERT_EQ(unbound.exit_code, 0) << unbound.output();
  EXPECT_NE(unbound.out.find("shmtrain (hwloc)"), std::string::npos) << unbound.out;
}

TEST(MpiTrainLauncher, SimulatedHostsWithoutAnMpiLauncherAreRefused) {
  const CliRun result = run_shmtrain(
      "train --do_train --simulated_hosts 2 --task_name mrpc --data_dir /nonexistent --output_dir /nonexistent");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(
      result.err.find("--simulated_hosts 2 splits the ranks of an MPI job: start shmtrain under mpirun"),
      std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace shmtrain::testing
