#include "shmtrain/io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <utility>

#include "shmtrain/common/error.hpp"

namespace shmtrain::io {

namespace {

std::filesystem::path folder_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

// O_EXCL with a random name instead of mkstemp: mkstemp creates mode 0600, and a checkpoint
// should get the same permissions as any other file the user creates.
int create_temp(const std::filesystem::path& path, std::filesystem::path& temp_path) {
  std::random_device entropy;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_path =
        folder_of(path) / fmt::format(".{}.tmp-{:08x}{:08x}", path.filename().string(), entropy(), entropy());
    const int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) throw_errno(fmt::format("create temporary file for {}", path.string()));
  }
  throw SystemError(fmt::format("create temporary file for {}: 100 names taken", path.string()), EEXIST);
}

}  // namespace

void fsync_folder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_errno(fmt::format("open folder {}", folder.string()));
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    throw SystemError(fmt::format("fsync folder {}", folder.string()), saved);
  }
  if (::close(fd) != 0) throw_errno(fmt::format("close folder {}", folder.string()));
}

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
  fd_ = create_temp(path_, temp_path_);
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  if (fd_ >= 0) ::close(fd_);    // the data is being thrown away; a close error changes nothing
  ::unlink(temp_path_.c_str());  // best effort in a destructor; it exists unless someone removed it
}

void AtomicFile::write(std::span<const std::byte> bytes) {
  if (fd_ < 0) throw Error(fmt::format("AtomicFile::write {} after commit", path_.string()));
  const std::byte* next = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, next, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno(fmt::format("write {}", temp_path_.string()));
    }
    next += n;
    left -= static_cast<std::size_t>(n);
    written_ += static_cast<std::size_t>(n);
  }
}

void AtomicFile::write(std::string_view text) { write(std::as_bytes(std::span(text.data(), text.size()))); }

void AtomicFile::commit() {
  if (committed_ || fd_ < 0) throw Error(fmt::format("AtomicFile::commit {} twice", path_.string()));
  if (::fsync(fd_) != 0) throw_errno(fmt::format("fsync {}", temp_path_.string()));
  const int fd = std::exchange(fd_, -1);
  // close can report a delayed write error (NFS); the data must not be trusted then.
  if (::close(fd) != 0) throw_errno(fmt::format("close {}", temp_path_.string()));
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    throw_errno(fmt::format("rename {} to {}", temp_path_.string(), path_.string()));
  }
  committed_ = true;
  fsync_folder(folder_of(path_));
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  AtomicFile file(path);
  file.write(contents);
  file.commit();
}

}  // namespace shmtrain::io
