// The durable-file pieces of the ensemble store (contactuq/io/ensemble_store.hpp): the lock a
// writer holds on its file, the undo log of a finish, and the recovery of a finish that was
// interrupted (see ensemble_writer::finish).
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include "contactuq/error.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "ensemble_detail.hpp"

namespace contactuq::io {

using namespace detail;

namespace {

// The undo log of a finish (see ensemble_writer::finish): next to the file it changes, what each
// of the finish's writes overwrites and the file's size before them. Layout (little-endian
// u64): "CUQUNDO1", size, count, then count times (offset, length, bytes), then "CUQUNDOE",
// count. Without its last record the log is incomplete and the file untouched.
constexpr std::string_view undo_magic = "CUQUNDO1", undo_end = "CUQUNDOE";

void put_u64(std::string& out, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}
std::uint64_t get_u64(std::string_view in, std::size_t at) {
  std::uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(in[at + static_cast<std::size_t>(k)]);
  return v;
}

}  // namespace

namespace detail {

// ---- the lock ----

file_lock::file_lock(const std::filesystem::path& path, bool create) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
  if (fd_ < 0)
    throw ensemble_error(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
#ifdef F_OFD_SETLK
  struct flock request {};
  request.l_type = F_WRLCK;
  request.l_whence = SEEK_SET;
  if (::fcntl(fd_, F_OFD_SETLK, &request) < 0) {
    const int code = errno;
    ::close(fd_);
    fd_ = -1;
    if (code == EAGAIN || code == EACCES)
      throw ensemble_error(fmt::format("{} is being written by another process", path.string()));
    throw ensemble_error(fmt::format("cannot lock {}: {}", path.string(), std::strerror(code)));
  }
#endif
}

void file_lock::release() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// ---- the undo log of a finish ----

std::filesystem::path sibling(const std::filesystem::path& path, const char* suffix) {
  auto other = path;
  other += suffix;
  return other;
}

std::filesystem::path undo_log_path(const std::filesystem::path& file) { return sibling(file, ".undo"); }

posix_file::posix_file(const std::filesystem::path& path, int flags)
    : fd(::open(path.c_str(), flags | O_CLOEXEC, 0644)), what(path.string()) {
  if (fd < 0) throw ensemble_error(fmt::format("cannot open {}: {}", what, std::strerror(errno)));
}

posix_file::~posix_file() {
  if (fd >= 0) ::close(fd);
}

void posix_file::write_at(const void* data, std::size_t size, std::uint64_t offset) const {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ensemble_error(fmt::format("cannot write {}: {}", what, std::strerror(errno)));
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

void posix_file::read_at(void* data, std::size_t size, std::uint64_t offset) const {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::pread(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ensemble_error(fmt::format("cannot read {}: {}", what, n == 0 ? "short file" : std::strerror(errno)));
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

void posix_file::resize(std::uint64_t size) const {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0)
    throw ensemble_error(fmt::format("cannot resize {}: {}", what, std::strerror(errno)));
}

void posix_file::close() {
  const int rc = ::close(std::exchange(fd, -1));
  if (rc != 0) throw ensemble_error(fmt::format("cannot write {}: {}", what, std::strerror(errno)));
}

// Writes the undo log of `held` for `file` (complete once this returns).
void write_undo_log(const std::filesystem::path& file, const hdf5::held_writes& held) {
  const posix_file in(file, O_RDONLY);
  std::string log(undo_magic);
  put_u64(log, held.initial_size);
  std::uint64_t count = 0;
  std::string entries;
  for (const auto& w : held.writes) {
    if (w.offset >= held.initial_size) continue;  // past the old end: the truncation undoes it
    const std::uint64_t length = std::min<std::uint64_t>(w.bytes.size(), held.initial_size - w.offset);
    put_u64(entries, w.offset);
    put_u64(entries, length);
    const std::size_t at = entries.size();
    entries.resize(at + length);
    in.read_at(entries.data() + at, length, w.offset);
    ++count;
  }
  put_u64(log, count);
  log += entries;
  log += undo_end;
  put_u64(log, count);
  const auto path = undo_log_path(file);
  posix_file out(path, O_WRONLY | O_CREAT | O_TRUNC);
  out.write_at(log.data(), log.size(), 0);
  out.close();
}

// Puts back what an interrupted finish of `file` overwrote, if its undo log is complete, and
// removes the log. The caller holds the file's lock.
void undo_interrupted_finish(const std::filesystem::path& file) {
  const auto path = undo_log_path(file);
  if (!std::filesystem::exists(path)) return;
  if (std::filesystem::exists(file)) {
    std::string log;
    {
      const posix_file in(path, O_RDONLY);
      log.resize(std::filesystem::file_size(path));
      if (!log.empty()) in.read_at(log.data(), log.size(), 0);
    }
    const std::string_view v(log);
    const std::size_t head = undo_magic.size() + 16, tail = undo_end.size() + 8;
    const bool complete = v.size() >= head + tail && v.substr(0, undo_magic.size()) == undo_magic &&
                          v.substr(v.size() - tail, undo_end.size()) == undo_end &&
                          get_u64(v, v.size() - 8) == get_u64(v, undo_magic.size() + 8);
    if (complete) {
      // Check the whole log before touching the file.
      std::vector<std::pair<std::size_t, std::uint64_t>> entries;  // position in the log, offset
      std::size_t at = head;
      for (std::uint64_t k = 0, n = get_u64(v, undo_magic.size() + 8); k < n; ++k) {
        if (v.size() - tail < at + 16) throw ensemble_error(fmt::format("{}: damaged undo log", path.string()));
        const std::uint64_t length = get_u64(v, at + 8);
        if (length > v.size() - tail - at - 16) throw ensemble_error(fmt::format("{}: damaged undo log", path.string()));
        entries.emplace_back(at, get_u64(v, at));
        at += 16 + length;
      }
      const posix_file out(file, O_WRONLY);
      for (const auto& [pos, offset] : entries) out.write_at(v.data() + pos + 16, get_u64(v, pos + 8), offset);
      out.resize(get_u64(v, undo_magic.size()));
    }
    // Incomplete: the finish was interrupted before it changed the file.
  }
  std::filesystem::remove(path);
}

}  // namespace detail

// ---- recovery ----

void recover_interrupted_finish(const std::filesystem::path& path) {
  for (const auto& file : {unfinished_path(path), path}) {
    if (!std::filesystem::exists(undo_log_path(file))) continue;
    std::optional<file_lock> lock;
    if (std::filesystem::exists(file)) lock.emplace(file, false);
    undo_interrupted_finish(file);
  }
}

}  // namespace contactuq::io
