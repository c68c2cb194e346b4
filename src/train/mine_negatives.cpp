#include "shmtrain/train/mine_negatives.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/io/npy_file.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace shmtrain::train {
namespace fs = std::filesystem;
namespace {

// The texts in first-occurrence order, and each text's place in it.
struct UniqueTexts {
  std::vector<std::string> texts;
  std::unordered_map<std::string, std::int64_t> index;
  std::int64_t add(const std::string& text) {
    const auto [it, inserted] = index.emplace(text, static_cast<std::int64_t>(texts.size()));
    if (inserted) texts.push_back(text);
    return it->second;
  }
};

// The folder's sentence-transformers prompts (config_sentence_transformers.json): what
// encode_query and encode_document put before the texts when no prompt is given.
struct FolderPrompts {
  std::string query, document;
};
FolderPrompts folder_prompts(const fs::path& folder) {
  FolderPrompts out;
  const fs::path path = folder / "config_sentence_transformers.json";
  std::ifstream in(path);
  if (!in) return out;
  const nlohmann::json config = nlohmann::json::parse(in, nullptr, false);
  if (!config.is_object()) fail_input("{}: not a JSON object", path.string());
  if (const auto fn = config.find("similarity_fn_name"); fn != config.end() && !fn->is_null()) {
    if (!fn->is_string() || (*fn != "cosine" && *fn != "dot")) {
      fail_input("{}: similarity_fn_name {}: mine-negatives scores by cosine (dot products of unit vectors); "
                 "'cosine' and 'dot' are read",
                 path.string(), fn->dump());
    }
  }
  const auto prompts = config.find("prompts");
  if (prompts == config.end() || !prompts->is_object()) return out;
  const auto text = [&](const char* name) -> std::optional<std::string> {
    const auto p = prompts->find(name);
    if (p == prompts->end() || !p->is_string()) return std::nullopt;
    return p->get<std::string>();
  };
  std::optional<std::string> fallback;
  if (const auto d = config.find("default_prompt_name"); d != config.end() && d->is_string()) {
    fallback = text(d->get<std::string>().c_str());
  }
  out.query = text("query").value_or(fallback.value_or(""));
  std::optional<std::string> document;
  for (const char* name : {"document", "passage", "corpus"}) {
    if ((document = text(name))) break;
  }
  out.document = document.value_or(fallback.value_or(""));
  return out;
}

// FNV-1a over the model (its config.json and weights, so a retrained model never reads another's
// embeddings), the prompt and the texts: the cache file's key.
std::string cache_key(const fs::path& folder, const std::string& prompt, const std::vector<std::string>& texts) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&](std::string_view s) {
    for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;  // a separator no UTF-8 text holds
  };
  for (const fs::path& file : {folder / "config.json", model::find_model_weights(folder)}) {
    std::ifstream in(file, std::ios::binary);
    std::vector<char> chunk(std::size_t{1} << 20);
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
      // 8 bytes a step: the weights are hundreds of MB.
      const auto n = static_cast<std::size_t>(in.gcount());
      std::size_t i = 0;
      for (; i + 8 <= n; i += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, chunk.data() + i, 8);
        h = (h ^ word) * 1099511628211ull;
      }
      mix(std::string_view(chunk.data() + i, n - i));
    }
  }
  mix(prompt);
  for (const std::string& t : texts) mix(t);
  return fmt::format("{:016x}", h);
}

