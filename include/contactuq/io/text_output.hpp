#pragma once
// Text result files (CSV) written in one piece: formatted into memory, then written and closed
// with every error checked. fmt::output_file reports a full disk from its destructor, which ends
// the program; here it is an exception naming the file.

#include <fmt/format.h>

#include <filesystem>
#include <iterator>
#include <utility>

namespace contactuq::io {

class text_output {
 public:
  template <typename... T>
  void print(fmt::format_string<T...> format, T&&... args) {
    fmt::format_to(std::back_inserter(buffer_), format, std::forward<T>(args)...);
  }

  // Writes everything printed to `path`, through PATH.part renamed over it when complete, so a
  // failed write leaves `path` as it was. Throws std::runtime_error "cannot write PATH: reason".
  void write_to(const std::filesystem::path& path) const;

 private:
  fmt::memory_buffer buffer_;
};

}  // namespace contactuq::io
