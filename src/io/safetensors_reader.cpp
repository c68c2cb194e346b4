#include "shmtrain/io/safetensors.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_error.hpp"
#include "shmtrain/io/json_nesting.hpp"

namespace shmtrain::io {

namespace {

using Json = nlohmann::ordered_json;  // keeps the header's order, used to break ties

constexpr std::size_t kLengthBytes = 8;
// The reference implementation refuses headers above 100 MB; a real header is a few hundred
// bytes per tensor, so anything larger is a corrupt length field.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr std::string_view kMetadataKey = "__metadata__";

std::string_view json_type(const Json& value) {
  if (value.is_number_unsigned() || value.is_number_integer()) return "integer";
  if (value.is_number_float()) return "number";
  return value.type_name();
}

// Error prefixes: "<path>: " for the file, "<path>: tensor '<name>': " for one tensor.
class Complainer {
 public:
  explicit Complainer(const std::filesystem::path& path) : path_(path.string()) {}

  template <typename... Args>
  [[noreturn]] void file(fmt::format_string<Args...> format, Args&&... args) const {
    throw InputError(path_ + ": " + fmt::format(format, std::forward<Args>(args)...));
  }
  template <typename... Args>
  [[noreturn]] void tensor(std::string_view name, fmt::format_string<Args...> format, Args&&... args) const {
    throw InputError(fmt::format("{}: tensor '{}': ", path_, name) +
                     fmt::format(format, std::forward<Args>(args)...));
  }

 private:
  std::string path_;
};

// A JSON integer in [0, 2^63): shape entries and offsets. Floats (even 2.0), negative numbers
// and integers too large for the parser (which come back as floats) are all refused.
bool as_count(const Json& value, std::uint64_t& out) {
  if (value.is_number_unsigned()) {
    out = value.get<std::uint64_t>();
    return out <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  }
  return false;
}

Json parse_header(std::string_view text, const Complainer& complain) {
  // Duplicate names are legal JSON but the parser would silently keep one of them.
  std::unordered_set<std::string> names;
  std::string duplicate;
  const Json::parser_callback_t note_duplicates = [&](int depth, nlohmann::json::parse_event_t event,
                                                      Json& parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1 && duplicate.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!names.insert(key).second) duplicate = key;
    }
    return true;
  };
  const std::size_t too_deep = json_nesting_overflow(text);
  if (too_deep != std::string_view::npos) {
    complain.file("header nests arrays and objects deeper than {} levels (byte {})", kMaxJsonNesting,
                  too_deep);
  }
  Json header;
  try {
    header = Json::parse(text.begin(), text.end(), note_duplicates);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e400
    complain.file("header is not valid JSON: {}", json_error_text(e.what()));
  }
  if (!header.is_object()) complain.file("header is not a JSON object (it is {})", json_type(header));
  if (!duplicate.empty()) complain.file("header names '{}' twice", duplicate);
  return header;
}

std::map<std::string, std::string> parse_metadata(const Json& value, const Complainer& complain) {
  if (!value.is_object())
    complain.file("__metadata__ must be an object of strings, got {}", json_type(value));
  std::map<std::string, std::string> metadata;
  for (const auto& [key, entry] : value.items()) {
    if (!entry.is_string())
      complain.file("__metadata__ key '{}' must be a string, got {}", key, json_type(entry));
    metadata.emplace(key, entry.get<std::string>());
  }
  return metadata;
}

