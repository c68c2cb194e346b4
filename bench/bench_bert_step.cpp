// BERT training-step benchmark: forward, backward and AdamW times of
// BertForSequenceClassification at the given shapes, the GFLOP/s the step achieves, and the
// sgemm rate of this machine measured in the same run (the limit the step is compared with).
//
//   build/bench/bench_bert_step [--preset base|small|tiny] [--batch 32] [--seq 128] [--threads N] [--steps 3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "shmtrain/bench/bert_workload.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/init.hpp"
#include "shmtrain/optim/adamw.hpp"
#include "shmtrain/train/optimizer_slots.hpp"
#include "shmtrain/optim/clip.hpp"
#include "shmtrain/tensor/blas_runtime.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// sgemm rate on the step's dominant shape (tokens x H . H x I), through the same GEMM path.
double sgemm_gflops(std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<float> a(static_cast<std::size_t>(m * k), 0.5f), b(static_cast<std::size_t>(k * n), 0.25f),
      c(static_cast<std::size_t>(m * n));
  std::vector<double> rates;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = Clock::now();
    shmtrain::tensor::gemm(shmtrain::tensor::Trans::kNo, shmtrain::tensor::Trans::kYes, m, n, k, 1.0f,
                           a.data(), k, b.data(), k, 0.0f, c.data(), n);
    if (r > 0) rates.push_back(2.0 * m * n * k / seconds_since(t0) / 1e9);
  }
  if (c[0] != 0.125f * static_cast<float>(k)) std::fprintf(stderr, "sgemm result wrong: %g\n", c[0]);
  return median(rates);
}

}  // namespace

int main(int argc, char** argv) {
  shmtrain::tensor::prepare_openblas(argv);
  std::string preset = "base";
  std::int64_t batch = 32, seq = 128, steps = 3;
  int threads = shmtrain::tensor::allowed_cpu_count();
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    const char* v = argv[a + 1];
    if (k == "--preset") preset = v;
    else if (k == "--batch") batch = std::atoll(v);
    else if (k == "--seq") seq = std::atoll(v);
    else if (k == "--threads") threads = std::atoi(v);
    else if (k == "--steps") steps = std::atoll(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  shmtrain::tensor::set_compute_threads(threads);
  if (preset == "mini") preset = "small";  // this benchmark's old name for it
  const shmtrain::model::BertConfig config = shmtrain::bench::bench_preset(preset);
  const shmtrain::model::ParamTable table = shmtrain::model::ParamTable::for_sequence_classification(config);
  shmtrain::tensor::HeapArenaAllocator heap;
  auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
  auto grads = heap.allocate(static_cast<std::size_t>(table.count()), "gradients");
  shmtrain::model::init_all_parameters(table, params, config, 1);
  shmtrain::model::EncoderModel model(config, table, params, grads);
  shmtrain::optim::AdamW adamw(shmtrain::train::optimizer_slots(table), {0.9f, 0.999f, 1e-8f, 0.01f}, heap);

  const shmtrain::data::Batch b = shmtrain::bench::synthetic_batch(config, batch, seq, 7);

  fmt::print("# bench_bert_step: preset {}, batch {}, seq {}, {} compute threads, {}\n", preset, batch, seq,
             threads, shmtrain::tensor::blas_startup_line());
  const double sgemm = sgemm_gflops(batch * seq, config.intermediate_size, config.hidden_size);
  std::vector<double> fwd, bwd, opt, total;
  float loss = 0;
  for (std::int64_t s = 0; s <= steps; ++s) {  // step 0 warms up
    std::fill(grads.begin(), grads.end(), 0.0f);
    auto t0 = Clock::now();
    loss = model.forward(b, {true, 1, 0, static_cast<std::uint64_t>(s)});
    const double tf = seconds_since(t0);
    t0 = Clock::now();
    model.backward();
    const double tb = seconds_since(t0);
    t0 = Clock::now();
    const double norm = shmtrain::optim::global_grad_norm(grads);
    adamw.step(params, grads, 2e-5f, {}, shmtrain::optim::clip_coefficient(norm, 1.0));
    const double to = seconds_since(t0);
    if (s == 0) continue;
    fwd.push_back(tf);
    bwd.push_back(tb);
    opt.push_back(to);
    total.push_back(tf + tb + to);
  }
  const double step_s = median(total);
  const double gflops = shmtrain::bench::step_flops(config, batch, seq) / step_s / 1e9;
  fmt::print("{:<28}{:>10}\n", "phase", "median s");
  fmt::print("{:<28}{:>10.3f}\n{:<28}{:>10.3f}\n{:<28}{:>10.3f}\n{:<28}{:>10.3f}\n", "forward", median(fwd), "backward",
             median(bwd), "optimizer (clip + AdamW)", median(opt), "step", step_s);
  fmt::print("samples/s: {:.2f}   loss {:.4f}\n", static_cast<double>(batch) / step_s, loss);
  fmt::print("step GFLOP/s: {:.1f}   sgemm GFLOP/s ({}x{}x{}, same run): {:.1f}   ratio: {:.2f}\n", gflops,
             batch * seq, config.intermediate_size, config.hidden_size, sgemm, gflops / sgemm);
  fmt::print("RESULT {{\"preset\":\"{}\",\"threads\":{},\"batch\":{},\"seq\":{},\"samples_per_s\":{:.3f},"
             "\"forward_s\":{:.3f},\"backward_s\":{:.3f},\"optimizer_s\":{:.3f},\"step_gflops\":{:.1f},"
             "\"sgemm_gflops\":{:.1f},\"ratio\":{:.3f}}}\n",
             preset, threads, batch, seq, static_cast<double>(batch) / step_s, median(fwd), median(bwd), median(opt),
             gflops, sgemm, gflops / sgemm);
  return std::isfinite(loss) ? 0 : 1;
}
