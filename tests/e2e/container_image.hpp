#pragma once
// shmtrain's image (deploy/Containerfile) for the tests that run it: the container program this
// machine has, the image holding this build's binary (tools/image.sh --binary, one test process
// at a time), the flags every container needs here, and groups of
// containers on a private network that are removed even when a test fails.
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace shmtrain::testing {

struct TestImage {
  std::string tag;          // the image, when it is there
  std::string skip_reason;  // why this machine cannot build or run containers (the test skips)
  std::string error;        // building it failed (the test fails)
};
// Builds the image with build/shmtrain in it (cached layers make it seconds when nothing changed);
// the Debian base too, with mmdebstrap, when the container program has none (no registry needed).
const TestImage& test_image();

// "podman" or "docker".
const std::string& container_program();
// `<program> run --rm <the flags this machine needs>`: runc rather than crun (which refuses hybrid
// cgroups), this process's hard limits of open files and processes (a VM's may be below the
// container runtime's defaults, which it then cannot set), no health-check timer (it needs systemd).
std::string container_run();

std::string shell_quote(const std::string& word);
std::string shell_words(const std::vector<std::string>& words);

// Containers named <prefix>-<name> on a network of their own, all removed with the object.
class ContainerGroup {
 public:
  ContainerGroup();
  ~ContainerGroup();
  ContainerGroup(const ContainerGroup&) = delete;
  ContainerGroup& operator=(const ContainerGroup&) = delete;

  const std::string& error() const { return error_; }  // the network could not be made
  std::string name(const std::string& short_name) const { return prefix_ + "-" + short_name; }
  // `<program> run` in this group's network, detached (`detached`) or waited for, as
  // `hostname`, with `flags` (volumes, environment) and `command` in the image.
  CliRun run(const std::string& short_name, const std::string& hostname,
             const std::vector<std::string>& flags, const std::vector<std::string>& command, bool detached);
  // The argv of that run in the foreground, for a job to start in the background (the container
  // is removed with the group all the same).
  std::vector<std::string> run_argv(const std::string& short_name, const std::string& hostname,
                                    const std::vector<std::string>& flags,
                                    const std::vector<std::string>& command) const;
  std::string ip(const std::string& short_name) const;
  CliRun kill(const std::string& short_name) const;
  CliRun exec(const std::string& short_name, const std::vector<std::string>& command) const;
  std::string logs(const std::string& short_name) const;

 private:
  std::string prefix_;
  std::string error_;
  mutable std::vector<std::string> started_;  // removed by the destructor, launched or not
};

}  // namespace shmtrain::testing
