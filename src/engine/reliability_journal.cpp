#include "reliability_journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace contactuq::engine::detail {
namespace {

static_assert(std::endian::native == std::endian::little, "the journal is written in the machine's byte order");

constexpr std::string_view magic = "CUQRJNL1";
constexpr std::size_t record_header = 16;  // payload bytes, checksum
// A kill loses nothing the journal was handed (the kernel holds it); a power cut loses at most
// this much work. Syncing every batch made a cheap model's run 3 times slower.
constexpr auto sync_interval = std::chrono::seconds(1);

std::uint64_t fnv1a(const char* data, std::size_t size) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  return h;
}

template <class T>
void put(std::string& to, const T& v) {
  to.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_bytes(std::string& to, const double* data, Eigen::Index count) {
  to.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(count) * sizeof(double));
}
std::uint64_t get_u64(const char* at) {
  std::uint64_t v = 0;
  std::memcpy(&v, at, sizeof v);
  return v;
}

[[noreturn]] void fail_io(const std::filesystem::path& file, const char* what) {
  throw std::runtime_error(fmt::format("cannot {} {}: {}", what, file.string(), std::strerror(errno)));
}

// Reads exactly `size` bytes at `offset`; false at the end of the file.
bool read_at(int fd, char* to, std::size_t size, std::uint64_t offset, const std::filesystem::path& file) {
  while (size > 0) {
    const ssize_t n = ::pread(fd, to, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_io(file, "read");
    if (n == 0) return false;
    to += n, size -= static_cast<std::size_t>(n), offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

void write_at(int fd, const char* from, std::size_t size, std::uint64_t offset, const std::filesystem::path& file) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, from, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_io(file, "write");
    from += n, size -= static_cast<std::size_t>(n), offset += static_cast<std::uint64_t>(n);
  }
}

// The journal opened for writing and locked: a second run on the same output is refused.
int open_locked(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) fail_io(file, "open");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int code = errno;
    ::close(fd);
    if (code == EWOULDBLOCK)
      throw std::invalid_argument(fmt::format("{} is being written by another run", file.string()));
    errno = code;
    fail_io(file, "lock");
  }
  return fd;
}

// The record at `offset` (its payload into `payload`); false when it is cut short or its
// checksum fails.
bool read_record(int fd, std::uint64_t offset, std::uint64_t file_size, std::string& payload,
                 const std::filesystem::path& file) {
  if (file_size - offset < record_header) return false;
  char header[record_header];
  if (!read_at(fd, header, record_header, offset, file)) return false;
  const std::uint64_t size = get_u64(header), sum = get_u64(header + 8);
  if (size > file_size - offset - record_header) return false;
  payload.resize(size);
  if (!read_at(fd, payload.data(), size, offset + record_header, file)) return false;
  return fnv1a(payload.data(), payload.size()) == sum;
}

// A batch payload's layout: n, d, m, then u, outputs, g, status.
struct batch_shape {
  std::uint64_t n = 0, d = 0, m = 0;
  static constexpr std::uint64_t head = 24;
  std::uint64_t bytes() const { return head + 8 * (n * d + n * m + n) + 4 * n; }
};
std::optional<batch_shape> shape_of(const std::string& payload) {
  if (payload.size() < batch_shape::head) return std::nullopt;
  const batch_shape s{get_u64(payload.data()), get_u64(payload.data() + 8), get_u64(payload.data() + 16)};
  // Bounded before multiplying: a payload holds at most its size in doubles.
  const std::uint64_t limit = payload.size() / 4;
  if (s.n > limit || s.d > limit || s.m > limit || (s.n > 0 && (s.d > limit / s.n || s.m > limit / s.n)))
    return std::nullopt;
  if (s.bytes() != payload.size()) return std::nullopt;
  return s;
}

// "line 12: `seed = 2` here, `seed = 1` in the journal".
std::string first_difference(std::string_view journal, std::string_view now) {
  std::size_t line = 1, at = 0;
  while (at < journal.size() && at < now.size() && journal[at] == now[at]) line += journal[at++] == '\n';
  const auto line_at = [&](std::string_view text) {
    const std::size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t from = begin == std::string_view::npos || at == 0 ? 0 : begin + 1;
    return std::string(text.substr(from, text.find('\n', from) - from));
  };
  return fmt::format("line {}: `{}` in the study, `{}` in the journal", line, line_at(now), line_at(journal));
}

