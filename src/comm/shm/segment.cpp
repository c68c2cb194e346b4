#include "shmtrain/comm/shm/segment.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <new>
#include <utility>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::comm {
namespace {

constexpr std::size_t kPage = 4096;
// A segment whose header was never completed is only judged stale after this long, so a job
// that is being created right now is left alone.
constexpr std::time_t kUnfinishedGraceSeconds = 60;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

struct Layout {
  std::size_t control_offset, staging_offset, arena_offset, slot_bytes, arena_bytes, total;
};

Layout layout_for(const SegmentConfig& config) {
  if (config.world_size < 1 || config.world_size > kMaxWorldSize) {
    throw Error(fmt::format("segment: world size {} is outside 1..{}", config.world_size, kMaxWorldSize));
  }
  const auto world = static_cast<std::size_t>(config.world_size);
  Layout l{};
  l.slot_bytes = round_up(std::max<std::size_t>(config.slot_bytes, kPage), kPage);
  l.arena_bytes = round_up(config.arena_bytes, kPage);
  l.control_offset = round_up(sizeof(SegmentHeader), kPage);
  l.staging_offset = l.control_offset + round_up(world * sizeof(RankControl), kPage);
  l.arena_offset = l.staging_offset + world * 2 * l.slot_bytes;
  l.total = l.arena_offset + world * l.arena_bytes;
  return l;
}

// Constructs the header and control blocks in zero-filled memory; the magic goes last.
void initialise(void* base, const SegmentConfig& config, const Layout& l) {
  auto* header = new (base) SegmentHeader{};
  header->layout_version = kLayoutVersion;
  header->world_size = static_cast<std::uint32_t>(config.world_size);
  header->total_bytes = l.total;
  header->slot_bytes = l.slot_bytes;
  header->arena_bytes = l.arena_bytes;
  header->control_offset = l.control_offset;
  header->staging_offset = l.staging_offset;
  header->arena_offset = l.arena_offset;
  header->launcher_pid = getpid();
  header->launcher_start_time = process_start_time(getpid());
  auto* control = reinterpret_cast<std::byte*>(base) + l.control_offset;
  for (int r = 0; r < config.world_size; ++r) new (control + static_cast<std::size_t>(r) * sizeof(RankControl)) RankControl{};
  header->magic.store(kSegmentMagic, std::memory_order_release);
}

}  // namespace

std::string make_job_token() {
  unsigned char bytes[8];
  std::size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("getrandom");
    }
    got += static_cast<std::size_t>(n);
  }
  std::string token;
  for (unsigned char b : bytes) token += fmt::format("{:02x}", b);
  return token;
}

Segment::Segment(void* base, std::size_t size, std::string name)
    : base_(base), size_(size), name_(std::move(name)), linked_(!name_.empty()) {}

Segment::Segment(Segment&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      name_(std::move(other.name_)),
      linked_(std::exchange(other.linked_, false)) {}

Segment::~Segment() {
  if (base_ != nullptr) munmap(base_, size_);
}

Segment Segment::create_anonymous(const SegmentConfig& config) {
  const Layout l = layout_for(config);
  // Pages are allocated, zero-filled, where they are first touched (segment.hpp: NUMA); the size
  // only counts against the kernel's overcommit limit now, which is what a failure here means.
  void* base = mmap(nullptr, l.total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    throw_errno(fmt::format("mmap of the job's shared segment ({} MiB, {} rank(s)) in anonymous shared memory",
                            (l.total + (1 << 20) - 1) >> 20, config.world_size));
  }
  initialise(base, config, l);
  return Segment(base, l.total, "");
}

Segment Segment::create_named(const SegmentConfig& config, const std::string& given_name) {
  const Layout l = layout_for(config);
  // ftruncate reserves nothing: a segment larger than what /dev/shm has free would map fine and
  // then kill the job with SIGBUS on the first page past the limit (a container's 64 MiB).
  struct statvfs shm{};
  if (statvfs("/dev/shm", &shm) == 0) {
    const auto free_bytes = static_cast<std::size_t>(shm.f_bavail) * shm.f_frsize;
    if (free_bytes < l.total) {
      throw Error(fmt::format("/dev/shm has {} MiB free; the job's shared segment needs {} MiB ({} rank(s)): enlarge "
                              "/dev/shm (docker run --shm-size, a Kubernetes emptyDir with medium: Memory) or free it",
                              free_bytes >> 20, (l.total + (1 << 20) - 1) >> 20, config.world_size));
    }
  }
  const std::string name = given_name.empty() ? std::string(kSegmentPrefix) + make_job_token() : given_name;
  const std::string path = "/" + name;
  const int fd = shm_open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0) throw_errno(fmt::format("shm_open /dev/shm/{}", name));
  auto fail = [&](std::string_view what) {
    const int saved = errno;
    close(fd);
    shm_unlink(path.c_str());
    throw SystemError(fmt::format("{} /dev/shm/{} ({} bytes)", what, name, l.total), saved);
  };
  // The umask may have narrowed the mode further; 0600 exactly is the contract.
  if (fchmod(fd, S_IRUSR | S_IWUSR) != 0) fail("fchmod");
  if (ftruncate(fd, static_cast<off_t>(l.total)) != 0) fail("ftruncate");
  void* base = mmap(nullptr, l.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) fail("mmap");
  close(fd);
  initialise(base, config, l);
  return Segment(base, l.total, name);
}

