// The kernels DistilBERT adds: the word + position embedding (no token types) and ReLU.
#include <gtest/gtest.h>

#include "shmtrain/tensor/relu.hpp"
#include "shmtrain/tensor/word_position_embedding.hpp"

namespace shmtrain::tensor {
namespace {

TEST(WordPositionEmbedding, ForwardSumsTheTwoTablesAndBackwardSkipsThePadRow) {
  const std::int64_t batch = 2, seq = 3, hidden = 2, vocab = 4;
  // Integer-valued tables: sums are exact.
  const std::vector<float> wte = {0, 0, 1, 1, 2, 2, 3, 3}, wpe = {10, 10, 20, 20, 30, 30};
  const std::vector<std::int32_t> ids = {1, 3, 0, 3, 3, 2};
  std::vector<float> out(12);
  const std::vector<std::int32_t> positions = {0, 1, 2, 0, 1, 2};
  word_position_embedding_forward(out.data(), ids.data(), positions.data(), wte.data(), wpe.data(),
                                  batch * seq, hidden);
  EXPECT_EQ(out, (std::vector<float>{11, 11, 23, 23, 30, 30, 13, 13, 23, 23, 32, 32}));

  std::vector<float> dout(12);
  for (int i = 0; i < 12; ++i) dout[i] = static_cast<float>(i + 1);
  std::vector<float> dwte(vocab * hidden, 0), dwpe(3 * hidden, 0);
  word_position_embedding_backward(dwte.data(), dwpe.data(), dout.data(), ids.data(), positions.data(),
                                   batch * seq, hidden, 0);
  // id 0 (pad) gets nothing; id 3 appears at tokens 1, 3, 4: rows (3,4) + (7,8) + (9,10).
  EXPECT_EQ(dwte, (std::vector<float>{0, 0, 1, 2, 11, 12, 19, 22}));
  EXPECT_EQ(dwpe, (std::vector<float>{1 + 7, 2 + 8, 3 + 9, 4 + 10, 5 + 11, 6 + 12}));
}

TEST(Relu, ForwardClampsAndBackwardPassesOnlyWherePositive) {
  const std::vector<float> x = {-2.0f, -0.0f, 0.0f, 0.5f, 3.0f};
  std::vector<float> y(x.size());
  relu_forward(y.data(), x.data(), 5);
  EXPECT_EQ(y, (std::vector<float>{0, 0, 0, 0.5f, 3.0f}));
  std::vector<float> dy = {1, 2, 3, 4, 5};
  relu_backward(dy.data(), dy.data(), y.data(), 5);  // in place, as the head calls it
  EXPECT_EQ(dy, (std::vector<float>{0, 0, 0, 4, 5}));
}

}  // namespace
}  // namespace shmtrain::tensor
