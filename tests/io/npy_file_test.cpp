// The .npy reader: what write_npy_f32 (and numpy.save) writes reads back; anything else is an
// InputError naming the file and the problem, never a read past the data.
#include "shmtrain/io/npy_file.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::io {
namespace {

using shmtrain::testing::error_of;
using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;

// A version-1.0 file with `header` as its dict and `data` after it.
std::string npy(const std::string& header, const std::string& data) {
  std::string h = header;
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(h.size() & 0xff));
  out.push_back(static_cast<char>(h.size() >> 8));
  return out + h + data;
}

TEST(NpyFile, ReadsBackWhatItWrites) {
  const TempDir dir;
  const std::vector<float> values = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1e-3f};
  write_npy_f32(dir / "m.npy", values, 2, 3);
  const NpyMatrix m = read_npy_f32(dir / "m.npy");
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.values, values);
}

TEST(NpyFile, RefusesWhatItCannotRead) {
  const TempDir dir;
  const std::string eight(8, '\0');
  const auto error = [&](const std::string& bytes) {
    write_file(dir / "x.npy", bytes);
    return error_of([&] { read_npy_f32(dir / "x.npy"); });
  };
  EXPECT_NE(error("hello").find("not a .npy file"), std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", eight)).find("'<f8'"),
            std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }", eight)).find("Fortran"),
            std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", eight)).find("not a matrix"),
            std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", eight)).find("is 4 bytes of data; the file has 8"),
            std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999, 99999999999), }", eight))
                .find("needs more data"),
            std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f4', 'shape': (1, 2), }", eight)).find("no 'fortran_order'"), std::string::npos);
  EXPECT_NE(error(npy("{'descr': '<f4", eight)).find("unterminated"), std::string::npos);
  std::string truncated = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", eight);
  truncated.resize(40);
  EXPECT_NE(error(truncated).find("ends inside its header"), std::string::npos);
}

}  // namespace
}  // namespace shmtrain::io
