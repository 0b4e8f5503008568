// Inputs read whole within a bound: directories, endless streams and huge
// files are refused with the path, not read until memory runs out.

#include "harness/base/input_file.h"

#include "harness/base/error.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace devparity {
namespace {

// Sets DEVPARITY_MAX_INPUT_MB for one test.
class MaxInput {
 public:
  explicit MaxInput(const char* value) { ::setenv("DEVPARITY_MAX_INPUT_MB", value, 1); }
  ~MaxInput() { ::unsetenv("DEVPARITY_MAX_INPUT_MB"); }
};

std::string message(const std::string& path) {
  try {
    read_input_file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(read)";
}

TEST(InputFileTest, ReadsAFileWhole) {
  testing::TempDir dir;
  const std::string bytes("a\0b\nc", 5);
  EXPECT_EQ(read_input_file(dir.write("f.bin", bytes)), bytes);
  EXPECT_EQ(read_input_file(dir.write("empty", "")), "");
  EXPECT_EQ(max_input_bytes(), uint64_t{1} << 30);
}

TEST(InputFileTest, DirectoriesAndMissingFilesAreNamed) {
  testing::TempDir dir;
  EXPECT_EQ(message(dir.path()), dir.path() + ": is a directory, not a file");
  EXPECT_EQ(message(dir.file("missing.json")).rfind(dir.file("missing.json") + ": cannot open file", 0), 0u);
}

TEST(InputFileTest, AnEndlessStreamStopsAtTheBound) {
  const MaxInput one("1");
  EXPECT_EQ(message("/dev/zero"),
            "/dev/zero: more than the 1 MiB devparity reads as input (set DEVPARITY_MAX_INPUT_MB to raise it)");
}

TEST(InputFileTest, AFileOverTheBoundIsRefusedBeforeItIsRead) {
  testing::TempDir dir;
  const auto path = dir.write("big.json", std::string((1 << 20) + 1, ' '));
  {
    const MaxInput one("1");
    EXPECT_EQ(message(path), path + ": 1048577 bytes, more than the 1 MiB devparity reads as input "
                                    "(set DEVPARITY_MAX_INPUT_MB to raise it)");
  }
  EXPECT_EQ(read_input_file(path).size(), (1u << 20) + 1);
}

TEST(InputFileTest, ABadBoundNamesTheVariable) {
  for (const char* bad : {"0", "-1", "lots", "1.5", "99999999999999999999"}) {
    const MaxInput value(bad);
    try {
      max_input_bytes();
      ADD_FAILURE() << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("DEVPARITY_MAX_INPUT_MB='"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace devparity
