// The step plan's warm-up as transformers resolves it: --warmup_steps from 1 up as int of it, a
// fraction below 1 as ceil(total steps x it) (transformers 5, where --warmup_ratio is gone),
// and 4.x's --warmup_ratio when --warmup_steps is 0.
#include "shmtrain/train/step_plan.hpp"

#include <gtest/gtest.h>

namespace shmtrain::train {
namespace {

TEST(StepPlan, WarmupStepsBelowOneAreAFractionOfTheSteps) {
  TrainOptions o;
  o.per_device_train_batch_size = 4;
  o.num_train_epochs = 1;
  // 100 rows, 1 worker, batch 4: 25 steps.
  o.warmup_steps = 0.1;
  EXPECT_EQ(plan_steps(o, 100, 1).total_steps, 25);
  EXPECT_EQ(plan_steps(o, 100, 1).warmup_steps, 3);  // ceil(2.5)
  o.warmup_steps = 5.7;
  EXPECT_EQ(plan_steps(o, 100, 1).warmup_steps, 5);  // int(5.7)
  o.warmup_steps = 1;
  EXPECT_EQ(plan_steps(o, 100, 1).warmup_steps, 1);
  o.warmup_steps = 0;
  o.warmup_ratio = 0.2;
  EXPECT_EQ(plan_steps(o, 100, 1).warmup_steps, 5);
  o.warmup_steps = 0.04;  // the fraction wins over the ratio
  EXPECT_EQ(plan_steps(o, 100, 1).warmup_steps, 1);
}

}  // namespace
}  // namespace shmtrain::train