// The texts' unit-length embeddings: from the cache folder when it has them, else embedded
// (and kept there).
std::vector<float> unit_embeddings(EmbeddingModel& loaded, const MineOptions& options,
                                   const std::vector<std::string>& texts, const std::string& prompt, const char* what) {
  const std::int64_t h = loaded.config.hidden_size;
  fs::path cached;
  if (!options.cache_folder.empty()) {
    cached = options.cache_folder /
             fmt::format("{}_embeddings_{}.npy", what, cache_key(options.model.folder, prompt, texts));
    if (fs::exists(cached)) {
      io::NpyMatrix m = io::read_npy_f32(cached);
      if (m.rows != static_cast<std::int64_t>(texts.size()) || m.cols != h) {
        fail_input("{}: ({}, {}) embeddings where {} texts of {} dimensions were expected; remove the file", cached.string(),
                   m.rows, m.cols, texts.size(), h);
      }
      fmt::print("mine-negatives: {} embeddings read from {}\n", what, cached.string());
      return std::move(m.values);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::int64_t tokens = 0;
  std::vector<float> out =
      embed_texts(*loaded.model, *loaded.tokenizer, texts, loaded.max_seq_length, options.batch_size, prompt, &tokens);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("mine-negatives: embedded {} {} texts ({} tokens) in {:.2f} s: {:.1f} texts/s\n", texts.size(), what,
             tokens, seconds, static_cast<double>(texts.size()) / seconds);
  for (std::size_t r = 0; r < texts.size(); ++r) {  // torch.nn.functional.normalize: x / max(|x|, 1e-12)
    float* row = out.data() + r * static_cast<std::size_t>(h);
    double norm = 0;
    for (std::int64_t c = 0; c < h; ++c) norm += static_cast<double>(row[c]) * row[c];
    const auto scale = static_cast<float>(1.0 / std::max(std::sqrt(norm), 1e-12));
    for (std::int64_t c = 0; c < h; ++c) row[c] *= scale;
  }
  if (!cached.empty()) {
    fs::create_directories(options.cache_folder);
    io::write_npy_f32(cached, out, static_cast<std::int64_t>(texts.size()), h);
  }
  return out;
}

double quantile(std::vector<double> v, double q) {  // torch.quantile's linear interpolation
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

// sentence-transformers' summary table: count, mean, median, std, min, quartiles, max.
void print_statistics(const std::vector<double>& positive, const std::vector<double>& negative,
                      const std::vector<double>& difference) {
  const auto row = [](const std::string& name, const std::string& a, const std::string& b, const std::string& c) {
    fmt::print("{:<6} {:>14} {:>14} {:>14}\n", name, a, b, c);
  };
  row("Metric", "Positive", "Negative", "Difference");
  row("Count", fmt::format("{}", positive.size()), fmt::format("{}", negative.size()), "");
  const auto stat = [](const std::vector<double>& v, const std::string& name) -> std::string {
    if (v.empty()) return "-";
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    double value = 0;
    if (name == "Mean") {
      value = mean;
    } else if (name == "Std") {
      double ss = 0;
      for (const double x : v) ss += (x - mean) * (x - mean);
      value = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
    } else if (name == "Min") {
      value = *std::min_element(v.begin(), v.end());
    } else if (name == "Max") {
      value = *std::max_element(v.begin(), v.end());
    } else {
      value = quantile(v, name == "25%" ? 0.25 : name == "75%" ? 0.75 : 0.5);
    }
    return fmt::format("{:.4f}", value);
  };
  for (const char* name : {"Mean", "Median", "Std", "Min", "25%", "50%", "75%", "Max"}) {
    row(name, stat(positive, name), stat(negative, name), stat(difference, name));
  }
}

}  // namespace

std::int64_t mine_negatives_file(const MineOptions& options) {
  const NegativeSelection& given = options.selection;
  if (given.num_negatives < 1) fail_input("--num_negatives must be at least 1");
  if (given.range_min < 0) fail_input("--range_min must be 0 or more");
  if (options.batch_size < 1) fail_input("--batch_size must be at least 1");
  if (options.sampling_strategy != "top" && options.sampling_strategy != "random") {
    fail_input("--sampling_strategy '{}': top or random", options.sampling_strategy);
  }
  std::string format = options.output_format;
  static const char* kFormats[] = {"triplet", "n-tuple", "n-tuple-scores", "labeled-pair", "labeled-list"};
  if (std::find(std::begin(kFormats), std::end(kFormats), format) == std::end(kFormats)) {
    fail_input("--output_format '{}': triplet, n-tuple, n-tuple-scores, labeled-pair or labeled-list", format);
  }
  if (given.include_positives && format != "n-tuple") {
    fmt::print("mine-negatives: --include_positives writes n-tuples (the ranking's order kept), not {}\n", format);
    format = "n-tuple";
  }
  const data::Table table = data::read_table_file(options.dataset, "the --dataset file", "--dataset");
  if (table.columns.size() < 2) {
    fail_input("{}: mine-negatives needs (anchor, positive) columns; the file has {}", table.source,
               data::join_names(table.columns));
  }
  const auto column = [&](const std::string& name, std::size_t fallback, const char* flag) {
    if (name.empty()) return fallback;
    const auto c = table.find_column(name);
    if (!c) fail_input("{}: no column '{}' ({}); columns: {}", table.source, name, flag, data::join_names(table.columns));
    return *c;
  };
  const std::size_t anchor = column(options.anchor_column, 0, "--anchor_column_name");
  const std::size_t positive = column(options.positive_column, 1, "--positive_column_name");
  const auto text_of = [&](const data::Record& r, std::size_t c) -> const std::string& {
    const data::Value& v = r.fields[c];
    if (v.kind != data::ValueKind::string && v.kind != data::ValueKind::untyped) {
      fail_input("{}:{}: column '{}' must hold a text", table.source, r.line, table.columns[c]);
    }
    return v.text;
  };
  if (table.records.empty()) fail_input("{}: the dataset is empty", table.source);

  // Step 1: the corpus (the --corpus texts, then the positives; duplicates removed) and the queries.
  UniqueTexts corpus, queries;
  if (!options.corpus.empty()) {
    for (const std::string& t : data::read_text_list(options.corpus, options.corpus_column, "--corpus", "--corpus_column")) {
      corpus.add(t);
    }
  }
  std::vector<std::vector<std::int64_t>> positives;
  for (const data::Record& r : table.records) {
    const std::int64_t doc = corpus.add(text_of(r, positive));
    const std::int64_t q = queries.add(text_of(r, anchor));
    if (static_cast<std::size_t>(q) == positives.size()) positives.emplace_back();
    positives[static_cast<std::size_t>(q)].push_back(doc);
  }
  std::int64_t max_positives = 0;
  for (const auto& p : positives) max_positives = std::max<std::int64_t>(max_positives, static_cast<std::int64_t>(p.size()));
  NegativeSelection selection = given;
  if (options.range_max) {
    if (*options.range_max < 1) fail_input("--range_max must be at least 1");
    selection.range_max = *options.range_max;
  } else {
    selection.range_max = default_range_max(selection, max_positives);
    fmt::print("mine-negatives: range_max {} (range_min + num_negatives{} + the most positives a query has)\n",
               selection.range_max, selection.absolute_margin || selection.relative_margin || selection.max_score
                                        ? " x 10" : "");
  }
  selection.random = options.sampling_strategy == "random";
  const auto n_queries = static_cast<std::int64_t>(queries.texts.size());
  if (n_queries != static_cast<std::int64_t>(table.records.size())) {
    fmt::print("mine-negatives: {} unique queries out of {}\n", n_queries, table.records.size());
  }

  // Step 2: unit-length embeddings.
  tensor::set_compute_threads(tensor::allowed_cpu_count());
  const std::unique_ptr<EmbeddingModel> loaded = load_embedding_model(options.model);
  const FolderPrompts prompts = folder_prompts(options.model.folder);
  const std::string query_prompt = options.query_prompt.value_or(prompts.query);
  const std::string corpus_prompt = options.corpus_prompt.value_or(prompts.document);
  const std::vector<float> corpus_embeddings = unit_embeddings(*loaded, options, corpus.texts, corpus_prompt, "corpus");
  const std::vector<float> query_embeddings = unit_embeddings(*loaded, options, queries.texts, query_prompt, "query");

  // Steps 3-5.
  const std::int64_t dim = loaded->config.hidden_size;
  const auto search_start = std::chrono::steady_clock::now();
  const MinedNegatives mined = select_negatives(query_embeddings.data(), n_queries, corpus_embeddings.data(),
                                                static_cast<std::int64_t>(corpus.texts.size()), dim, positives, selection);
  const double search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - search_start).count();
  fmt::print("mine-negatives: searched {} queries x {} passages in {:.2f} s ({:.1f} GFLOP/s of products)\n", n_queries,
             corpus.texts.size(), search_seconds,
             2.0 * static_cast<double>(n_queries) * static_cast<double>(corpus.texts.size()) * static_cast<double>(dim) /
                 search_seconds / 1e9);

  // Step 6: the rows, per (query, positive) in the queries' order.
  const std::string& anchor_name = table.columns[anchor];
  const std::string& positive_name = table.columns[positive];
  std::string lines;
  std::int64_t written = 0, possible = 0;
  std::vector<double> positive_stats, negative_stats, difference_stats;
  const auto emit = [&](const nlohmann::ordered_json& row) {
    lines += row.dump();
    lines += '\n';
    ++written;
  };
  std::size_t expanded = 0;
  for (std::int64_t q = 0; q < n_queries; ++q) {
    const std::string& query = queries.texts[static_cast<std::size_t>(q)];
    std::vector<std::int64_t> found;  // the finite slots
    for (std::int64_t i = 0; i < mined.width; ++i) {
      if (!std::isinf(mined.scores[static_cast<std::size_t>(q * mined.width + i)])) found.push_back(i);
    }
    const auto negative_text = [&](std::int64_t i) -> const std::string& {
      return corpus.texts[static_cast<std::size_t>(mined.indices[static_cast<std::size_t>(q * mined.width + i)])];
    };
    const auto negative_score = [&](std::int64_t i) {
      return static_cast<double>(mined.scores[static_cast<std::size_t>(q * mined.width + i)]);
    };
    const auto& own = positives[static_cast<std::size_t>(q)];
    if (format == "labeled-pair") {  // per query: its positives (1), then its negatives (0)
      for (const std::int64_t p : own) {
        emit({{anchor_name, query}, {positive_name, corpus.texts[static_cast<std::size_t>(p)]}, {"label", 1}});
      }
      for (const std::int64_t i : found) emit({{anchor_name, query}, {positive_name, negative_text(i)}, {"label", 0}});
      possible += static_cast<std::int64_t>(own.size()) + mined.width;
    }
    for (const std::int64_t p : own) {
      const double pos_score = mined.positive_scores[expanded++];
      const std::string& positive_text = corpus.texts[static_cast<std::size_t>(p)];
      const bool complete = static_cast<std::int64_t>(found.size()) == mined.width;
      bool kept = false;
      if (format == "triplet") {
        for (const std::int64_t i : found) {
          emit({{anchor_name, query}, {positive_name, positive_text}, {"negative", negative_text(i)}});
        }
        possible += mined.width;
        kept = !found.empty();
      } else if (format == "n-tuple" || format == "n-tuple-scores") {
        ++possible;
        if (complete) {
          nlohmann::ordered_json row = {{anchor_name, query}, {positive_name, positive_text}};
          nlohmann::json scores = nlohmann::json::array({pos_score});
          for (std::int64_t i = 0; i < mined.width; ++i) {
            row[fmt::format("negative_{}", i + 1)] = negative_text(i);
            scores.push_back(negative_score(i));
          }
          if (format == "n-tuple-scores") row["score"] = scores;
          emit(row);
          kept = true;
        }
      } else if (format == "labeled-list") {
        ++possible;
        if (!found.empty()) {
          nlohmann::json docs = nlohmann::json::array({positive_text});
          nlohmann::json labels = nlohmann::json::array({1});
          for (const std::int64_t i : found) {
            docs.push_back(negative_text(i));
            labels.push_back(0);
          }
          emit({{anchor_name, query}, {positive_name, docs}, {"labels", labels}});
          kept = true;
        }
      } else {
        kept = true;  // labeled-pair: written above
      }
      positive_stats.push_back(pos_score);
      if (kept || format == "labeled-pair") {
        for (const std::int64_t i : found) {
          negative_stats.push_back(negative_score(i));
          difference_stats.push_back(pos_score - negative_score(i));
        }
      }
    }
  }
  if (written == 0) {
    fail_input("{}: no rows could be mined: no query has a negative left; widen --range_max, lower --range_min or "
               "loosen the margins and score bounds",
               table.source);
  }
  io::write_file_atomically(options.output, lines);

  print_statistics(positive_stats, negative_stats, difference_stats);
  const auto skipped = [&](const char* name, std::int64_t count, const std::optional<double>& value) {
    if (count > 0 && value) {
      fmt::print("Skipped {} potential negatives ({:.2f}%) due to the {} of {}.\n", count,
                 100.0 * static_cast<double>(count) / static_cast<double>(std::max<std::int64_t>(mined.candidates, 1)),
                 name, *value);
    }
  };
  skipped("absolute_margin", mined.skipped_absolute, selection.absolute_margin);
  skipped("relative_margin", mined.skipped_relative, selection.relative_margin);
  skipped("max_score", mined.skipped_max, selection.max_score);
  skipped("min_score", mined.skipped_min, selection.min_score);
  if (possible > written) {
    fmt::print("Could not find enough negatives for {} samples ({:.2f}%): consider widening range_max or loosening "
               "range_min, the margins and max_score.\n",
               possible - written, 100.0 * static_cast<double>(possible - written) / static_cast<double>(possible));
  }
  return written;
}

}  // namespace shmtrain::train
