#pragma once
// Reading and writing safetensors files, the checkpoint format of Hugging Face models.
// Format (https://github.com/huggingface/safetensors): 8 bytes little-endian u64 N, then N
// bytes of UTF-8 JSON {"name": {"dtype": "F32", "shape": [..], "data_offsets": [b, e]}, ...,
// "__metadata__": {"k": "v"}}, then the data buffer; offsets are relative to the buffer.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "shmtrain/io/mapped_file.hpp"
#include "shmtrain/io/safetensors_dtype.hpp"

namespace shmtrain::io {

struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<std::int64_t> shape;  // [] is a scalar (one element)
  std::size_t begin = 0;            // byte range [begin, end) in the data buffer
  std::size_t end = 0;

  std::size_t numel() const;
  std::size_t byte_size() const { return end - begin; }
};

// "[2, 64]" for messages.
std::string format_shape(std::span<const std::int64_t> shape);

// An open, fully validated safetensors file. Construction checks everything the format
// requires, so every later call can trust the header:
//   - the file holds the 8-byte length and a header of that length (at most 100 MB, the
//     limit of the reference implementation);
//   - the header is one UTF-8 JSON object with no duplicate names; "__metadata__", when
//     present, maps strings to strings;
//   - every tensor has a known dtype, a shape of non-negative integers, and data_offsets
//     [begin, end] with begin <= end <= data size and end - begin == numel * dtype size;
//   - no two tensors' bytes overlap, and together they cover the data buffer exactly.
//     A gap or trailing bytes are rejected too: the Python library refuses such files
//     (MetadataIncompleteBuffer), and they mean a damaged or hand-edited header.
// Any violation throws InputError "<path>: tensor '<name>': <problem>".
class SafetensorsReader {
 public:
  explicit SafetensorsReader(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return file_.path(); }
  // In the order of their bytes in the file (which is the writer's order).
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  bool contains(std::string_view name) const;
  // nullptr when absent.
  const TensorInfo* find(std::string_view name) const;
  // Throws InputError naming the file and the tensor when absent.
  const TensorInfo& info(std::string_view name) const;

  // Copies the tensor into `out`, converting F16/BF16/F64 to float32 (exactly for F16/BF16).
  // Throws InputError when the name is absent, the dtype cannot be loaded as float (I64, ...)
  // or out.size() != numel.
  void load(std::string_view name, std::span<float> out) const;
  std::vector<float> load(std::string_view name) const;

  // The tensor's bytes in the mapping, no copy; valid while this reader lives.
  std::span<const std::byte> raw(std::string_view name) const;
  // A zero-copy float view. Throws InputError unless the dtype is F32 and the data is 4-byte
  // aligned in the file (files written by safetensors and by shmtrain always are); use
  // load() for the general case.
  std::span<const float> view_f32(std::string_view name) const;

 private:
  MappedFile file_;
  std::span<const std::byte> data_;  // the data buffer, after the header
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, std::size_t> index_;  // name -> position in tensors_
  std::map<std::string, std::string> metadata_;
};

// One tensor to write: float32 values, stored as `dtype` (F32, or BF16 rounded to nearest even).
struct TensorToWrite {
  std::string name;
  std::vector<std::int64_t> shape;
  std::span<const float> values;  // numel(shape) values, row-major
  Dtype dtype = Dtype::kF32;
};

// The metadata torch checkpoints carry; transformers checks it when loading.
inline const std::map<std::string, std::string> kPytorchMetadata = {{"format", "pt"}};

// Writes `tensors` to `path` atomically (io/atomic_file.hpp). Like the Python library, the data
// is ordered by dtype size (largest first, so every tensor stays aligned) and then by name,
// the header lists tensors in that order followed by "__metadata__" (omitted when empty),
// and it is padded with spaces to a multiple of 8 bytes.
// REQUIRES: names unique, non-empty and not "__metadata__"; shape entries >= 0;
// values.size() == numel(shape); dtype F32 or BF16. Violations throw Error naming the tensor,
// before anything is created. I/O failures throw SystemError and leave no file behind.
void write_safetensors(const std::filesystem::path& path, std::span<const TensorToWrite> tensors,
                       const std::map<std::string, std::string>& metadata = kPytorchMetadata);

}  // namespace shmtrain::io
