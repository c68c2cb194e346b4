// shmtrain's image (deploy/Containerfile, tools/image.sh), with this build's binary in it: inside
// a container `shmtrain info` and the demo on 2 workers in a container's default 64 MB /dev/shm;
// `mpirun -np 4 shmtrain train --simulated_hosts 2` to the losses of the same run outside the
// image; then the MPIJob of configs/mpijob-shmtrain.yaml as the MPI Operator runs it: worker
// containers running the manifest's worker command (sshd as mpiuser), a launcher container
// running the manifest's mpirun line over ssh with a generated key pair mounted where the
// operator mounts it, training to the losses of 4 workers on one host; a worker container killed
// mid-run ends the job within --ddp_timeout + 10 s naming its host; and every path, user and port
// the manifest names is in the image. Skipped, saying why, where no container can be built or run.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "container_image.hpp"
#include "job_processes.hpp"
#include "manifest_yaml.hpp"
#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int kDdpTimeout = 5;

#define REQUIRE_IMAGE()                                            \
  do {                                                             \
    if (!test_image().skip_reason.empty()) {                       \
      GTEST_SKIP() << test_image().skip_reason;                    \
    }                                                              \
    ASSERT_TRUE(test_image().error.empty()) << test_image().error; \
  } while (false)

using Words = std::vector<std::string>;

// `command` in a fresh container of the image, `flags` (volumes) before the image's name.
CliRun in_image(const Words& flags, const Words& command) {
  return run_command(container_run() + " " + shell_words(flags) + " " + test_image().tag + " " +
                     shell_words(command));
}

// A test folder the image's user (uid 1000) may write, mounted at the same path in containers.
Words shared(const TempDir& dir) {
  run_command("chown -R 1000:1000 " + shell_quote(dir.path().string()));
  return {"--volume", dir.path().string() + ":" + dir.path().string()};
}

Words operator+(Words words, const Words& more) {
  words.insert(words.end(), more.begin(), more.end());
  return words;
}

// The PyTorch reference's settings on 4 ranks, a short --ddp_timeout between hosts.
std::string train_flags(const ReferenceRun& run, const fs::path& output_dir) {
  return four_rank_reference_flags(run, output_dir) + fmt::format(" --ddp_timeout {}", kDdpTimeout);
}

// The losses of 4 workers on one host, outside the image.
std::vector<std::pair<long, double>> losses_outside(const ReferenceRun& run, const fs::path& out) {
  const CliRun box = run_shmtrain(train_flags(run, out) + " --nproc_per_node 4");
  EXPECT_EQ(box.exit_code, 0) << box.output();
  return metric_by_step(out / "metrics.jsonl", "loss");
}

TEST(Image, HoldsItsLibrariesAndRunsInfoAndTheDemoOnTwoWorkersInA64MbDevShm) {
  REQUIRE_IMAGE();
  const CliRun ldd = in_image({}, {"ldd", "/usr/local/bin/shmtrain"});
  ASSERT_EQ(ldd.exit_code, 0) << ldd.output();
  EXPECT_EQ(ldd.out.find("not found"), std::string::npos) << ldd.out;

  const CliRun info = in_image({}, {"shmtrain", "info"});
  ASSERT_EQ(info.exit_code, 0) << info.output();
  EXPECT_NE(info.out.find("cpu features:"), std::string::npos) << info.out;
  const CliRun version = in_image({}, {"shmtrain", "--version"});
  EXPECT_EQ(version.exit_code, 0) << version.output();
  EXPECT_EQ(version.out.rfind("shmtrain ", 0), 0u) << version.out;
  const CliRun health =
      run_command(fmt::format("{} image inspect --format '{{{{json .Config.Healthcheck}}}}' {}",
                              container_program(), test_image().tag));
  EXPECT_NE(health.out.find(R"("shmtrain","--version")"), std::string::npos) << health.output();

  // The image's own command line for the demo (its CMD), shortened, into a mounted folder; the
  // container keeps its default /dev/shm.
  const TempDir dir;
  // podman's default is 64000 KiB, docker's 64 MiB.
  const CliRun shm = in_image({}, {"sh", "-c", "df --output=size -k /dev/shm | tail -1"});
  ASSERT_EQ(shm.exit_code, 0) << shm.output();
  EXPECT_LE(std::stol(shm.out), 65536) << "/dev/shm of " << shm.out << " KiB";
  const CliRun demo =
      in_image(shared(dir),
               {"shmtrain", "train", "--config", "configs/demo.toml", "--nproc_per_node", "2", "--max_steps",
                "6", "--logging_steps", "2", "--do_eval", "false", "--output_dir", (dir / "demo").string()});
  ASSERT_EQ(demo.exit_code, 0) << demo.output();
  EXPECT_NE(demo.out.find("training: 2 worker(s)"), std::string::npos) << demo.out;
  EXPECT_EQ(metric_by_step(dir / "demo" / "metrics.jsonl", "loss").size(), 3u);
  EXPECT_TRUE(fs::exists(dir / "demo" / "model.safetensors"));
}

