#include "shmtrain/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "shmtrain/common/error.hpp"

namespace shmtrain::io {

namespace {

// Closes a descriptor when the constructor leaves, by return or by exception.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  ~FdGuard() { ::close(fd_); }  // read-only descriptor: close cannot lose data
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

MappedFile::MappedFile(std::filesystem::path path) : path_(std::move(path)) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) fail_input("{}: file not found", path_.string());
    throw_errno(fmt::format("open {}", path_.string()));
  }
  FdGuard guard(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw_errno(fmt::format("fstat {}", path_.string()));
  if (!S_ISREG(st.st_mode)) fail_input("{}: not a regular file", path_.string());
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ == 0) return;  // mmap rejects length 0; an empty span says the same thing
  void* address = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (address == MAP_FAILED) throw_errno(fmt::format("mmap {} ({} bytes)", path_.string(), size_));
  data_ = static_cast<const std::byte*>(address);
}

MappedFile::~MappedFile() { unmap(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unmap();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::unmap() noexcept {
  // munmap only fails for an address range we never mapped; nothing useful to do then.
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace shmtrain::io
