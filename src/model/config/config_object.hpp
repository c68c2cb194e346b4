#pragma once
// Typed access to config.json's top-level object; every message names the file and the key.
// Absent keys leave the output as it is: BertConfig's initialisers (and an architecture's
// set_defaults) are transformers' defaults.
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"

namespace shmtrain::model {

using ConfigJson = nlohmann::json;

// "integer 12", "string \"gelu\"", "null": a value for a message, cut at 40 characters.
std::string describe_json(const ConfigJson& value);

class ConfigObject {
 public:
  ConfigObject(const ConfigJson& root, const std::string& source) : root_(root), source_(source) {}

  // nullptr when absent.
  const ConfigJson* find(const char* key) const;
  const std::string& source() const { return source_; }
  // nullptr when absent or null (keys whose transformers default is null).
  const ConfigJson* non_null(const char* key) const;

  template <typename... Args>
  [[noreturn]] void fail(const char* key, fmt::format_string<Args...> format, Args&&... args) const {
    throw InputError(fmt::format("{}: key '{}': ", source_, key) +
                     fmt::format(format, std::forward<Args>(args)...));
  }

  void read(const char* key, std::int64_t& out) const;
  void read(const char* key, double& out) const;
  void read(const char* key, std::string& out) const;
  // true or false; anything else fails.
  void read(const char* key, bool& out) const;

 private:
  const ConfigJson& root_;
  const std::string& source_;
};

}  // namespace shmtrain::model