TEST(Image, SimulatedHostsTrainToTheLossesOfTheSameRunOutsideTheImage) {
  REQUIRE_IMAGE();
  const std::string mpi = mpi_unavailable_reason();
  if (!mpi.empty()) GTEST_SKIP() << mpi;
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun outside = run_command(mpiexec_prefix(4) + " " + shmtrain_binary().string() + " " +
                                     train_flags(run, dir / "outside") + " --simulated_hosts 2");
  ASSERT_EQ(outside.exit_code, 0) << outside.output();
  // The container has this machine's cores: 4 ranks on 2 cores are more than Open MPI's slots.
  std::vector<std::string> command = {"mpirun", "--oversubscribe", "-np", "4", "shmtrain"};
  for (const std::string& word : split_words(train_flags(run, dir / "inside") + " --simulated_hosts 2"))
    command.push_back(word);
  const CliRun inside = in_image(shared(dir), command);
  ASSERT_EQ(inside.exit_code, 0) << inside.output();
  EXPECT_NE(inside.out.find("MPI: 4 ranks = 2 host(s) x 2 rank(s)"), std::string::npos) << inside.out;
  const auto expected = metric_by_step(dir / "outside" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 20u);
  expect_same_losses(metric_by_step(dir / "inside" / "metrics.jsonl", "loss"), expected);
}

// The manifest, read as the operator reads it, and what it says of the job.
struct MpiJob {
  json manifest;
  std::string name;
  int slots = 0, workers = 0;
  std::string ssh_mount;
  std::vector<std::string> worker_command, launcher_command;  // command + args

  static MpiJob read() {
    MpiJob job;
    job.manifest = read_manifest_yaml_file(source_dir() / "configs" / "mpijob-shmtrain.yaml");
    const json& spec = job.manifest.at("spec");
    job.name = job.manifest.at("metadata").at("name");
    job.slots = std::stoi(spec.at("slotsPerWorker").get<std::string>());
    job.workers = std::stoi(spec.at("mpiReplicaSpecs").at("Worker").at("replicas").get<std::string>());
    job.ssh_mount = spec.at("sshAuthMountPath");
    for (const auto& [role, argv] :
         {std::pair{"Worker", &job.worker_command}, {"Launcher", &job.launcher_command}}) {
      const json& container =
          spec.at("mpiReplicaSpecs").at(role).at("template").at("spec").at("containers").at(0);
      for (const json& word : container.at("command")) argv->push_back(word);
      for (const json& word : container.at("args")) argv->push_back(word);
    }
    return job;
  }
  const json& container(const std::string& role) const {
    return manifest.at("spec")
        .at("mpiReplicaSpecs")
        .at(role)
        .at("template")
        .at("spec")
        .at("containers")
        .at(0);
  }
  std::string worker_host(int i) const { return fmt::format("{}-worker-{}", name, i); }
  // The launcher's mpirun line up to the program it starts, then `flags` for that program.
  std::vector<std::string> launcher_with(const std::string& flags) const {
    std::vector<std::string> argv;
    for (const std::string& word : launcher_command) {
      argv.push_back(word);
      if (word == "shmtrain") break;
    }
    for (const std::string& word : split_words(flags)) argv.push_back(word);
    return argv;
  }
};

