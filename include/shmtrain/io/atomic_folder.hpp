#pragma once
// A folder that appears whole or not at all (checkpoints, the final model folder's
// checkpoint-like siblings): its files are written into a hidden temporary sibling
// ".<name>.tmp-<random>", which commit() renames to the target, replacing an existing folder
// of that name. Readers never see a half-written checkpoint, and a crash leaves only a
// hidden temporary folder that remove_stale_temporaries() clears on the next run.
#include <filesystem>
#include <string>

namespace shmtrain::io {

class AtomicFolder {
 public:
  // Creates the temporary folder beside `target`. REQUIRES: target's parent exists.
  // Throws SystemError naming the path.
  explicit AtomicFolder(std::filesystem::path target);
  // Without commit(), removes the temporary folder and everything in it.
  ~AtomicFolder();
  AtomicFolder(const AtomicFolder&) = delete;
  AtomicFolder& operator=(const AtomicFolder&) = delete;

  // Where to write the files.
  const std::filesystem::path& temp_path() const { return temp_path_; }
  const std::filesystem::path& path() const { return target_; }

  // Renames the temporary folder to the target and fsyncs the parent. An existing target is
  // swapped out in one atomic renameat2(RENAME_EXCHANGE) and removed after; on a filesystem
  // without it, moved aside first. REQUIRES: not yet committed.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_path_;
  bool committed_ = false;
};

// Removes the hidden ".<name>.tmp-*" folders and files that an interrupted writer left in
// `folder`. Returns how many were removed.
int remove_stale_temporaries(const std::filesystem::path& folder);

}  // namespace shmtrain::io