TensorInfo parse_tensor(const std::string& name, const Json& entry, std::size_t data_size,
                        const Complainer& complain) {
  TensorInfo tensor;
  tensor.name = name;
  if (!entry.is_object()) complain.tensor(name, "entry must be an object, got {}", json_type(entry));

  const auto dtype_it = entry.find("dtype");
  if (dtype_it == entry.end()) complain.tensor(name, "missing dtype");
  if (!dtype_it->is_string()) complain.tensor(name, "dtype must be a string, got {}", json_type(*dtype_it));
  const std::string& dtype = dtype_it->get_ref<const std::string&>();
  const std::optional<Dtype> parsed = parse_dtype(dtype);
  if (!parsed) complain.tensor(name, "unknown dtype '{}'", dtype);
  tensor.dtype = *parsed;

  const auto shape_it = entry.find("shape");
  if (shape_it == entry.end()) complain.tensor(name, "missing shape");
  if (!shape_it->is_array()) complain.tensor(name, "shape must be an array, got {}", json_type(*shape_it));
  std::size_t numel = 1;
  for (const Json& dim : *shape_it) {
    std::uint64_t extent = 0;
    if (!as_count(dim, extent)) {
      complain.tensor(name, "shape {} has an entry {} that is not a non-negative integer", shape_it->dump(),
                      dim.dump());
    }
    if (__builtin_mul_overflow(numel, extent, &numel)) {
      complain.tensor(name, "shape {} has more elements than memory can hold", shape_it->dump());
    }
    tensor.shape.push_back(static_cast<std::int64_t>(extent));
  }
  std::size_t expected_bytes = 0;
  if (__builtin_mul_overflow(numel, dtype_size(tensor.dtype), &expected_bytes)) {
    complain.tensor(name, "shape {} has more bytes than memory can hold", shape_it->dump());
  }

  const auto offsets_it = entry.find("data_offsets");
  if (offsets_it == entry.end()) complain.tensor(name, "missing data_offsets");
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  if (!offsets_it->is_array() || offsets_it->size() != 2 || !as_count((*offsets_it)[0], begin) ||
      !as_count((*offsets_it)[1], end)) {
    complain.tensor(name, "data_offsets must be [begin, end] with non-negative integers, got {}",
                    offsets_it->dump());
  }
  if (begin > end) complain.tensor(name, "data_offsets [{}, {}] are reversed (begin > end)", begin, end);
  if (end > data_size) {
    complain.tensor(name, "data_offsets [{}, {}] end past the data ({} bytes)", begin, end, data_size);
  }
  tensor.begin = static_cast<std::size_t>(begin);
  tensor.end = static_cast<std::size_t>(end);
  if (tensor.byte_size() != expected_bytes) {
    complain.tensor(name, "data_offsets [{}, {}] hold {} bytes but {} {} needs {}", begin, end,
                    tensor.byte_size(), dtype, format_shape(tensor.shape), expected_bytes);
  }
  return tensor;
}

// REQUIRES: `tensors` sorted by (begin, end).
void check_layout(const std::vector<TensorInfo>& tensors, std::size_t data_size, const Complainer& complain) {
  std::size_t covered = 0;           // bytes [0, covered) belong to tensors seen so far
  const TensorInfo* last = nullptr;  // the tensor that ends at `covered`
  for (const TensorInfo& tensor : tensors) {
    if (tensor.byte_size() == 0) continue;  // owns no bytes, overlaps nothing
    if (tensor.begin < covered) {
      complain.tensor(tensor.name, "data_offsets [{}, {}] overlap tensor '{}' [{}, {}]", tensor.begin,
                      tensor.end, last->name, last->begin, last->end);
    }
    if (tensor.begin > covered) {
      complain.file("data bytes [{}, {}) belong to no tensor (before tensor '{}')", covered, tensor.begin,
                    tensor.name);
    }
    covered = tensor.end;
    last = &tensor;
  }
  if (covered != data_size) {
    complain.file("data bytes [{}, {}) at the end belong to no tensor (trailing data or a damaged header)",
                  covered, data_size);
  }
}

}  // namespace

std::size_t TensorInfo::numel() const {
  std::size_t n = 1;
  for (const std::int64_t extent : shape) n *= static_cast<std::size_t>(extent);
  return n;
}

