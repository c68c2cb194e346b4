#include <unordered_set>

#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet_split.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/io/json_error.hpp"
#include "shmtrain/io/json_nesting.hpp"
#include "shmtrain/task/squad/squad_file.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::task {
namespace {

using Json = nlohmann::json;

// Walks the document; every message names the file and the JSON path of the value.
class Reader {
 public:
  Reader(const std::string& source, bool need_answers, SquadFile& out)
      : source_(source), need_answers_(need_answers), out_(out) {}

  void document(const Json& root) {
    if (!root.is_object()) fail("", "must be a JSON object with a \"data\" list, got {}", root.type_name());
    const Json& data = member(root, "", "data");
    if (!data.is_array()) fail("data", "must be a list, got {}", data.type_name());
    for (std::size_t i = 0; i < data.size(); ++i) {
      const std::string path = fmt::format("data[{}]", i);
      const Json& article = data[i];
      if (!article.is_object()) fail(path, "must be an object, got {}", article.type_name());
      if (article.contains("paragraphs")) {
        paragraphs(article, path);
      } else if (article.contains("question") || article.contains("context")) {
        flat_row(article, path);
      } else {
        fail(path + ".paragraphs",
             "missing (a SQuAD article holds \"paragraphs\"; a flat row \"question\" and "
             "\"context\")");
      }
    }
    if (out_.examples.empty()) fail("data", "holds no questions");
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(const std::string& path, fmt::format_string<Args...> format, Args&&... args) const {
    throw InputError(fmt::format("{}: {}{}", source_, path.empty() ? "" : path + ": ",
                                 fmt::format(format, std::forward<Args>(args)...)));
  }

  const Json& member(const Json& object, const std::string& path, const char* key) const {
    const auto it = object.find(key);
    const std::string where = path.empty() ? key : path + "." + key;
    if (it == object.end()) fail(where, "missing");
    return *it;
  }

  std::string string_member(const Json& object, const std::string& path, const char* key) const {
    const Json& value = member(object, path, key);
    if (!value.is_string()) fail(path + "." + key, "must be a string, got {}", value.type_name());
    return value.get<std::string>();
  }

  // Ids are strings in SQuAD; integers are accepted and written as their decimal text.
  std::string id_member(const Json& object, const std::string& path) {
    const Json& value = member(object, path, "id");
    std::string id;
    if (value.is_string()) {
      id = value.get<std::string>();
    } else if (value.is_number_integer()) {
      id = value.dump();
    } else {
      fail(path + ".id", "must be a string, got {}", value.type_name());
    }
    if (!ids_.insert(id).second) fail(path + ".id", "'{}' appears twice; question ids must be unique", id);
    return id;
  }

  std::size_t add_context(std::string context) {
    // Flat rows repeat their paragraph's context: consecutive equal contexts are stored once.
    if (out_.contexts.empty() || out_.contexts.back() != context) out_.contexts.push_back(std::move(context));
    return out_.contexts.size() - 1;
  }

  void paragraphs(const Json& article, const std::string& path) {
    const Json& list = member(article, path, "paragraphs");
    if (!list.is_array()) fail(path + ".paragraphs", "must be a list, got {}", list.type_name());
    for (std::size_t j = 0; j < list.size(); ++j) {
      const std::string p = fmt::format("{}.paragraphs[{}]", path, j);
      if (!list[j].is_object()) fail(p, "must be an object, got {}", list[j].type_name());
      const std::size_t context = add_context(string_member(list[j], p, "context"));
      const Json& qas = member(list[j], p, "qas");
      if (!qas.is_array()) fail(p + ".qas", "must be a list, got {}", qas.type_name());
      for (std::size_t k = 0; k < qas.size(); ++k) {
        const std::string q = fmt::format("{}.qas[{}]", p, k);
        if (!qas[k].is_object()) fail(q, "must be an object, got {}", qas[k].type_name());
        SquadExample example;
        example.id = id_member(qas[k], q);
        example.question = string_member(qas[k], q, "question");
        example.context = context;
        // SQuAD 2.0: an unanswerable question says is_impossible and has no answers (its
        // plausible_answers are not answers and are ignored, as datasets' squad_v2 does).
        const bool impossible = is_impossible(qas[k], q);
        const auto found = qas[k].find("answers");
        if (found == qas[k].end() && !impossible) fail(q + ".answers", "missing");
        static const Json no_answers = Json::array();
        const Json& answers = found == qas[k].end() ? no_answers : *found;
        if (!answers.is_array()) fail(q + ".answers", "must be a list, got {}", answers.type_name());
        if (impossible && !answers.empty()) {
          fail(q + ".answers", "holds {} answer(s) but is_impossible is true", answers.size());
        }
        for (std::size_t m = 0; m < answers.size(); ++m) {
          const std::string a = fmt::format("{}.answers[{}]", q, m);
          if (!answers[m].is_object()) fail(a, "must be an object, got {}", answers[m].type_name());
          example.answers.push_back({string_member(answers[m], a, "text"), answer_start(answers[m], a)});
        }
        finish(std::move(example), q);
      }
    }
  }

  void flat_row(const Json& row, const std::string& path) {
    SquadExample example;
    example.id = id_member(row, path);
    example.question = string_member(row, path, "question");
    example.context = add_context(string_member(row, path, "context"));
    const Json& answers = member(row, path, "answers");
    const std::string a = path + ".answers";
    if (!answers.is_object())
      fail(a, "must be an object {{\"text\": [...], \"answer_start\": [...]}}, got {}", answers.type_name());
    const Json& texts = member(answers, a, "text");
    const Json& starts = member(answers, a, "answer_start");
    if (!texts.is_array() || !starts.is_array() || texts.size() != starts.size()) {
      fail(a, "text and answer_start must be lists of the same length");
    }
    for (std::size_t m = 0; m < texts.size(); ++m) {
      if (!texts[m].is_string())
        fail(fmt::format("{}.text[{}]", a, m), "must be a string, got {}", texts[m].type_name());
      example.answers.push_back(
          {texts[m].get<std::string>(), start_value(starts[m], fmt::format("{}.answer_start[{}]", a, m))});
    }
    finish(std::move(example), path);
  }

  std::int64_t start_value(const Json& value, const std::string& path) const {
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0) {
      fail(path, "must be a non-negative integer (a character offset into the context), got {}",
           value.dump());
    }
    return value.get<std::int64_t>();
  }

