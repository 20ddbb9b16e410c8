#pragma once
// The HDF5 ensemble of a sampling study: its schema, an incremental writer that survives
// crashes and resumes, and a reader. The file layout is specified in docs/hdf5-schema.md
// (readable from h5py or Matlab without contactuq).
//
// Writing: samples go to the file in order, in blocks (ensemble_writer::append), each flushed
// before the next is taken; the file stays readable at every instant (HDF5 SWMR writing), so a
// crash or kill -9 loses at most the block in flight. ensemble_writer::resume reopens such a
// file, finds how many leading samples are complete, drops anything after them and continues;
// the finished datasets are then identical to those of an uninterrupted run. Create, resume and
// finish never leave the file half-changed either: the file at the path is always either
// cleanly closed or marked as SWMR-written.
//
// Threads: one writer must not be used from two threads at once (the runner's in-order write
// stage calls it).

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contactuq/io/hdf5.hpp"

namespace contactuq::io {

// Row-major matrices: one row per sample, as stored in the file.
using sample_matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A file that is not the ensemble expected: other study on resume, other schema, damaged layout.
class ensemble_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a study does with a parameter.
enum class input_role {
  fixed,      ///< one value for every sample
  design,     ///< varied between bounds by a design study
  aleatoric,  ///< drawn from a distribution (natural variability)
  epistemic,  ///< one of a set of choices or a point of an interval (lack of knowledge)
};
std::string_view to_string(input_role role);
// Inverse of to_string; throws std::invalid_argument listing the four names.
input_role parse_input_role(std::string_view name);

// Per-sample status codes stored in /status.
enum class sample_status : std::int32_t {
  ok = 0,       ///< the model returned every output
  failed = 1,   ///< the model threw or did not converge; outputs are NaN, see /messages
  not_run = 2,  ///< never evaluated (e.g. the run aborted on an earlier failure)
};
// Status of rows not yet written, seen only in a file whose writer was interrupted.
inline constexpr std::int32_t status_not_written = -1;
// Names of the codes, indexed by code ("ok", "failed", "not_run"); stored as /status@codes.
const std::vector<std::string>& sample_status_names();

struct ensemble_input {
  std::string name;  ///< parameter name used in the study file, unique, non-empty
  std::string unit;  ///< SI unit of the stored values, e.g. "m", "rad", "" for dimensionless
  input_role role = input_role::aleatoric;
  // Extra text columns, e.g. {"distribution", "normal(mean=0.2, sd=0.02)"}; a key may be left
  // out on some inputs (stored as "", which reads back as absent). Keys: non-empty, not
  // "names", "units", "roles" or "column_attributes", unique within one input.
  std::vector<std::pair<std::string, std::string>> attributes;
};

struct ensemble_output {
  std::string name;  ///< unique, non-empty
  std::string unit;  ///< SI unit of the stored values
};

// A curve output: every sample gives `points` ordinate values on a common abscissa.
struct ensemble_curve {
  std::string name;              ///< unique, non-empty, no '/'; the dataset is /curves/<name>
  std::size_t points = 0;        ///< values per sample, >= 1
  std::string abscissa_name;     ///< e.g. "pin displacement"
  std::string abscissa_unit;     ///< SI unit of the abscissa, e.g. "m"
  std::string ordinate_unit;     ///< SI unit of the values, e.g. "N"
  std::vector<double> abscissa;  ///< the common abscissa (size points), or empty if implicit
};

struct ensemble_metadata {
  std::string study_text;         ///< the study file, verbatim; resume checks it is unchanged
  std::string study_path;         ///< where the study file was read from
  std::string contactuq_version;  ///< "" is replaced by this library's version
  std::string git_commit;         ///< commit of the contactuq build, or ""
  std::uint64_t seed = 0;         ///< random seed of the design
  std::string design;             ///< design kind, e.g. "lhs", "monte_carlo"
  std::size_t samples = 0;        ///< N, planned number of samples, >= 1
  std::string start_time;         ///< ISO 8601, e.g. "2024-05-01T12:00:00Z"
  std::string end_time;           ///< ISO 8601; "" until the run finishes
  std::string host;               ///< host name of the machine that ran the study
  std::size_t threads = 1;        ///< worker threads, >= 1 (per process under MPI)
  std::size_t mpi_ranks = 1;      ///< processes that evaluated the samples (mpirun -n R), >= 1
  // Labels of the epistemic cases of a nested study (e.g. "law=hertz"): the samples are K
  // blocks of samples / K rows, block k evaluated under case k with the same aleatoric inputs
  // (common random numbers). Empty: one case, no epistemic loop.
  std::vector<std::string> epistemic_cases;
  // d of a Saltelli pick-freeze design (uq/sensitivity.hpp) over the d aleatoric inputs: each
  // case's rows are then N (d + 2) evaluations in pick_freeze_layout order; 0: a plain design.
  std::size_t pick_freeze_inputs = 0;
  // R of a randomized QMC design: each case's samples are R blocks of equal size, independent
  // scrambles of the same points (uq/design.hpp); intervals come from their spread. 1 otherwise.
  std::size_t replicates = 1;
  // A shard of the plan (`contactuq run --shard k/K`, io/ensemble_merge.hpp): the file holds
  // plan samples [shard_first, shard_first + samples) of plan_samples, and its blocks are
  // numbered in the plan. shard_count 0: the file holds the whole plan.
  std::size_t shard_index = 0;  ///< k in [1, K]
  std::size_t shard_count = 0;  ///< K
  std::size_t shard_first = 0;
  std::size_t plan_samples = 0;
  // Root attributes of every result file (docs/hdf5-schema.md): the study's method ("sample",
  // "nested", "sweep"; "" writes "nested" with epistemic cases, else "sample") and the
  // registered model's name. Files written before they existed read back "".
  std::string method;
  std::string model;