Segment Segment::open(const std::string& name) {
  const std::string path = "/" + name;
  const int fd = shm_open(path.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) throw_errno(fmt::format("shm_open /dev/shm/{}", name));
  struct stat st{};
  if (fstat(fd, &st) != 0) {
    const int saved = errno;
    close(fd);
    throw SystemError(fmt::format("fstat /dev/shm/{}", name), saved);
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* base = size > 0 ? mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  const int saved = errno;
  close(fd);
  if (size == 0) throw Error(fmt::format("/dev/shm/{} is empty: its creator has not sized it", name));
  if (base == MAP_FAILED) throw SystemError(fmt::format("mmap /dev/shm/{} ({} bytes)", name, size), saved);
  Segment segment(base, size, name);
  validate_segment(segment.bytes());
  return segment;
}

void Segment::unlink() noexcept {
  if (!linked_) return;
  shm_unlink(("/" + name_).c_str());  // ENOENT: already removed, which is the goal
  linked_ = false;
}

SegmentHeader& validate_segment(std::span<std::byte> bytes) {
  if (bytes.size() < sizeof(SegmentHeader)) throw Error(fmt::format("segment of {} bytes holds no header", bytes.size()));
  auto& header = *reinterpret_cast<SegmentHeader*>(bytes.data());
  if (header.magic.load(std::memory_order_acquire) != kSegmentMagic) throw Error("segment header: bad magic");
  if (header.layout_version != kLayoutVersion) {
    throw Error(fmt::format("segment layout version {} is not {}: workers and launcher are different shmtrain builds",
                            header.layout_version, kLayoutVersion));
  }
  if (header.world_size < 1 || header.world_size > kMaxWorldSize || header.total_bytes != bytes.size()) {
    throw Error(fmt::format("segment header: world size {} / {} bytes do not match the {}-byte mapping",
                            header.world_size, header.total_bytes, bytes.size()));
  }
  return header;
}

RankControl& rank_control(std::span<std::byte> segment, int rank) {
  const auto& header = *reinterpret_cast<const SegmentHeader*>(segment.data());
  return reinterpret_cast<RankControl*>(segment.data() + header.control_offset)[rank];
}

void raise_abort(SegmentHeader& header, std::string_view reason) noexcept {
  if (header.abort_claimed.exchange(1, std::memory_order_acq_rel) == 0) {
    const std::size_t n = std::min(reason.size(), sizeof(header.abort_reason) - 1);
    std::memcpy(header.abort_reason, reason.data(), n);
    header.abort_reason[n] = '\0';
    header.abort.store(1, std::memory_order_release);
  }
}

std::string abort_reason(const SegmentHeader& header) {
  if (header.abort.load(std::memory_order_acquire) == 0) return "";
  return header.abort_reason;
}

bool process_alive(std::int64_t pid) {
  if (pid <= 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: kill() said it exists
  const std::size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return true;
  const char state = line[paren + 2];
  return state != 'Z' && state != 'X' && state != 'x';
}

std::uint64_t process_start_time(std::int64_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return 0;
  const std::size_t paren = line.rfind(')');
  if (paren == std::string::npos) return 0;
  // Fields after the command: state is field 3, starttime field 22.
  std::size_t pos = paren + 2;
  for (int field = 3; field < 22; ++field) {
    pos = line.find(' ', pos);
    if (pos == std::string::npos) return 0;
    ++pos;
  }
  return std::strtoull(line.c_str() + pos, nullptr, 10);
}

std::vector<StaleSegment> remove_stale_segments() {
  std::vector<StaleSegment> removed;
  std::error_code ec;
  std::filesystem::directory_iterator it("/dev/shm", ec);
  if (ec) return removed;  // no /dev/shm: nothing of ours can be there
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kSegmentPrefix)) continue;
    const std::string path = "/" + name;
    const int fd = shm_open(path.c_str(), O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) continue;  // another user's, or removed meanwhile
    struct stat st{};
    bool stale = false;
    std::int64_t launcher = 0;
    if (fstat(fd, &st) == 0 && st.st_uid == getuid()) {
      if (static_cast<std::size_t>(st.st_size) < sizeof(SegmentHeader)) {
        stale = std::time(nullptr) - st.st_mtime > kUnfinishedGraceSeconds;
      } else if (void* map = mmap(nullptr, sizeof(SegmentHeader), PROT_READ, MAP_SHARED, fd, 0); map != MAP_FAILED) {
        const auto* header = static_cast<const SegmentHeader*>(map);
        if (header->magic.load(std::memory_order_acquire) != kSegmentMagic) {
          stale = std::time(nullptr) - st.st_mtime > kUnfinishedGraceSeconds;
        } else {
          launcher = header->launcher_pid;
          stale = !process_alive(launcher) || process_start_time(launcher) != header->launcher_start_time;
        }
        munmap(map, sizeof(SegmentHeader));
      }
    }
    close(fd);
    if (stale && shm_unlink(path.c_str()) == 0) removed.push_back({name, launcher});
  }
  return removed;
}

}  // namespace shmtrain::comm
