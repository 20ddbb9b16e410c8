// The ensemble writer (contactuq/io/ensemble_store.hpp): creating, resuming, appending blocks of
// samples as a SWMR writer, flushing them, and finishing the file.
#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "contactuq/error.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/hdf5.hpp"
#include "ensemble_detail.hpp"

namespace contactuq::io {

using namespace detail;

// ---- writer ----

namespace {

// How often written samples are flushed (made complete on disk, visible to SWMR readers).
constexpr auto flush_interval = std::chrono::milliseconds(250);

std::string resume_entry(const ensemble_metadata& now, std::size_t complete, std::size_t samples) {
  return fmt::format("{}: resumed at sample {} of {} on {} with {} threads, contactuq {}{}",
                     now.start_time.empty() ? iso8601_now() : now.start_time, complete, samples,
                     now.host, now.threads,
                     now.contactuq_version.empty() ? CONTACTUQ_VERSION : now.contactuq_version,
                     now.git_commit.empty() ? "" : " (" + now.git_commit + ")");
}

}  // namespace

struct ensemble_writer::impl {
  std::filesystem::path path;     // where the result goes
  std::filesystem::path working;  // the file being written: unfinished_path(path), or path
  bool fresh = false;             // made by create(): removed if closed with no sample
  bool abandoned = false;         // a write failed: left as the last flush left it
  ensemble_schema schema;
  file_lock lock;  // declared before the file: released after it closes
  std::optional<hdf5::file> file;
  std::optional<row_datasets> rows;
  std::size_t completed = 0;  // rows complete on disk: flushed, status included
  std::size_t written = 0;    // rows handed to HDF5; [completed, written) wait for the next flush
  std::size_t chunk_rows = 0;
  // The status of the written rows not yet flushed: written last, at the flush, so that a
  // sample is marked complete only once its other rows are on disk.
  struct pending_status {
    std::size_t first = 0;
    std::vector<std::int32_t> values;
    std::vector<std::byte> filtered_chunk;  // the precompressed chunk, or empty
  };
  std::vector<pending_status> pending;
  // The first append is flushed at once (a reader sees progress right away), later ones when
  // flush_interval has passed.
  bool flushed = false;
  std::chrono::steady_clock::time_point last_flush;
  // Filters of inputs, outputs, each curve and status (precompress); immutable once open.
  std::vector<hdf5::chunk_filters> filters;
  bool finished = false;

  void require_open() const {
    if (finished || abandoned)
      throw std::logic_error(fmt::format("{}: the writer is closed", path.string()));
  }

  // Makes the written rows complete on disk: every dataset but the status flushed, then the
  // status of those rows written and flushed, then the file.
  void flush() {
    if (pending.empty()) return;
    rows->inputs.flush();
    rows->outputs.flush();
    for (auto& c : rows->curves) c.flush();
    rows->messages.flush();
    for (const auto& p : pending) {
      rows->status.resize_rows(p.first + p.values.size());
      if (p.filtered_chunk.empty())
        rows->status.write_rows(p.first, std::span<const std::int32_t>(p.values));
      else
        rows->status.write_filtered_chunk(p.first, p.filtered_chunk);
    }
    rows->status.flush();
    file->flush();
    pending.clear();
    completed = written;
    flushed = true;
    last_flush = std::chrono::steady_clock::now();
  }

  // Closes the file as it is and moves it into place; one made by create() with no sample
  // written is removed instead, leaving `path` as it was.
  void close() {
    if (finished || abandoned) return;
    try {
      flush();
    } catch (...) {
      abandon();
      throw;
    }
    rows.reset();
    if (file) file->close();
    file.reset();
    finished = true;
    if (working != path) {
      if (fresh && completed == 0) {
        std::filesystem::remove(working);
      } else {
        std::error_code ignored;  // the undo log of a file about to be replaced (finish)
        auto log = path;
        log += ".undo";
        std::filesystem::remove(log, ignored);
        std::filesystem::rename(working, path);
      }
    }
    lock.release();
  }

