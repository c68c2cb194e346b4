#pragma once
// The shared-memory transport under every collective algorithm: ranks, steps, slots and the
// arena. Algorithms (comm/shm/algorithms.hpp) see only this; it knows nothing of collectives.
//
// Terms:
//   step      rank r publishes "I have finished writing what this step shares" by raising its
//             step counter to k, then waits until every peer's counter is >= k. Counters only
//             grow, so there is no flag to reset and none to go stale. Each step carries a tag
//             (collective, op, size, root): peers that disagree fail with CommError.
//   slot      every rank owns two staging slots of slot_floats() floats in the segment.
//             next_slot() alternates between them. Rule that makes reuse safe: a rank touches
//             a slot (its own or a peer's) only between the first step after the next_slot()
//             that chose it and its own next next_slot() call, and every use holds a step. When
//             a rank writes a slot again, two next_slot() calls later, every peer has published
//             a step after its last touch of it.
//   arena     per rank, buffers handed out by allocate(); a step can publish the offset of the
//             caller's buffer so that peers read and write it in place (zero copy).
//
// Every wait spins, then yields, then sleeps, and gives up with PeerFailure when the job's
// abort flag is raised, when the awaited peer's process is gone or its transport has left (it
// will publish no more steps), or when the peer's heartbeat has stood still for
// stall_timeout (comm/shm/heartbeat.hpp: the peer is stopped, stuck in D state, thrashing).
//
// There is no fixed deadline: a wait lasts as long as the awaited peer is alive and its
// heartbeat moves, however long that is (rank 0 writing a large model's checkpoint for 20
// minutes, or evaluating, is waited for). A hard cap would only add one catch, a peer whose
// process runs but never gets to the step (a deadlock in the program itself), and it would end
// every legitimately long save or evaluation that outlasts it: without one, such a job shows no
// progress and Ctrl-C stops it cleanly. Ranks that call different collectives are caught by
// the step tags, ranks that leave without a collective by `left`.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "shmtrain/comm/shm/heartbeat.hpp"
#include "shmtrain/comm/shm/segment.hpp"

namespace shmtrain::comm {

// How long a peer's heartbeat may stand still before the peer counts as stalled: the default
// of --ddp_timeout. 30 s catches a stopped worker within a minute, yet is 300 beats: a beat
// late by a scheduling delay, a page fault or a short swap-in is far inside it.
inline constexpr std::chrono::seconds kDefaultStallTimeout{30};

struct TransportOptions {
  std::chrono::milliseconds stall_timeout{kDefaultStallTimeout};  // see kDefaultStallTimeout
  int threads = 1;  // this rank's threads for reductions and copies
};

inline constexpr std::uint64_t kNoBuffer = ~std::uint64_t{0};

class ShmTransport {
 public:
  // REQUIRES: `segment` is a mapped, initialised segment (validated here); 0 <= rank < world.
  // Starts this rank's heartbeat (comm/shm/heartbeat.hpp).
  ShmTransport(std::span<std::byte> segment, int rank, TransportOptions options);
  // Marks this rank as left (peers waiting for a step of it stop at once) and stops its heartbeat.
  ~ShmTransport();
  ShmTransport(const ShmTransport&) = delete;
  ShmTransport& operator=(const ShmTransport&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const TransportOptions& options() const { return options_; }

  // Publishes the next step with `tag` and, for zero-copy, this rank's buffer offset in the
  // segment (kNoBuffer when it has none); returns once every peer has published it.
  void step(std::uint64_t tag, std::uint64_t buffer_offset = kNoBuffer);
  // A peer's buffer offset published with the last step (kNoBuffer when none).
  std::uint64_t peer_buffer_offset(int peer) const;

  std::size_t slot_floats() const { return slot_floats_; }
  int next_slot() { return slot_parity_ ^= 1; }
  float* slot(int owner, int which) const;

  // Zero-filled, 64-byte aligned, from this rank's arena. Throws Error when it is exhausted.
  std::span<float> allocate(std::size_t count);
  // The segment offset of [data, data + count) when it lies inside this rank's arena.
  std::optional<std::uint64_t> arena_offset_of(const float* data, std::size_t count) const;
  float* at_offset(std::uint64_t offset) const;

 private:
  RankControl& control(int r) const;
  void wait_for(int peer, std::uint64_t target, std::uint64_t tag);
  // Throws PeerFailure when `peer` has left, is gone or has stalled, unless it reached `target`.
  void check_peer(int peer, std::uint64_t target, std::uint64_t tag, HeartbeatWatch& heartbeat,
                  std::chrono::steady_clock::time_point now) const;
  void check_tags(std::uint64_t tag);

  std::byte* base_;
  std::size_t bytes_;
  SegmentHeader* header_;
  int rank_;
  int size_;
  TransportOptions options_;
  std::size_t slot_floats_;
  int slot_parity_ = 1;
  std::uint64_t steps_ = 0;
  std::size_t arena_used_ = 0;
  Heartbeat heartbeat_;  // last: beats only once the transport is complete
};

}  // namespace shmtrain::comm