  std::size_t plan() const noexcept { return shard_count > 0 ? plan_samples : samples; }
  std::size_t cases() const noexcept { return epistemic_cases.empty() ? 1 : epistemic_cases.size(); }
  std::size_t aleatoric_samples() const noexcept { return plan() / cases(); }
};

struct ensemble_schema {
  std::vector<ensemble_input> inputs;
  std::vector<ensemble_output> outputs;
  std::vector<ensemble_curve> curves;
  ensemble_metadata metadata;

  // Throws contactuq::parameter_error naming the field, e.g. "inputs[2].name".
  void validate() const;
};

// Storage of a new ensemble. Every per-sample dataset has chunks of the same number of samples,
// so that appending blocks of whole chunks (ensemble_writer::chunk_rows()) compresses each
// chunk once; a block that ends inside a chunk has that chunk compressed again at every flush.
struct ensemble_options {
  // Samples per chunk, >= 1; 0 picks up to 4096, with chunks of the widest dataset (a curve,
  // often) near 256 KiB.
  std::size_t chunk_rows = 0;
  // zlib level 0..9 for every dataset, after byte shuffling of numbers; 0: uncompressed. Level
  // 1, the fastest, compresses smooth force curves about as well as the higher ones.
  int deflate_level = 1;
  std::size_t message_width = 256;  ///< bytes kept of each message (UTF-8), >= 1

  void validate() const;
};

// Samples [first, first + size) with every value the schema asks for.
struct ensemble_block {
  std::size_t first = 0;
  sample_matrix inputs;               ///< size x inputs
  sample_matrix outputs;              ///< size x outputs; NaN where a sample failed
  std::vector<sample_matrix> curves;  ///< per curve, size x points
  std::vector<std::int32_t> status;   ///< size codes, see sample_status
  std::vector<std::string> messages;  ///< size texts: a failed sample's error, a valid one's note, or ""
  // Optional: the block's chunks of inputs, outputs, each curve and status, compressed by
  // ensemble_writer::precompress (in that order); append then writes them as they are.
  std::vector<std::vector<std::byte>> filtered_chunks;

