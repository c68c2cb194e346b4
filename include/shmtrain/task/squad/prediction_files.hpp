#pragma once
// run_qa.py's prediction files, byte for byte as utils_qa.py writes them with
// json.dumps(..., indent=4) + "\n" (non-ASCII escaped as \uXXXX, floats as Python's repr):
//   <prefix>_predictions.json        question id -> answer
//   <prefix>_nbest_predictions.json  question id -> [{"start_logit", "end_logit", "text",
//                                    "probability"}, ...] ("empty": "text" first)
//   <prefix>_null_odds.json          question id -> score_diff (version_2_with_negative only)
// prefix "eval" for the evaluation, "predict" for --do_predict.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "shmtrain/task/squad/postprocess.hpp"
#include "shmtrain/task/squad/squad_file.hpp"

namespace shmtrain::task {

// Python's repr(float(x)): the shortest digits that read back as x; positional notation for
// 1e-4 <= |x| < 1e16 with at least one digit after the point, else d.ddde+XX; Infinity,
// -Infinity and NaN as json.dumps writes them.
std::string python_float_repr(double x);

// The files' contents. predictions[i] belongs to file.examples[i].
std::string qa_predictions_json(const SquadFile& file, const std::vector<QaPrediction>& predictions);
std::string qa_nbest_json(const SquadFile& file, const std::vector<QaPrediction>& predictions);
std::string qa_null_odds_json(const SquadFile& file, const std::vector<QaPrediction>& predictions);

// Writes the files (each atomically) into output_dir; the null odds with version_2_with_negative.
// Returns the predictions file.
std::filesystem::path write_qa_prediction_files(const std::filesystem::path& output_dir,
                                                std::string_view prefix, const SquadFile& file,
                                                const std::vector<QaPrediction>& predictions,
                                                bool version_2_with_negative);

}  // namespace shmtrain::task
