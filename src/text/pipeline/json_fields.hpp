#pragma once
// Internal to text/pipeline: typed reads from one object of a tokenizer.json, whose errors
// name the file and the key's path ("tokenizer.json: pre_tokenizer.pretokenizers[1].behavior:
// must be a string, got 3"), so a user can find what is wrong in a 5 MB file.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace shmtrain::text::pipeline {

// The JSON document in `path`: InputError "<path>: ..." when it cannot be read, nests deeper
// than io's bound or does not parse.
nlohmann::json read_json_file(const std::string& path);

class JsonFields {
 public:
  // `path` is the object's own path ("normalizer"), `file` the file's name for messages.
  JsonFields(const nlohmann::json& object, std::string path, const std::string& file);

  const nlohmann::json& json() const { return object_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  // The path of a key of this object, and of an element of one of its arrays.
  std::string key_path(const std::string& key) const;
  JsonFields child(const std::string& key) const;          // REQUIRES: has(key), an object
  JsonFields element(const nlohmann::json& value, const std::string& key, std::size_t index) const;

  bool has(const std::string& key) const;  // present and not null
  std::string string(const std::string& key) const;  // required
  std::string string_or(const std::string& key, const std::string& fallback) const;
  std::optional<std::string> optional_string(const std::string& key) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  std::optional<bool> optional_boolean(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  std::optional<std::int64_t> optional_integer(const std::string& key) const;
  const nlohmann::json& array(const std::string& key) const;   // required
  const nlohmann::json& object(const std::string& key) const;  // required

  // Throws InputError "<file>: <path>.<key>: <problem>".
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  [[noreturn]] void fail_here(const std::string& problem) const;

 private:
  const nlohmann::json& require(const std::string& key) const;

  const nlohmann::json& object_;
  std::string path_;
  std::string file_;
};

}  // namespace shmtrain::text::pipeline
