#include <sys/stat.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/safetensors_bytes.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::io {
namespace {

using shmtrain::testing::folder_entries;

using shmtrain::testing::first_bit_mismatches;
using shmtrain::testing::TempDir;

std::uint64_t header_length(const std::string& file) {
  std::uint64_t n = 0;
  std::memcpy(&n, file.data(), 8);
  return n;
}

TEST(SafetensorsWriter, RoundTripIsBitExact) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> matrix = {
      1.5f, -0.0f, inf, -inf, std::bit_cast<float>(0x7fc01234u), std::numeric_limits<float>::denorm_min()};
  const std::vector<float> scalar = {42.25f};
  const std::vector<float> vector = {0.1f, 0.2f, 0.3f};
  const std::vector<TensorToWrite> tensors = {
      {"z.matrix", {2, 3}, matrix},
      {"a.scalar", {}, scalar},
      {"m.empty", {0, 3}, {}},
      {"b.vector", {3}, vector},
  };
  TempDir dir;
  write_safetensors(dir / "model.safetensors", tensors);

  const SafetensorsReader reader(dir / "model.safetensors");
  ASSERT_EQ(reader.tensors().size(), 4u);
  std::vector<std::string> names;
  for (const TensorInfo& info : reader.tensors()) names.push_back(info.name);
  // Sorted by name, like the Python library; the empty tensor sits where its name puts it.
  EXPECT_EQ(names, (std::vector<std::string>{"a.scalar", "b.vector", "m.empty", "z.matrix"}));
  EXPECT_EQ(reader.metadata(), kPytorchMetadata);
  for (const TensorToWrite& tensor : tensors) {
    SCOPED_TRACE(tensor.name);
    const TensorInfo& info = reader.info(tensor.name);
    EXPECT_EQ(info.dtype, Dtype::kF32);
    EXPECT_EQ(info.shape, tensor.shape);
    const std::vector<float> expected(tensor.values.begin(), tensor.values.end());
    EXPECT_EQ(first_bit_mismatches(reader.load(tensor.name), expected), "");
    const std::span<const float> view = reader.view_f32(tensor.name);
    EXPECT_EQ(first_bit_mismatches(std::vector<float>(view.begin(), view.end()), expected), "");
  }
  EXPECT_EQ(reader.info("a.scalar").numel(), 1u);
  EXPECT_EQ(reader.info("m.empty").numel(), 0u);
}

TEST(SafetensorsWriter, HeaderIsAlignedSortedAndEndsWithMetadata) {
  const std::vector<float> values = {1, 2, 3};
  const std::vector<TensorToWrite> tensors = {{"b", {3}, values}, {"a", {1, 3}, values}};
  TempDir dir;
  write_safetensors(dir / "x.safetensors", tensors);
  const std::string file = shmtrain::testing::read_file(dir / "x.safetensors");
  const std::uint64_t n = header_length(file);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(file.size(), 8 + n + 24);
  const std::string header = file.substr(8, n);
  EXPECT_EQ(header.substr(0, header.find_last_not_of(' ') + 1),
            R"({"a":{"dtype":"F32","shape":[1,3],"data_offsets":[0,12]},)"
            R"("b":{"dtype":"F32","shape":[3],"data_offsets":[12,24]},"__metadata__":{"format":"pt"}})");
}

TEST(SafetensorsWriter, NoMetadataWhenEmpty) {
  const std::vector<float> values = {1};
  TempDir dir;
  write_safetensors(dir / "x.safetensors", std::vector<TensorToWrite>{{"w", {1}, values}}, {});
  const SafetensorsReader reader(dir / "x.safetensors");
  EXPECT_TRUE(reader.metadata().empty());
  EXPECT_EQ(shmtrain::testing::read_file(dir / "x.safetensors").find("__metadata__"), std::string::npos);
}

TEST(SafetensorsWriter, ZeroTensorsIsAValidFile) {
  TempDir dir;
  write_safetensors(dir / "x.safetensors", std::vector<TensorToWrite>{});
  const SafetensorsReader reader(dir / "x.safetensors");
  EXPECT_TRUE(reader.tensors().empty());
}

