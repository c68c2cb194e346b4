#include "shmtrain/comm/shm/shm_transport.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "shmtrain/comm/backoff.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::comm {
namespace {

using Clock = std::chrono::steady_clock;

// Spinning answers in well under a microsecond when the peer is running on its own core;
// then comm/backoff.hpp: yielding keeps oversubscribed ranks (more ranks than cores) moving,
// sleeping stops a rank that waits for a slow peer from burning its core.
constexpr int kSpinIterations = 4000;
constexpr auto kYieldPhase = std::chrono::milliseconds(2);
constexpr auto kMaxSleep = std::chrono::microseconds(500);
constexpr auto kLivenessInterval = std::chrono::milliseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// The rank's control block, once the rank is known to be one of the segment's.
RankControl& checked_control(std::span<std::byte> segment, int rank) {
  const SegmentHeader& header = validate_segment(segment);
  const int size = static_cast<int>(header.world_size);
  if (rank < 0 || rank >= size) throw Error(fmt::format("rank {} is outside a group of {}", rank, size));
  return rank_control(segment, rank);
}

}  // namespace

ShmTransport::ShmTransport(std::span<std::byte> segment, int rank, TransportOptions options)
    : base_(segment.data()),
      bytes_(segment.size()),
      header_(&validate_segment(segment)),
      rank_(rank),
      size_(static_cast<int>(header_->world_size)),
      options_(options),
      slot_floats_(header_->slot_bytes / sizeof(float)),
      heartbeat_(checked_control(segment, rank)) {
  options_.threads = std::max(1, options_.threads);
  control(rank_).pid.store(getpid(), std::memory_order_relaxed);
  control(rank_).left.store(0, std::memory_order_relaxed);
  steps_ = control(rank_).steps.load(std::memory_order_relaxed);
}

ShmTransport::~ShmTransport() {
  // Release: a peer that sees `left` also sees every step this rank published before.
  control(rank_).left.store(1, std::memory_order_release);
}

RankControl& ShmTransport::control(int r) const {
  return reinterpret_cast<RankControl*>(base_ + header_->control_offset)[r];
}

float* ShmTransport::slot(int owner, int which) const {
  const std::size_t index = static_cast<std::size_t>(owner) * 2 + static_cast<std::size_t>(which);
  return reinterpret_cast<float*>(base_ + header_->staging_offset + index * header_->slot_bytes);
}

float* ShmTransport::at_offset(std::uint64_t offset) const { return reinterpret_cast<float*>(base_ + offset); }

std::span<float> ShmTransport::allocate(std::size_t count) {
  const std::size_t bytes = (count * sizeof(float) + kCacheLine - 1) / kCacheLine * kCacheLine;
  if (arena_used_ + bytes > header_->arena_bytes) {
    throw Error(fmt::format("the shared arena of rank {} holds {} bytes, {} in use: {} more do not fit; start the "
                            "job with a larger arena",
                            rank_, header_->arena_bytes, arena_used_, bytes));
  }
  std::byte* start = base_ + header_->arena_offset + static_cast<std::size_t>(rank_) * header_->arena_bytes + arena_used_;
  arena_used_ += bytes;
  return {reinterpret_cast<float*>(start), count};
}

std::optional<std::uint64_t> ShmTransport::arena_offset_of(const float* data, std::size_t count) const {
  const auto* begin = reinterpret_cast<const std::byte*>(data);
  const std::byte* arena = base_ + header_->arena_offset + static_cast<std::size_t>(rank_) * header_->arena_bytes;
  // Compare as integers: pointers into different objects are not ordered in C++.
  const auto b = reinterpret_cast<std::uintptr_t>(begin);
  const auto a = reinterpret_cast<std::uintptr_t>(arena);
  if (b < a || b + count * sizeof(float) > a + header_->arena_bytes) return std::nullopt;
  return static_cast<std::uint64_t>(begin - base_);
}

std::uint64_t ShmTransport::peer_buffer_offset(int peer) const {
  return control(peer).buffer_offset[steps_ & 1].load(std::memory_order_relaxed);
}

void ShmTransport::step(std::uint64_t tag, std::uint64_t buffer_offset) {
  const std::uint64_t target = steps_ + 1;
  RankControl& own = control(rank_);
  own.tag[target & 1].store(tag, std::memory_order_relaxed);
  own.buffer_offset[target & 1].store(buffer_offset, std::memory_order_relaxed);
  own.steps.store(target, std::memory_order_release);
  steps_ = target;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    if (control(peer).steps.load(std::memory_order_acquire) < target) wait_for(peer, target, tag);
  }
  check_tags(tag);
}

void ShmTransport::check_tags(std::uint64_t tag) {
  for (int peer = 0; peer < size_; ++peer) {
    const std::uint64_t theirs = control(peer).tag[steps_ & 1].load(std::memory_order_relaxed);
    if (theirs != tag) {
      throw CommError(fmt::format("rank {} called {} while rank {} called {}: every rank must call the same "
                                  "collectives in the same order with the same sizes",
                                  peer, describe_tag(theirs), rank_, describe_tag(tag)));
    }
  }
}

void ShmTransport::wait_for(int peer, std::uint64_t target, std::uint64_t tag) {
  const std::atomic<std::uint64_t>& counter = control(peer).steps;
  for (int i = 0; i < kSpinIterations; ++i) {
    if (counter.load(std::memory_order_acquire) >= target) return;
    cpu_relax();
  }
  const auto start = Clock::now();
  auto next_liveness = start + kLivenessInterval;
  HeartbeatWatch heartbeat(control(peer), start);
  Backoff backoff(kYieldPhase, kMaxSleep);
  for (;;) {
    if (counter.load(std::memory_order_acquire) >= target) return;
    if (header_->abort.load(std::memory_order_acquire) != 0) {
      throw PeerFailure(fmt::format("job aborted while rank {} waited in {}: {}", rank_, describe_tag(tag),
                                    abort_reason(*header_)));
    }
    const auto now = Clock::now();
    if (now >= next_liveness) {
      next_liveness = now + kLivenessInterval;
      check_peer(peer, target, tag, heartbeat, now);
    }
    backoff.pause(now);
  }
}

void ShmTransport::check_peer(int peer, std::uint64_t target, std::uint64_t tag, HeartbeatWatch& heartbeat,
                              Clock::time_point now) const {
  const RankControl& theirs = control(peer);
  // Each condition is read before the step counter is read again: a peer that published the
  // step and then left, died or stalled has not failed this wait.
  const bool left = theirs.left.load(std::memory_order_acquire) != 0;
  const std::int64_t pid = theirs.pid.load(std::memory_order_relaxed);
  const bool gone = !left && pid != 0 && pid != getpid() && !process_alive(pid);
  const auto still = heartbeat.still_for(now);
  const bool stalled = !left && !gone && still >= options_.stall_timeout;
  if (!left && !gone && !stalled) return;
  if (theirs.steps.load(std::memory_order_acquire) >= target) return;
  if (left) {
    throw PeerFailure(fmt::format("rank {} (pid {}) has left the group while rank {} waited for it in {}: its "
                                  "communicator is gone (it returned or failed without that collective)",
                                  peer, pid, rank_, describe_tag(tag)));
  }
  if (gone) {
    throw PeerFailure(fmt::format("rank {} (pid {}) is gone: it died while rank {} waited for it in {}", peer, pid,
                                  rank_, describe_tag(tag)));
  }
  throw PeerFailure(fmt::format("rank {} (pid {}) {} while rank {} waited for it in {}", peer, pid,
                                describe_stall(pid, still), rank_, describe_tag(tag)));
}

}  // namespace shmtrain::comm
