#pragma once
// NumPy's .npy format (version 1.0): a little-endian float32 matrix, C order, written
// atomically (numpy.load reads it as an array of shape (rows, cols)).
#include <cstdint>
#include <filesystem>
#include <span>

namespace shmtrain::io {

// REQUIRES: values.size() == rows * cols.
void write_npy_f32(const std::filesystem::path& path, std::span<const float> values, std::int64_t rows,
                   std::int64_t cols);

}  // namespace shmtrain::io
