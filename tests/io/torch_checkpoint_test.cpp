// The pytorch_model.bin reader against files PyTorch wrote (tools/make_torch_bin_fixtures.py):
// every tensor equals its safetensors twin (fp32, fp16, bf16, fp64, a transposed view, a view at
// a storage offset, two names for one tensor), a sharded index reads as one file, and what a
// state dict never holds is refused naming it, nothing run.
#include "shmtrain/io/torch_checkpoint.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::io {
namespace {

using shmtrain::testing::error_of;
using shmtrain::testing::fixtures_dir;

std::filesystem::path dir() { return fixtures_dir() / "torch_bin"; }

void expect_twin(const TorchCheckpointReader& reader) {
  const SafetensorsReader twin(dir() / "tensors.safetensors");
  ASSERT_EQ(twin.tensors().size(), 8u);
  for (const TensorInfo& info : twin.tensors()) {
    SCOPED_TRACE(info.name);
    const TorchTensor* t = reader.find(info.name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->shape, info.shape);
    std::vector<float> got(info.numel());
    reader.load(info.name, got);
    EXPECT_EQ(got, twin.load(info.name));
  }
}

TEST(TorchCheckpoint, EveryTensorEqualsItsSafetensorsTwin) {
  const TorchCheckpointReader reader(dir() / "tensors.bin");
  expect_twin(reader);
  EXPECT_EQ(reader.find("fp16.weight")->dtype, Dtype::kF16);
  EXPECT_EQ(reader.find("bf16.weight")->dtype, Dtype::kBF16);
  EXPECT_EQ(reader.find("transposed.weight")->stride, (std::vector<std::int64_t>{1, 4}));
  EXPECT_EQ(reader.find("offset.weight")->storage_offset, 5);
  // Tied weights stay one storage, as in the file.
  EXPECT_EQ(reader.find("tied.a")->storage.data(), reader.find("tied.b")->storage.data());
  // An integer buffer is read and listed, never loaded as floats.
  const TorchTensor* ids = reader.find("embeddings.position_ids");
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(ids->dtype, Dtype::kI64);
  std::vector<float> out(8);
  EXPECT_NE(error_of([&] { reader.load("embeddings.position_ids", out); }).find("not a floating type"),
            std::string::npos);
}

TEST(TorchCheckpoint, AShardedIndexReadsAsOneFile) {
  expect_twin(TorchCheckpointReader(dir() / "sharded" / "pytorch_model.bin.index.json"));
}

TEST(TorchCheckpoint, WhatAStateDictNeverHoldsIsRefusedNamingIt) {
  const auto refused = [](const char* file) { return error_of([&] { TorchCheckpointReader reader(dir() / file); }); };
  EXPECT_NE(refused("legacy.bin").find("legacy torch.save file"), std::string::npos);
  // pickle names os.system by its module, posix.
  const std::string system = refused("reduce_os_system.bin");
  EXPECT_NE(system.find("global 'posix.system' is refused"), std::string::npos) << system;
  EXPECT_FALSE(std::filesystem::exists("/tmp/shmtrain-pwned"));
  EXPECT_NE(refused("unknown_global.bin").find("global 'datetime.datetime' is refused"), std::string::npos);
  const std::string past = refused("offset_past_end.bin");
  EXPECT_NE(past.find("tensor 'w': its view (offset 3, shape 4, strides 1) reaches past the 4 elements"),
            std::string::npos)
      << past;
  EXPECT_NE(refused("truncated.bin").find("truncated.bin"), std::string::npos);
  EXPECT_NE(refused("compressed.bin").find("is compressed (method 8)"), std::string::npos);
  EXPECT_NE(refused("tensors.safetensors").find("not a zip archive"), std::string::npos);
}

}  // namespace
}  // namespace shmtrain::io
