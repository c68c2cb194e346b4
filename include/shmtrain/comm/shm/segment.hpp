#pragma once
// The job's shared-memory segment, made in one of two ways:
//
// - Anonymous (one host, `shmtrain train` forks the workers): the launcher maps it with
//   mmap(MAP_SHARED | MAP_ANONYMOUS) before it forks, and every worker inherits the mapping.
//   It has no name: nothing is created in /dev/shm, so a container's small /dev/shm (Docker's
//   64 MiB) does not limit it, and the memory goes with the last process that maps it, so even a
//   launcher killed with SIGKILL leaves nothing behind. Why not memfd_create(MFD_CLOEXEC): a
//   memfd is for handing the memory to a process that did not fork from its creator (by
//   SCM_RIGHTS or /proc/<pid>/fd); every process of this job is a fork child, so the descriptor
//   would only be one more thing to close.
//   NUMA: anonymous shared memory, a memfd and a /dev/shm file are the same kernel object
//   (shmem), and no mbind is applied to any of them: a page is placed when it is first touched,
//   under the memory policy of the process that touches it. The launcher touches only the header
//   and control blocks; each worker is memory-bound to its NUMA node (topo/binding) before it
//   runs, and writes its own staging slots and arena (the gradients backward writes) before its
//   peers read them, so its part of the segment lands on its node, as it did in /dev/shm.
// - Named (under an MPI launcher there is no fork): each host's local rank 0 creates the POSIX
//   shm object "/shmtrain-<token>-<host>" (a file in /dev/shm, 0600, after checking /dev/shm
//   has room for it), the host's other ranks open it by name, and the name is removed as soon as
//   all have it mapped. A job killed between those two steps leaves its segment behind:
//   remove_stale_segments() finds it by its dead creator and removes it.
// Threads of one process (run_in_threads, tests) use an anonymous segment too.
//
// Why raw mmap/shm_open and not Boost.Interprocess (shmtrain does not depend on Boost): the
// segment has a fixed layout, not a managed heap (peers find each other's buffers by offset).
// Boost's anonymous_shared_memory is this same mmap call; for the named segment we need O_EXCL
// + fchmod 0600, fstat to judge stale segments and errno in every error message, and Boost's
// shared_memory_object + mapped_region would be a thin wrapper over the same calls that reports
// failures as its own exception type.
//
// Layout (every region page-aligned; offsets recorded in the header):
//   header                      magic, layout version, world size, sizes, launcher identity,
//                               the job's abort flag and reason
//   control[world]              per rank: step counter on its own cache line, then the
//                               metadata of its last two steps (collective tag, buffer offset),
//                               then its heartbeat on a line of its own (comm/shm/heartbeat.hpp)
//   staging[world][2]           per rank two slots of slot_bytes: copy-in buffers
//   arena[world]                per rank arena_bytes: buffers peers read in place
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace shmtrain::comm {

inline constexpr std::uint64_t kSegmentMagic = 0x314e4152544d4853ULL;  // "SHMTRAN1" little-endian
inline constexpr std::uint32_t kLayoutVersion = 2;
inline constexpr int kMaxWorldSize = 1024;
inline constexpr std::size_t kCacheLine = 64;
inline constexpr std::string_view kSegmentPrefix = "shmtrain-";

struct SegmentConfig {
  int world_size = 1;
  std::size_t slot_bytes = std::size_t{4} << 20;  // copy-in slice per rank and slot
  std::size_t arena_bytes = 0;                    // per rank, for Communicator::allocate
};

struct SegmentHeader {
  std::atomic<std::uint64_t> magic;  // stored last, with release: a reader that sees it sees the rest
  std::uint32_t layout_version;
  std::uint32_t world_size;
  std::uint64_t total_bytes;
  std::uint64_t slot_bytes;
  std::uint64_t arena_bytes;
  std::uint64_t control_offset;
  std::uint64_t staging_offset;
  std::uint64_t arena_offset;
  std::int64_t launcher_pid;
  std::uint64_t launcher_start_time;  // /proc/<pid>/stat field 22: tells a reused pid apart
  alignas(kCacheLine) std::atomic<std::uint32_t> abort;
  std::atomic<std::uint32_t> abort_claimed;
  char abort_reason[512];
};

struct alignas(kCacheLine) RankControl {
  std::atomic<std::uint64_t> steps;  // steps this rank completed publishing; only it writes
  alignas(kCacheLine) std::atomic<std::uint64_t> tag[2];            // by step parity
  std::atomic<std::uint64_t> buffer_offset[2];                       // by step parity
  std::atomic<std::int64_t> pid;     // written by the launcher after fork and by the rank itself
  // Written only by the rank's transport. On a line of their own: the beats do not disturb the
  // readers of the step counter and the step metadata.
  alignas(kCacheLine) std::atomic<std::uint64_t> heartbeat;  // raised every kHeartbeatInterval
  std::atomic<std::uint32_t> left;  // 1 once the rank's transport is gone: it publishes no more steps
};

class Segment {
 public:
  // An anonymous segment for a job of config.world_size processes forked by this one after the
  // call (or threads of this one). Throws SystemError when the memory cannot be mapped.
  static Segment create_anonymous(const SegmentConfig& config);
  // A named segment, "shmtrain-<random token>" unless `name` is given. Throws Error when
  // /dev/shm has less room free than the segment needs, SystemError (EEXIST when the name is
  // taken) when it cannot be created.
  static Segment create_named(const SegmentConfig& config, const std::string& name = "");
  // Maps the named segment another process created, and validates it. Throws SystemError
  // when there is no such segment, Error when it is not a valid one.
  static Segment open(const std::string& name);

  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&&) = delete;
  Segment(const Segment&) = delete;
  ~Segment();  // unmaps; a name stays until unlink()

  // Removes the name from /dev/shm (mappings stay valid). Idempotent; nothing to do for an
  // anonymous segment; never throws.
  void unlink() noexcept;

  const std::string& name() const { return name_; }  // "shmtrain-<token>..."; empty when anonymous
  std::span<std::byte> bytes() const { return {static_cast<std::byte*>(base_), size_}; }
  SegmentHeader& header() const { return *static_cast<SegmentHeader*>(base_); }

 private:
  Segment(void* base, std::size_t size, std::string name);
  void* base_;
  std::size_t size_;
  std::string name_;
  bool linked_;  // the name is still in /dev/shm
};

