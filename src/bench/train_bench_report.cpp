// `shmtrain bench train`'s output: one row per configuration as it is measured, then the
// ratios between rows that issue #5 sets its goals on.
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/model/batch_validation.hpp"
#include "shmtrain/bench/bert_workload.hpp"
#include "shmtrain/bench/train_bench.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/tensor/blas_runtime.hpp"

namespace shmtrain::bench {
namespace {

// Issue #5's goals, printed beside the measured ratios.
constexpr double kSpeedupGoal = 1.0;           // Pxpart / 1xall
constexpr double kEfficiencyGoal = 0.95;       // Pxpart / (P x 1xpart)
constexpr double kExposedExchangeGoal = 0.05;  // of the P-worker step, on BERT-base

double mean_length(const std::vector<std::int32_t>& lengths) {
  double sum = 0;
  for (const std::int32_t l : lengths) sum += l;
  return lengths.empty() ? 0.0 : sum / static_cast<double>(lengths.size());
}

void print_header(const model::BertConfig& config, const std::string& preset,
                  const TrainBenchOptions& options, std::FILE* out) {
  const model::ParamTable table = model::ParamTable::for_sequence_classification(config);
  fmt::print(
      out,
      "\npreset {} (L{} H{} A{} I{}, {:.1f}M parameters): global batch {} x seq {}{}, {} timed step(s) after "
      "{} warm-up, {}{}, {} optimizer, {}\n",
      preset, config.num_hidden_layers, config.hidden_size, config.num_attention_heads,
      config.intermediate_size, static_cast<double>(table.count()) * 1e-6, options.global_batch, options.seq,
      options.lengths.empty() ? std::string()
                              : fmt::format(" (real lengths: {} rows, mean {:.1f})", options.lengths.size(),
                                            mean_length(options.lengths)),
      options.steps, options.warmup, options.bf16 ? "bf16" : "fp32",
      options.bf16_grads ? " (bf16 gradients exchanged)" : "",
      options.shard_optimizer ? "sharded" : "replicated",
      options.shard_optimizer || !options.overlap_exchange ? "exchange after backward"
                                                           : "exchange overlapped with backward");
  fmt::print(out, "{:<40} {:>7} {:>7} {:>5} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>6} {:>6} {:>8} {:>8}\n",
             "configuration", "workers", "threads", "batch", "samples/s", "step s", "fwd s", "bwd s",
             "exch s", "optim s", "GFLOP/s", "limit", "share", "wait", "loss", "verified");
  fmt::print(out,
             "(GFLOP/s: the useful work of the real tokens, model/train_flops.hpp; limit: the machine's rate on the "
             "model's linears over one micro-batch's tokens, measured before each configuration on all its workers; "
             "share = GFLOP/s / limit)\n");
  std::fflush(out);
}

// The rate of useful work: the flops of the real tokens (padding not counted) per second.
double gflops(const TrainBenchResult& r) {
  return r.samples_per_s > 0 ? r.useful_flops * r.samples_per_s / static_cast<double>(r.batch) * 1e-9 : 0.0;
}

// Its share of the machine's rate on the model's linears.
double gemm_share(const TrainBenchResult& r) { return r.gemm_gflops > 0 ? gflops(r) / r.gemm_gflops : 0.0; }

void print_row(const TrainBenchConfiguration& c, const std::string& preset, const TrainBenchOptions& options,
               const TrainBenchResult& r, bool json, std::FILE* out) {
  const std::string label = options.lengths.empty()
                                ? c.label
                                : fmt::format("{}, pad {}{}", c.label, data::padding_name(options.padding),
                                              options.balance_tokens && r.workers > 1 ? ", balanced" : "");
  if (json) {
    const nlohmann::ordered_json row = {{"kind", "row"},
                                        {"preset", preset},
                                        {"config", c.id},
                                        {"label", label},
                                        {"workers", r.workers},
                                        {"threads_per_worker", r.threads},
                                        {"batch", r.batch},
                                        {"seq", options.seq},
                                        {"steps", options.steps},
                                        {"warmup", options.warmup},
                                        {"shard_optimizer", options.shard_optimizer},
                                        {"overlap_exchange", options.overlap_exchange},
                                        {"bf16", options.bf16},
                                        {"ddp_bf16_grads", options.bf16_grads},
                                        {"lengths", options.lengths.size()},
                                        {"padding", data::padding_name(options.padding)},
                                        {"balance_tokens", options.balance_tokens},
                                        {"wait_share", r.wait_share},
                                        {"samples_per_s", r.samples_per_s},
                                        {"step_s", r.step_s},
                                        {"forward_s", r.forward_s},
                                        {"backward_s", r.backward_s},
                                        {"exchange_s", r.exchange_s},
                                        {"optimizer_s", r.optimizer_s},
                                        {"gflops", gflops(r)},
                                        {"gemm_gflops", r.gemm_gflops},
                                        {"gemm_tokens", r.gemm_tokens},
                                        {"gemm_share", gemm_share(r)},
                                        {"first_loss", r.first_loss},
                                        {"last_loss", r.last_loss},
                                        {"verified", r.verified},
                                        {"openblas_core", tensor::openblas_core()}};
    fmt::print(out, "{}\n", row.dump());
  } else {
    fmt::print(out,
               "{:<40} {:>7} {:>7} {:>5} {:>9.2f} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.3f} {:>7.1f} {:>7.1f} "
               "{:>6.3f} {:>5.1f}% {:>8.4f} {:>8}\n",
               label, r.workers, r.threads, r.batch, r.samples_per_s, r.step_s, r.forward_s, r.backward_s,
               r.exchange_s, r.optimizer_s, gflops(r), r.gemm_gflops, gemm_share(r), 100.0 * r.wait_share, r.last_loss,
               r.verified ? "yes" : "NO");
  }
  std::fflush(out);
}

void print_ratios(const std::map<std::string, TrainBenchResult>& rows, int P, const std::string& preset,
                  bool json, std::FILE* out) {
  const auto row = [&](const std::string& id) -> const TrainBenchResult* {
    const auto it = rows.find(id);
    return it == rows.end() || it->second.samples_per_s <= 0 ? nullptr : &it->second;
  };
  std::optional<double> speedup, efficiency, exposed;
  if (row("Pxpart") && row("1xall")) speedup = row("Pxpart")->samples_per_s / row("1xall")->samples_per_s;
  if (row("Pxpart") && row("1xpart"))
    efficiency = row("Pxpart")->samples_per_s / (P * row("1xpart")->samples_per_s);
  if (row("Pxpart")) exposed = row("Pxpart")->exchange_s / row("Pxpart")->step_s;
  if (json) {
    nlohmann::ordered_json ratios = {{"kind", "ratios"}, {"preset", preset}, {"workers", P}};
    ratios["speedup_vs_1xall"] = speedup ? nlohmann::json(*speedup) : nlohmann::json();
    ratios["scaling_efficiency"] = efficiency ? nlohmann::json(*efficiency) : nlohmann::json();
    ratios["exposed_exchange_share"] = exposed ? nlohmann::json(*exposed) : nlohmann::json();
    fmt::print(out, "{}\n", ratios.dump());
    std::fflush(out);
    return;
  }
  if (speedup) {
    fmt::print(out, "{} workers vs 1 worker on all cores: {:.3f}x samples/s (goal >= {:.2f})\n", P, *speedup,
               kSpeedupGoal);
  }
  if (efficiency) {
    fmt::print(out,
               "scaling efficiency, {} workers / ({} x 1 worker on cores/{}): {:.1f}% (goal >= {:.0f}%)\n", P,
               P, P, 100.0 * *efficiency, 100.0 * kEfficiencyGoal);
  }
  if (exposed) {
    fmt::print(out, "exposed exchange: {:.2f}% of the {}-worker step (goal <= {:.0f}% on BERT-base)\n",
               100.0 * *exposed, P, 100.0 * kExposedExchangeGoal);
  }
  std::fflush(out);
}

// With real lengths, each configuration under each layout, and how much packing gains.
void print_padding_ratios(const std::map<std::string, std::map<data::Padding, TrainBenchResult>>& rows,
                          const TrainBenchPlan& plan, const std::string& preset, bool json, std::FILE* out) {
  for (const TrainBenchConfiguration& c : plan.configurations) {
    const auto& by_padding = rows.at(c.id);
    const auto rate = [&](data::Padding p) {
      const auto it = by_padding.find(p);
      return it == by_padding.end() ? 0.0 : it->second.samples_per_s;
    };
    const double packed = rate(data::Padding::kNone), longest = rate(data::Padding::kLongest),
                 max_length = rate(data::Padding::kMaxLength);
    if (packed <= 0 || longest <= 0 || max_length <= 0) continue;
    if (json) {
      const nlohmann::ordered_json ratios = {{"kind", "padding_ratios"},
                                             {"preset", preset},
                                             {"config", c.id},
                                             {"packed_vs_max_length", packed / max_length},
                                             {"packed_vs_longest", packed / longest}};
      fmt::print(out, "{}\n", ratios.dump());
    } else {
      fmt::print(out, "{}: packed {:.3f}x padded to max_length, {:.3f}x padded to the batch's longest\n",
                 c.label, packed / max_length, packed / longest);
    }
  }
  std::fflush(out);
}

}  // namespace

bool report_train_bench(const topo::Topology& topology, const TrainBenchPlan& bench_plan,
                        const std::string& preset, const TrainBenchOptions& options, bool json,
                        std::FILE* out) {
  const model::BertConfig config = bench_preset(preset);
  model::validate_batch(synthetic_batch(config, 1, options.seq, 0), config,
                        fmt::format("--seq {}", options.seq));
  if (!json) print_header(config, preset, options, out);
  const std::vector<data::Padding> paddings =
      options.lengths.empty() || options.one_padding
          ? std::vector<data::Padding>{options.padding}
          : std::vector<data::Padding>{data::Padding::kMaxLength, data::Padding::kLongest,
                                       data::Padding::kNone};
  std::map<std::string, TrainBenchResult> rows;  // the packed layout's, or the only one's
  std::map<std::string, std::map<data::Padding, TrainBenchResult>> by_padding;
  bool verified = true;
  for (const TrainBenchConfiguration& configuration : bench_plan.configurations) {
    for (const data::Padding padding : paddings) {
      TrainBenchOptions run = options;
      run.padding = padding;
      const TrainBenchResult result = measure_configuration(topology, configuration, config, run);
      print_row(configuration, preset, run, result, json, out);
      by_padding[configuration.id][padding] = result;
      rows[configuration.id] = result;
      verified = verified && result.verified;
    }
  }
  if (!options.lengths.empty()) print_padding_ratios(by_padding, bench_plan, preset, json, out);
  print_ratios(rows, bench_plan.workers, preset, json, out);
  return verified;
}

}  // namespace shmtrain::bench
