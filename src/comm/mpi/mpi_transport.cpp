#include "shmtrain/comm/mpi/mpi_transport.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "shmtrain/comm/backoff.hpp"

namespace shmtrain::comm {
namespace {

using Clock = std::chrono::steady_clock;

// As the shared-memory transport's waits (shm_transport.cpp), with a longer yield phase: a
// transfer in progress needs this rank's calls to move, and yielding still lets an
// oversubscribed peer run.
constexpr int kSpinTests = 200;
constexpr auto kMpiYieldPhase = std::chrono::milliseconds(50);
constexpr auto kMpiMaxSleep = std::chrono::microseconds(500);

}  // namespace

int mpi_count(std::size_t count, std::string_view what) {
  if (count > static_cast<std::size_t>(INT_MAX)) {
    throw CommError(fmt::format("{}: {} floats do not fit MPI's int counts; split the buffer", what, count));
  }
  return static_cast<int>(count);
}

MpiTransport::MpiTransport(MPI_Comm comm, MpiTransportOptions options) : comm_(comm), options_(options) {
  options_.threads = std::max(1, options_.threads);
  check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

void MpiTransport::check(int code, std::string_view what) const {
  if (code == MPI_SUCCESS) return;
  char message[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, message, &length);
  throw CommError(fmt::format("{} failed on rank {} of the MPI group: {}", what, rank_,
                              std::string_view(message, static_cast<std::size_t>(std::max(length, 0)))));
}

void MpiTransport::wait(MPI_Request& request, std::string_view what) {
  int done = 0;
  for (int i = 0; i < kSpinTests; ++i) {
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
  }
  const auto start = Clock::now();
  const auto deadline = start + options_.timeout;
  Backoff backoff(kMpiYieldPhase, kMpiMaxSleep);
  for (;;) {
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    if (options_.watch != nullptr && options_.watch->abort.load(std::memory_order_acquire) != 0) {
      throw PeerFailure(fmt::format("job aborted while rank {} of the MPI group waited in {}: {}", rank_,
                                    what, abort_reason(*options_.watch)));
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(options_.timeout).count();
      if (!options_.timeout_reason.empty()) {
        throw CommError(fmt::format("rank {} of the MPI group made no progress for {} s in {}: {}", rank_,
                                    seconds, what, options_.timeout_reason));
      }
      throw CommError(fmt::format(
          "rank {} of the MPI group waited {} s in {}: a rank on another host is stuck, "
          "gone or never got there",
          rank_, seconds, what));
    }
    backoff.pause(now);
  }
}

}  // namespace shmtrain::comm