// 16 random hex digits: names one job's segments ("shmtrain-<token>").
std::string make_job_token();

// Rank r's control block. REQUIRES: a validated segment, 0 <= rank < world size.
RankControl& rank_control(std::span<std::byte> segment, int rank);

// Checks magic, layout version and sizes of a mapped segment; throws Error naming what differs.
SegmentHeader& validate_segment(std::span<std::byte> bytes);

// Sets the job's abort flag with `reason` (the first caller's reason wins). Never throws.
void raise_abort(SegmentHeader& header, std::string_view reason) noexcept;
// The reason of a raised abort, or "" when none was raised.
std::string abort_reason(const SegmentHeader& header);

struct StaleSegment {
  std::string name;
  std::int64_t launcher_pid;
};

// Removes this user's named shmtrain segments whose creator is gone (pid dead or reused), and
// unreadable ones older than a minute. Returns what it removed.
std::vector<StaleSegment> remove_stale_segments();

// Whether the process exists: false for a pid that does not exist or is a zombie. A stopped or
// stuck process exists: its heartbeat tells it from a busy one (comm/shm/heartbeat.hpp).
bool process_alive(std::int64_t pid);
// /proc/<pid>/stat start time, 0 when unknown.
std::uint64_t process_start_time(std::int64_t pid);

}  // namespace shmtrain::comm
