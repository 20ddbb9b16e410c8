#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/result_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>

#include "contactuq/error.hpp"
#include "contactuq/io/hdf5.hpp"

namespace contactuq::io {

namespace {

// Names of the layout, docs/hdf5-schema.md.
constexpr const char* format_name = "contactuq-ensemble";
constexpr std::int64_t format_version = 1;
constexpr std::size_t resume_log_width = 256;  // bytes per /metadata/resume_log line
constexpr std::string_view reserved_input_keys[] = {"names", "units", "roles", "column_attributes"};
// What a reader accepts of a file's sizes: a study's limits (study-format.md).
constexpr std::size_t max_samples = 1'000'000'000;
constexpr std::size_t max_columns = 10'000'000;

}  // namespace

// ---- roles and status ----

std::string_view to_string(input_role role) {
  switch (role) {
    case input_role::fixed:
      return "fixed";
    case input_role::design:
      return "design";
    case input_role::aleatoric:
      return "aleatoric";
    case input_role::epistemic:
      return "epistemic";
  }
  return "?";
}

input_role parse_input_role(std::string_view name) {
  for (const auto role :
       {input_role::fixed, input_role::design, input_role::aleatoric, input_role::epistemic})
    if (to_string(role) == name) return role;
  throw std::invalid_argument(
      fmt::format("unknown input role '{}': expected fixed, design, aleatoric or epistemic", name));
}

const std::vector<std::string>& sample_status_names() {
  static const std::vector<std::string> names{"ok", "failed", "not_run"};
  return names;
}

// ---- validation ----

void ensemble_schema::validate() const {
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto field = fmt::format("inputs[{}]", i);
    const auto& input = inputs[i];
    if (input.name.empty()) throw parameter_error(field + ".name", field + ".name is empty");
    if (!seen.insert(input.name).second)
      throw parameter_error(field + ".name",
                            fmt::format("{}.name = '{}': used twice", field, input.name));
    std::set<std::string, std::less<>> keys;
    for (const auto& [key, value] : input.attributes) {
      const bool reserved =
          std::find(std::begin(reserved_input_keys), std::end(reserved_input_keys), key) !=
          std::end(reserved_input_keys);
      if (key.empty() || reserved || !keys.insert(key).second)
        throw parameter_error(
            field + ".attributes",
            fmt::format("{}.attributes: key '{}' must be non-empty, unique and not one of "
                        "names, units, roles, column_attributes",
                        field, key));
    }
  }
  seen.clear();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto field = fmt::format("outputs[{}].name", i);
    if (outputs[i].name.empty()) throw parameter_error(field, field + " is empty");
    if (!seen.insert(outputs[i].name).second)
      throw parameter_error(field, fmt::format("{} = '{}': used twice", field, outputs[i].name));
  }
  seen.clear();
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const auto field = fmt::format("curves[{}]", i);
    const auto& curve = curves[i];
    if (curve.name.empty() || curve.name == "." || curve.name.find('/') != std::string::npos)
      throw parameter_error(field + ".name", fmt::format("{}.name = '{}': must be non-empty, "
                                                         "not '.' and without '/'",
                                                         field, curve.name));
    if (!seen.insert(curve.name).second)
      throw parameter_error(field + ".name",
                            fmt::format("{}.name = '{}': used twice", field, curve.name));
    require(curve.points >= 1, field + ".points", static_cast<double>(curve.points), "", ">= 1");
    if (!curve.abscissa.empty() && curve.abscissa.size() != curve.points)
      throw parameter_error(field + ".abscissa",
                            fmt::format("{}.abscissa has {} values for {} points", field,
                                        curve.abscissa.size(), curve.points));
  }
  require(metadata.samples >= 1, "metadata.samples", static_cast<double>(metadata.samples), "",
          ">= 1");
  require(metadata.threads >= 1, "metadata.threads", static_cast<double>(metadata.threads), "",
          ">= 1");
  if (metadata.pick_freeze_inputs > 0 && metadata.aleatoric_samples() % (metadata.pick_freeze_inputs + 2) != 0)
    throw parameter_error("metadata.pick_freeze_inputs",
                          fmt::format("{} samples per case are no multiple of d + 2 = {}", metadata.aleatoric_samples(),
                                      metadata.pick_freeze_inputs + 2));
  if (metadata.plan() % metadata.cases() != 0)
    throw parameter_error("metadata.epistemic_cases",
                          fmt::format("metadata.samples = {} is no multiple of the {} epistemic cases",
                                      metadata.plan(), metadata.cases()));
  require(metadata.replicates >= 1 && metadata.aleatoric_samples() % metadata.replicates == 0, "metadata.replicates",
          static_cast<double>(metadata.replicates), "", "a divisor of the samples per case");
  if (metadata.shard_count > 0 &&
      (metadata.shard_index < 1 || metadata.shard_index > metadata.shard_count ||
       metadata.shard_first + metadata.samples > metadata.plan_samples))
    throw parameter_error("metadata.shard", fmt::format("shard {}/{} of samples [{}, {}) does not fit a plan of {}",
                                                        metadata.shard_index, metadata.shard_count,
                                                        metadata.shard_first, metadata.shard_first + metadata.samples,
                                                        metadata.plan_samples));
}

