// RowGather on 1-4 ranks with unequal row counts (0 included), threads and processes:
// integer-valued rows so gathers and sums are exact.
#include "shmtrain/comm/gather_rows.hpp"

#include <gtest/gtest.h>

#include "harness.hpp"

namespace shmtrain::testing {
namespace gather_rows_test {

std::int64_t rows_of(int rank) { return (rank * 5 + 3) % 4; }  // 3, 0, 1, 2

float value(int rank, std::int64_t i) { return static_cast<float>(rank * 100 + i); }

class GatherRows : public ::testing::TestWithParam<std::tuple<Mode, int>> {};

TEST_P(GatherRows, GathersInRankOrderAndSumsGradientsBackToTheirOwners) {
  const Mode mode = std::get<0>(GetParam());
  const int world = std::get<1>(GetParam());
  const std::int64_t width = 3;
  run_ranks(mode, world, {}, [&](comm::Communicator& comm) {
    const int rank = comm.rank();
    std::vector<float> local(static_cast<std::size_t>(rows_of(rank) * width));
    for (std::size_t i = 0; i < local.size(); ++i) local[i] = value(rank, static_cast<std::int64_t>(i));
    comm::RowGather gather(comm, rows_of(rank));
    std::vector<float> expected;
    for (int r = 0; r < world; ++r) {
      if (gather.rows_before(r) != static_cast<std::int64_t>(expected.size()) / width) throw Error("rows_before");
      for (std::int64_t i = 0; i < rows_of(r) * width; ++i) expected.push_back(value(r, i));
    }
    std::vector<float> all(static_cast<std::size_t>(gather.total_rows() * width));
    gather.gather(local, width, all);
    require_equal(all, expected, "gathered rows");
    // Each rank's gradient of the gathered rows is (its rank + 1) x the rows: the owner gets
    // sum_r (r + 1) = world (world + 1) / 2 times its rows.
    std::vector<float> grad(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) grad[i] = all[i] * static_cast<float>(rank + 1);
    std::vector<float> back(local.size());
    gather.scatter_sum(grad, width, back);
    std::vector<float> want(local.size());
    for (std::size_t i = 0; i < local.size(); ++i) want[i] = local[i] * static_cast<float>(world * (world + 1) / 2);
    require_equal(back, want, "summed gradients");
  });
}

INSTANTIATE_TEST_SUITE_P(RanksAndModes, GatherRows,
                         ::testing::Combine(::testing::Values(Mode::threads, Mode::processes),
                                            ::testing::Values(1, 2, 3, 4)),
                         [](const ::testing::TestParamInfo<GatherRows::ParamType>& param) {
                           return mode_name(std::get<0>(param.param)) + "_" + std::to_string(std::get<1>(param.param));
                         });

}  // namespace gather_rows_test
}  // namespace shmtrain::testing
