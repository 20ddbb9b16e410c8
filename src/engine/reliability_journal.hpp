#pragma once
// The journal of a reliability run: every batch of points the algorithm asked for and what the
// model gave there, appended and synced to disk before the algorithm sees the margins, so that
// a run killed at any instant (kill -9 included) continues with --resume by replaying it. The
// algorithms are deterministic given the study, so a resumed run asks for the same batches in
// the same order: the journal answers them (the points must match bit for bit) until it is
// exhausted, then the run evaluates and appends.
//
// Lost batches at the end are always safe: they are evaluated again. So are records written out
// of order by a power cut: the journal ends at the first record whose checksum fails.
//
// It lives at OUT.part beside the result OUT (where other methods keep an unfinished run) and
// is removed once OUT is in place. Layout, little-endian:
//   "CUQRJNL1", then records: u64 payload bytes, u64 FNV-1a 64 of the payload, the payload.
//   Record 0: the study text verbatim. Each later one a batch: u64 rows n, u64 columns of u d,
//   u64 outputs m, then u (n x d), the model's outputs (n x m), g (n) as doubles, column-major,
//   and the samples' status (n x int32, io::sample_status).
// A record cut short or whose checksum fails (the process died while writing it) ends the
// journal: it is dropped and the file truncated before it.

#include <Eigen/Core>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace contactuq::engine::detail {

class reliability_journal {
 public:
  // A new journal at `file`, replacing one there, for the study `study_text`.
  static reliability_journal create(const std::filesystem::path& file, std::string_view study_text);
  // The journal at `file` to replay. A journal killed before its study was written is started
  // over. Throws std::invalid_argument when `file` is not a reliability journal or was written
  // for another study (naming the first line that differs).
  static reliability_journal resume(const std::filesystem::path& file, std::string_view study_text);

  reliability_journal(reliability_journal&& other) noexcept;
  reliability_journal& operator=(reliability_journal&&) = delete;
  ~reliability_journal();

  // The recorded margins of the next batch when `u` is its points bit for bit; nullopt once
  // every recorded batch was replayed. Throws std::invalid_argument naming the batch when the
  // points differ (the run diverged from the one that wrote the journal).
  std::optional<Eigen::VectorXd> replay(const Eigen::MatrixXd& u);
  // Appends a batch; when this returns, it survives a kill of the process. It is synced to disk
  // (to survive a power cut) at most a second later, or by sync() or the destructor.
  void append(const Eigen::MatrixXd& u, const Eigen::MatrixXd& outputs, const Eigen::VectorXd& g,
              const std::vector<std::int32_t>& status);

  void sync();

  std::size_t recorded() const noexcept { return batches_.size(); }  ///< batches in the journal
  std::size_t replayed() const noexcept { return next_; }            ///< of them, answered so far
  std::size_t replayed_points() const noexcept { return replayed_points_; }
  std::size_t dropped_bytes() const noexcept { return dropped_; }    ///< of a torn last record
  const std::filesystem::path& file() const noexcept { return file_; }

  // Closes and deletes the journal (the result it was for is in place).
  void remove();

 private:
  struct record {
    std::uint64_t offset = 0;  ///< of the payload
    std::uint64_t size = 0;
  };
  reliability_journal(const std::filesystem::path& file, int fd);
  void start(std::string_view study_text);  // empties the file, then writes its header
  void write_record(const std::string& payload);

  std::filesystem::path file_;
  int fd_ = -1;
  std::vector<record> batches_;
  std::size_t next_ = 0;
  std::size_t replayed_points_ = 0;
  std::uint64_t end_ = 0;  ///< where the next record goes
  std::size_t dropped_ = 0;
  std::chrono::steady_clock::time_point synced_ = std::chrono::steady_clock::now();
};

}  // namespace contactuq::engine::detail
