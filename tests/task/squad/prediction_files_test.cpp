// run_qa's prediction files byte for byte: the texts below are what Python's
// json.dumps(..., indent=4) + "\n" writes for the same dicts (floats as repr, non-ASCII as
// \uXXXX with surrogate pairs), as utils_qa.py writes them.
#include "shmtrain/task/squad/prediction_files.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::task {
namespace {

TEST(QaPredictionFiles, FloatsAsPythonsRepr) {
  const std::vector<std::pair<double, std::string>> cases = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {-2.5, "-2.5"},
      {100.0, "100.0"},
      {0.1, "0.1"},
      {static_cast<double>(0.1f), "0.10000000149011612"},
      {12.34, "12.34"},
      {123456789.0, "123456789.0"},
      {1e15, "1000000000000000.0"},
      {9007199254740993.0, "9007199254740992.0"},
      {1234567890123456.7, "1234567890123456.8"},
      {1e16, "1e+16"},
      {1e22, "1e+22"},
      {1e-4, "0.0001"},
      {0.00012345, "0.00012345"},
      {1e-5, "1e-05"},
      {1e-7, "1e-07"},
      {1.5e-7, "1.5e-07"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {static_cast<double>(std::numeric_limits<float>::max()), "3.4028234663852886e+38"},
      {std::numeric_limits<double>::infinity(), "Infinity"},
      {-std::numeric_limits<double>::infinity(), "-Infinity"},
      {std::nan(""), "NaN"},
  };
  for (const auto& [value, text] : cases) EXPECT_EQ(python_float_repr(value), text) << text;
}

SquadFile two_questions() {
  SquadFile file;
  file.contexts = {"c"};
  file.examples = {{"q1", "?", 0, {}}, {"\u00e9", "?", 0, {}}};
  return file;
}

std::vector<QaPrediction> predictions() {
  QaPrediction q1;
  q1.answer = "Z\u00fcrich \U0001F600";
  q1.nbest = {{q1.answer, 1.5f, 0.25f, static_cast<double>(0.7310586f), false},
              {"", 0.1f, -2.0f, static_cast<double>(0.26894143f), false}};
  q1.score_diff = static_cast<double>(-0.1f);
  QaPrediction q2;
  q2.answer = "";
  q2.nbest = {{"empty", 0.0f, 0.0f, 0.11920292202211755, true}, {"", 1.0f, 1.0f, 0.8807970779778823, false}};
  q2.score_diff = 2.0;
  return {q1, q2};
}

TEST(QaPredictionFiles, TheThreeFilesAsUtilsQaWritesThem) {
  const SquadFile file = two_questions();
  EXPECT_EQ(qa_predictions_json(file, predictions()),
            "{\n"
            "    \"q1\": \"Z\\u00fcrich \\ud83d\\ude00\",\n"
            "    \"\\u00e9\": \"\"\n"
            "}\n");
  EXPECT_EQ(qa_null_odds_json(file, predictions()),
            "{\n"
            "    \"q1\": -0.10000000149011612,\n"
            "    \"\\u00e9\": 2.0\n"
            "}\n");
  // Keys in utils_qa's order: start_logit, end_logit, text, probability; "empty" text first.
  EXPECT_EQ(qa_nbest_json(file, predictions()),
            "{\n"
            "    \"q1\": [\n"
            "        {\n"
            "            \"start_logit\": 1.5,\n"
            "            \"end_logit\": 0.25,\n"
            "            \"text\": \"Z\\u00fcrich \\ud83d\\ude00\",\n"
            "            \"probability\": 0.7310585975646973\n"
            "        },\n"
            "        {\n"
            "            \"start_logit\": 0.10000000149011612,\n"
            "            \"end_logit\": -2.0,\n"
            "            \"text\": \"\",\n"
            "            \"probability\": 0.2689414322376251\n"
            "        }\n"
            "    ],\n"
            "    \"\\u00e9\": [\n"
            "        {\n"
            "            \"text\": \"empty\",\n"
            "            \"start_logit\": 0.0,\n"
            "            \"end_logit\": 0.0,\n"
            "            \"probability\": 0.11920292202211755\n"
            "        },\n"
            "        {\n"
            "            \"start_logit\": 1.0,\n"
            "            \"end_logit\": 1.0,\n"
            "            \"text\": \"\",\n"
            "            \"probability\": 0.8807970779778823\n"
            "        }\n"
            "    ]\n"
            "}\n");
  EXPECT_THROW(qa_predictions_json(file, {}), Error);
}

TEST(QaPredictionFiles, WritesEvalOrPredictFilesNullOddsOnlyForV2) {
  const shmtrain::testing::TempDir dir;
  const SquadFile file = two_questions();
  EXPECT_EQ(write_qa_prediction_files(dir.path(), "eval", file, predictions(), false),
            dir / "eval_predictions.json");
  EXPECT_EQ(shmtrain::testing::folder_entries(dir.path()),
            (std::vector<std::string>{"eval_nbest_predictions.json", "eval_predictions.json"}));
  write_qa_prediction_files(dir.path(), "predict", file, predictions(), true);
  EXPECT_EQ(shmtrain::testing::read_file(dir / "predict_null_odds.json"),
            qa_null_odds_json(file, predictions()));
  EXPECT_EQ(shmtrain::testing::read_file(dir / "predict_nbest_predictions.json"),
            qa_nbest_json(file, predictions()));
}

}  // namespace
}  // namespace shmtrain::task
