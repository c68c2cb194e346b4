#include <cmath>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/optim/clip.hpp"
#include "shmtrain/optim/schedule.hpp"

namespace shmtrain::optim {
namespace {

double multiplier(LrSchedule type, std::int64_t step, std::int64_t total, std::int64_t warmup) {
  return lr_multiplier(make_lr_schedule(type, "", 5e-5), step, total, warmup);
}

TEST(Schedule, LinearWithWarmupAsHuggingFace) {
  // total 10, warmup 2: 0, 0.5, then (10 - s) / 8.
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kLinear, 0, 10, 2), 0.0);
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kLinear, 1, 10, 2), 0.5);
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kLinear, 2, 10, 2), 1.0);
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kLinear, 6, 10, 2), 0.5);
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kLinear, 10, 10, 2), 0.0);
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kLinear, 0, 10, 0), 1.0);
}

TEST(Schedule, ConstantCosineAndNames) {
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kConstant, 0, 10, 5), 1.0);
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kConstantWithWarmup, 1, 10, 4), 0.25);
  EXPECT_DOUBLE_EQ(multiplier(LrSchedule::kConstantWithWarmup, 7, 10, 4), 1.0);
  EXPECT_NEAR(multiplier(LrSchedule::kCosine, 6, 10, 2), 0.5, 1e-12);  // half way: cos(pi/2)
  EXPECT_NEAR(multiplier(LrSchedule::kCosine, 10, 10, 2), 0.0, 1e-12);
  EXPECT_EQ(parse_lr_schedule("cosine"), LrSchedule::kCosine);
  EXPECT_EQ(parse_lr_schedule("polynomial"), LrSchedule::kPolynomial);
  EXPECT_THROW(parse_lr_schedule("cosine_annealing"), InputError);
}

TEST(Clip, CoefficientScalesOnlyAboveTheMaxNorm) {
  const std::vector<float> g = {3, 4};  // norm 5
  EXPECT_DOUBLE_EQ(global_grad_norm(g), 5.0);
  EXPECT_EQ(clip_coefficient(5.0, 10.0), 1.0f);
  EXPECT_EQ(clip_coefficient(5.0, 0.0), 1.0f) << "max_norm 0 disables clipping";
  EXPECT_EQ(clip_coefficient(5.0, 1.0), static_cast<float>(1.0 / (5.0 + 1e-6)));
}

TEST(Clip, NormOfALargeArenaIsExactForIntegerData) {
  std::vector<float> g(300001, 2.0f);  // spans several blocks; sum of squares 1200004 exactly
  EXPECT_DOUBLE_EQ(global_grad_norm(g), std::sqrt(1200004.0));
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<float>(i % 13) - 6.0f;
  double squares = 0;  // integers: every order of addition gives the same double
  for (float v : g) squares += static_cast<double>(v) * v;
  EXPECT_DOUBLE_EQ(global_grad_norm(g), std::sqrt(squares));
}

}  // namespace
}  // namespace shmtrain::optim
