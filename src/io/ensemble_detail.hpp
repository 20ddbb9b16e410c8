#pragma once
// The pieces of the ensemble store (contactuq/io/ensemble_store.hpp) that its source files share.
// ensemble_schema.cpp holds the roles, the checks and the file's layout, written and read
// (docs/hdf5-schema.md); ensemble_writer.cpp the writer; ensemble_reader.cpp the reader;
// durable_file.cpp the file lock, the undo log of a finish and the recovery of an interrupted one.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/hdf5.hpp"

namespace contactuq::io::detail {

// ---- layout (ensemble_schema.cpp) ----

// The columns' names, units and roles, in the schema's order.
std::vector<std::string> input_names(const ensemble_schema& s);
std::vector<std::string> input_units(const ensemble_schema& s);
std::vector<std::string> input_roles(const ensemble_schema& s);
std::vector<std::string> output_names(const ensemble_schema& s);
std::vector<std::string> output_units(const ensemble_schema& s);
std::vector<std::string> curve_names(const ensemble_schema& s);

// The schema of the ensemble file `f`, checked as a writer checks it; ensemble_error if `f` is no
// ensemble of this format version, or damaged.
ensemble_schema read_schema(const hdf5::file& f);

// Throws ensemble_error unless `given` describes the same study as what `path` holds.
void check_same_study(const std::filesystem::path& path, const ensemble_schema& stored,
                      const ensemble_schema& given);

// Writes the empty ensemble of `schema` to a new file at `path`: attributes, /study,
// /metadata and every dataset with 0 rows.
void write_empty_ensemble(const std::filesystem::path& path, const ensemble_schema& s,
                          const ensemble_options& options);

// ---- rows (the writer and the reader) ----

// The datasets that grow by one row per sample; status last, written last.
inline std::span<const double> matrix_values(const sample_matrix& m) {
  return {m.data(), static_cast<std::size_t>(m.size())};
}

struct row_datasets {
  hdf5::dataset inputs;
  hdf5::dataset outputs;
  std::vector<hdf5::dataset> curves;
  hdf5::dataset messages;
  hdf5::dataset status;
  std::size_t samples = 0;  // N: no dataset holds more complete rows

  static row_datasets open(const hdf5::file& f, const ensemble_schema& s) {
    const auto curve_group = f.open_group("curves");
    std::vector<hdf5::dataset> curves;
    for (const auto& c : s.curves) curves.push_back(curve_group.open_dataset(c.name));
    return {f.open_dataset("inputs"), f.open_dataset("outputs"), std::move(curves),
            f.open_dataset("messages"), f.open_dataset("status"), s.metadata.samples};
  }

  template <class F>
  void for_each(F&& f) {
    f(inputs);
    f(outputs);
    for (auto& c : curves) f(c);
    f(messages);
    f(status);
  }

  // Leading samples whose rows are all on disk. A block's status is written after its other
  // rows were flushed, so a sample is complete when every dataset reaches it and its status
  // is no longer the fill value status_not_written.
  std::size_t complete_rows() {
    std::size_t rows = samples;
    for_each([&](hdf5::dataset& d) { rows = std::min(rows, d.rows()); });
    const auto codes = status.read_int32s(0, rows);
    const auto unwritten = std::find_if(codes.begin(), codes.end(),
                                        [](std::int32_t c) { return c == status_not_written; });
    return static_cast<std::size_t>(unwritten - codes.begin());
  }
};

// ---- durable files (durable_file.cpp) ----

// An exclusive lock on the ensemble file for as long as a writer has it open, so that a second
// run cannot resume (and clear the marks of) a file another process is writing. An open file
// description lock: not shared with the HDF5 library's own flock() and not dropped when HDF5
// closes its descriptor.
class file_lock {
 public:
  file_lock() = default;
  file_lock(const std::filesystem::path& path, bool create);
  file_lock(file_lock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  file_lock& operator=(file_lock&& other) noexcept {
    if (this != &other) {
      release();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~file_lock() { release(); }
  void release() noexcept;

 private:
  int fd_ = -1;
};

// `path` with `suffix` appended to its file name.
std::filesystem::path sibling(const std::filesystem::path& path, const char* suffix);

// Where the undo log of a finish of `file` is kept: next to it.
std::filesystem::path undo_log_path(const std::filesystem::path& file);

// A descriptor closed on scope exit; `what` names the file in errors.
struct posix_file {
  int fd = -1;
  std::string what;
  posix_file(const std::filesystem::path& path, int flags);
  posix_file(const posix_file&) = delete;
  posix_file& operator=(const posix_file&) = delete;
  ~posix_file();
  void write_at(const void* data, std::size_t size, std::uint64_t offset) const;
  void read_at(void* data, std::size_t size, std::uint64_t offset) const;
  void resize(std::uint64_t size) const;
  void close();
};

// Writes the undo log of `held` for `file` (complete once this returns).
void write_undo_log(const std::filesystem::path& file, const hdf5::held_writes& held);

// Puts back what an interrupted finish of `file` overwrote, if its undo log is complete, and
// removes the log. The caller holds the file's lock.
void undo_interrupted_finish(const std::filesystem::path& file);

}  // namespace contactuq::io::detail