void ensemble_options::validate() const {
  require(deflate_level >= 0 && deflate_level <= 9, "deflate_level", deflate_level, "",
          "an integer in 0..9");
  require(message_width >= 1, "message_width", static_cast<double>(message_width), "bytes", ">= 1");
}

void ensemble_block::keep_first(std::size_t rows) {
  const auto r = static_cast<Eigen::Index>(rows);
  inputs.conservativeResize(r, Eigen::NoChange);
  outputs.conservativeResize(r, Eigen::NoChange);
  for (auto& c : curves) c.conservativeResize(r, Eigen::NoChange);
  status.resize(rows);
  messages.resize(rows);
  filtered_chunks.clear();
}

ensemble_block make_block(const ensemble_schema& schema, std::size_t first, std::size_t size) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const auto rows = static_cast<Eigen::Index>(size);
  ensemble_block block;
  block.first = first;
  block.inputs = sample_matrix::Zero(rows, static_cast<Eigen::Index>(schema.inputs.size()));
  block.outputs =
      sample_matrix::Constant(rows, static_cast<Eigen::Index>(schema.outputs.size()), nan);
  for (const auto& curve : schema.curves)
    block.curves.push_back(
        sample_matrix::Constant(rows, static_cast<Eigen::Index>(curve.points), nan));
  block.status.assign(size, static_cast<std::int32_t>(sample_status::not_run));
  block.messages.assign(size, "");
  return block;
}

// ---- layout: writing and reading the schema ----

