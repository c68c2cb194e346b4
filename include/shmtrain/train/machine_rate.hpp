#pragma once
// The limit a run's speed is measured against: the machine's rate on the model's own linear
// layers (model::layer_linear_shapes over one micro-batch's tokens), timed on every worker at
// once, as they compute during training. run_info.json, every log record and `bench train` give
// the useful GFLOP/s (model/train_flops.hpp) as a share of it.
#include <cstdint>
#include <optional>
#include <string>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::train {

struct MachineRate {
  std::int64_t tokens = 0;       // the rows each shape was timed over
  double fp32 = 0;               // GFLOP/s, the workers' sum
  std::optional<double> bf16;    // measured when the run computes in bf16
  // The rate of the products the run makes.
  double of_run() const { return bf16 ? *bf16 : fp32; }
};

// Collective. tokens is clamped to [16, 1024] (the rate no longer grows past it); the
// measurement takes 1-3 s on a BERT-base or -large model on 2 cores, the fastest of 3 passes.
MachineRate measure_machine_rate(comm::Communicator& comm, const model::BertConfig& config, std::int64_t tokens,
                                 bool bf16);

// "machine: the model's linears over 512 tokens at 180.2 GFLOP/s fp32 (2 workers)"
std::string describe(const MachineRate& rate, int workers);

}  // namespace shmtrain::train
