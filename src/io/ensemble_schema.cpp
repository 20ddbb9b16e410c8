// The ensemble store's schema (contactuq/io/ensemble_store.hpp): the roles and status codes, the
// checks of a schema, the blocks, and the layout of an ensemble file written and read
// (docs/hdf5-schema.md): its attributes, /metadata, the columns' names and units.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <set>

#include "contactuq/error.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/result_file.hpp"
#include "ensemble_detail.hpp"

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

namespace detail {

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

}  // namespace detail

namespace {

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

}  // namespace

namespace detail {

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

}  // namespace detail

// ---- time and host of a run ----

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
