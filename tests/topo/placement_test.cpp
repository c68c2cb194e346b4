#include "shmtrain/topo/placement.hpp"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <gtest/gtest.h>
#include <hwloc.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/topo/topology.hpp"
#include "support/test_support.hpp"

namespace shmtrain::topo {
namespace {

PlacementPlan plan_for(const std::string& synthetic, PlacementOptions options = {},
                       const std::string& cpuset = "") {
  return make_plan(Topology::load({synthetic, cpuset}), options);
}

TEST(Placement, OneSocketWithoutSmtIsOneWorkerOnAllCores) {
  const PlacementPlan plan = plan_for("package:1 core:4 pu:1");
  ASSERT_EQ(plan.workers.size(), 1u);
  EXPECT_EQ(plan.workers[0].cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(plan.workers[0].cores, 4);
  EXPECT_EQ(plan.workers[0].threads, 4);
  EXPECT_FALSE(plan.bind);
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("binding skipped"), std::string::npos);
}

TEST(Placement, TwoSocketsWithSmtUseOnePuPerCoreUnlessAsked) {
  const PlacementPlan plan = plan_for("package:2 core:4 pu:2");
  ASSERT_EQ(plan.workers.size(), 2u);
  EXPECT_EQ(plan.workers[0].cpus, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(plan.workers[1].cpus, (std::vector<int>{8, 10, 12, 14}));
  EXPECT_EQ(plan.workers[1].package, 1);
  EXPECT_EQ(plan.workers[1].threads, 4);

  const PlacementPlan smt = plan_for("package:2 core:4 pu:2", {.use_smt = true});
  EXPECT_EQ(smt.workers[1].cpus, (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(smt.workers[1].threads, 8);
}

TEST(Placement, FourSocketsWithTwoNumaNodesEach) {
  const Topology topology = Topology::load({"package:4 numa:2 core:2 pu:1", ""});
  EXPECT_EQ(topology.package_count(), 4);
  EXPECT_EQ(topology.numa_node_count(), 8);
  const PlacementPlan per_package = make_plan(topology, {});
  ASSERT_EQ(per_package.workers.size(), 4u);
  EXPECT_EQ(per_package.workers[3].cpus, (std::vector<int>{12, 13, 14, 15}));
  EXPECT_EQ(per_package.workers[3].numa_nodes, (std::vector<int>{6, 7}));
  const PlacementPlan per_numa = make_plan(topology, {.unit = PlacementUnit::numa});
  ASSERT_EQ(per_numa.workers.size(), 8u);
  EXPECT_EQ(per_numa.workers[5].cpus, (std::vector<int>{10, 11}));
  EXPECT_EQ(per_numa.workers[5].numa_nodes, (std::vector<int>{5}));
  EXPECT_EQ(per_numa.workers[5].package, 2);
}

TEST(Placement, NprocPerNodeSplitsEachSocketEvenly) {
  const PlacementPlan plan = plan_for("package:2 core:4 pu:1", {.nproc_per_node = 4});
  ASSERT_EQ(plan.workers.size(), 4u);
  EXPECT_EQ(plan.workers[1].cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(plan.workers[2].package, 1);
  EXPECT_EQ(plan.workers[2].threads, 2);
  EXPECT_TRUE(plan.notes.size() == 1);  // only "binding skipped"
}

TEST(Placement, UnevenCountSpansSocketsAndSaysSo) {
  const PlacementPlan plan = plan_for("package:2 core:3 pu:1", {.nproc_per_node = 3});
  ASSERT_EQ(plan.workers.size(), 3u);
  EXPECT_EQ(plan.workers[1].cpus, (std::vector<int>{2, 3}));
  int cores = 0;
  for (const PlacementEntry& w : plan.workers) cores += w.cores;
  EXPECT_EQ(cores, 6);
  EXPECT_EQ(plan.notes.size(), 2u);
}

TEST(Placement, MoreWorkersThanCoresOversubscribe) {
  const PlacementPlan plan = plan_for("package:1 core:2 pu:1", {.nproc_per_node = 4});
  ASSERT_EQ(plan.workers.size(), 4u);
  EXPECT_TRUE(plan.oversubscribed);
  EXPECT_EQ(plan.workers[2].cpus, (std::vector<int>{0}));
  EXPECT_EQ(plan.workers[3].cpus, (std::vector<int>{1}));
  EXPECT_EQ(plan.workers[3].threads, 1);
}

TEST(Placement, RestrictedCpusetDropsCoresAndPus) {
  // Package 0 keeps cores 0 and 1 (pus 0-3), package 1 keeps one pu of core 4 (pu 9).
  const PlacementPlan plan = plan_for("package:2 core:4 pu:2", {}, "0-3,9");
  ASSERT_EQ(plan.workers.size(), 2u);
  EXPECT_EQ(plan.workers[0].cpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(plan.workers[1].cpus, (std::vector<int>{9}));
  EXPECT_EQ(plan.workers[1].threads, 1);
  const PlacementPlan one_socket = plan_for("package:2 core:4 pu:2", {}, "8-15");
  ASSERT_EQ(one_socket.workers.size(), 1u);
  EXPECT_EQ(one_socket.workers[0].package, 1);
}

TEST(Placement, ExchangeCoresLeaveFewerComputeThreads) {
  EXPECT_EQ(plan_for("package:2 core:4 pu:1", {.exchange_cores = 1}).workers[0].threads, 3);
  EXPECT_THROW(plan_for("package:2 core:4 pu:1", {.exchange_cores = 4}), InputError);
}

TEST(Placement, SingleWorkerPlanKeepsOneWorkersCpusAsRankZero) {
  const PlacementPlan plan = plan_for("package:2 core:4 pu:2", {.nproc_per_node = 4});
  const PlacementPlan single = single_worker_plan(plan, 3);
  ASSERT_EQ(single.workers.size(), 1u);
  EXPECT_EQ(single.workers[0].rank, 0);
  EXPECT_EQ(single.workers[0].cpus, (std::vector<int>{12, 14}));
  EXPECT_EQ(single.workers[0].threads, 2);
  EXPECT_EQ(single.workers[0].package, 1);
  EXPECT_FALSE(single.bind);
  ASSERT_EQ(single.notes.size(), 1u);
  EXPECT_NE(single.notes[0].find("binding skipped"), std::string::npos);
  EXPECT_THROW(single_worker_plan(plan, 4), InputError);
}

TEST(Placement, BadInputIsAnInputError) {
  EXPECT_THROW(Topology::load({"package:two", ""}), InputError);
  EXPECT_THROW(Topology::load({"package:1 core:2 pu:1", "5-7"}), InputError);
  EXPECT_THROW(plan_for("package:1 core:2 pu:1", {.nproc_per_node = -1}), InputError);
  EXPECT_THROW(parse_placement_unit("core"), InputError);
  // Counts from the command line are bounded before a worker is planned (issue #21).
  EXPECT_EQ(
      shmtrain::testing::error_of([] { plan_for("package:1 core:2 pu:1", {.nproc_per_node = 2000000000}); }),
      "--nproc_per_node 2000000000: shmtrain runs at most 64 workers on one machine");
  EXPECT_EQ(shmtrain::testing::error_of([] { plan_for("package:1 core:2 pu:1", {.threads = 1000000}); }),
            "--threads 1000000: a worker runs at most 4096 threads");
}

TEST(Placement, CpuListsRoundTrip) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(format_cpu_list({11, 0, 1, 2, 3, 8, 10}), "0-3,8,10-11");
  EXPECT_THROW(parse_cpu_list("zero"), InputError);
}

TEST(Placement, XmlFileStandsInForTheMachine) {
  hwloc_topology_t synthetic;
  ASSERT_EQ(hwloc_topology_init(&synthetic), 0);
  ASSERT_EQ(hwloc_topology_set_synthetic(synthetic, "package:2 core:2 pu:2"), 0);
  ASSERT_EQ(hwloc_topology_load(synthetic), 0);
  testing::TempDir dir;
  const std::string path = (dir / "machine.xml").string();
  ASSERT_EQ(hwloc_topology_export_xml(synthetic, path.c_str(), 0), 0);
  hwloc_topology_destroy(synthetic);
  const PlacementPlan plan = plan_for(path);
  ASSERT_EQ(plan.workers.size(), 2u);
  EXPECT_EQ(plan.workers[1].cpus, (std::vector<int>{4, 6}));
  EXPECT_FALSE(plan.bind);
}

TEST(Placement, ThisMachineIsBoundAndCoversTheAllowedCpus) {
  const Topology topology = Topology::load({});
  EXPECT_TRUE(topology.is_this_system());
  EXPECT_EQ(topology.pu_count(), tensor::allowed_cpu_count());
  EXPECT_TRUE(make_plan(topology, {}).bind);
}

// taskset / cgroups: a process allowed one CPU sees a topology of one PU.
TEST(Placement, AffinityMaskRestrictsThisMachine) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) _exit(2);
    const Topology topology = Topology::load({});
    const PlacementPlan plan = make_plan(topology, {});
    if (topology.pu_count() != 1) std::fprintf(stderr, "%s", topology.summary().c_str());
    _exit(topology.pu_count() == 1 && plan.workers.size() == 1 && plan.workers[0].cpus == std::vector<int>{0}
              ? 0
              : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

}  // namespace
}  // namespace shmtrain::topo