// The MPIJob's pods as containers: the operator's key pair and hostfile, `workers` worker
// containers running the manifest's worker command, each named by the hostname the operator gives
// it; the launcher's run is the caller's.
class MpiJobContainers {
 public:
  MpiJobContainers(const MpiJob& job, const TempDir& dir) : job_(job) {
    if (!group_.error().empty()) {
      error_ = group_.error();
      return;
    }
    // The operator generates an ECDSA key pair per job and mounts id_rsa, id_rsa.pub and
    // authorized_keys (the public key) from a Secret at sshAuthMountPath.
    fs::create_directories(dir / "ssh");
    fs::create_directories(dir / "mpi");
    const CliRun keys = in_image({"--volume", (dir / "ssh").string() + ":/keys", "--user", "root"},
                                 {"ssh-keygen", "-q", "-t", "ecdsa", "-N", "", "-f", "/keys/id_rsa"});
    if (keys.exit_code != 0) {
      error_ = "ssh-keygen: " + keys.output();
      return;
    }
    fs::copy_file(dir / "ssh" / "id_rsa.pub", dir / "ssh" / "authorized_keys");
    run_command("chown -R 1000:1000 " + shell_quote((dir / "ssh").string()) + " && chmod 600 " +
                shell_quote((dir / "ssh" / "id_rsa").string()));
    std::string hostfile;
    for (int i = 0; i < job.workers; ++i)
      hostfile += fmt::format("{} slots={}\n", job.worker_host(i), job.slots);
    write_file(dir / "mpi" / "hostfile", hostfile);
    const Words volumes =
        shared(dir) + Words{"--volume", (dir / "ssh").string() + ":" + job.ssh_mount + ":ro"};
    for (int i = 0; i < job.workers; ++i) {
      const CliRun worker =
          group_.run(fmt::format("w{}", i), job.worker_host(i), volumes, job.worker_command, true);
      if (worker.exit_code != 0) {
        error_ = "worker container: " + worker.output();
        return;
      }
    }
    // The launcher resolves the workers' names (the operator's headless Service does it there).
    launcher_flags_ = volumes + Words{"--volume", (dir / "mpi").string() + ":/etc/mpi:ro"};
    for (int i = 0; i < job.workers; ++i) {
      launcher_flags_ =
          launcher_flags_ + Words{"--add-host", job.worker_host(i) + ":" + group_.ip(fmt::format("w{}", i))};
    }
    // What the operator sets in the launcher (mpi-operator's ompiEnvVars).
    launcher_flags_ = launcher_flags_ + Words{"--env", "OMPI_MCA_orte_keep_fqdn_hostnames=true",
                                              "--env", "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile",
                                              "--env", "OMPI_MCA_plm_rsh_args=-o ConnectionAttempts=10"};
    // Each sshd listening before the launcher starts (the operator retries the connection instead).
    for (int i = 0; i < job.workers; ++i) {
      const auto start = Clock::now();
      while (group_.logs(fmt::format("w{}", i)).find("Server listening") == std::string::npos &&
             Clock::now() - start < 20s) {
        std::this_thread::sleep_for(100ms);
      }
    }
  }
  const std::string& error() const { return error_; }
  ContainerGroup& group() { return group_; }
  std::vector<std::string> launcher_argv(const std::string& flags) const {
    return group_.run_argv("launcher", job_.name + "-launcher", launcher_flags_, job_.launcher_with(flags));
  }

 private:
  const MpiJob& job_;
  ContainerGroup group_;
  std::string error_;
  Words launcher_flags_;
};

