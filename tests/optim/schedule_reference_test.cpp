// Every learning-rate schedule against the learning rates torch's LambdaLR gives Trainer's
// optimizer with transformers' lambdas (tests/fixtures/lr_schedules.json, written by
// tools/schedule_reference/make_fixture.py), from step 0 to three steps past the end; and
// lr_scheduler_kwargs' errors.
#include <cfloat>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/optim/schedule.hpp"
#include "support/test_support.hpp"

namespace shmtrain::optim {
namespace {

using shmtrain::testing::error_of;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ScheduleReference, EveryScheduleGivesTrainersLearningRates) {
  const nlohmann::json fixture =
      nlohmann::json::parse(shmtrain::testing::read_file(shmtrain::testing::fixtures_dir() / "lr_schedules.json"));
  ASSERT_GE(fixture.at("cases").size(), 16u);
  for (const nlohmann::json& c : fixture.at("cases")) {
    const std::string type = c.at("lr_scheduler_type");
    const std::string kwargs = c.at("lr_scheduler_kwargs").dump();
    const double learning_rate = c.at("learning_rate");
    const std::int64_t total = c.at("total_steps"), warmup = c.at("warmup_steps");
    const auto expected = c.at("lrs").get<std::vector<double>>();
    const LrScheduleSpec spec = make_lr_schedule(parse_lr_schedule(type), kwargs, learning_rate);
    std::vector<double> actual;
    for (std::int64_t step = 0; step < static_cast<std::int64_t>(expected.size()); ++step) {
      actual.push_back(learning_rate * lr_multiplier(spec, step, total, warmup));
    }
    // Without cos or pow (sqrt is correctly rounded) the doubles are Python's exactly. cos and
    // pow are libm's, not correctly rounded: another C library than the fixture's may differ
    // in the last bit, which the cosine's 0.5 * (1 + cos) turns into a few eps of the peak.
    const bool libm = contains(type, "cosine") || (type == "polynomial" && spec.power != 1.0);
    const double atol = libm ? 4 * DBL_EPSILON * learning_rate : 0.0;
    EXPECT_TRUE(shmtrain::testing::all_close(actual, expected, atol))
        << type << " " << kwargs << ", " << total << " steps, warmup " << warmup;
  }
}

TEST(ScheduleReference, DefaultsOfTheScheduleFunctions) {
  EXPECT_EQ(make_lr_schedule(LrSchedule::kCosine, "", 5e-5).num_cycles, 0.5);
  EXPECT_EQ(make_lr_schedule(LrSchedule::kCosineWithRestarts, "", 5e-5).num_cycles, 1.0);
  const LrScheduleSpec polynomial = make_lr_schedule(LrSchedule::kPolynomial, " ", 5e-5);
  EXPECT_EQ(polynomial.lr_end, 1e-7);
  EXPECT_EQ(polynomial.power, 1.0);
  EXPECT_EQ(polynomial.lr_init, 5e-5);
  EXPECT_FALSE(make_lr_schedule(LrSchedule::kInverseSqrt, "{}", 5e-5).timescale.has_value());
  EXPECT_EQ(make_lr_schedule(LrSchedule::kCosineWithMinLr, R"({"min_lr": 1e-5})", 4e-5).min_lr_rate, 1e-5 / 4e-5);
  EXPECT_EQ(make_lr_schedule(LrSchedule::kCosine, R"({"num_cycles": null})", 5e-5).num_cycles, 0.5);
}

TEST(ScheduleReference, NamesTrainerHasAndShmtrainDoesNot) {
  std::string err = error_of([] { parse_lr_schedule("cosine_annealing"); });
  EXPECT_TRUE(contains(err, "'cosine_annealing' is not one of linear, cosine, cosine_with_restarts, polynomial, "
                            "constant, constant_with_warmup, inverse_sqrt, cosine_with_min_lr"))
      << err;
  for (const std::string name : {"reduce_lr_on_plateau", "warmup_stable_decay", "cosine_warmup_with_min_lr"}) {
    err = error_of([&] { parse_lr_schedule(name); });
    EXPECT_TRUE(contains(err, "'" + name + "' is one of Trainer's schedules that shmtrain does not implement"))
        << err;
  }
  for (const char* name : {"linear", "cosine", "cosine_with_restarts", "polynomial", "constant",
                           "constant_with_warmup", "inverse_sqrt", "cosine_with_min_lr"}) {
    EXPECT_EQ(to_string(parse_lr_schedule(name)), name);
  }
}

TEST(ScheduleReference, KwargsTheScheduleDoesNotTakeAreNamed) {
  const auto error = [](LrSchedule type, const std::string& kwargs, double lr = 5e-5) {
    return error_of([&] { make_lr_schedule(type, kwargs, lr); });
  };
  EXPECT_EQ(error(LrSchedule::kCosine, R"({"num_cycle": 2, "power": 1})"),
            "lr_scheduler_kwargs: lr_scheduler_type cosine does not take 'num_cycle', 'power' (it takes num_cycles)");
  EXPECT_EQ(error(LrSchedule::kLinear, R"({"num_cycles": 2})"),
            "lr_scheduler_kwargs: lr_scheduler_type linear takes no arguments, got 'num_cycles'");
  EXPECT_TRUE(contains(error(LrSchedule::kPolynomial, R"({"lr_end": 1e-3})"),
                       "lr_end (0.001) must be smaller than the learning rate (5e-05)"));
  EXPECT_TRUE(contains(error(LrSchedule::kCosineWithMinLr, "{}"), "needs min_lr or min_lr_rate"));
  EXPECT_TRUE(contains(error(LrSchedule::kCosineWithMinLr, R"({"min_lr": 1e-6, "min_lr_rate": 0.1})"),
                       "only one of min_lr and min_lr_rate"));
  EXPECT_TRUE(contains(error(LrSchedule::kInverseSqrt, R"({"timescale": 0})"), "timescale must be > 0, got 0"));
  EXPECT_TRUE(contains(error(LrSchedule::kCosine, R"({"num_cycles": "2"})"), "num_cycles must be a number, got \"2\""));
  EXPECT_TRUE(contains(error(LrSchedule::kCosine, "[2]"), "must be a JSON object"));
  EXPECT_TRUE(contains(error(LrSchedule::kCosine, "{num_cycles: 2}"), "lr_scheduler_kwargs is not JSON ("));
}

}  // namespace
}  // namespace shmtrain::optim