  bool is_impossible(const Json& qa, const std::string& path) const {
    const auto it = qa.find("is_impossible");
    if (it == qa.end()) return false;
    if (!it->is_boolean()) fail(path + ".is_impossible", "must be true or false, got {}", it->dump());
    return it->get<bool>();
  }

  std::int64_t answer_start(const Json& answer, const std::string& path) const {
    return start_value(member(answer, path, "answer_start"), path + ".answer_start");
  }

  void finish(SquadExample example, const std::string& path) {
    const auto context_chars =
        static_cast<std::int64_t>(text::count_code_points(out_.contexts[example.context]));
    for (std::size_t m = 0; m < example.answers.size(); ++m) {
      const SquadAnswer& answer = example.answers[m];
      const auto text_chars = static_cast<std::int64_t>(text::count_code_points(answer.text));
      // Compared without adding: an answer_start near INT64_MAX would overflow the sum.
      if (answer.answer_start > context_chars - text_chars) {
        fail(fmt::format("{}.answers[{}]", path, m),
             "answer_start {} + {} characters of text ends past the context's {} characters (answer_start "
             "counts characters, not bytes)",
             answer.answer_start, text_chars, context_chars);
      }
    }
    if (need_answers_ && example.answers.empty()) {
      fail(path + ".answers",
           "empty; SQuAD v1.1 evaluation scores every question against its gold answers (for SQuAD 2.0 "
           "files, whose unanswerable questions have none, pass --version_2_with_negative)");
    }
    out_.examples.push_back(std::move(example));
  }

  const std::string& source_;
  const bool need_answers_;
  SquadFile& out_;
  std::unordered_set<std::string> ids_;
};

}  // namespace

SquadFile parse_squad(std::string_view json_text, const std::string& source, bool need_answers) {
  io::check_json_nesting(json_text, source);
  Json root;
  try {
    root = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::exception& e) {
    fail_input("{}: not valid JSON: {}", source, io::json_error_text(e.what()));
  }
  SquadFile out;
  out.source = source;
  Reader(out.source, need_answers, out).document(root);
  return out;
}

SquadFile squad_from_rows(const data::JsonLines& rows, bool need_answers) {
  Json root = Json::object();
  Json& data = root["data"] = Json::array();
  for (const data::JsonRow& row : rows.rows) data.push_back(Json(row.object));
  SquadFile out;
  out.source = rows.source;
  Reader(out.source, need_answers, out).document(root);
  return out;
}

SquadFile read_squad_file(const std::filesystem::path& path, bool need_answers) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (extension == ".parquet") return squad_from_rows(data::read_parquet(path, "a SQuAD parquet file").rows, need_answers);
  return parse_squad(data::read_data_file(path, "a SQuAD JSON file"), path.string(), need_answers);
}

SquadFile read_squad_split(const std::vector<std::filesystem::path>& shards, bool need_answers) {
  return squad_from_rows(data::read_parquet_split(shards, "a SQuAD split (parquet)").rows, need_answers);
}

}  // namespace shmtrain::task