std::string format_shape(std::span<const std::int64_t> shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

SafetensorsReader::SafetensorsReader(const std::filesystem::path& path) : file_(path) {
  const Complainer complain(path);
  const std::span<const std::byte> bytes = file_.bytes();
  if (bytes.size() < kLengthBytes) {
    complain.file("file is {} bytes, too short for a safetensors file (an 8-byte header length comes first)",
                  bytes.size());
  }
  std::uint64_t header_bytes = 0;
  std::memcpy(&header_bytes, bytes.data(), kLengthBytes);  // little-endian host (safetensors_dtype.hpp)
  const std::size_t available = bytes.size() - kLengthBytes;
  if (header_bytes > available) {
    complain.file(
        "header length {} is past the end of the file ({} bytes follow the length); not a safetensors "
        "file, or a truncated one",
        header_bytes, available);
  }
  if (header_bytes > kMaxHeaderBytes) {
    complain.file("header length {} exceeds the format's limit of {} bytes", header_bytes, kMaxHeaderBytes);
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + kLengthBytes), header_bytes);
  data_ = bytes.subspan(kLengthBytes + header_bytes);

  const Json header = parse_header(text, complain);
  for (const auto& [name, entry] : header.items()) {
    if (name == kMetadataKey) {
      metadata_ = parse_metadata(entry, complain);
    } else {
      tensors_.push_back(parse_tensor(name, entry, data_.size(), complain));
    }
  }
  std::stable_sort(tensors_.begin(), tensors_.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  check_layout(tensors_, data_.size(), complain);
  for (std::size_t i = 0; i < tensors_.size(); ++i) index_.emplace(tensors_[i].name, i);
}

bool SafetensorsReader::contains(std::string_view name) const { return find(name) != nullptr; }

const TensorInfo* SafetensorsReader::find(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& SafetensorsReader::info(std::string_view name) const {
  const TensorInfo* tensor = find(name);
  if (tensor == nullptr) {
    fail_input("{}: no tensor named '{}' (the file holds {} tensors)", path().string(), name,
               tensors_.size());
  }
  return *tensor;
}

std::span<const std::byte> SafetensorsReader::raw(std::string_view name) const {
  const TensorInfo& tensor = info(name);
  return data_.subspan(tensor.begin, tensor.byte_size());
}

void SafetensorsReader::load(std::string_view name, std::span<float> out) const {
  const TensorInfo& tensor = info(name);
  if (!is_loadable_as_f32(tensor.dtype)) {
    fail_input("{}: tensor '{}': dtype {} cannot be loaded as float32 (shmtrain loads F32, F16, BF16, F64)",
               path().string(), name, dtype_name(tensor.dtype));
  }
  if (out.size() != tensor.numel()) {
    fail_input("{}: tensor '{}': holds {} values (shape {}) but the destination has room for {}",
               path().string(), name, tensor.numel(), format_shape(tensor.shape), out.size());
  }
  convert_to_f32(tensor.dtype, data_.data() + tensor.begin, out);
}

std::vector<float> SafetensorsReader::load(std::string_view name) const {
  std::vector<float> values(info(name).numel());
  load(name, values);
  return values;
}

std::span<const float> SafetensorsReader::view_f32(std::string_view name) const {
  const TensorInfo& tensor = info(name);
  if (tensor.dtype != Dtype::kF32) {
    fail_input("{}: tensor '{}': is {}, not F32; load() converts it", path().string(), name,
               dtype_name(tensor.dtype));
  }
  if (tensor.numel() == 0) return {};
  const std::byte* start = data_.data() + tensor.begin;
  if (reinterpret_cast<std::uintptr_t>(start) % alignof(float) != 0) {
    fail_input(
        "{}: tensor '{}': data is not 4-byte aligned in the file, so it cannot be viewed; load() copies it",
        path().string(), name);
  }
  return {reinterpret_cast<const float*>(start), tensor.numel()};
}

}  // namespace shmtrain::io
