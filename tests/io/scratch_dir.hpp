#pragma once
// A fresh directory under the system temporary directory, removed with everything in it when
// the test ends. Unique per process and per instance, so tests may run in parallel.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace contactuq::testing {

class scratch_dir {
 public:
  scratch_dir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("contactuq-io-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace contactuq::testing
