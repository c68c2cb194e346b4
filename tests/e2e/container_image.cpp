#include "container_image.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include <fmt/format.h>

#include "job_processes.hpp"

namespace shmtrain::testing {

namespace fs = std::filesystem;

namespace {

// The base deploy/Containerfile names (tools/image.sh --base-from-debian-mirror builds it).
constexpr const char* kBaseImage = "docker.io/library/debian:bookworm";

// One tag per build folder: two checkouts testing at once must not run each other's binary.
std::string test_tag() {
  return fmt::format("localhost/shmtrain:test-{:016x}", std::hash<std::string>{}(shmtrain_binary().string()));
}

std::string trimmed_output(const CliRun& run) {
  std::string text = run.out;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string find_container_program() {
  if (run_command("command -v podman").exit_code == 0) return "podman";
  if (run_command("command -v docker && docker info").exit_code == 0) return "docker";
  return "";
}

// Holds an exclusive lock on `path` for the object's life: one test process builds the image
// while the others wait, then find it built.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

TestImage prepare_test_image() {
  TestImage image;
  const std::string& program = container_program();
  if (program.empty()) {
    image.skip_reason =
        "no podman, and no docker with a running engine, to build and run the image (tools/test.sh installs "
        "podman "
        "and runc)";
    return image;
  }
  if (geteuid() != 0) {
    image.skip_reason = "the image test runs its containers as root (rootless podman needs subordinate ids)";
    return image;
  }
  // Built by every test process, one at a time: the builder's layer cache makes a build of
  // unchanged inputs a few seconds, and a changed Containerfile, configs/ or binary is never missed.
  const FileLock lock(shmtrain_binary().parent_path() / "image-test.lock");
  const bool have_base = run_command(fmt::format("{} image inspect {}", program, kBaseImage)).exit_code == 0;
  const CliRun build = run_command(fmt::format("{} --builder {} --binary {} --tag {}{}",
                                               shell_quote((source_dir() / "tools" / "image.sh").string()),
                                               program, shell_quote(shmtrain_binary().string()), test_tag(),
                                               have_base ? "" : " --base-from-debian-mirror"));
  if (build.exit_code != 0) {
    image.error = "tools/image.sh failed (" + std::to_string(build.exit_code) + "): " + build.output();
    return image;
  }
  std::printf("%s", build.out.substr(build.out.rfind("image: ")).c_str());
  // Building needs no container runtime (podman builds in a chroot); running does.
  const CliRun base = run_command(container_run() + " " + kBaseImage + " true");
  if (base.exit_code != 0) {
    image.skip_reason = "this machine cannot run a container: `" + container_run() + " " + kBaseImage +
                        " true` failed: " + base.output();
    return image;
  }
  image.tag = test_tag();
  return image;
}

}  // namespace

const std::string& container_program() {
  static const std::string program = find_container_program();
  return program;
}

const TestImage& test_image() {
  static const TestImage image = prepare_test_image();
  return image;
}

std::string container_run() {
  static const std::string flags = [] {
    rlimit files{}, processes{};
    getrlimit(RLIMIT_NOFILE, &files);
    getrlimit(RLIMIT_NPROC, &processes);
    const auto limit = [](rlim_t hard, rlim_t cap) {
      return hard == RLIM_INFINITY ? cap : std::min(hard, cap);
    };
    std::string line =
        fmt::format("{} run --rm --no-healthcheck --ulimit nofile={}:{} --ulimit nproc={}:{}",
                    container_program(), limit(files.rlim_max, 1048576), limit(files.rlim_max, 1048576),
                    limit(processes.rlim_max, 32768), limit(processes.rlim_max, 32768));
    if (container_program() == "podman" && run_command("command -v runc").exit_code == 0)
      line += " --runtime runc";
    return line;
  }();
  return flags;
}

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    line += shell_quote(word);
  }
  return line;
}

ContainerGroup::ContainerGroup() : prefix_(fmt::format("shmtrain-test-{}", getpid())) {
  const CliRun made = run_command(fmt::format("{} network create {}", container_program(), prefix_));
  if (made.exit_code != 0) error_ = "`network create` failed: " + made.output();
}

ContainerGroup::~ContainerGroup() {
  for (const std::string& name : started_) run_command(fmt::format("{} rm -f {}", container_program(), name));
  run_command(fmt::format("{} network rm -f {}", container_program(), prefix_));
}

std::vector<std::string> ContainerGroup::run_argv(const std::string& short_name, const std::string& hostname,
                                                  const std::vector<std::string>& flags,
                                                  const std::vector<std::string>& command) const {
  started_.push_back(name(short_name));
  std::vector<std::string> argv = split_words(container_run());
  for (const std::string& word : {std::string("--name"), name(short_name), std::string("--hostname"),
                                  hostname, std::string("--network"), prefix_}) {
    argv.push_back(word);
  }
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(test_image().tag);
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

CliRun ContainerGroup::run(const std::string& short_name, const std::string& hostname,
                           const std::vector<std::string>& flags, const std::vector<std::string>& command,
                           bool detached) {
  std::vector<std::string> argv = run_argv(short_name, hostname, flags, command);
  if (detached) argv.insert(argv.begin() + 2, "--detach");
  return run_command(shell_words(argv));
}

std::string ContainerGroup::ip(const std::string& short_name) const {
  return trimmed_output(run_command(
      fmt::format("{} inspect --format '{{{{(index .NetworkSettings.Networks \"{}\").IPAddress}}}}' {}",
                  container_program(), prefix_, name(short_name))));
}

CliRun ContainerGroup::kill(const std::string& short_name) const {
  return run_command(fmt::format("{} kill {}", container_program(), name(short_name)));
}

CliRun ContainerGroup::exec(const std::string& short_name, const std::vector<std::string>& command) const {
  return run_command(
      fmt::format("{} exec {} {}", container_program(), name(short_name), shell_words(command)));
}

std::string ContainerGroup::logs(const std::string& short_name) const {
  return run_command(fmt::format("{} logs {}", container_program(), name(short_name))).output();
}

}  // namespace shmtrain::testing
