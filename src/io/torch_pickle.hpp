#pragma once
// Internal to io: the restricted unpickler of torch_checkpoint (its header says what it reads):
// the values a torch.save(state_dict) pickle builds, nothing ever called.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "shmtrain/io/safetensors_dtype.hpp"

namespace shmtrain::io::pickle {

// A value the restricted unpickler builds. Containers are shared (the memo and the stack may
// hold the same dict), so values live behind shared pointers.
struct Value;
using Ref = std::shared_ptr<Value>;
struct Value {
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kTuple, kList, kDict, kGlobal, kStorage, kTensor };
  Kind kind = Kind::kNone;
  std::int64_t integer = 0;  // kInt, kBool; kStorage: its element count
  double number = 0;
  std::string text;  // kString; kGlobal: "module.name"; kStorage: its key
  std::vector<Ref> items;  // kTuple, kList
  std::vector<std::pair<Ref, Ref>> entries;  // kDict, in insertion order
  Dtype dtype = Dtype::kF32;  // kStorage, kTensor
  Ref storage;  // kTensor
  std::int64_t offset = 0;
  std::vector<std::int64_t> shape, stride;
};

// The value data.pkl's bytes build. InputError "<where>: data.pkl, byte N: ..." naming any
// global or opcode a state dict never holds, a malformed structure or a truncated pickle.
Ref unpickle_state_dict(std::span<const std::byte> bytes, const std::string& where);

}  // namespace shmtrain::io::pickle
