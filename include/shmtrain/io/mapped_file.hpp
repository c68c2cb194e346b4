#pragma once
// A whole file mapped read-only into memory. Readers of large checkpoints use it so that a
// tensor is read straight from the page cache, with no copy into a buffer of our own.
#include <cstddef>
#include <filesystem>
#include <span>

namespace shmtrain::io {

class MappedFile {
 public:
  // Opens and maps `path`. Throws InputError when the file does not exist or is not a regular
  // file (the message names the path), SystemError when a system call fails otherwise.
  // An empty file is valid and gives an empty bytes().
  explicit MappedFile(std::filesystem::path path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Valid while this object lives. The contents are those of the file at open time only if
  // nobody writes it meanwhile; shmtrain replaces files by rename, never in place, so its
  // own writers never change a mapped file. (Truncating a mapped file raises SIGBUS.)
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  std::size_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  void unmap() noexcept;

  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace shmtrain::io
