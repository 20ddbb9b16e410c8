#include "contactuq/io/text_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace contactuq::io {

void text_output::write_to(const std::filesystem::path& path) const {
  // Into a sibling first, renamed over `path` when complete: a failed write leaves `path` as it was.
  auto part = path;
  part += ".part";
  const auto fail = [&](int error) {
    std::error_code ignored;
    std::filesystem::remove(part, ignored);
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
  };
  std::FILE* file = std::fopen(part.c_str(), "wb");
  if (!file) fail(errno);
  const std::size_t written = std::fwrite(buffer_.data(), 1, buffer_.size(), file);
  const int write_error = written == buffer_.size() ? 0 : (errno != 0 ? errno : EIO);
  const int close_failed = std::fclose(file);  // flushes: a full disk may show only here
  if (write_error != 0) fail(write_error);
  if (close_failed != 0) fail(errno != 0 ? errno : EIO);
  std::error_code error;
  std::filesystem::rename(part, path, error);
  if (error) fail(error.value());
}

}  // namespace contactuq::io
