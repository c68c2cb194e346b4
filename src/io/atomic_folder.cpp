#include "shmtrain/io/atomic_folder.hpp"

#include <cerrno>
#include <cstdio>
#include <random>
#include <system_error>

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <sys/stat.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::io {
namespace {

std::filesystem::path parent_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

std::string random_suffix() {
  std::random_device entropy;
  return fmt::format("{:08x}{:08x}", entropy(), entropy());
}

}  // namespace

AtomicFolder::AtomicFolder(std::filesystem::path target) : target_(std::move(target)) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_path_ = parent_of(target_) / fmt::format(".{}.tmp-{}", target_.filename().string(), random_suffix());
    if (::mkdir(temp_path_.c_str(), 0777) == 0) return;
    if (errno != EEXIST) throw_errno(fmt::format("create temporary folder for {}", target_.string()));
  }
  throw SystemError(fmt::format("create temporary folder for {}: 100 names taken", target_.string()), EEXIST);
}

AtomicFolder::~AtomicFolder() {
  if (committed_) return;
  std::error_code ignored;
  std::filesystem::remove_all(temp_path_, ignored);
}

void AtomicFolder::commit() {
  const std::filesystem::path parent = parent_of(target_);
  fsync_folder(temp_path_);
  std::error_code error;
  if (std::filesystem::exists(target_, error)) {
    // One atomic exchange: at every instant the target is the old folder or the new one.
    if (::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
      committed_ = true;
      fsync_folder(parent);
      std::filesystem::remove_all(temp_path_, error);  // now the old folder
      return;
    }
    if (errno != EINVAL && errno != ENOSYS) {
      throw_errno(fmt::format("exchange {} with {}", temp_path_.string(), target_.string()));
    }
    // A filesystem without RENAME_EXCHANGE: the old folder is moved aside first, so for a
    // moment the target is absent (never half-written).
    const std::filesystem::path aside =
        parent / fmt::format(".{}.tmp-old-{}", target_.filename().string(), random_suffix());
    if (std::rename(target_.c_str(), aside.c_str()) != 0) {
      throw_errno(fmt::format("move the old {} aside", target_.string()));
    }
    if (std::rename(temp_path_.c_str(), target_.c_str()) != 0) {
      throw_errno(fmt::format("rename {} to {}", temp_path_.string(), target_.string()));
    }
    committed_ = true;
    fsync_folder(parent);
    std::filesystem::remove_all(aside, error);
    return;
  }
  if (std::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    throw_errno(fmt::format("rename {} to {}", temp_path_.string(), target_.string()));
  }
  committed_ = true;
  fsync_folder(parent);
}

int remove_stale_temporaries(const std::filesystem::path& folder) {
  std::error_code error;
  int removed = 0;
  std::filesystem::directory_iterator it(folder, error);
  if (error) return 0;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos) {
      std::filesystem::remove_all(entry.path(), error);
      if (!error) ++removed;
    }
  }
  return removed;
}

}  // namespace shmtrain::io
