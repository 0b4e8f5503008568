#include "harness/base/atomic_file.h"

#include "harness/base/error.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <sys/stat.h>

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

// Issue 56: the rename replaced a device, a FIFO or a link with a regular file and exited 0
// (as root, /dev/null itself). Each is written through or refused; the twin is the plain file above.
TEST(AtomicFileTest, ALinkStaysALinkAndTheFileItNamesIsReplaced) {
  testing::TempDir dir;
  const auto target = dir.write("real.json", "old");
  std::filesystem::create_symlink(target, dir.file("link.json"));
  write_file_atomic(dir.file("link.json"), "new");
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link.json")));
  EXPECT_EQ(testing::read_text(target), "new");
  std::filesystem::create_symlink(dir.file("made/later.json"), dir.file("dangling.json"));
  write_file_atomic(dir.file("dangling.json"), "made");
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("dangling.json")));
  EXPECT_EQ(testing::read_text(dir.file("made/later.json")), "made");
}

TEST(AtomicFileTest, DevicesAndFifosAreWrittenThroughNeverReplaced) {
  write_file_atomic("/dev/null", "discarded");
  EXPECT_EQ(output_kind("/dev/null"), OutputKind::kStream);
  EXPECT_FALSE(std::filesystem::is_regular_file("/dev/null"));
  try {
    write_file_atomic("/dev/full", "x");
    FAIL() << "a write error must not pass";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full: write failed: "), std::string::npos) << e.what();
  }
  testing::TempDir dir;
  const auto fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  try {
    write_file_atomic(fifo, "x");
    FAIL() << "nobody reads it: an error, not a hang";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a FIFO that nobody reads"), std::string::npos) << e.what();
  }
  EXPECT_EQ(output_kind(fifo), OutputKind::kStream);
  std::string got;
  std::thread reader([&] { got = testing::read_text(fifo); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  write_file_atomic(fifo, "through the pipe");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_EQ(output_kind(dir.path()), OutputKind::kFolder);
  EXPECT_EQ(output_kind(dir.file("absent")), OutputKind::kFile);
}

}  // namespace
}  // namespace devparity
