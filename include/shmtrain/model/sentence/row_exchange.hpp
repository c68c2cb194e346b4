#pragma once
// How the sentence-embedding head reaches the other workers' rows without knowing the
// communicator (model never includes comm): train hands it an implementation over
// comm::RowGather (gather_across_devices), one exchange per training forward. Collective:
// every worker calls begin, gather and scatter_sum in the same order.
#include <cstdint>
#include <span>

namespace shmtrain::model::sentence {

class RowExchange {
 public:
  virtual ~RowExchange() = default;
  // Starts an exchange of this worker's `rows` rows; afterwards rows_before(r) and total_rows()
  // describe every worker's.
  virtual void begin(std::int64_t rows) = 0;
  virtual int rank() const = 0;
  virtual std::int64_t rows_before(int rank) const = 0;
  virtual std::int64_t total_rows() const = 0;
  // out (total_rows(), width) = every worker's rows, worker 0's first.
  virtual void gather(std::span<const float> local, std::int64_t width, std::span<float> out) = 0;
  // local (rows, width) = the sum over workers of their gradient of the gathered rows at this
  // worker's rows: all_gather's backward.
  virtual void scatter_sum(std::span<const float> gathered_grad, std::int64_t width, std::span<float> local) = 0;
};

}  // namespace shmtrain::model::sentence
