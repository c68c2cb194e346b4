#pragma once
// Internal to train: the sentence-embedding head's RowExchange (model/sentence/row_exchange.hpp)
// over the run's communicator, through comm::RowGather: gather_across_devices.
#include <optional>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/gather_rows.hpp"
#include "shmtrain/model/sentence/row_exchange.hpp"

namespace shmtrain::train {

class CommRowExchange final : public model::sentence::RowExchange {
 public:
  explicit CommRowExchange(comm::Communicator& comm) : comm_(comm) {}

  void begin(std::int64_t rows) override { gather_.emplace(comm_, rows); }
  int rank() const override { return comm_.rank(); }
  std::int64_t rows_before(int rank) const override { return gather_->rows_before(rank); }
  std::int64_t total_rows() const override { return gather_->total_rows(); }
  void gather(std::span<const float> local, std::int64_t width, std::span<float> out) override {
    gather_->gather(local, width, out);
  }
  void scatter_sum(std::span<const float> gathered_grad, std::int64_t width, std::span<float> local) override {
    gather_->scatter_sum(gathered_grad, width, local);
  }

 private:
  comm::Communicator& comm_;
  std::optional<comm::RowGather> gather_;
};

}  // namespace shmtrain::train