TEST(Image, TheMpiJobsLauncherTrainsOverSshOnItsWorkerContainersToTheLossesOfOneHost) {
  REQUIRE_IMAGE();
  const MpiJob job = MpiJob::read();
  ASSERT_EQ(job.workers * job.slots, 4) << "the reference run is 4 ranks of 2 rows";
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const auto expected = losses_outside(run, dir / "box");
  ASSERT_EQ(expected.size(), 20u);
  MpiJobContainers containers(job, dir);
  ASSERT_TRUE(containers.error().empty()) << containers.error();

  const CliRun launcher = run_command(shell_words(containers.launcher_argv(train_flags(run, dir / "job"))));
  ASSERT_EQ(launcher.exit_code, 0) << launcher.output();
  EXPECT_NE(launcher.out.find("MPI: 4 ranks = 2 host(s) x 2 rank(s)"), std::string::npos) << launcher.out;
  for (int i = 0; i < job.workers; ++i) EXPECT_NE(launcher.out.find(job.worker_host(i)), std::string::npos);
  expect_same_losses(metric_by_step(dir / "job" / "metrics.jsonl", "loss"), expected);
}

TEST(Image, AKilledWorkerContainerEndsTheMpiJobWithinTheTimeoutNamingItsHost) {
  REQUIRE_IMAGE();
  const MpiJob job = MpiJob::read();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  MpiJobContainers containers(job, dir);
  ASSERT_TRUE(containers.error().empty()) << containers.error();
  // Thousands of epochs: the job is still training when the worker goes.
  std::string flags = train_flags(run, dir / "out");
  flags.replace(flags.find("--num_train_epochs 1"), 20, "--num_train_epochs 5000");
  flags.replace(flags.find("--logging_steps 1"), 17, "--logging_steps 10");
  const pid_t launcher =
      start_process(containers.launcher_argv(flags), dir / "stdout.txt", dir / "stderr.txt");
  ASSERT_GT(launcher, 0);
  const auto started = Clock::now();
  while (metric_by_step(dir / "out" / "metrics.jsonl", "loss").size() < 3 && Clock::now() - started < 120s) {
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_GE(metric_by_step(dir / "out" / "metrics.jsonl", "loss").size(), 3u)
      << read_file(dir / "stderr.txt");

  const std::string victim = job.worker_host(job.workers - 1);
  const CliRun killed = containers.group().kill(fmt::format("w{}", job.workers - 1));
  ASSERT_EQ(killed.exit_code, 0) << killed.output();
  const auto at_kill = Clock::now();
  const auto limit = std::chrono::seconds(kDdpTimeout + 10);
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = waitpid(launcher, &status, WNOHANG)) == 0 && Clock::now() - at_kill < limit) {
    std::this_thread::sleep_for(20ms);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - at_kill).count();
  const std::string output = read_file(dir / "stdout.txt") + read_file(dir / "stderr.txt");
  if (reaped != launcher) {
    kill(launcher, SIGKILL);
    waitpid(launcher, nullptr, 0);
  }
  std::printf("%s\nthe launcher %s %.2f s after worker %s was killed\n", output.c_str(),
              reaped == launcher ? "ended" : "still ran", seconds, victim.c_str());
  ASSERT_EQ(reaped, launcher) << "the launcher outlived the worker by " << limit.count() << " s";
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_NE(output.find(victim), std::string::npos) << "the host is not named:\n" << output;

  // The other workers' ranks end with the job, and leave nothing in their /dev/shm.
  const Words left = {"sh", "-c",
                      "for p in /proc/[0-9]*; do readlink $p/exe; done | grep -c /shmtrain; ls /dev/shm"};
  for (int i = 0; i + 1 < job.workers; ++i) {
    CliRun still;
    const auto since = Clock::now();
    while ((still = containers.group().exec(fmt::format("w{}", i), left)).out != "0\n" &&
           Clock::now() - since < 10s) {
      std::this_thread::sleep_for(100ms);
    }
    EXPECT_EQ(still.out, "0\n") << job.worker_host(i) << ": shmtrain processes, then /dev/shm:\n"
                                << still.output();
  }
}