  std::size_t size() const noexcept { return status.size(); }
  // Keeps the first `rows` samples (rows <= size()); compressed chunks no longer match and go.
  void keep_first(std::size_t rows);
};
// A block of `size` samples from `first`, shaped for `schema`: inputs zero, outputs and curves
// NaN, status not_run, messages empty.
ensemble_block make_block(const ensemble_schema& schema, std::size_t first, std::size_t size);

// Where an unfinished run of the result `path` is written: `path` + ".part". finish() and
// close() move it to `path`; a run that is killed or whose writes fail leaves it there, and
// ensemble_writer::resume(path) continues it.
std::filesystem::path unfinished_path(const std::filesystem::path& path);

// Undoes a finish (ensemble_writer::finish) of the result `path` that was interrupted while it
// wrote the file, from its undo log: unfinished_path(path) or `path` is then as before that
// finish (every sample in it, resumable). Nothing to do without a log. create and resume call
// it; a caller that reads the file before resuming it calls it first. Throws ensemble_error if
// another process writes the file.
void recover_interrupted_finish(const std::filesystem::path& path);

namespace detail {
// Tests only: called by finish before it writes its k-th change to the file (an exception
// thrown there interrupts the finish as a kill would).
extern void (*before_finish_write)(std::size_t k);
}  // namespace detail

// What compressing a block's chunks needs, copyable to another thread or process: the chunk
// filters of inputs, outputs, each curve and status (in that order) and where chunks start.
struct chunk_compression {
  std::vector<hdf5::chunk_filters> filters;
  std::size_t chunk_rows = 0;   ///< samples per chunk
  std::size_t first = 0;        ///< first sample of the file (shard_first)
  std::size_t samples = 0;      ///< samples of the file
};
// Compresses `block` into block.filtered_chunks when it is exactly one whole chunk of a file
// with these filters (see ensemble_writer::precompress); otherwise does nothing. Thread safe.
void precompress(ensemble_block& block, const chunk_compression& compression);

class ensemble_writer {
 public:
  // Creates the ensemble file for `schema`, to replace one at `path`; no sample written yet.
  // It is written at unfinished_path(path) (built there under a temporary name and renamed,
  // so a crash never leaves half a file) and moved to `path` by finish() or close(): until
  // then a file at `path` stays as it was. Another process writing either name: ensemble_error.
  static ensemble_writer create(const std::filesystem::path& path, const ensemble_schema& schema,
                                const ensemble_options& options = {});
  // Reopens a file written (perhaps partly, perhaps by a process that was killed) for the same
  // study: its study text, names, units and N must equal those of `schema`, else
  // ensemble_error. Rows after the complete ones are dropped; completed() says where to go on.
  // The start time, host and thread count of the first run stay; each resume is logged in
  // /metadata/resume_log. Continues unfinished_path(path) if there is one, else `path` in
  // place. Throws ensemble_error if there is no file, another process is writing it, or every
  // sample is in it already (a finished run). `options` apply to create only: a resumed file
  // keeps its chunks and widths.
  static ensemble_writer resume(const std::filesystem::path& path, const ensemble_schema& schema,
                                const ensemble_options& options = {});

  ensemble_writer(ensemble_writer&&) noexcept;
  ensemble_writer& operator=(ensemble_writer&&) noexcept;
  // close(), errors swallowed (the file then stays at unfinished_path(path)).
  ~ensemble_writer();
  // Closes the file as it is (an interrupted run: resume continues it) and moves it to
  // path(); one that create() made and no sample reached is removed instead, leaving path()
  // as it was. The writer is then closed.
  void close();

