#include "shmtrain/io/torch_checkpoint.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "stored_zip.hpp"
#include "torch_pickle.hpp"

namespace shmtrain::io {
namespace fs = std::filesystem;
namespace {

using pickle::Ref;
using pickle::Value;

}  // namespace

std::vector<TorchTensor> read_torch_archive(std::span<const std::byte> bytes, const std::string& where) {
  // The format before PyTorch 1.6: a pickled magic number, not a zip.
  if (bytes.size() >= 2 && bytes[0] == std::byte{0x80} && bytes[1] == std::byte{0x02}) {
    fail_input("{}: a legacy torch.save file (PyTorch before 1.6, not a zip archive) is not read: load it with "
               "torch.load and save it again with torch.save from PyTorch 1.6 or later, or with save_pretrained "
               "(safetensors)",
               where);
  }
  const auto members = stored_zip_members(bytes, where);
  std::string prefix;
  for (const auto& [name, data] : members) {
    const std::string_view view(name);
    if (view.size() > 9 && view.ends_with("/data.pkl")) {
      if (!prefix.empty()) fail_input("{}: two data.pkl records", where);
      prefix = std::string(view.data(), view.size() - 8);  // "archive/"
    }
  }
  if (prefix.empty()) fail_input("{}: no <archive>/data.pkl: not a torch.save zip archive", where);
  const auto member_name = [&](std::string_view name) { return fmt::format("{}{}", prefix, name); };
  if (const auto order = members.find(member_name("byteorder")); order != members.end()) {
    const std::string_view text(reinterpret_cast<const char*>(order->second.data()), order->second.size());
    if (text != "little") fail_input("{}: byteorder '{}': only little-endian checkpoints are read", where, text);
  }
  const Ref root = pickle::unpickle_state_dict(members.at(member_name("data.pkl")), where);
  if (root->kind != Value::Kind::kDict) {
    fail_input("{}: data.pkl holds no dict of tensors (a state dict is read; a whole pickled model is not)", where);
  }
  std::vector<TorchTensor> out;
  for (const auto& [key, value] : root->entries) {
    if (key->kind != Value::Kind::kString || value->kind != Value::Kind::kTensor) continue;
    TorchTensor t;
    t.name = key->text;
    t.dtype = value->dtype;
    t.shape = value->shape;
    t.stride = value->stride;
    t.storage_offset = value->offset;
    const Value& storage = *value->storage;
    const auto member = members.find(member_name("data/" + storage.text));
    if (member == members.end()) fail_input("{}: tensor '{}': its storage data/{} is missing", where, t.name, storage.text);
    const std::size_t element = dtype_size(t.dtype);
    if (static_cast<std::uint64_t>(storage.integer) > member->second.size() / element) {
      fail_input("{}: tensor '{}': its storage data/{} holds {} bytes, not {} elements", where, t.name, storage.text,
                 member->second.size(), storage.integer);
    }
    // The view's last element must lie in the storage.
    std::uint64_t last = static_cast<std::uint64_t>(t.storage_offset);
    bool empty = false;
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] == 0) empty = true;
      if (t.shape[d] > 0 && static_cast<std::uint64_t>(t.stride[d]) > (std::uint64_t{1} << 62) / static_cast<std::uint64_t>(t.shape[d])) {
        fail_input("{}: tensor '{}': a stride too large", where, t.name);
      }
      if (t.shape[d] > 0) last += static_cast<std::uint64_t>(t.shape[d] - 1) * static_cast<std::uint64_t>(t.stride[d]);
    }
    if (!empty && last >= static_cast<std::uint64_t>(storage.integer)) {
      fail_input("{}: tensor '{}': its view (offset {}, shape {}, strides {}) reaches past the {} elements of its storage",
                 where, t.name, t.storage_offset, fmt::join(t.shape, "x"), fmt::join(t.stride, ","), storage.integer);
    }
    t.storage = member->second.first(static_cast<std::size_t>(storage.integer) * element);
    out.push_back(std::move(t));
  }
  return out;
}

TorchCheckpointReader::TorchCheckpointReader(const fs::path& path) : path_(path) {
  if (path.filename().string().ends_with(".index.json")) {
    std::ifstream in(path);
    const nlohmann::json index = nlohmann::json::parse(in, nullptr, false);
    const auto map = index.is_object() ? index.find("weight_map") : index.end();
    if (!index.is_object() || map == index.end() || !map->is_object()) {
      fail_input("{}: not a checkpoint index (no weight_map object)", path.string());
    }
    std::vector<std::string> shards;
    for (const auto& [name, file] : map->items()) {
      if (!file.is_string()) fail_input("{}: weight_map['{}'] is not a file name", path.string(), name);
      const std::string shard = file.get<std::string>();
      if (shard.find('/') != std::string::npos || shard.starts_with(".")) {
        fail_input("{}: weight_map['{}'] names '{}', not a file beside the index", path.string(), name, shard);
      }
      if (std::find(shards.begin(), shards.end(), shard) == shards.end()) shards.push_back(shard);
    }
    for (const std::string& shard : shards) read_archive(path.parent_path() / shard);
  } else {
    read_archive(path);
  }
  for (std::size_t i = 0; i < tensors_.size(); ++i) {
    if (!index_.emplace(tensors_[i].name, i).second) {
      fail_input("{}: tensor '{}' is in two shards", path.string(), tensors_[i].name);
    }
  }
}

void TorchCheckpointReader::read_archive(const fs::path& file) {
  files_.push_back(std::make_unique<MappedFile>(file));
  std::vector<TorchTensor> tensors = read_torch_archive(files_.back()->bytes(), file.string());
  for (TorchTensor& t : tensors) {
    t.file = files_.size() - 1;
    tensors_.push_back(std::move(t));
  }
}

const TorchTensor* TorchCheckpointReader::find(std::string_view name) const {
  const auto found = index_.find(std::string(name));
  return found == index_.end() ? nullptr : &tensors_[found->second];
}

void TorchCheckpointReader::load(std::string_view name, std::span<float> out) const {
  const TorchTensor* t = find(name);
  if (t == nullptr) fail_input("{}: no tensor '{}'", path_.string(), name);
  if (!is_loadable_as_f32(t->dtype)) {
    fail_input("{}: tensor '{}' is {}, not a floating type", path_.string(), name, dtype_name(t->dtype));
  }
  std::size_t count = 1;
  for (const std::int64_t s : t->shape) count *= static_cast<std::size_t>(s);
  if (out.size() != count) fail_input("{}: tensor '{}' has {} elements, not {}", path_.string(), name, count, out.size());
  if (count == 0) return;
  const std::size_t element = dtype_size(t->dtype);
  // Contiguous (row-major strides): one conversion of the whole run.
  bool contiguous = true;
  std::int64_t expected = 1;
  for (std::size_t d = t->shape.size(); d-- > 0;) {
    if (t->shape[d] != 1 && t->stride[d] != expected) contiguous = false;
    expected *= t->shape[d];
  }
  if (contiguous) {
    convert_to_f32(t->dtype, t->storage.data() + static_cast<std::size_t>(t->storage_offset) * element, out);
    return;
  }
  // A strided view: element by element in row-major order.
  std::vector<std::int64_t> index(t->shape.size(), 0);
  for (std::size_t i = 0; i < count; ++i) {
    std::int64_t at = t->storage_offset;
    for (std::size_t d = 0; d < index.size(); ++d) at += index[d] * t->stride[d];
    convert_to_f32(t->dtype, t->storage.data() + static_cast<std::size_t>(at) * element, out.subspan(i, 1));
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < t->shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace shmtrain::io
