#include "contactuq/paths.hpp"

#include <cstdlib>
#include <system_error>

namespace contactuq {
namespace {

// The install prefix of the running executable (<prefix>/bin/<exe> -> <prefix>), or empty when
// it cannot be read.
std::filesystem::path executable_prefix() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  return exe.parent_path().parent_path();
}

std::filesystem::path locate(const char* variable, const std::filesystem::path& installed,
                             const char* marker, const char* source) {
  if (const char* env = std::getenv(variable); env && *env) return env;
  std::error_code ec;
  if (const auto prefix = executable_prefix(); !prefix.empty()) {
    const auto candidate = prefix / installed;
    if (std::filesystem::exists(candidate / marker, ec)) return candidate;
  }
  return source;
}

}  // namespace

std::filesystem::path data_dir() {
  return locate("CONTACTUQ_DATA", "share/contactuq/data", "materials.toml", CONTACTUQ_DATA_DIR);
}

std::filesystem::path python_dir() {
  return locate("CONTACTUQ_PYTHON_DIR", CONTACTUQ_PYTHON_INSTALL_DIR, "contactuq/__init__.py",
                CONTACTUQ_PYTHON_DIR);
}

}  // namespace contactuq
