#include "shmtrain/io/safetensors.hpp"

#include <algorithm>
#include <array>
#include <set>

#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::io {

namespace {

constexpr std::size_t kHeaderAlignment = 8;  // keeps the data buffer 8-byte aligned in the file

std::size_t checked_numel(const std::filesystem::path& path, const TensorToWrite& tensor) {
  std::size_t n = 1;
  for (const std::int64_t extent : tensor.shape) {
    if (extent < 0) {
      throw Error(fmt::format("write {}: tensor '{}': shape {} has a negative entry", path.string(),
                              tensor.name, format_shape(tensor.shape)));
    }
    n *= static_cast<std::size_t>(extent);
  }
  return n;
}

void check_request(const std::filesystem::path& path, std::span<const TensorToWrite> tensors) {
  std::set<std::string_view> names;
  for (const TensorToWrite& tensor : tensors) {
    if (tensor.name.empty() || tensor.name == "__metadata__") {
      throw Error(fmt::format("write {}: '{}' is not a valid tensor name", path.string(), tensor.name));
    }
    if (!names.insert(tensor.name).second) {
      throw Error(fmt::format("write {}: tensor '{}' given twice", path.string(), tensor.name));
    }
    if (tensor.dtype != Dtype::kF32 && tensor.dtype != Dtype::kBF16) {
      throw Error(fmt::format("write {}: tensor '{}': dtype {} is not written (F32 or BF16)", path.string(),
                              tensor.name, dtype_name(tensor.dtype)));
    }
    const std::size_t numel = checked_numel(path, tensor);
    if (tensor.values.size() != numel) {
      throw Error(fmt::format("write {}: tensor '{}': shape {} needs {} values, got {}", path.string(),
                              tensor.name, format_shape(tensor.shape), numel, tensor.values.size()));
    }
  }
}

// The header for tensors in `order`, padded with spaces to a multiple of 8 bytes (the format
// allows trailing whitespace; the Python library pads the same way).
std::string make_header(const std::vector<const TensorToWrite*>& order,
                        const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  std::size_t offset = 0;
  for (const TensorToWrite* tensor : order) {
    const std::size_t bytes = tensor->values.size() * dtype_size(tensor->dtype);
    header[tensor->name] = {{"dtype", dtype_name(tensor->dtype)},
                            {"shape", tensor->shape},
                            {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string text = header.dump();
  text.append((kHeaderAlignment - text.size() % kHeaderAlignment) % kHeaderAlignment, ' ');
  return text;
}

void write_values(AtomicFile& file, const TensorToWrite& tensor) {
  if (tensor.dtype == Dtype::kF32) {
    file.write(std::as_bytes(tensor.values));
    return;
  }
  // BF16: convert through a small buffer so memory use does not grow with the tensor.
  std::array<std::uint16_t, 4096> chunk;
  for (std::size_t start = 0; start < tensor.values.size(); start += chunk.size()) {
    const std::size_t n = std::min(chunk.size(), tensor.values.size() - start);
    for (std::size_t i = 0; i < n; ++i) chunk[i] = f32_to_bf16(tensor.values[start + i]);
    file.write(std::as_bytes(std::span(chunk.data(), n)));
  }
}

}  // namespace

void write_safetensors(const std::filesystem::path& path, std::span<const TensorToWrite> tensors,
                       const std::map<std::string, std::string>& metadata) {
  check_request(path, tensors);
  std::vector<const TensorToWrite*> order;
  for (const TensorToWrite& tensor : tensors) order.push_back(&tensor);
  std::sort(order.begin(), order.end(), [](const TensorToWrite* a, const TensorToWrite* b) {
    const std::size_t size_a = dtype_size(a->dtype);
    const std::size_t size_b = dtype_size(b->dtype);
    return size_a != size_b ? size_a > size_b : a->name < b->name;
  });
  const std::string header = make_header(order, metadata);
  const std::uint64_t header_bytes = header.size();  // little-endian: the host is (safetensors_dtype.hpp)

  AtomicFile file(path);
  file.write(std::as_bytes(std::span(&header_bytes, 1)));
  file.write(header);
  for (const TensorToWrite* tensor : order) write_values(file, *tensor);
  file.commit();
}

}  // namespace shmtrain::io
