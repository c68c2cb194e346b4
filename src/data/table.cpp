#include "shmtrain/data/table.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <system_error>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {

std::optional<std::size_t> Table::find_column(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  return std::nullopt;
}

std::size_t Table::column(std::string_view name, std::string_view hint) const {
  if (const auto index = find_column(name)) return *index;
  fail_input("{}: no column '{}' (columns: {}); {}", source, name, join_names(columns), hint);
}

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string read_data_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) fail_input("{}: no such file; expected {}", path.string(), what);
  if (std::filesystem::is_directory(status)) fail_input("{}: is a folder; expected {}", path.string(), what);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input("{}: cannot be opened for reading; expected {}", path.string(), what);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail_input("{}: read failed", path.string());
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return text;
}

std::string join_names(const std::vector<std::string>& names, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < limit; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  if (names.size() > limit) out += ", ...";
  return out;
}

}  // namespace shmtrain::data