  // After a failed write: lets go of every HDF5 object without closing it, since closing
  // would write the metadata HDF5 caches, which the failed write may have left inconsistent;
  // the file on disk stays as its last successful flush left it, which resume accepts.
  void abandon() noexcept {
    if (rows) rows->for_each([](hdf5::dataset& d) { d.forget(); });
    if (file) file->forget();
    rows.reset();
    file.reset();
    abandoned = true;
    lock.release();
  }
};

ensemble_writer::ensemble_writer(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
ensemble_writer::ensemble_writer(ensemble_writer&&) noexcept = default;
ensemble_writer& ensemble_writer::operator=(ensemble_writer&&) noexcept = default;
ensemble_writer::~ensemble_writer() {
  if (!impl_) return;
  try {
    impl_->close();
  } catch (...) {
    // A destructor cannot report: the file stays at its working name, which resume finds.
  }
}

void ensemble_writer::close() {
  if (impl_) impl_->close();
}

std::filesystem::path unfinished_path(const std::filesystem::path& path) {
  auto p = path;
  p += ".part";
  return p;
}

const ensemble_schema& ensemble_writer::schema() const noexcept { return impl_->schema; }
const std::filesystem::path& ensemble_writer::path() const noexcept { return impl_->path; }
std::size_t ensemble_writer::samples() const noexcept { return impl_->schema.metadata.samples; }
std::size_t ensemble_writer::completed() const noexcept { return impl_->written; }
std::size_t ensemble_writer::chunk_rows() const noexcept { return impl_->chunk_rows; }

// Opens the ensemble at state->path (locked by state->lock) as its SWMR writer, from the first
// instant, so the file is never open for writing in another mode that a crash could leave
// half-changed: checks it holds the study of `schema`, drops rows after the complete samples
// and, when resuming, logs the resume.
ensemble_writer ensemble_writer::open(std::unique_ptr<impl> state, const ensemble_schema& schema,
                                      bool resuming, const std::filesystem::path& built) {
  const auto& path = state->working;
  std::optional<hdf5::file> opened;
  try {
    // The lock proves no other process writes the file, so the marks a killed SWMR writer
    // left in it may be cleared.
    opened.emplace(built.empty() ? path : built, hdf5::file_mode::read_write,
                   hdf5::file_options{.swmr_write = true, .recover = resuming});
    // A new file gets its name once open for SWMR writing: a reader that opened it earlier
    // (they find it by name) would keep the writer from locking it.
    if (!built.empty()) std::filesystem::rename(built, path);
  } catch (const hdf5::error& swmr_error) {
    // A finished file of all N samples is in the HDF5 1.8 format, which SWMR writing does not
    // support; it has nothing left to write. Anything else is an error.
    if (!resuming) throw;
    std::optional<hdf5::file> plain;
    try {
      plain.emplace(path, hdf5::file_mode::read_only, hdf5::file_options{.latest_format = false});
    } catch (const hdf5::error&) {
      throw swmr_error;
    }
    const ensemble_schema stored = read_schema(*plain);
    check_same_study(path, stored, schema);
    auto rows = row_datasets::open(*plain, stored);
    if (rows.complete_rows() != stored.metadata.samples) throw swmr_error;
    throw ensemble_error(fmt::format(
        "cannot resume {}: the run is finished (all {} samples{}); nothing to resume. Run without --resume "
        "and with --force to start it over",
        path.string(), stored.metadata.samples,
        stored.metadata.end_time.empty() ? "" : ", ended " + stored.metadata.end_time));
  }
  auto& f = state->file.emplace(std::move(*opened));
  const ensemble_schema stored = read_schema(f);
  check_same_study(path, stored, schema);
  state->schema = schema;
  state->schema.metadata = stored.metadata;  // the first run's times, host and threads

  auto rows = row_datasets::open(f, stored);
  const std::size_t complete = rows.complete_rows();
  rows.for_each([&](hdf5::dataset& d) {
    if (d.rows() != complete) d.resize_rows(complete);
  });
  state->completed = state->written = complete;
  state->chunk_rows = rows.status.chunk_shape().at(0);
  if (resuming) {
    auto log = f.open_group("metadata").open_dataset("resume_log");
    log.append_rows(
        std::vector<std::string>{resume_entry(schema.metadata, complete, stored.metadata.samples)});
    log.flush();
  }
  rows.for_each([](hdf5::dataset& d) { d.flush(); });
  f.flush();
  state->filters.push_back(rows.inputs.filters());
  state->filters.push_back(rows.outputs.filters());
  for (const auto& c : rows.curves) state->filters.push_back(c.filters());
  state->filters.push_back(rows.status.filters());
  state->rows = std::move(rows);
  return ensemble_writer(std::move(state));
}

ensemble_writer ensemble_writer::create(const std::filesystem::path& path,
                                        const ensemble_schema& schema,
                                        const ensemble_options& options) {
  schema.validate();
  options.validate();
  auto s = schema;
  if (s.metadata.contactuq_version.empty()) s.metadata.contactuq_version = CONTACTUQ_VERSION;
  s.metadata.end_time.clear();

  // Built under a temporary name and renamed into place once complete, so that a crash
  // during creation never leaves a damaged file at `path` (a resume then finds either no file
  // or an empty ensemble). Another process writing either name makes this fail.
  // The run is written to unfinished_path(path) and moved into place by finish() or close(),
  // so that a run that fails leaves the file at `path` as it was.
  const auto working = unfinished_path(path);
  std::optional<file_lock> previous, previous_unfinished;
  if (std::filesystem::exists(path)) previous.emplace(path, false);
  if (std::filesystem::exists(working)) previous_unfinished.emplace(working, false);
  // A finish of the previous run that was interrupted: put the files back as they were (the
  // result at `path` stays until this run finishes; the log must not outlive its file).
  undo_interrupted_finish(path);
  undo_interrupted_finish(working);
  const auto temporary = sibling(working, ".new");
  auto state = std::make_unique<impl>();
  state->path = path;
  state->working = working;
  state->fresh = true;
  state->lock = file_lock(temporary, true);
  try {
    write_empty_ensemble(temporary, s, options);
    return open(std::move(state), s, false, temporary);
  } catch (...) {
    std::error_code ignored;  // nothing of value was written: leave no trace
    std::filesystem::remove(temporary, ignored);
    std::filesystem::remove(working, ignored);
    throw;
  }
}

ensemble_writer ensemble_writer::resume(const std::filesystem::path& path,
                                        const ensemble_schema& schema,
                                        const ensemble_options& options) {
  schema.validate();
  options.validate();
  // An unfinished run is in unfinished_path(path) unless it was stopped cleanly (or written
  // by an older contactuq), which moved it to `path`.
  const auto unfinished = unfinished_path(path);
  const bool moved = !std::filesystem::exists(unfinished);
  if (moved && !std::filesystem::exists(path))
    throw ensemble_error(fmt::format("cannot resume {}: no such file (nor {})", path.string(), unfinished.string()));
  if (!moved && std::filesystem::file_size(unfinished) == 0)
    throw ensemble_error(fmt::format("cannot resume {}: {} is empty (the run was killed while creating it); run "
                                     "with --force to start over",
                                     path.string(), unfinished.string()));
  auto state = std::make_unique<impl>();
  state->path = path;
  state->working = moved ? path : unfinished;
  state->lock = file_lock(state->working, false);
  undo_interrupted_finish(state->working);
  if (moved) undo_interrupted_finish(unfinished);  // no such file: drops a log left after the rename
  return open(std::move(state), schema, true);
}

bool ensemble_writer::is_whole_chunk(const ensemble_block& block) const {
  const std::size_t c = impl_->chunk_rows;
  const auto& m = impl_->schema.metadata;
  if (block.first < m.shard_first) return false;
  const std::size_t first = block.first - m.shard_first;
  return c > 0 && first % c == 0 && block.size() == c && first + c <= m.samples;
}

chunk_compression ensemble_writer::compression() const {
  const auto& m = impl_->schema.metadata;
  return {impl_->filters, impl_->chunk_rows, m.shard_first, m.samples};
}

void ensemble_writer::precompress(ensemble_block& block) const { io::precompress(block, compression()); }

void precompress(ensemble_block& block, const chunk_compression& compression) {
  const auto& filters = compression.filters;
  const std::size_t c = compression.chunk_rows;
  if (c == 0 || block.first < compression.first || filters.size() != block.curves.size() + 3) return;
  const std::size_t first = block.first - compression.first;
  if (first % c != 0 || block.size() != c || first + c > compression.samples) return;  // not one whole chunk
  for (const auto& f : filters)
    if (!f.supported || f.deflate_level == 0) return;  // nothing costly to move off the writer
  // A block of the wrong shape has chunks of the wrong size: append reports it.
  std::vector<std::vector<std::byte>> chunks;
  std::size_t k = 0;
  const auto add = [&](std::span<const std::byte> raw) {
    if (raw.size() != filters[k].chunk_bytes()) return false;
    chunks.push_back(hdf5::filter_chunk(filters[k++], raw));
    return true;
  };
  if (!add(std::as_bytes(matrix_values(block.inputs))) || !add(std::as_bytes(matrix_values(block.outputs)))) return;
  for (const auto& curve : block.curves)
    if (!add(std::as_bytes(matrix_values(curve)))) return;
  if (!add(std::as_bytes(std::span<const std::int32_t>(block.status)))) return;
  block.filtered_chunks = std::move(chunks);
}

void ensemble_writer::append(const ensemble_block& block) {
  impl_->require_open();
  const auto& s = impl_->schema;
  const std::size_t n = block.size();
  const auto bad = [&](const std::string& what) {
    throw std::invalid_argument(fmt::format("{}: block of samples [{}, {}): {}",
                                            impl_->path.string(), block.first, block.first + n,
                                            what));
  };
  if (block.first != s.metadata.shard_first + impl_->written)
    bad(fmt::format("the next sample to write is {}", s.metadata.shard_first + impl_->written));
  const std::size_t first = impl_->written;  // row in the file
  if (n == 0) bad("no samples");
  if (first + n > s.metadata.samples)
    bad(fmt::format("the study has {} samples", s.metadata.shard_first + s.metadata.samples));
  const auto shaped = [&](const sample_matrix& m, std::size_t columns) {
    return static_cast<std::size_t>(m.rows()) == n && static_cast<std::size_t>(m.cols()) == columns;
  };
  if (!shaped(block.inputs, s.inputs.size()))
    bad(fmt::format("inputs are {} x {}, expected {} x {}", block.inputs.rows(),
                    block.inputs.cols(), n, s.inputs.size()));
  if (!shaped(block.outputs, s.outputs.size()))
    bad(fmt::format("outputs are {} x {}, expected {} x {}", block.outputs.rows(),
                    block.outputs.cols(), n, s.outputs.size()));
  if (block.curves.size() != s.curves.size())
    bad(fmt::format("{} curves, expected {}", block.curves.size(), s.curves.size()));
  for (std::size_t k = 0; k < s.curves.size(); ++k)
    if (!shaped(block.curves[k], s.curves[k].points))
      bad(fmt::format("curve '{}' is {} x {}, expected {} x {}", s.curves[k].name,
                      block.curves[k].rows(), block.curves[k].cols(), n, s.curves[k].points));
  if (block.messages.size() != n) bad(fmt::format("{} messages", block.messages.size()));

  try {
    write_block(block);
  } catch (const std::exception& e) {
    impl_->abandon();
    throw ensemble_error(fmt::format(
        "cannot write samples [{}, {}) to {}: {}. The {} samples before them are complete in that file; "
        "make room, then continue with --resume",
        s.metadata.shard_first + impl_->completed, block.first + n, impl_->working.string(), e.what(),
        impl_->completed));
  }
}

void ensemble_writer::flush() {
  impl_->require_open();
  try {
    impl_->flush();
  } catch (const std::exception& e) {
    impl_->abandon();
    throw ensemble_error(fmt::format("cannot write samples [{}, {}) to {}: {}. The {} samples before them are "
                                     "complete in that file; make room, then continue with --resume",
                                     impl_->completed, impl_->written, impl_->working.string(), e.what(),
                                     impl_->completed));
  }
}

// A block of whole chunks is written as its chunks, compressed by the worker that evaluated it.
// A block of part of a chunk (a costly study's blocks hold a few seconds of work, see
// study::run_options::block_seconds; a resumed run's first block) is written as rows: HDF5
// assembles the chunk in its chunk cache, and each flush writes it again, a little fuller. The
// alternative, chunks made smaller for costly rows, would need the cost when the file is
// created, before any sample ran, and a chunk shape chosen by timing would differ between a
// run, its resume and its shards. Rewriting a chunk every few seconds costs little time, but
// HDF5 reuses the space of the chunk's last version only in part: a chunk assembled from k
// blocks leaves about k/6 versions of it behind (the runner keeps blocks to at least 1/64 of a
// chunk, so a costly study's file is up to ~10x its data; a cheap study's whole-chunk blocks
// leave nothing). Rewriting a partial chunk uncompressed, at a fixed size and so in place,
// would remove that cost.
void ensemble_writer::write_block(const ensemble_block& block) {
  const std::size_t first = impl_->written;  // row in the file
  const std::size_t end = first + block.size();
  auto& rows = *impl_->rows;
  const bool filtered = block.filtered_chunks.size() == impl_->filters.size() && is_whole_chunk(block);
  std::size_t next_chunk = 0;
  const auto write = [&](hdf5::dataset& d, const auto& values) {
    d.resize_rows(end);
    if (filtered)
      d.write_filtered_chunk(first, block.filtered_chunks[next_chunk++]);
    else
      d.write_rows(first, values);
  };
  write(rows.inputs, matrix_values(block.inputs));
  write(rows.outputs, matrix_values(block.outputs));
  for (std::size_t k = 0; k < rows.curves.size(); ++k) write(rows.curves[k], matrix_values(block.curves[k]));
  rows.messages.resize_rows(end);
  rows.messages.write_rows(first, block.messages);
  impl_->pending.push_back({first, block.status, filtered ? block.filtered_chunks[next_chunk] : std::vector<std::byte>{}});
  impl_->written = end;
  // Flushing every block would make the flushes the largest part of this serial stage; a kill
  // loses at most the samples of the last flush interval, which --resume evaluates again.
  if (!impl_->flushed || std::chrono::steady_clock::now() - impl_->last_flush >= flush_interval) impl_->flush();
}

namespace detail {
void (*before_finish_write)(std::size_t) = nullptr;
}  // namespace detail

void ensemble_writer::finish(std::string_view end_time) {
  flush();
  impl_->rows.reset();
  if (impl_->file) impl_->file->close();
  impl_->file.reset();
  // Attributes cannot change under SWMR writing, and changing them (or converting the format)
  // in place could leave a damaged file if interrupted. So the changes are made in a session
  // whose writes are held in memory (a few KiB of metadata, whatever the file's size), what
  // they overwrite is saved in an undo log next to the file, and only then are they written
  // to the file, which is renamed into place; the log goes last. A finish interrupted anywhere
  // leaves the file as it was before it, or finished: resume and create undo a half-written
  // finish from its log (recover_interrupted_finish).
  const auto& working = impl_->working;
  // From here a failure leaves the file where it is, with its undo log if any: not moved or
  // touched again when the writer goes.
  impl_->abandoned = true;
  std::error_code ignored;
  std::filesystem::remove(sibling(impl_->path, ".new"), ignored);  // left by an older contactuq's finish
  hdf5::held_writes held;
  {
    // The file is this writer's, locked since it was made: no need to scan it for damage.
    hdf5::file f(working, hdf5::file_mode::read_write, {.hold_writes = &held, .check_heaps = false});
    f.open_group("metadata").set_attribute("end_time", end_time);
    if (impl_->completed == impl_->schema.metadata.samples) f.convert_for_old_readers();
    f.close();
  }
  write_undo_log(working, held);
  {
    posix_file out(working, O_WRONLY);
    for (std::size_t k = 0; k < held.writes.size(); ++k) {
      if (detail::before_finish_write) detail::before_finish_write(k);
      out.write_at(held.writes[k].bytes.data(), held.writes[k].bytes.size(), held.writes[k].offset);
    }
    if (held.final_size != held.initial_size) out.resize(held.final_size);
    out.close();
  }
  if (working != impl_->path) {
    std::filesystem::remove(undo_log_path(impl_->path), ignored);  // of the file about to be replaced
    std::filesystem::rename(working, impl_->path);
  }
  std::filesystem::remove(undo_log_path(working));
  impl_->schema.metadata.end_time = std::string(end_time);
  impl_->lock.release();
  impl_->finished = true;
}

}  // namespace contactuq::io
