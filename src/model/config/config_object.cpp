#include "config_object.hpp"

#include <limits>

namespace shmtrain::model {

std::string describe_json(const ConfigJson& value) {
  if (value.is_null()) return "null";
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  const char* type = value.is_number_float() ? "number" : value.is_number() ? "integer" : value.type_name();
  return fmt::format("{} {}", type, text);
}

const ConfigJson* ConfigObject::find(const char* key) const {
  const auto it = root_.find(key);
  return it == root_.end() ? nullptr : &*it;
}

const ConfigJson* ConfigObject::non_null(const char* key) const {
  const ConfigJson* value = find(key);
  return value == nullptr || value->is_null() ? nullptr : value;
}

void ConfigObject::read(const char* key, std::int64_t& out) const {
  const ConfigJson* value = find(key);
  if (value == nullptr) return;
  if (!value->is_number_integer()) fail(key, "must be an integer, got {}", describe_json(*value));
  if (value->is_number_unsigned() &&
      value->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(key, "{} is too large", value->dump());
  }
  out = value->get<std::int64_t>();
}

void ConfigObject::read(const char* key, double& out) const {
  const ConfigJson* value = find(key);
  if (value == nullptr) return;
  if (!value->is_number()) fail(key, "must be a number, got {}", describe_json(*value));
  out = value->get<double>();
}

void ConfigObject::read(const char* key, std::string& out) const {
  const ConfigJson* value = find(key);
  if (value == nullptr) return;
  if (!value->is_string()) fail(key, "must be a string, got {}", describe_json(*value));
  out = value->get<std::string>();
}

void ConfigObject::read(const char* key, bool& out) const {
  const ConfigJson* value = find(key);
  if (value == nullptr) return;
  if (!value->is_boolean()) fail(key, "must be true or false, got {}", describe_json(*value));
  out = value->get<bool>();
}

}  // namespace shmtrain::model
