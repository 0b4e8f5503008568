#include "harness/base/atomic_file.h"

#include "harness/base/error.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace devparity {
namespace {

TEST(AtomicFileTest, ReplacesWholeFilesAndCreatesFolders) {
  testing::TempDir dir;
  const auto path = dir.file("a/b.txt");
  write_file_atomic(path, "first");
  write_file_atomic(path, "second");
  EXPECT_EQ(testing::read_text(path), "second");
  for (const auto& entry : std::filesystem::directory_iterator(dir.file("a"))) {
    EXPECT_EQ(entry.path().filename(), "b.txt") << "no temporary file left behind";
  }
}

TEST(AtomicFileTest, FailuresNameThePathAndKeepTheOldFile) {
  testing::TempDir dir;
  EXPECT_THROW(write_file_atomic("/proc/nope/x.txt", "x"), InputError);
  const auto path = dir.write("keep.txt", "old");
  std::filesystem::create_directory(dir.file("keep.txt.dir"));
  // Renaming a file over a folder fails: the old content must survive.
  try {
    write_file_atomic(dir.file("keep.txt.dir"), "new");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("keep.txt.dir"), std::string::npos) << e.what();
  }
  EXPECT_EQ(testing::read_text(path), "old");
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("keep.txt.dir")));
}

}  // namespace
}  // namespace devparity
