#pragma once
// Writing a file so that readers see either the old file or the complete new one, never a
// partial one, even across a crash or power loss: write a temporary file in the same folder,
// fsync it, rename it over the target, fsync the folder (the usual POSIX recipe; see
// rename(2) and fsync(2)). Every writer in io goes through this.
#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>

namespace shmtrain::io {

class AtomicFile {
 public:
  // Creates a hidden temporary file ".<name>.tmp-<random>" beside `path`, mode 0666 less
  // the umask (like any newly created file). REQUIRES: the folder of `path` exists.
  // Throws SystemError naming the path when it cannot be created.
  explicit AtomicFile(std::filesystem::path path);
  // Without commit(), removes the temporary file: a failed writer leaves nothing behind.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends bytes. Throws SystemError (e.g. ENOSPC) naming the target path.
  void write(std::span<const std::byte> bytes);
  void write(std::string_view text);
  std::size_t bytes_written() const { return written_; }

  // fsync, close, rename over the target, fsync the folder. After a throw the temporary file
  // is removed (by the destructor) and the target is untouched, unless only the final
  // folder fsync failed: then the new file is in place but may not survive a crash.
  // REQUIRES: not yet committed.
  void commit();

  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& temp_path() const { return temp_path_; }

 private:
  std::filesystem::path path_;
  std::filesystem::path temp_path_;
  int fd_ = -1;
  std::size_t written_ = 0;
  bool committed_ = false;
};

// fsync(2) on a folder, so that a rename inside it survives a crash. Throws SystemError.
void fsync_folder(const std::filesystem::path& folder);

// The common case: the whole contents at once.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace shmtrain::io
