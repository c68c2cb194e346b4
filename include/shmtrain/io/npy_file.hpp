#pragma once
// NumPy's .npy format (version 1.0): a little-endian float32 matrix, C order, written
// atomically (numpy.load reads it as an array of shape (rows, cols)).
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace shmtrain::io {

// REQUIRES: values.size() == rows * cols.
void write_npy_f32(const std::filesystem::path& path, std::span<const float> values, std::int64_t rows,
                   std::int64_t cols);

// A 2-D float32 matrix as numpy.save writes it (versions 1.0 to 3.0; descr '<f4', C order);
// InputError naming the file and what is wrong for anything else (another dtype, Fortran
// order, a shape that is not (rows, cols), data shorter or longer than the shape).
struct NpyMatrix {
  std::vector<float> values;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};
NpyMatrix read_npy_f32(const std::filesystem::path& path);

}  // namespace shmtrain::io
