#include "shmtrain/io/atomic_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::io {
namespace {

using shmtrain::testing::folder_entries;

TEST(AtomicFile, CommitPublishesTheWholeFile) {
  shmtrain::testing::TempDir dir;
  const auto path = dir / "out.txt";
  {
    AtomicFile file(path);
    EXPECT_EQ(file.temp_path().parent_path(), dir.path());
    file.write("hello ");
    file.write("world");
    EXPECT_EQ(file.bytes_written(), 11u);
    EXPECT_FALSE(std::filesystem::exists(path));  // nothing visible before commit
    file.commit();
  }
  EXPECT_EQ(shmtrain::testing::read_file(path), "hello world");
  EXPECT_EQ(folder_entries(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, NewFileGetsUmaskPermissionsNotMkstemps0600) {
  shmtrain::testing::TempDir dir;
  const mode_t mask = ::umask(022);
  ::umask(mask);
  write_file_atomically(dir / "out.txt", "x");
  struct stat st {};
  ASSERT_EQ(::stat((dir / "out.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST(AtomicFile, WithoutCommitNothingIsLeftAndTheOldFileStays) {
  shmtrain::testing::TempDir dir;
  const auto path = dir / "out.txt";
  shmtrain::testing::write_file(path, "old");
  {
    AtomicFile file(path);
    file.write("new and partial");
  }
  EXPECT_EQ(shmtrain::testing::read_file(path), "old");
  EXPECT_EQ(folder_entries(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, ReplacesAnExistingFile) {
  shmtrain::testing::TempDir dir;
  shmtrain::testing::write_file(dir / "out.txt", "old");
  write_file_atomically(dir / "out.txt", "new");
  EXPECT_EQ(shmtrain::testing::read_file(dir / "out.txt"), "new");
}

TEST(AtomicFile, FailedRenameRemovesTheTemporaryFile) {
  shmtrain::testing::TempDir dir;
  std::filesystem::create_directories(dir / "out.txt" / "child");
  try {
    write_file_atomically(dir / "out.txt", "data");
    FAIL() << "rename over a non-empty folder succeeded";
  } catch (const SystemError& e) {
    EXPECT_NE(std::string(e.what()).find("rename"), std::string::npos) << e.what();
  }
  EXPECT_EQ(folder_entries(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, MissingFolderIsASystemErrorNamingThePath) {
  shmtrain::testing::TempDir dir;
  try {
    write_file_atomically(dir / "no" / "out.txt", "data");
    FAIL() << "wrote into a missing folder";
  } catch (const SystemError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "no" / "out.txt").string()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace shmtrain::io
