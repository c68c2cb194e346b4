#include "json_fields.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_nesting.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {



nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input("cannot open {}: check that it exists and is readable", path);
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check_utf8(contents, path);
  io::check_json_nesting(contents, path);
  try {
    return nlohmann::json::parse(contents);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e400
    fail_input("{}: not valid JSON: {}", path, e.what());
  }
}

JsonFields::JsonFields(const nlohmann::json& object, std::string path, const std::string& file)
    : object_(object), path_(std::move(path)), file_(file) {
  if (!object_.is_object()) fail_here(fmt::format("must be an object, got {}", object_.dump().substr(0, 80)));
}

std::string JsonFields::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

JsonFields JsonFields::child(const std::string& key) const { return JsonFields(object(key), key_path(key), file_); }

JsonFields JsonFields::element(const nlohmann::json& value, const std::string& key, std::size_t index) const {
  return JsonFields(value, fmt::format("{}[{}]", key_path(key), index), file_);
}

bool JsonFields::has(const std::string& key) const {
  const auto it = object_.find(key);
  return it != object_.end() && !it->is_null();
}

void JsonFields::fail(const std::string& key, const std::string& problem) const {
  fail_input("{}: {}: {}", file_, key_path(key), problem);
}

void JsonFields::fail_here(const std::string& problem) const {
  fail_input("{}: {}: {}", file_, path_.empty() ? "top level" : path_, problem);
}

const nlohmann::json& JsonFields::require(const std::string& key) const {
  if (!has(key)) fail(key, "is missing");
  return object_.at(key);
}

std::string JsonFields::string(const std::string& key) const {
  const nlohmann::json& value = require(key);
  if (!value.is_string()) fail(key, fmt::format("must be a string, got {}", value.dump().substr(0, 80)));
  return value.get<std::string>();
}

std::string JsonFields::string_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? string(key) : fallback;
}

std::optional<std::string> JsonFields::optional_string(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return string(key);
}

bool JsonFields::boolean_or(const std::string& key, bool fallback) const {
  return optional_boolean(key).value_or(fallback);
}

std::optional<bool> JsonFields::optional_boolean(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const nlohmann::json& value = object_.at(key);
  if (!value.is_boolean()) fail(key, fmt::format("must be true or false, got {}", value.dump().substr(0, 80)));
  return value.get<bool>();
}

std::int64_t JsonFields::integer(const std::string& key) const {
  const nlohmann::json& value = require(key);
  if (!value.is_number_integer()) fail(key, fmt::format("must be an integer, got {}", value.dump().substr(0, 80)));
  return value.get<std::int64_t>();
}

std::optional<std::int64_t> JsonFields::optional_integer(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return integer(key);
}

const nlohmann::json& JsonFields::array(const std::string& key) const {
  const nlohmann::json& value = require(key);
  if (!value.is_array()) fail(key, fmt::format("must be a list, got {}", value.dump().substr(0, 80)));
  return value;
}

const nlohmann::json& JsonFields::object(const std::string& key) const {
  const nlohmann::json& value = require(key);
  if (!value.is_object()) fail(key, fmt::format("must be an object, got {}", value.dump().substr(0, 80)));
  return value;
}

}  // namespace shmtrain::text::pipeline