// The committed fixture was written by the Python safetensors library; writing its tensors
// again must give the same bytes, header included.
TEST(SafetensorsWriter, ReproducesThePythonLibraryByteForByte) {
  const auto source = shmtrain::testing::fixtures_dir() / "reference_tiny" / "model.safetensors";
  const SafetensorsReader reader(source);
  std::vector<std::vector<float>> values;
  for (const TensorInfo& info : reader.tensors()) values.push_back(reader.load(info.name));
  std::vector<TensorToWrite> tensors;
  for (std::size_t i = reader.tensors().size(); i-- > 0;) {  // reversed: the writer must sort
    tensors.push_back({reader.tensors()[i].name, reader.tensors()[i].shape, values[i]});
  }
  TempDir dir;
  write_safetensors(dir / "copy.safetensors", tensors);
  const std::string original = shmtrain::testing::read_file(source);
  const std::string copy = shmtrain::testing::read_file(dir / "copy.safetensors");
  ASSERT_EQ(copy.size(), original.size());
  const auto diff = std::mismatch(copy.begin(), copy.end(), original.begin());
  EXPECT_TRUE(diff.first == copy.end()) << "first difference at byte " << (diff.first - copy.begin());
}

TEST(SafetensorsWriter, Bf16TensorsAreRoundedAndPlacedAfterF32) {
  const std::vector<float> wide = {1.0f, 2.0f};
  const float ulp = std::ldexp(1.0f, -7);
  const std::vector<float> narrow = {1.0f + ulp / 2, 1.0f + 3 * ulp / 2, -3.14159265f};
  const std::vector<TensorToWrite> tensors = {{"a.bf16", {3}, narrow, Dtype::kBF16}, {"b.f32", {2}, wide}};
  TempDir dir;
  write_safetensors(dir / "x.safetensors", tensors);
  const SafetensorsReader reader(dir / "x.safetensors");
  EXPECT_EQ(reader.tensors()[0].name, "b.f32");
  EXPECT_EQ(reader.info("a.bf16").dtype, Dtype::kBF16);
  EXPECT_EQ(reader.info("a.bf16").byte_size(), 6u);
  EXPECT_EQ(reader.load("a.bf16"), (std::vector<float>{1.0f, 1.0f + 2 * ulp, -3.140625f}));
  EXPECT_EQ(reader.load("b.f32"), wide);
}

TEST(SafetensorsWriter, RefusesBadRequestsBeforeCreatingAnything) {
  const std::vector<float> three = {1, 2, 3};
  TempDir dir;
  const auto path = dir / "x.safetensors";
  auto expect_refused = [&](const std::vector<TensorToWrite>& tensors, const std::string& fragment) {
    try {
      write_safetensors(path, tensors);
      ADD_FAILURE() << "accepted; expected: " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    EXPECT_TRUE(folder_entries(dir.path()).empty());
  };
  expect_refused({{"w", {2, 2}, three}}, "tensor 'w': shape [2, 2] needs 4 values, got 3");
  expect_refused({{"w", {3}, three}, {"w", {3}, three}}, "tensor 'w' given twice");
  expect_refused({{"w", {-3}, three}}, "tensor 'w': shape [-3] has a negative entry");
  expect_refused({{"__metadata__", {3}, three}}, "'__metadata__' is not a valid tensor name");
  expect_refused({{"", {3}, three}}, "'' is not a valid tensor name");
  expect_refused({{"w", {3}, three, Dtype::kF16}}, "dtype F16 is not written");
}

TEST(SafetensorsWriter, ReplacesAnExistingFile) {
  const std::vector<float> one = {1};
  const std::vector<float> two = {2, 2};
  TempDir dir;
  write_safetensors(dir / "x.safetensors", std::vector<TensorToWrite>{{"w", {1}, one}});
  write_safetensors(dir / "x.safetensors", std::vector<TensorToWrite>{{"w", {2}, two}});
  EXPECT_EQ(SafetensorsReader(dir / "x.safetensors").load("w"), two);
  EXPECT_EQ(folder_entries(dir.path()), std::vector<std::string>{"x.safetensors"});
}

TEST(SafetensorsWriter, FailureLeavesNoFileBehind) {
  const std::vector<float> one = {1};
  const std::vector<TensorToWrite> tensors = {{"w", {1}, one}};
  TempDir dir;
  // rename() cannot replace a non-empty folder: the write fails after the data is written.
  std::filesystem::create_directories(dir / "taken.safetensors" / "inside");
  EXPECT_THROW(write_safetensors(dir / "taken.safetensors", tensors), SystemError);
  EXPECT_EQ(folder_entries(dir.path()), std::vector<std::string>{"taken.safetensors"});
  EXPECT_THROW(write_safetensors(dir / "missing" / "x.safetensors", tensors), SystemError);
}

}  // namespace
}  // namespace shmtrain::io
