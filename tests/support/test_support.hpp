#pragma once
// Helpers every test module shares: a temporary folder removed at scope exit, the path of
// the committed test data, and array comparisons that print the first mismatches.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace shmtrain::testing {

std::filesystem::path fixtures_dir();     // tests/fixtures in the source tree
std::filesystem::path shmtrain_binary();  // build/shmtrain
std::filesystem::path source_dir();       // the repository root (configs/, demo/)

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// |actual - expected| <= atol + rtol * |expected| element by element; on failure lists the
// first few mismatching indices with both values.
::testing::AssertionResult all_close(std::span<const float> actual, std::span<const float> expected,
                                     double atol, double rtol = 0.0);
::testing::AssertionResult all_close(std::span<const double> actual, std::span<const double> expected,
                                     double atol, double rtol = 0.0);

// Writes `contents` to `path` (binary), creating parent folders.
void write_file(const std::filesystem::path& path, const std::string& contents);
std::string read_file(const std::filesystem::path& path);

// The message of the InputError that `action` throws, or "(no InputError)".
std::string error_of(const std::function<void()>& action);

// `build/shmtrain <arguments>` (shell words, as written), its exit code and what it printed.
struct CliRun {
  int exit_code = -1;  // -1: killed by a signal
  std::string out;
  std::string err;
  std::string output() const { return out + err; }
};
// With `cwd`, runs there (for configs whose paths are relative to the repository root).
CliRun run_shmtrain(const std::string& arguments, const std::filesystem::path& cwd = {});

// A shell command line, its exit code and what it printed.
CliRun run_command(const std::string& command_line);

// Why the MPI tests cannot run here, or "" when they can: this shmtrain was built without MPI,
// or CMake found no mpiexec.
std::string mpi_unavailable_reason();
// "env ... mpiexec -n <ranks>", the launcher of the MPI shmtrain was built with, allowed to run
// as root and to start more ranks than cores (Open MPI's variables; other MPIs ignore them).
std::string mpiexec_prefix(int ranks);
// This test process's own Open MPI session folder (OMPI_MCA_orte_tmpdir_base): two mpiexecs
// started at once by parallel tests otherwise race to create the same /tmp/ompi.HOST.UID and
// one fails ("A call to mkdir was unable to create the desired directory").
std::string mpi_session_dir();

// The names in `folder`, sorted (to check that a failed write left nothing behind).
std::vector<std::string> folder_entries(const std::filesystem::path& folder);

}  // namespace shmtrain::testing
