#include "shmtrain/bench/allreduce_bench.hpp"
#include "shmtrain/bench/memory_bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <span>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"

namespace shmtrain::bench {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;
// Auto iteration count: about this many bytes per size, within [kMinIterations, kMaxIterations].
constexpr std::size_t kBytesPerSize = 2048 * kMiB;
constexpr int kMinIterations = 3;
constexpr int kMaxIterations = 200;

// Small integers: every sum is exact in float, so verification is equality.
inline float pattern(std::size_t i, int rank, int iteration) {
  return static_cast<float>(static_cast<int>((i + static_cast<std::size_t>(rank) * 13 +
                                              static_cast<std::size_t>(iteration) * 5) & 31) - 16);
}

void fill(std::span<float> data, int rank, int iteration) {
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = pattern(i, rank, iteration);
}

std::size_t count_wrong(std::span<const float> data, int size, int iteration) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    float expected = 0.0f;
    for (int r = 0; r < size; ++r) expected += pattern(i, r, iteration);
    wrong += data[i] != expected;
  }
  return wrong;
}

struct Row {
  std::size_t bytes;
  int iterations;
  AllreduceTiming timing;
  double ratio;
};

}  // namespace

std::string format_bytes(std::size_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kKiB && bytes % kKiB == 0) return fmt::format("{} KiB", bytes / kKiB);
  return fmt::format("{} B", bytes);
}

int default_iterations(std::size_t bytes) {
  return static_cast<int>(std::clamp<std::size_t>(kBytesPerSize / bytes, kMinIterations, kMaxIterations));
}

AllreduceTiming time_allreduce(comm::Communicator& group, std::span<float> data, int iterations,
                               const std::function<void(std::span<float>)>& allreduce) {
  const int P = group.size();
  std::vector<float> took_us;
  std::size_t wrong = 0;
  for (int it = -1; it < iterations; ++it) {  // iteration -1 warms up and is not timed
    fill(data, group.rank(), it + 1);
    group.barrier();
    const auto start = std::chrono::steady_clock::now();
    allreduce(data);
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    wrong += count_wrong(data, P, it + 1);
    if (it >= 0) took_us.push_back(static_cast<float>(took.count()));
  }
  // A collective takes as long as its slowest rank.
  group.allreduce(took_us, comm::ReduceOp::max);
  float wrong_anywhere = static_cast<float>(wrong);
  group.allreduce({&wrong_anywhere, 1}, comm::ReduceOp::max);
  std::sort(took_us.begin(), took_us.end());
  AllreduceTiming timing{};
  timing.median_us = took_us[took_us.size() / 2];
  timing.min_us = took_us.front();
  timing.max_us = took_us.back();
  timing.algbw = static_cast<double>(data.size() * sizeof(float)) / (timing.median_us * 1e-6) * 1e-9;
  timing.busbw = timing.algbw * 2.0 * (P - 1) / P;
  timing.verified = wrong_anywhere == 0.0f;
  return timing;
}

std::vector<std::size_t> default_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = 4 * kKiB; bytes <= 512 * kMiB; bytes *= 2) sizes.push_back(bytes);
  return sizes;
}

std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
      value = std::stoull(item, &used);
    } catch (const std::exception&) {
      fail_input("--sizes: '{}' is not a size such as 4096, 64K, 16M or 1G", item);
    }
    const std::string unit = item.substr(used);
    std::size_t scale = 1;
    if (unit == "K" || unit == "k" || unit == "KiB") scale = kKiB;
    else if (unit == "M" || unit == "MiB") scale = kMiB;
    else if (unit == "G" || unit == "GiB") scale = 1024 * kMiB;
    else if (!unit.empty()) fail_input("--sizes: unknown unit in '{}': use K, M or G (powers of 1024)", item);
    const std::size_t bytes = static_cast<std::size_t>(value) * scale;
    if (bytes == 0 || bytes % sizeof(float) != 0) fail_input("--sizes: {} bytes is not a positive multiple of 4", bytes);
    sizes.push_back(bytes);
    start = comma + 1;
  }
  return sizes;
}

