#pragma once
// Reading PyTorch checkpoints (pytorch_model.bin, and the shards a pytorch_model.bin.index.json
// names) without Python: torch.save's zip format (PyTorch 1.6+), whose data.pkl is read by a
// restricted unpickler that knows only what torch.save(state_dict) writes: the opcodes of
// pickle protocols 2-4 that build values (dicts, lists, tuples, strings, numbers, memo), the
// globals collections.OrderedDict, torch._utils._rebuild_tensor_v2 / _rebuild_parameter and
// the typed storage classes (torch.FloatStorage, HalfStorage, BFloat16Storage, ...), and
// persistent ids ('storage', <storage class>, key, location, numel) naming the member
// data/<key>. Any other global or opcode is refused naming it: nothing is ever called (a
// pickle can run code; this reader never does). Tensors are views into their storage (offset,
// strides), so tied weights share their bytes as in the file; fp32, fp16, bf16 and fp64 load
// as float32 (the integer types are read and listed, as the position_ids buffer of older BERT
// checkpoints). The legacy pre-1.6 format is refused naming it.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "shmtrain/io/mapped_file.hpp"
#include "shmtrain/io/safetensors_dtype.hpp"

namespace shmtrain::io {

struct TorchTensor {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> stride;  // in elements
  std::int64_t storage_offset = 0;   // in elements
  std::size_t file = 0;              // which of the reader's files
  std::span<const std::byte> storage;  // the storage's bytes in that file's mapping
};

class TorchCheckpointReader {
 public:
  // A pytorch_model.bin, or a pytorch_model.bin.index.json (its weight_map's shards, in the
  // index's folder). InputError naming the file and the problem for anything it cannot read.
  explicit TorchCheckpointReader(const std::filesystem::path& path);

  const std::vector<TorchTensor>& tensors() const { return tensors_; }
  // nullptr when absent.
  const TorchTensor* find(std::string_view name) const;
  // Copies the tensor (its view: offset and strides) into `out` as float32. InputError when
  // absent, not a floating type, or out.size() is not its element count.
  void load(std::string_view name, std::span<float> out) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  void read_archive(const std::filesystem::path& file);

  std::filesystem::path path_;
  std::vector<std::unique_ptr<MappedFile>> files_;
  std::vector<TorchTensor> tensors_;
  std::unordered_map<std::string, std::size_t> index_;
};

// The tensors of one torch.save zip archive held in `bytes` (the parsing the reader does, for
// the fuzzer): name -> tensor, storages as views into `bytes`.
std::vector<TorchTensor> read_torch_archive(std::span<const std::byte> bytes, const std::string& where);

}  // namespace shmtrain::io
