#include "shmtrain/task/squad/prediction_files.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::task {
namespace {

// A JSON string as json.dumps writes it (ensure_ascii: \uXXXX, surrogate pairs past U+FFFF).
std::string quoted(const std::string& text) { return nlohmann::json(text).dump(-1, ' ', true); }

// json.dumps(obj, indent=4) + "\n" of an object ids[i] -> values[i] (value texts already
// indented for one level).
std::string object_by_id(const std::vector<std::string>& ids, const std::vector<std::string>& values) {
  if (values.empty()) return "{}\n";
  std::string out = "{\n";
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += "    " + quoted(ids[i]) + ": " + values[i];
    out += i + 1 < values.size() ? ",\n" : "\n";
  }
  return out + "}\n";
}

// The question ids, checking that there is a prediction for each.
std::vector<std::string> ids_of(const SquadFile& file, const std::vector<QaPrediction>& predictions) {
  if (predictions.size() != file.examples.size()) {
    throw Error(fmt::format("{} question-answering predictions for {} questions", predictions.size(),
                            file.examples.size()));
  }
  std::vector<std::string> ids;
  ids.reserve(file.examples.size());
  for (const SquadExample& example : file.examples) ids.push_back(example.id);
  return ids;
}

}  // namespace

std::string python_float_repr(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  // The shortest round-trip digits (to_chars picks the closest of the shortest, as Python's
  // repr does), read off its scientific form "d.ddde±XX".
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::scientific);
  if (error != std::errc{}) throw Error("python_float_repr: to_chars failed");
  const std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
  const bool negative = text.front() == '-';
  const std::size_t e = text.find('e');
  std::string digits;
  for (const char c : text.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') digits.push_back(c);
  }
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  const int point = exponent + 1;  // digits before the decimal point (Python's decpt)
  std::string out = negative ? "-" : "";
  const auto n = static_cast<int>(digits.size());
  if (point <= -4 || point > 16) {
    out.push_back(digits[0]);
    if (n > 1) out.append(".").append(digits, 1);
    out.append(fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent)));
  } else if (point <= 0) {
    out.append("0.").append(static_cast<std::size_t>(-point), '0').append(digits);
  } else if (point < n) {
    out.append(digits, 0, static_cast<std::size_t>(point))
        .append(".")
        .append(digits, static_cast<std::size_t>(point));
  } else {
    out.append(digits).append(static_cast<std::size_t>(point - n), '0').append(".0");
  }
  return out;
}

std::string qa_predictions_json(const SquadFile& file, const std::vector<QaPrediction>& predictions) {
  std::vector<std::string> values;
  values.reserve(predictions.size());
  for (const QaPrediction& prediction : predictions) values.push_back(quoted(prediction.answer));
  return object_by_id(ids_of(file, predictions), values);
}

std::string qa_nbest_json(const SquadFile& file, const std::vector<QaPrediction>& predictions) {
  std::vector<std::string> values;
  values.reserve(predictions.size());
  for (const QaPrediction& prediction : predictions) {
    std::string list = "[\n";
    for (std::size_t j = 0; j < prediction.nbest.size(); ++j) {
      const QaCandidate& c = prediction.nbest[j];
      const std::string text = "            \"text\": " + quoted(c.text);
      const std::string logits = "            \"start_logit\": " + python_float_repr(c.start_logit) +
                                 ",\n            \"end_logit\": " + python_float_repr(c.end_logit);
      list += "        {\n";
      list += c.placeholder ? text + ",\n" + logits + ",\n" : logits + ",\n" + text + ",\n";
      list += "            \"probability\": " + python_float_repr(c.probability) + "\n        }";
      list += j + 1 < prediction.nbest.size() ? ",\n" : "\n";
    }
    values.push_back(list + "    ]");
  }
  return object_by_id(ids_of(file, predictions), values);
}

std::string qa_null_odds_json(const SquadFile& file, const std::vector<QaPrediction>& predictions) {
  const std::vector<std::string> ids = ids_of(file, predictions);
  // Questions without a null score (none of their windows kept) have no entry.
  std::vector<std::string> kept;
  std::vector<std::string> values;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    if (!predictions[i].score_diff) continue;
    kept.push_back(ids[i]);
    values.push_back(python_float_repr(*predictions[i].score_diff));
  }
  return object_by_id(kept, values);
}

std::filesystem::path write_qa_prediction_files(const std::filesystem::path& output_dir,
                                                std::string_view prefix, const SquadFile& file,
                                                const std::vector<QaPrediction>& predictions,
                                                bool version_2_with_negative) {
  const std::filesystem::path answers = output_dir / fmt::format("{}_predictions.json", prefix);
  io::write_file_atomically(answers, qa_predictions_json(file, predictions));
  io::write_file_atomically(output_dir / fmt::format("{}_nbest_predictions.json", prefix),
                            qa_nbest_json(file, predictions));
  if (version_2_with_negative) {
    io::write_file_atomically(output_dir / fmt::format("{}_null_odds.json", prefix),
                              qa_null_odds_json(file, predictions));
  }
  return answers;
}

}  // namespace shmtrain::task