namespace {

std::vector<std::string> input_names(const ensemble_schema& s) {
  std::vector<std::string> v;
  for (const auto& i : s.inputs) v.push_back(i.name);
  return v;
}
std::vector<std::string> input_units(const ensemble_schema& s) {
  std::vector<std::string> v;
  for (const auto& i : s.inputs) v.push_back(i.unit);
  return v;
}
std::vector<std::string> input_roles(const ensemble_schema& s) {
  std::vector<std::string> v;
  for (const auto& i : s.inputs) v.emplace_back(to_string(i.role));
  return v;
}
std::vector<std::string> output_names(const ensemble_schema& s) {
  std::vector<std::string> v;
  for (const auto& o : s.outputs) v.push_back(o.name);
  return v;
}
std::vector<std::string> output_units(const ensemble_schema& s) {
  std::vector<std::string> v;
  for (const auto& o : s.outputs) v.push_back(o.unit);
  return v;
}
std::vector<std::string> curve_names(const ensemble_schema& s) {
  std::vector<std::string> v;
  for (const auto& c : s.curves) v.push_back(c.name);
  return v;
}

// Keys of the inputs' extra attributes, in order of first appearance.
std::vector<std::string> column_attribute_keys(const ensemble_schema& s) {
  std::vector<std::string> keys;
  for (const auto& input : s.inputs)
    for (const auto& [key, value] : input.attributes)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  return keys;
}

void write_metadata(hdf5::group& g, const ensemble_metadata& m) {
  g.set_attribute("study_path", m.study_path);
  g.set_attribute("contactuq_version", m.contactuq_version);
  g.set_attribute("git_commit", m.git_commit);
  g.set_attribute("seed", m.seed);
  g.set_attribute("design", m.design);
  g.set_attribute("samples", static_cast<std::uint64_t>(m.samples));
  g.set_attribute("start_time", m.start_time);
  g.set_attribute("end_time", m.end_time);
  g.set_attribute("host", m.host);
  g.set_attribute("threads", static_cast<std::uint64_t>(m.threads));
  g.set_attribute("mpi_ranks", static_cast<std::uint64_t>(m.mpi_ranks));
  g.set_attribute("epistemic_cases", m.epistemic_cases);
  g.set_attribute("aleatoric_samples", static_cast<std::uint64_t>(m.aleatoric_samples()));
  g.set_attribute("pick_freeze_inputs", static_cast<std::uint64_t>(m.pick_freeze_inputs));
  g.set_attribute("replicates", static_cast<std::uint64_t>(m.replicates));
  if (m.shard_count > 0) {
    g.set_attribute("shard", fmt::format("{}/{}", m.shard_index, m.shard_count));
    g.set_attribute("shard_first", static_cast<std::uint64_t>(m.shard_first));
    g.set_attribute("plan_samples", static_cast<std::uint64_t>(m.plan_samples));
  }
}

ensemble_metadata read_metadata(const hdf5::file& f) {
  const auto g = f.open_group("metadata");
  ensemble_metadata m;
  m.study_text = f.open_dataset("study").read_text();
  m.study_path = g.string_attribute("study_path");
  m.contactuq_version = g.string_attribute("contactuq_version");
  m.git_commit = g.string_attribute("git_commit");
  m.seed = g.numeric_attribute<std::uint64_t>("seed");
  m.design = g.string_attribute("design");
  m.samples = g.numeric_attribute<std::uint64_t>("samples");
  m.start_time = g.string_attribute("start_time");
  m.end_time = g.string_attribute("end_time");
  m.host = g.string_attribute("host");
  m.threads = g.numeric_attribute<std::uint64_t>("threads");
  if (g.has_attribute("mpi_ranks")) m.mpi_ranks = g.numeric_attribute<std::uint64_t>("mpi_ranks");
  // Files of format version 1 written before epistemic cases existed have one implicit case.
  if (g.has_attribute("epistemic_cases")) m.epistemic_cases = g.strings_attribute("epistemic_cases");
  if (g.has_attribute("pick_freeze_inputs")) m.pick_freeze_inputs = g.numeric_attribute<std::uint64_t>("pick_freeze_inputs");
  if (g.has_attribute("replicates")) m.replicates = g.numeric_attribute<std::uint64_t>("replicates");
  if (g.has_attribute("shard")) {
    const std::string shard = g.string_attribute("shard");
    if (std::sscanf(shard.c_str(), "%zu/%zu", &m.shard_index, &m.shard_count) != 2)
      throw ensemble_error(fmt::format("{}: /metadata@shard = '{}' is no k/K", g.file_name(), shard));
    m.shard_first = g.numeric_attribute<std::uint64_t>("shard_first");
    m.plan_samples = g.numeric_attribute<std::uint64_t>("plan_samples");
  }
  if (f.has_attribute("method")) m.method = f.string_attribute("method");
  if (f.has_attribute("model")) m.model = f.string_attribute("model");
  return m;
}

// Strings attribute `name` of `object`, which must hold `count` values.
std::vector<std::string> column_strings(const hdf5::node& object, std::string_view name,
                                        std::size_t count) {
  auto values = object.strings_attribute(name);
  if (values.size() != count)
    throw ensemble_error(fmt::format("{}:{}: attribute '{}' has {} values for {} columns",
                                     object.file_name(), object.path(), name, values.size(),
                                     count));
  return values;
}

void check_format(const hdf5::file& f) {
  if (!f.has_attribute("format") || f.string_attribute("format") != format_name)
    throw ensemble_error(fmt::format("{}: not a contactuq ensemble (no format = \"{}\")",
                                     f.file_name(), format_name));
  const auto version = f.numeric_attribute<std::int64_t>("format_version");
  if (version != format_version)
    throw ensemble_error(fmt::format("{}: ensemble format version {}, this contactuq reads {}",
                                     f.file_name(), version, format_version));
}

// The columns of a 2-D per-sample dataset; ensemble_error for any other shape.
std::size_t columns_of(const hdf5::dataset& d) {
  const auto shape = d.shape();
  if (shape.size() != 2 || shape[1] > max_columns)
    throw ensemble_error(fmt::format("{}:{}: damaged file: a per-sample dataset of shape [{}], expected [rows, columns "
                                     "<= {}]",
                                     d.file_name(), d.path(), fmt::join(shape, ", "), max_columns));
  return shape[1];
}

ensemble_schema read_schema(const hdf5::file& f) {
  check_format(f);
  ensemble_schema s;
  s.metadata = read_metadata(f);

  const auto inputs = f.open_dataset("inputs");
  const std::size_t d = columns_of(inputs);
  const auto names = column_strings(inputs, "names", d);
  const auto units = column_strings(inputs, "units", d);
  const auto roles = column_strings(inputs, "roles", d);
  const auto keys = inputs.strings_attribute("column_attributes");
  std::vector<std::vector<std::string>> columns;
  for (const auto& key : keys) columns.push_back(column_strings(inputs, key, d));
  for (std::size_t j = 0; j < d; ++j) {
    ensemble_input input{names[j], units[j], parse_input_role(roles[j]), {}};
    for (std::size_t k = 0; k < keys.size(); ++k)
      if (!columns[k][j].empty()) input.attributes.emplace_back(keys[k], columns[k][j]);
    s.inputs.push_back(std::move(input));
  }

  const auto outputs = f.open_dataset("outputs");
  const std::size_t m = columns_of(outputs);
  const auto out_names = column_strings(outputs, "names", m);
  const auto out_units = column_strings(outputs, "units", m);
  for (std::size_t j = 0; j < m; ++j) s.outputs.push_back({out_names[j], out_units[j]});

  const auto curves = f.open_group("curves");
  for (const auto& name : curves.strings_attribute("names")) {
    const auto c = curves.open_dataset(name);
    ensemble_curve curve;
    curve.name = name;
    curve.points = columns_of(c);
    curve.abscissa_name = c.string_attribute("abscissa_name");
    curve.abscissa_unit = c.string_attribute("abscissa_unit");
    curve.ordinate_unit = c.string_attribute("ordinate_unit");
    if (c.has_attribute("abscissa")) curve.abscissa = c.doubles_attribute("abscissa");
    s.curves.push_back(std::move(curve));
  }
  // Every size and name the readers trust, checked as a writer checks them.
  try {
    s.validate();
  } catch (const std::exception& e) {
    throw ensemble_error(fmt::format("{}: damaged file, or not written by contactuq: {}", f.file_name(), e.what()));
  }
  if (s.metadata.samples > max_samples)
    throw ensemble_error(fmt::format("{}: damaged file: metadata/samples = {}, at most {}", f.file_name(),
                                     s.metadata.samples, max_samples));
  return s;
}

// The datasets that grow by one row per sample; status last, written last.
std::span<const double> matrix_values(const sample_matrix& m) {
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

std::string first_difference(const std::string& stored, const std::string& given) {
  std::size_t line = 1, a = 0, b = 0;
  while (true) {
    const std::size_t ea = std::min(stored.find('\n', a), stored.size());
    const std::size_t eb = std::min(given.find('\n', b), given.size());
    const std::string_view la(stored.data() + a, ea - a), lb(given.data() + b, eb - b);
    if (la != lb)
      return fmt::format("line {}: the file has \"{}\", the study \"{}\"", line, la, lb);
    if ((ea == stored.size()) != (eb == given.size()))
      return fmt::format("line {}: {} ends there", line,
                         ea == stored.size() ? "the file's" : "the study");
    if (ea == stored.size()) return "";
    a = ea + 1;
    b = eb + 1;
    ++line;
  }
}

// Throws ensemble_error unless `given` describes the same study as what `path` holds.
void check_same_study(const std::filesystem::path& path, const ensemble_schema& stored,
                      const ensemble_schema& given) {
  const auto where = fmt::format("cannot resume {}", path.string());
  if (stored.metadata.study_text != given.metadata.study_text)
    throw ensemble_error(fmt::format(
        "{}: it was written for a different study ({}); run without resuming to start over", where,
        first_difference(stored.metadata.study_text, given.metadata.study_text)));
  const auto differ = [&](const char* what, const auto& a, const auto& b) {
    if (a != b)
      throw ensemble_error(fmt::format("{}: its {} are [{}] but the study gives [{}]", where, what,
                                       fmt::join(a, ", "), fmt::join(b, ", ")));
  };
  differ("inputs", input_names(stored), input_names(given));
  differ("input units", input_units(stored), input_units(given));
  differ("input roles", input_roles(stored), input_roles(given));
  differ("outputs", output_names(stored), output_names(given));
  differ("output units", output_units(stored), output_units(given));
  differ("curves", curve_names(stored), curve_names(given));
  for (std::size_t k = 0; k < stored.curves.size(); ++k) {
    const auto& a = stored.curves[k];
    const auto& b = given.curves[k];
    if (a.points != b.points || a.abscissa_unit != b.abscissa_unit ||
        a.ordinate_unit != b.ordinate_unit || a.abscissa != b.abscissa)
      throw ensemble_error(
          fmt::format("{}: curve '{}' has other points or units than the study's", where, a.name));
  }
  if (stored.metadata.samples != given.metadata.samples)
    throw ensemble_error(fmt::format("{}: it holds {} samples, the study asks for {}", where,
                                     stored.metadata.samples, given.metadata.samples));
  const auto& a = stored.metadata;
  const auto& b = given.metadata;
  if (a.shard_count != b.shard_count || a.shard_index != b.shard_index || a.shard_first != b.shard_first)
    throw ensemble_error(fmt::format("{}: it holds shard {}/{}, this run is shard {}/{}", where, a.shard_index,
                                     a.shard_count, b.shard_index, b.shard_count));
}

// An exclusive lock on the ensemble file for as long as a writer has it open, so that a second
// run cannot resume (and clear the marks of) a file another process is writing. An open file
// description lock: not shared with the HDF5 library's own flock() and not dropped when HDF5
// closes its descriptor.
class file_lock {
 public:
  file_lock() = default;
  file_lock(const std::filesystem::path& path, bool create) {
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
  file_lock(file_lock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  file_lock& operator=(file_lock&& other) noexcept {
    if (this != &other) {
      release();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~file_lock() { release(); }
  void release() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace

// ---- writer ----

namespace {
// How often written samples are flushed (made complete on disk, visible to SWMR readers).
constexpr auto flush_interval = std::chrono::milliseconds(250);
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

namespace {

std::filesystem::path sibling(const std::filesystem::path& path, const char* suffix) {
  auto other = path;
  other += suffix;
  return other;
}

// Writes the empty ensemble of `schema` to a new file at `path`: attributes, /study,
// /metadata and every dataset with 0 rows.
void write_empty_ensemble(const std::filesystem::path& path, const ensemble_schema& s,
                          const ensemble_options& options) {
  hdf5::file f(path, hdf5::file_mode::create);
  write_result_header(f, {.format = format_name,
                          .format_version = format_version,
                          .method = !s.metadata.method.empty()           ? s.metadata.method
                                    : s.metadata.epistemic_cases.empty() ? "sample"
                                                                         : "nested",
                          .model = s.metadata.model,
                          .study_text = s.metadata.study_text,
                          .study_path = s.metadata.study_path});
  auto metadata = f.create_group("metadata");
  write_metadata(metadata, s.metadata);
  if (s.metadata.shard_count > 0)
    f.set_attribute("shard", fmt::format("{}/{}", s.metadata.shard_index, s.metadata.shard_count));
  // A dataset, not an attribute: it grows while the file is SWMR-written.
  metadata.create_appendable("resume_log", {.type = hdf5::element::text,
                                            .columns = std::nullopt,
                                            .chunk_rows = 16,
                                            .deflate_level = options.deflate_level,
                                            .text_width = resume_log_width});

  // One chunk height for all datasets (see ensemble_options), sized by the widest row.
  std::size_t widest = std::max<std::size_t>({s.inputs.size(), s.outputs.size(), 1}) * 8;
  for (const auto& c : s.curves) widest = std::max(widest, 8 * c.points);
  widest = std::max(widest, options.message_width);
  const std::size_t chunk_rows = options.chunk_rows > 0
                                     ? options.chunk_rows
                                     : std::clamp<std::size_t>(256 * 1024 / widest, 1, 4096);

  const auto matrix = [&](hdf5::group& g, const std::string& name, std::size_t columns) {
    return g.create_appendable(name, {.type = hdf5::element::float64,
                                      .columns = columns,
                                      .chunk_rows = chunk_rows,
                                      .deflate_level = options.deflate_level});
  };
  auto inputs = matrix(f, "inputs", s.inputs.size());
  inputs.set_attribute("names", input_names(s));
  inputs.set_attribute("units", input_units(s));
  inputs.set_attribute("roles", input_roles(s));
  const auto keys = column_attribute_keys(s);
  inputs.set_attribute("column_attributes", keys);
  for (const auto& key : keys) {
    std::vector<std::string> values;
    for (const auto& input : s.inputs) {
      const auto it = std::find_if(input.attributes.begin(), input.attributes.end(),
                                   [&](const auto& kv) { return kv.first == key; });
      values.push_back(it != input.attributes.end() ? it->second : "");
    }
    inputs.set_attribute(key, values);
  }

  auto outputs = matrix(f, "outputs", s.outputs.size());
  outputs.set_attribute("names", output_names(s));
  outputs.set_attribute("units", output_units(s));

  auto curves = f.create_group("curves");
  curves.set_attribute("names", curve_names(s));
  for (const auto& c : s.curves) {
    auto d = matrix(curves, c.name, c.points);
    d.set_attribute("abscissa_name", c.abscissa_name);
    d.set_attribute("abscissa_unit", c.abscissa_unit);
    d.set_attribute("ordinate_unit", c.ordinate_unit);
    if (!c.abscissa.empty()) d.set_attribute("abscissa", std::span<const double>(c.abscissa));
  }

  f.create_appendable("messages", {.type = hdf5::element::text,
                                   .columns = std::nullopt,
                                   .chunk_rows = chunk_rows,
                                   .deflate_level = options.deflate_level,
                                   .text_width = options.message_width});
  f.create_appendable("status", {.type = hdf5::element::int32,
                                 .columns = std::nullopt,
                                 .chunk_rows = chunk_rows,
                                 .deflate_level = options.deflate_level,
                                 .integer_fill = status_not_written})
      .set_attribute("codes", sample_status_names());
  f.close();
}

std::string resume_entry(const ensemble_metadata& now, std::size_t complete, std::size_t samples) {
  return fmt::format("{}: resumed at sample {} of {} on {} with {} threads, contactuq {}{}",
                     now.start_time.empty() ? iso8601_now() : now.start_time, complete, samples,
                     now.host, now.threads,
                     now.contactuq_version.empty() ? CONTACTUQ_VERSION : now.contactuq_version,
                     now.git_commit.empty() ? "" : " (" + now.git_commit + ")");
}

}  // namespace

namespace {

// The undo log of a finish (see ensemble_writer::finish): next to the file it changes, what each
// of the finish's writes overwrites and the file's size before them. Layout (little-endian
// u64): "CUQUNDO1", size, count, then count times (offset, length, bytes), then "CUQUNDOE",
// count. Without its last record the log is incomplete and the file untouched.
constexpr std::string_view undo_magic = "CUQUNDO1", undo_end = "CUQUNDOE";

std::filesystem::path undo_log_path(const std::filesystem::path& file) { return sibling(file, ".undo"); }

void put_u64(std::string& out, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}
std::uint64_t get_u64(std::string_view in, std::size_t at) {
  std::uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(in[at + static_cast<std::size_t>(k)]);
  return v;
}

// A descriptor closed on scope exit; `what` names the file in errors.
struct posix_file {
  int fd = -1;
  std::string what;
  posix_file(const std::filesystem::path& path, int flags) : fd(::open(path.c_str(), flags | O_CLOEXEC, 0644)), what(path.string()) {
    if (fd < 0) throw ensemble_error(fmt::format("cannot open {}: {}", what, std::strerror(errno)));
  }
  posix_file(const posix_file&) = delete;
  posix_file& operator=(const posix_file&) = delete;
  ~posix_file() {
    if (fd >= 0) ::close(fd);
  }
  void write_at(const void* data, std::size_t size, std::uint64_t offset) const {
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
  void read_at(void* data, std::size_t size, std::uint64_t offset) const {
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
  void resize(std::uint64_t size) const {
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0)
      throw ensemble_error(fmt::format("cannot resize {}: {}", what, std::strerror(errno)));
  }
  void close() {
    const int rc = ::close(std::exchange(fd, -1));
    if (rc != 0) throw ensemble_error(fmt::format("cannot write {}: {}", what, std::strerror(errno)));
  }
};

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

}  // namespace

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

void recover_interrupted_finish(const std::filesystem::path& path) {
  for (const auto& file : {unfinished_path(path), path}) {
    if (!std::filesystem::exists(undo_log_path(file))) continue;
    std::optional<file_lock> lock;
    if (std::filesystem::exists(file)) lock.emplace(file, false);
    undo_interrupted_finish(file);
  }
}

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

// ---- reader ----

namespace {

hdf5::file open_for_reading(const std::filesystem::path& path) {
  try {
    return hdf5::file(path, hdf5::file_mode::read_only, {.latest_format = false});
  } catch (const hdf5::error& plain) {
    // A file whose SWMR writer still runs or was killed opens only as a SWMR reader.
    try {
      return hdf5::file(path, hdf5::file_mode::read_only,
                        {.latest_format = false, .swmr_read = true});
    } catch (const hdf5::error&) {
      // Killed between opening the file for writing and starting SWMR writing: only a
      // writer may clear the mark that leaves.
      if (std::string_view(plain.what()).find("already open for write") != std::string::npos)
        throw ensemble_error(fmt::format(
            "{}: its writer was interrupted while opening it; resuming the run repairs it "
            "(HDF5: {})",
            path.string(), plain.what()));
      throw plain;
    }
  }
}

sample_matrix read_matrix(const hdf5::dataset& d, std::size_t rows) {
  const std::size_t columns = d.shape().at(1);
  sample_matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(columns));
  const auto values = d.read_doubles(0, rows);
  std::copy(values.begin(), values.end(), m.data());
  return m;
}

std::size_t index_of(const std::vector<std::string>& names, std::string_view name,
                     const char* what) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::out_of_range(
        fmt::format("no {} '{}'; the {}s are: {}", what, name, what, fmt::join(names, ", ")));
  return static_cast<std::size_t>(it - names.begin());
}

}  // namespace

std::string file_format(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw std::runtime_error(fmt::format("{}: no such file", path.string()));
  const hdf5::file f = open_for_reading(path);
  return f.has_attribute("format") ? f.string_attribute("format") : std::string();
}

ensemble read_ensemble(const std::filesystem::path& path, const read_options& options) {
  const hdf5::file f = open_for_reading(path);
  ensemble e;
  e.schema = read_schema(f);
  auto rows = row_datasets::open(f, e.schema);
  e.rows = rows.complete_rows();
  e.inputs = read_matrix(rows.inputs, e.rows);
  e.outputs = read_matrix(rows.outputs, e.rows);
  if (options.curves)
    for (const auto& c : rows.curves) e.curves.push_back(read_matrix(c, e.rows));
  e.status = rows.status.read_int32s(0, e.rows);
  for (std::size_t i = 0; i < e.rows; ++i)
    if (e.status[i] < 0 || static_cast<std::size_t>(e.status[i]) >= sample_status_names().size())
      throw ensemble_error(fmt::format("{}: damaged file: /status[{}] = {}, expected a code of /status@codes (0, 1 or 2)",
                                       path.string(), i, e.status[i]));
  e.messages = rows.messages.read_texts(0, e.rows);
  e.resume_log = f.open_group("metadata").open_dataset("resume_log").read_texts();
  return e;
}

std::size_t ensemble::input_index(std::string_view name) const {
  return index_of(input_names(schema), name, "input");
}
std::size_t ensemble::output_index(std::string_view name) const {
  return index_of(output_names(schema), name, "output");
}
std::size_t ensemble::curve_index(std::string_view name) const {
  return index_of(curve_names(schema), name, "curve");
}

std::string iso8601_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace contactuq::io
