// `shmtrain bench allreduce`: the exchange's latency and bandwidth against the machine's memory
// bandwidth, measured in the same run by the same workers.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/bench/allreduce_bench.hpp"
#include "shmtrain/cli/commands.hpp"
#include "shmtrain/cli/placement_flags.hpp"
#include "shmtrain/launch/launcher.hpp"

namespace shmtrain::cli {
namespace {

struct BenchAllreduceFlags {
  PlacementFlags placement;
  std::string sizes;
  bench::AllreduceBenchOptions options;
};

int run_bench_allreduce(const BenchAllreduceFlags& flags) {
  bench::AllreduceBenchOptions options = flags.options;
  options.sizes = flags.sizes.empty() ? bench::default_sizes() : bench::parse_sizes(flags.sizes);
  const ResolvedPlacement resolved = resolve_placement(flags.placement);
  if (!options.json) {
    fmt::print("{}", topo::format_plan(resolved.plan));
    std::fflush(stdout);
  }
  launch::LaunchOptions launch_options;
  std::size_t largest = 0;
  for (std::size_t bytes : options.sizes) largest = std::max(largest, bytes);
  if (!options.copy_in) launch_options.arena_bytes = largest + 4096;
  launch::launch_workers(resolved.topology, resolved.plan, launch_options, [&options](launch::WorkerContext& context) {
    return bench::run_allreduce_bench(context.communicator, options, context.placement.threads) ? 0 : 2;
  });
  return 0;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("bench", "Measure shmtrain's parts against this machine's limits");
  sub->require_subcommand(1);
  auto flags = std::make_shared<BenchAllreduceFlags>();
  CLI::App* allreduce = sub->add_subcommand(
      "allreduce", "All-reduce latency, algorithm and bus bandwidth, verified, next to the memory-bandwidth bound");
  add_placement_flags(*allreduce, flags->placement);
  allreduce->add_option("--sizes", flags->sizes, "Message sizes, e.g. 4K,1M,64M (default: 4K to 512M, powers of 2)");
  allreduce->add_option("--iters", flags->options.iterations,
                        "Timed iterations per size (default: 200 for small sizes down to 3 for 512 MiB)");
  allreduce->add_flag("--copy_in", flags->options.copy_in,
                      "Buffers in each worker's private memory (copied through the segment) instead of the shared arena");
  allreduce->add_flag("--json", flags->options.json, "One JSON object per size instead of the table");
  return {sub, [flags] { return run_bench_allreduce(*flags); }};
}

}  // namespace shmtrain::cli