TEST(Image, EveryPathUserAndPortTheManifestNamesIsTheImages) {
  REQUIRE_IMAGE();
  const MpiJob job = MpiJob::read();
  // The user: each container's runAsUser is the image's own user, whose ~/.ssh is the key mount.
  const CliRun user = in_image({}, {"sh", "-c", "id -u; id -un; echo $HOME"});
  ASSERT_EQ(user.exit_code, 0) << user.output();
  const std::vector<std::string> ids = split_words(user.out);
  ASSERT_EQ(ids.size(), 3u) << user.out;
  for (const char* role : {"Launcher", "Worker"}) {
    EXPECT_EQ(job.container(role).at("securityContext").at("runAsUser"), ids[0]) << role;
    EXPECT_EQ(job.container(role).at("image"), job.container("Launcher").at("image")) << role;
  }
  EXPECT_EQ(job.ssh_mount, ids[2] + "/.ssh");

  // The port: the worker's containerPort is where its sshd listens and where ssh goes.
  const std::string port = job.container("Worker").at("ports").at(0).at("containerPort");
  const auto config = std::find(job.worker_command.begin(), job.worker_command.end(), "-f");
  ASSERT_NE(config, job.worker_command.end());
  const CliRun ports = in_image({}, {"sh", "-c",
                                     "sed -n 's/^Port //p' " + shell_quote(*(config + 1)) +
                                         "; sed -n 's/^ *Port //p' /etc/ssh/ssh_config.d/*.conf"});
  EXPECT_EQ(ports.out, port + "\n" + port + "\n") << ports.output();

  // The paths: the programs the containers run are on the image's PATH; every absolute path named
  // outside the volumes the pods mount exists in it.
  std::vector<std::string> mounts;
  for (const char* role : {"Launcher", "Worker"}) {
    if (!job.container(role).contains("volumeMounts")) continue;
    for (const json& mount : job.container(role).at("volumeMounts")) mounts.push_back(mount.at("mountPath"));
  }
  std::vector<std::string> paths = {job.ssh_mount};
  for (const auto* argv : {&job.worker_command, &job.launcher_command}) {
    for (const std::string& word : *argv) {
      const bool mounted = std::any_of(mounts.begin(), mounts.end(), [&](const std::string& mount) {
        return mount != "/dev/shm" && word.rfind(mount, 0) == 0;
      });
      if (word.rfind("/", 0) == 0 && !mounted) paths.push_back(word);
    }
  }
  paths.insert(paths.end(), mounts.begin(), mounts.end());
  std::string script;
  for (const std::string& path : paths) {
    if (path.rfind("/mnt/", 0) == 0) continue;  // the PVC's mount point: made by the mount
    script += fmt::format("test -e {0} || echo missing {0}; ", shell_quote(path));
  }
  for (const std::string& program :
       {job.launcher_command.front(), std::string("shmtrain"), job.worker_command.front()}) {
    script += fmt::format("command -v {0} >/dev/null || echo not on PATH: {0}; ", shell_quote(program));
  }
  const CliRun found = in_image({}, {"sh", "-c", script});
  EXPECT_EQ(found.exit_code, 0) << found.output();
  EXPECT_EQ(found.out, "") << "in the manifest, not in the image:\n" << found.out;

  // mpirun's line: every slot of every worker, shmtrain's own binding.
  const std::vector<std::string>& mpirun = job.launcher_command;
  const auto flag = [&](const std::string& name) {
    const auto at = std::find(mpirun.begin(), mpirun.end(), name);
    return at == mpirun.end() || at + 1 == mpirun.end() ? std::string() : *(at + 1);
  };
  EXPECT_EQ(flag("-np"), std::to_string(job.slots * job.workers));
  EXPECT_EQ(flag("--map-by"), fmt::format("ppr:{}:node", job.slots));
  EXPECT_EQ(flag("--bind-to"), "none");
  EXPECT_EQ(std::find(mpirun.begin(), mpirun.end(), "--allow-run-as-root"), mpirun.end())
      << "the launcher runs as " << ids[1] << ", not root";
}

}  // namespace
}  // namespace shmtrain::testing
