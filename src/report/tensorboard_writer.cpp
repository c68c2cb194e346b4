#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <system_error>

#include "host_name.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/report/tensorboard.hpp"
#include "shmtrain/report/tensorboard_event.hpp"
#include "shmtrain/report/tfrecord.hpp"

namespace shmtrain::report {
namespace {

// tensorboard's EventFileWriter numbers the files a process opens with one counter from 0
// (_global_uid), so two writers started in the same second get different names.
std::atomic<int> g_next_file_number{0};

std::filesystem::path event_file_name(double wall_time) {
  return fmt::format("events.out.tfevents.{:010d}.{}.{}.{}", static_cast<std::int64_t>(wall_time),
                     host_name(), ::getpid(), g_next_file_number.fetch_add(1));
}

}  // namespace

double unix_time_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TensorBoardWriter::TensorBoardWriter(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw SystemError(fmt::format("create the TensorBoard folder {}", dir.string()), error.value());
  const double wall_time = unix_time_now();
  path_ = dir / event_file_name(wall_time);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) throw_errno(fmt::format("create the TensorBoard event file {}", path_.string()));
  append(serialize_file_version_event(wall_time));
}

TensorBoardWriter::~TensorBoardWriter() {
  if (fd_ >= 0) ::close(fd_);  // every record is already in the kernel's hands; close adds nothing to lose
}

void TensorBoardWriter::add_scalar(std::string_view tag, std::int64_t step, double value, double wall_time) {
  append(serialize_scalar_event(tag, step, static_cast<float>(value), wall_time));
}

void TensorBoardWriter::flush() {
  if (fd_ < 0) throw Error(fmt::format("{}: closed after an earlier write error", path_.string()));
  if (::fsync(fd_) != 0) throw_errno(fmt::format("fsync {}", path_.string()));
}

void TensorBoardWriter::append(std::string_view event) {
  if (fd_ < 0) throw Error(fmt::format("{}: closed after an earlier write error", path_.string()));
  const std::string record = frame_tfrecord(event);
  std::size_t done = 0;
  while (done < record.size()) {
    const ssize_t n =
        ::pwrite(fd_, record.data() + done, record.size() - done, static_cast<off_t>(size_ + done));
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int saved = n < 0 ? errno : ENOSPC;  // a write of 0 bytes to a regular file: no room
    // Cut the torn record off so that the file stays a sequence of whole records.
    if (done > 0 && ::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    throw SystemError(fmt::format("write {}", path_.string()), saved);
  }
  size_ += record.size();
}

}  // namespace shmtrain::report