  const ensemble_schema& schema() const noexcept;
  const std::filesystem::path& path() const noexcept;
  std::size_t samples() const noexcept;    // N
  // Samples appended: [0, completed()) are final, on disk after the next flush (at most
  // flush_interval after their append, and at close or finish).
  std::size_t completed() const noexcept;
  // Samples per chunk: append blocks of a multiple of it (but the last) for the fastest writes.
  std::size_t chunk_rows() const noexcept;

  // Writes `block`, whose first sample must be completed() (plus shard_first in a shard file);
  // the samples written become complete on disk at the next flush: the first append, then the
  // first append 250 ms after the last flush, or flush(), close() or finish(). A kill loses at most the samples of
  // that interval, which a resume evaluates again. Throws
  // std::invalid_argument if the block's shape or position is wrong. A failed write (disk
  // full, file size limit) throws ensemble_error and closes the writer without touching the
  // file again: it keeps the samples of every earlier append, for resume.
  void append(const ensemble_block& block);
  // Makes every appended sample complete on disk now (status last, then the file). A failed
  // write throws ensemble_error and closes the writer, as in append.
  void flush();
  // Compresses the block's chunks into block.filtered_chunks when the block is exactly one
  // whole chunk (first a multiple of chunk_rows(), size chunk_rows()), so that the costly
  // compression runs on the caller's thread and append only writes; otherwise does nothing.
  // Thread safe: may run on several blocks at once, also while append runs.
  void precompress(ensemble_block& block) const;
  // What precompress uses, for compressing blocks elsewhere (another process under MPI).
  chunk_compression compression() const;
  // Records the end time and closes the file; a complete file (completed() == samples()) is
  // also converted to the HDF5 1.8 format for older readers, and moved to path(). Costs the
  // same whatever the file's size: the few KiB of metadata it changes are written in place,
  // after what they overwrite was saved to an undo log next to the file (FILE.undo), which
  // goes once the file is in place. An interrupted finish leaves the file as it was, or its
  // log, from which resume and create (recover_interrupted_finish) put it back as it was.
  // The writer is then closed.
  void finish(std::string_view end_time);

 private:
  struct impl;
  bool is_whole_chunk(const ensemble_block& block) const;
  void write_block(const ensemble_block& block);
  explicit ensemble_writer(std::unique_ptr<impl> state);
  static ensemble_writer open(std::unique_ptr<impl> state, const ensemble_schema& schema,
                              bool resuming, const std::filesystem::path& built = {});
  std::unique_ptr<impl> impl_;
};

// An ensemble read back: the complete samples of a file, finished or not.
struct ensemble {
  ensemble_schema schema;             ///< as written, with end_time "" if the run did not finish
  std::size_t rows = 0;               ///< complete samples, <= schema.metadata.samples
  sample_matrix inputs;               ///< rows x inputs
  sample_matrix outputs;              ///< rows x outputs
  std::vector<sample_matrix> curves;  ///< per curve, rows x points; empty if not read
  std::vector<std::int32_t> status;
  std::vector<std::string> messages;
  std::vector<std::string> resume_log;  ///< one line per resume

  // Column indices by name; throw std::out_of_range listing the known names.
  std::size_t input_index(std::string_view name) const;
  std::size_t output_index(std::string_view name) const;
  std::size_t curve_index(std::string_view name) const;
};

// The root attribute `format` of a contactuq HDF5 file ("contactuq-ensemble", ...), "" when the
// file has none. Throws hdf5::error when it is no HDF5 file.
std::string file_format(const std::filesystem::path& path);

struct read_options {
  bool curves = true;  ///< false: leave the curve datasets (often most of the file) unread
};
// Reads an ensemble file; also one whose writer is still running or was killed (then only the
// complete samples). Throws hdf5::error or ensemble_error.
ensemble read_ensemble(const std::filesystem::path& path, const read_options& options = {});

// Current UTC time in ISO 8601, e.g. "2024-05-01T12:00:00Z", for start_time and end_time.
std::string iso8601_now();
// This machine's host name, for ensemble_metadata::host.
std::string host_name();

}  // namespace contactuq::io
