#include "shmtrain/train/machine_rate.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/model/train_flops.hpp"
#include "shmtrain/tensor/linear_rate.hpp"

namespace shmtrain::train {
namespace {

// About a fifth of a second per precision at 100 GFLOP/s; at least 3 passes after the warm-up,
// a BERT-base layer's linears over 1,024 tokens being 44 GFLOP a pass (about 1.3 s on 2 AVX2
// cores, 2.3 s for BERT-large's).
constexpr double kFlopsPerMeasurement = 20e9;

double job_rate(comm::Communicator& comm, const std::vector<tensor::LinearShape>& shapes, bool bf16) {
  comm.barrier();  // every worker measures at once
  float rate = static_cast<float>(
      tensor::linear_rate_gflops(shapes, bf16, tensor::passes_for(shapes, kFlopsPerMeasurement)));
  if (comm.size() > 1) comm.allreduce({&rate, 1}, comm::ReduceOp::sum);
  return rate;
}

}  // namespace

MachineRate measure_machine_rate(comm::Communicator& comm, const model::BertConfig& config, std::int64_t tokens,
                                 bool bf16) {
  MachineRate rate;
  rate.tokens = std::clamp<std::int64_t>(tokens, 16, 1024);
  const std::vector<tensor::LinearShape> shapes = model::layer_linear_shapes(config, rate.tokens);
  rate.fp32 = job_rate(comm, shapes, false);
  if (bf16) rate.bf16 = job_rate(comm, shapes, true);
  return rate;
}

}  // namespace shmtrain::train

namespace shmtrain::train {

std::string describe(const MachineRate& rate, int workers) {
  std::string line = fmt::format("machine: the model's linears over {} tokens at {:.1f} GFLOP/s fp32", rate.tokens,
                                 rate.fp32);
  if (rate.bf16) line += fmt::format(", {:.1f} GFLOP/s bf16", *rate.bf16);
  return line + fmt::format(" ({} worker(s) at once; gemm_share = useful GFLOP/s / this rate)", workers);
}

}  // namespace shmtrain::train
