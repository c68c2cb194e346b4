#pragma once
// Shared by the libFuzzer harnesses: the readers take paths, so each input is written to a
// file in a folder of this process's own, removed at exit. Errors the readers are meant to
// raise (shmtrain::Error: InputError, SystemError) are the expected outcome of a bad input;
// anything else escaping, a crash, a sanitizer report or a hang is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace shmtrain::fuzz {

inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto path = std::filesystem::temp_directory_path() / ("shmtrain-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(path);
    static struct Remover {
      std::filesystem::path path;
      ~Remover() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
      }
    } remover{path};
    return path;
  }();
  return dir;
}

// Writes the input to scratch_dir()/name and returns its path.
inline std::filesystem::path write_input(const std::string& name, std::string_view bytes) {
  const std::filesystem::path path = scratch_dir() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace shmtrain::fuzz
