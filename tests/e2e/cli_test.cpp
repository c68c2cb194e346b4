// `shmtrain topo`, `shmtrain bench allreduce` and `bench search` end to end, through the built binary.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

TEST(Cli, TopoPrintsTheSyntheticMachineAndSaysBindingIsSkipped) {
  const CliRun run = run_shmtrain("topo --topology 'package:2 numa:2 core:4 pu:2' --placement numa");
  EXPECT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.output().find("2 package(s), 4 NUMA node(s), 16 core(s), 32 PU(s)"), std::string::npos) << run.output();
  EXPECT_NE(run.output().find("   3        1       3      4        4  24,26,28,30"), std::string::npos) << run.output();
  EXPECT_NE(run.output().find("binding skipped"), std::string::npos) << run.output();
}

TEST(Cli, TopoRejectsABadTopology) {
  const CliRun run = run_shmtrain("topo --topology 'package:x'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output().find("shmtrain: error: 'package:x' is neither"), std::string::npos) << run.output();
}

TEST(Cli, TopoCheckBindingShowsWorkersOnTheirPlannedCpus) {
  const CliRun run = run_shmtrain("topo --check_binding --nproc_per_node 2");
  EXPECT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.output().find("running on cpus"), std::string::npos) << run.output();
}

TEST(Cli, BenchAllreducePrintsVerifiedJsonPerSize) {
  const CliRun run = run_shmtrain("bench allreduce --nproc_per_node 2 --sizes 4K,1M --iters 3 --json");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  std::size_t lines = 0;
  std::size_t start = 0;
  for (std::size_t end; (end = run.out.find('\n', start)) != std::string::npos; start = end + 1) {
    const nlohmann::json row = nlohmann::json::parse(run.out.substr(start, end - start));
    EXPECT_TRUE(row.at("verified").get<bool>());
    EXPECT_EQ(row.at("workers").get<int>(), 2);
    EXPECT_GT(row.at("busbw_gbps").get<double>(), 0.0);
    EXPECT_GT(row.at("ratio_to_bound").get<double>(), 0.0);
    EXPECT_NEAR(row.at("busbw_gbps").get<double>(), row.at("algbw_gbps").get<double>(), 1e-9);  // 2(P-1)/P = 1
    ++lines;
  }
  EXPECT_EQ(lines, 2u);
}

TEST(Cli, BenchSearchPrintsTheSearchBesideTheGemmRate) {
  const CliRun run = run_shmtrain("bench search --queries 100 --corpus 3000 --dim 32 --k 5 --runs 1");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("exact top-k search (similarity_topk)"), std::string::npos) << run.output();
  EXPECT_NE(run.out.find("its products alone (no selection)"), std::string::npos) << run.output();
  EXPECT_NE(run.out.find("search / GEMM rate (the faster of the two): "), std::string::npos) << run.output();
  const CliRun bad = run_shmtrain("bench search --k 0");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("must be at least 1"), std::string::npos) << bad.output();
}

// Docker gives a container a 64 MiB /dev/shm. A one-host job maps its segment anonymously
// (comm/shm/segment.hpp) and does not use /dev/shm, so 2 workers train under such a /dev/shm (a
// private mount namespace with a 64 MiB tmpfs on /dev/shm, as root) a model whose segment does
// not fit there: BERT's 30522-token vocabulary at hidden 256 is 9.6M parameters, 2 x 38 MiB of
// gradient arena plus 16 MiB of staging: 89 MiB, which the named segment refused here.
TEST(Cli, TwoWorkersTrainWithA64MiBDevShmAsInADockerContainer) {
  const std::string mount = "mount -t tmpfs -o size=64m tmpfs /dev/shm";
  const CliRun probe = run_command("unshare -m sh -c '" + mount + "'");
  if (probe.exit_code != 0) {
    GTEST_SKIP() << "cannot mount a private /dev/shm here (unshare -m and mount need root or CAP_SYS_ADMIN): "
                 << probe.output();
  }
  const TempDir dir;
  const std::filesystem::path demo = source_dir() / "demo" / "paraphrase";
  nlohmann::json config = nlohmann::json::parse(read_file(demo / "config.json"));
  config["vocab_size"] = 30522;
  config["hidden_size"] = 256;
  config["intermediate_size"] = 1024;
  write_file(dir / "config.json", config.dump(2));
  const std::string size = "df -m --output=size /dev/shm | tail -n 1 | tr -d \" \"";
  const std::string train = " train --config_name " + (dir / "config.json").string() + " --tokenizer_name " +
                            demo.string() + " --task_name mrpc --data_dir " + demo.string() +
                            " --do_train --max_steps 2 --per_device_train_batch_size 2 --max_seq_length 32"
                            " --nproc_per_node 2 --logging_steps 1 --save_steps 0 --disable_tqdm --output_dir " +
                            (dir / "out").string();
  const CliRun run = run_command("unshare -m sh -c '" + mount + " && echo dev_shm_mib=$(" + size + ") && exec " +
                                 shmtrain_binary().string() + train + "'");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("dev_shm_mib=64\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("2 worker(s)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("step 2/2"), std::string::npos) << run.out;
}

std::set<std::string> shmtrain_segments() {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm")) {
    const std::string name = entry.path().filename().string();
    if (name.find("shmtrain") != std::string::npos) names.insert(name);
  }
  return names;
}

TEST(Cli, CtrlCStopsTheJobWithExitCode130AndNoSegmentLeft) {
  // A terminal's Ctrl-C sends SIGINT to the whole foreground process group: launcher and workers.
  const std::set<std::string> before = shmtrain_segments();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    const std::string binary = shmtrain_binary().string();
    execl(binary.c_str(), binary.c_str(), "bench", "allreduce", "--nproc_per_node", "2", "--sizes", "256M",
          "--iters", "1000", static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(child, child);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(kill(-child, SIGINT), 0);
  int status = 0;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << "status " << status;
  // Nothing of this job is left in /dev/shm. Its segment's name is random, and under ctest -j
  // another test binary's job may hold a segment of its own right now: such a segment goes when
  // that job ends, a leaked one stays. So wait (up to 30 s) for every shmtrain segment that was
  // not there before the job to go.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::set<std::string> left = shmtrain_segments();
  while (!std::includes(before.begin(), before.end(), left.begin(), left.end()) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = shmtrain_segments();
  }
  for (const std::string& name : left) EXPECT_TRUE(before.count(name) == 1) << "left in /dev/shm: " << name;
}

}  // namespace
}  // namespace shmtrain::testing
