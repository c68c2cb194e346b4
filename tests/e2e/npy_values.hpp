#pragma once
// The float32 values of a .npy that `shmtrain encode` wrote (its header skipped), for the tests
// that compare embeddings.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace shmtrain::testing {

inline std::vector<float> npy_values(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  const std::size_t end = bytes.find('\n');
  std::vector<float> values((bytes.size() - end - 1) / sizeof(float));
  std::memcpy(values.data(), bytes.data() + end + 1, values.size() * sizeof(float));
  return values;
}

}  // namespace shmtrain::testing
