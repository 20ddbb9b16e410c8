#pragma once
// What the ranks of an MPI job send each other, as bytes: the study a job runs, and evaluated
// blocks. Both sides are the same build on the same kind of machine (native byte order);
// reading checks every length against what is left, so a short or foreign message is an error,
// never a read past its end.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/study/ensemble_runner.hpp"

namespace contactuq::mpi::detail {

// Message tags.
enum tag : int {
  study_tag = 1,  // 0 -> worker: a study to serve (study_message)
  ready_tag,      // worker -> 0: the study is read; u64 threads
  error_tag,      // worker -> 0: u64 block first (or npos: the study), then the message text
  blocks_tag,     // 0 -> worker: u64 first, count, rows, end: blocks [first + k rows, ...) before end;
                  // then, when the study's rows are given, the rows of those blocks (a matrix)
  result_tag,     // worker -> 0: one evaluated block (evaluated_block)
  done_tag,       // 0 -> worker: the study is over (no block of it is in flight)
  quit_tag,       // 0 -> worker: the job is over
  fits_tag,       // 0 -> worker: a calibration study to run alongside (study_message)
  go_tag,         // 0 -> worker: every rank read it: run it
};

constexpr std::uint64_t whole_study = ~std::uint64_t{0};  // error_tag: not about one block

struct study_message {
  std::string text;  // the study document, verbatim
  std::string file;  // where rank 0 read it from (relative data paths resolve against it)
  std::uint64_t threads = 0;  // worker threads per rank, 0: all cores
  std::optional<io::chunk_compression> compression = {};
  // How rank 0 read the study and the sampling its method set after reading (the samples,
  // failure policy and retries of morris or of a batch of a reliability method): a worker
  // reads the study the same way and sets the same.
  study::study_reading reading = {};
  std::uint64_t samples = 0;
  study::failure_policy failures = study::failure_policy::record;
  std::int32_t retries = 2;
  bool sobol = false;
  // The plan's rows are rank 0's own (study::sample_plan::given): each blocks_tag message
  // carries them, the worker does not remake them.
  bool rows_given = false;
};

class byte_writer {
 public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    put_bytes(&value, sizeof(T));
  }
  void put_bytes(const void* data, std::size_t size);
  void put_string(const std::string& s);
  std::vector<std::byte> take() { return std::move(bytes_); }

 private:
  std::vector<std::byte> bytes_;
};

class byte_reader {
 public:
  explicit byte_reader(const std::vector<std::byte>& bytes) : bytes_(bytes) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    get_bytes(&value, sizeof(T));
    return value;
  }
  void get_bytes(void* data, std::size_t size);
  std::string get_string();
  std::size_t left() const noexcept { return bytes_.size() - at_; }

 private:
  const std::vector<std::byte>& bytes_;
  std::size_t at_ = 0;
};

std::vector<std::byte> pack(const study_message& m);
study_message unpack_study(const std::vector<std::byte>& bytes);

// Blocks [first + k rows, first + (k + 1) rows) for k < count, cut at end, of a sampling study;
// with their inputs (rows [first, min(first + count rows, end)), all columns) when the plan's
// rows are given.
struct block_assignment {
  std::uint64_t first = 0, count = 0, rows = 0, end = 0;
  std::optional<io::sample_matrix> inputs;
};

std::vector<std::byte> pack(const block_assignment& m);
block_assignment unpack_blocks(const std::vector<std::byte>& bytes);

std::vector<std::byte> pack(const study::evaluated_block& e);
study::evaluated_block unpack_block(const std::vector<std::byte>& bytes);

}  // namespace contactuq::mpi::detail