bool run_allreduce_bench(comm::Communicator& communicator, const AllreduceBenchOptions& options, int threads) {
  const int P = communicator.size();
  const bool root = communicator.rank() == 0;
  const std::size_t largest = *std::max_element(options.sizes.begin(), options.sizes.end());
  std::vector<float> private_buffer;
  std::span<float> buffer;
  if (options.copy_in) {
    private_buffer.resize(largest / sizeof(float));
    buffer = private_buffer;
  } else {
    buffer = communicator.allocate(largest / sizeof(float));
  }

  const MemoryBandwidth bandwidth = measure_memory_bandwidth(communicator, threads);
  if (root && !options.json) {
    fmt::print("all-reduce (sum, float32), {} workers, {} buffers, {} thread(s) each\n", P,
               options.copy_in ? "private (copy-in)" : "shared-arena (zero-copy)", threads);
    fmt::print("c = a + b, all workers at once, best of 5 (STREAM accounting), by working set:");
    for (const BandwidthLevel& level : bandwidth.levels) {
      fmt::print(" {} {:.1f} GB/s{}", format_bytes(level.working_set), level.gbps,
                 level.streaming ? " (nt)" : "");
    }
    fmt::print(
        "\nbound: an all-reduce of S bytes moves 2P x S bytes (each worker reads its block of all {} buffers "
        "and "
        "writes it into all {}): algbw <= B / {}, B the rate at the largest working set <= {} x S\n",
        P, P, 2 * P, P);
    fmt::print("{:>9} {:>5} {:>11} {:>11} {:>11} {:>10} {:>10} {:>10} {:>9} {:>8}\n", "size", "iters",
               "median us", "min us", "max us", "algbw GB/s", "busbw GB/s", "B set", "of bound", "verified");
    std::fflush(stdout);
  }
  bool all_verified = true;
  for (std::size_t bytes : options.sizes) {
    Row row{};
    row.bytes = bytes;
    row.iterations = options.iterations > 0 ? options.iterations : default_iterations(bytes);
    row.timing = time_allreduce(communicator, buffer.first(bytes / sizeof(float)), row.iterations,
                                [&communicator](std::span<float> data) { communicator.allreduce(data, comm::ReduceOp::sum); });
    const BandwidthLevel& level = bandwidth.level_for(bytes * static_cast<std::size_t>(P));
    const double bound_algbw = level.gbps / (2.0 * P);
    row.ratio = row.timing.algbw / bound_algbw;
    all_verified = all_verified && row.timing.verified;
    if (!root) continue;
    if (options.json) {
      const AllreduceTiming& t = row.timing;
      nlohmann::json line = {{"bytes", row.bytes},
                             {"workers", P},
                             {"iterations", row.iterations},
                             {"median_us", t.median_us},
                             {"min_us", t.min_us},
                             {"max_us", t.max_us},
                             {"algbw_gbps", t.algbw},
                             {"busbw_gbps", t.busbw},
                             {"membw_gbps", level.gbps},
                             {"bound_algbw_gbps", bound_algbw},
                             {"bound_working_set", level.working_set},
                             {"memory_gbps", bandwidth.memory().gbps},
                             {"ratio_to_bound", row.ratio},
                             {"verified", t.verified},
                             {"zero_copy", !options.copy_in}};
      fmt::print("{}\n", line.dump());
    } else {
      fmt::print("{:>9} {:>5} {:>11.1f} {:>11.1f} {:>11.1f} {:>10.2f} {:>10.2f} {:>10} {:>8.0f}% {:>8}\n",
                 format_bytes(row.bytes), row.iterations, row.timing.median_us, row.timing.min_us,
                 row.timing.max_us, row.timing.algbw, row.timing.busbw, format_bytes(level.working_set),
                 100.0 * row.ratio, row.timing.verified ? "yes" : "NO");
    }
    std::fflush(stdout);
  }
  return all_verified;
}

}  // namespace shmtrain::bench