void sync_folder(const std::filesystem::path& file) {
  const auto folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the journal is still written; only its name may not survive a power cut
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

reliability_journal::reliability_journal(const std::filesystem::path& file, int fd) : file_(file), fd_(fd) {}

reliability_journal::reliability_journal(reliability_journal&& other) noexcept
    : file_(std::move(other.file_)),
      fd_(std::exchange(other.fd_, -1)),
      batches_(std::move(other.batches_)),
      next_(other.next_),
      replayed_points_(other.replayed_points_),
      end_(other.end_),
      dropped_(other.dropped_),
      synced_(other.synced_) {}

reliability_journal::~reliability_journal() {
  if (fd_ < 0) return;
  ::fdatasync(fd_);  // a stopped or failed run: what it wrote is kept
  ::close(fd_);
}

reliability_journal reliability_journal::create(const std::filesystem::path& file, std::string_view study_text) {
  reliability_journal j(file, open_locked(file));  // locked before it is emptied
  j.start(study_text);
  return j;
}

void reliability_journal::start(std::string_view study_text) {
  if (::ftruncate(fd_, 0) != 0) fail_io(file_, "truncate");
  write_at(fd_, magic.data(), magic.size(), 0, file_);
  end_ = magic.size();
  write_record(std::string(study_text));
  sync();
  sync_folder(file_);
}

reliability_journal reliability_journal::resume(const std::filesystem::path& file, std::string_view study_text) {
  reliability_journal j(file, open_locked(file));
  struct stat st {};
  if (::fstat(j.fd_, &st) != 0) fail_io(file, "read");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  std::string head(std::min<std::uint64_t>(size, magic.size()), '\0'), payload;
  read_at(j.fd_, head.data(), head.size(), 0, file);
  if (!magic.starts_with(head))
    throw std::invalid_argument(fmt::format("cannot resume: {} is not the journal of a reliability run; run with "
                                            "--force to replace it",
                                            file.string()));
  // Killed before its study was on disk: nothing was evaluated, so it starts over.
  if (head.size() < magic.size() || !read_record(j.fd_, magic.size(), size, payload, file)) {
    j.start(study_text);
    return j;
  }
  if (payload != study_text)
    throw std::invalid_argument(fmt::format("cannot resume: {} was written for a different study ({}); run with "
                                            "--force to start over",
                                            file.string(), first_difference(payload, study_text)));
  std::uint64_t at = magic.size() + record_header + payload.size();
  while (at < size && read_record(j.fd_, at, size, payload, file) && shape_of(payload)) {
    j.batches_.push_back({at + record_header, payload.size()});
    at += record_header + payload.size();
  }
  j.end_ = at;
  if (at < size) {  // a torn last record: dropped, and its bytes with it
    j.dropped_ = static_cast<std::size_t>(size - at);
    if (::ftruncate(j.fd_, static_cast<off_t>(at)) != 0 || ::fdatasync(j.fd_) != 0) fail_io(file, "truncate");
  }
  return j;
}

std::optional<Eigen::VectorXd> reliability_journal::replay(const Eigen::MatrixXd& u) {
  if (next_ == batches_.size()) return std::nullopt;
  const record& r = batches_[next_];
  std::string payload(r.size, '\0');
  if (!read_at(fd_, payload.data(), payload.size(), r.offset, file_))
    throw std::runtime_error(fmt::format("cannot read {}: it was cut short while the run replayed it", file_.string()));
  const batch_shape s = *shape_of(payload);
  const std::size_t u_bytes = 8 * s.n * s.d;
  if (s.n != static_cast<std::uint64_t>(u.rows()) || s.d != static_cast<std::uint64_t>(u.cols()) ||
      std::memcmp(payload.data() + batch_shape::head, u.data(), u_bytes) != 0)
    throw std::invalid_argument(fmt::format(
        "cannot resume: batch {} in {} ({} points of {} coordinates) differs from the batch the run asks for now "
        "({} points of {}): the journal was written by a run that went another way (another version of contactuq, "
        "or a model that changed); run with --force to start over",
        next_ + 1, file_.string(), s.n, s.d, u.rows(), u.cols()));
  Eigen::VectorXd g(static_cast<Eigen::Index>(s.n));
  std::memcpy(g.data(), payload.data() + batch_shape::head + u_bytes + 8 * s.n * s.m, 8 * s.n);
  ++next_;
  replayed_points_ += static_cast<std::size_t>(s.n);
  return g;
}

void reliability_journal::append(const Eigen::MatrixXd& u, const Eigen::MatrixXd& outputs, const Eigen::VectorXd& g,
                                 const std::vector<std::int32_t>& status) {
  const auto n = static_cast<std::uint64_t>(u.rows());
  if (static_cast<std::uint64_t>(outputs.rows()) != n || static_cast<std::uint64_t>(g.size()) != n ||
      status.size() != n)
    throw std::logic_error("reliability_journal::append: a batch's rows differ");
  std::string payload;
  const batch_shape s{n, static_cast<std::uint64_t>(u.cols()), static_cast<std::uint64_t>(outputs.cols())};
  payload.reserve(s.bytes());
  put(payload, s.n), put(payload, s.d), put(payload, s.m);
  put_bytes(payload, u.data(), u.size());
  put_bytes(payload, outputs.data(), outputs.size());
  put_bytes(payload, g.data(), g.size());
  payload.append(reinterpret_cast<const char*>(status.data()), status.size() * sizeof(std::int32_t));
  const std::uint64_t offset = end_ + record_header;
  write_record(payload);
  // Already replayed: it is never read back, but counted.
  batches_.push_back({offset, payload.size()});
  next_ = batches_.size();
}

void reliability_journal::write_record(const std::string& payload) {
  std::string bytes;
  bytes.reserve(record_header + payload.size());
  put(bytes, static_cast<std::uint64_t>(payload.size()));
  put(bytes, fnv1a(payload.data(), payload.size()));
  bytes += payload;
  write_at(fd_, bytes.data(), bytes.size(), end_, file_);
  end_ += bytes.size();
  if (std::chrono::steady_clock::now() - synced_ >= sync_interval) sync();
}

void reliability_journal::sync() {
  if (::fdatasync(fd_) != 0) fail_io(file_, "sync");
  synced_ = std::chrono::steady_clock::now();
}

void reliability_journal::remove() {
  std::error_code ignored;
  std::filesystem::remove(file_, ignored);  // unlinked while still locked
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
}

}  // namespace contactuq::engine::detail
