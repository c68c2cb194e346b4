#include "support/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "shmtrain/common/error.hpp"

namespace shmtrain::testing {

std::filesystem::path fixtures_dir() { return SHMTRAIN_TEST_FIXTURES_DIR; }
std::filesystem::path shmtrain_binary() { return SHMTRAIN_TEST_BINARY; }
std::filesystem::path source_dir() { return SHMTRAIN_SOURCE_DIR; }

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "shmtrain-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

namespace {
template <typename T>
::testing::AssertionResult all_close_impl(std::span<const T> actual, std::span<const T> expected,
                                          double atol, double rtol) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << "sizes differ: actual " << actual.size() << ", expected " << expected.size();
  }
  std::ostringstream first;
  std::size_t bad = 0;
  double worst = 0.0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i];
    const double e = expected[i];
    const double err = std::abs(a - e);
    if (!(err <= atol + rtol * std::abs(e))) {  // also catches NaN
      if (bad < 8) first << "\n  [" << i << "] actual " << a << " expected " << e << " (diff " << err << ")";
      ++bad;
      worst = std::max(worst, err);
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << actual.size() << " elements differ beyond atol "
                                       << atol << " rtol " << rtol << " (worst " << worst << "):"
                                       << first.str();
}
}  // namespace

::testing::AssertionResult all_close(std::span<const float> actual, std::span<const float> expected,
                                     double atol, double rtol) {
  return all_close_impl(actual, expected, atol, rtol);
}
::testing::AssertionResult all_close(std::span<const double> actual, std::span<const double> expected,
                                     double atol, double rtol) {
  return all_close_impl(actual, expected, atol, rtol);
}

void write_file(const std::filesystem::path& path, const std::string& contents) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

std::vector<std::string> folder_entries(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace shmtrain::testing

namespace shmtrain::testing {

CliRun run_shmtrain(const std::string& arguments, const std::filesystem::path& cwd) {
  return run_command((cwd.empty() ? std::string() : "cd '" + cwd.string() + "' && ") + shmtrain_binary().string() +
                     " " + arguments);
}

CliRun run_command(const std::string& command_line) {
  const TempDir dir;
  const std::string command = command_line + " >" + (dir / "out.txt").string() + " 2>" + (dir / "err.txt").string() +
                              " </dev/null";
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file(dir / "out.txt");
  run.err = read_file(dir / "err.txt");
  return run;
}

std::string mpi_unavailable_reason() {
#if !defined(SHMTRAIN_HAVE_MPI)
  return "shmtrain was built without MPI (CMake found none, or SHMTRAIN_WITH_MPI=OFF): install libopenmpi-dev and "
         "openmpi-bin (tools/setup.sh) and rebuild to test the MPI bridge";
#elif !defined(SHMTRAIN_TEST_MPIEXEC)
  return "CMake found MPI but no mpiexec to start ranks with: install the MPI's launcher (openmpi-bin)";
#else
  return "";
#endif
}

std::string mpi_session_dir() {
  // Never destroyed: the exit handler that removes the folder runs after static destructors.
  static const std::string* const dir = [] {
    auto* path = new std::string(
        (std::filesystem::temp_directory_path() / ("shmtrain-tests-ompi-" + std::to_string(getpid()))).string());
    std::filesystem::create_directories(*path);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(mpi_session_dir(), ignored);
    });
    return path;
  }();
  return *dir;
}

std::string mpiexec_prefix(int ranks) {
#if defined(SHMTRAIN_TEST_MPIEXEC)
  const std::string mpiexec = SHMTRAIN_TEST_MPIEXEC;
#else
  const std::string mpiexec = "mpiexec";
#endif
  return "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
         "OMPI_MCA_orte_tmpdir_base=" +
         mpi_session_dir() + " " + mpiexec + " -n " + std::to_string(ranks);
}

}  // namespace shmtrain::testing
