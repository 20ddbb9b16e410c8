#include "contactuq/opt/optimization_store.hpp"
#include "contactuq/io/result_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "contactuq/error.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/hdf5.hpp"

namespace contactuq::opt {

namespace hdf5 = io::hdf5;
using io::ensemble_error;

namespace {

constexpr const char* format_name = "contactuq-optimization";
constexpr std::int64_t format_version = 1;
constexpr std::size_t message_width = 256;
constexpr std::size_t chunk_rows = 256;

std::filesystem::path sibling(const std::filesystem::path& path, const char* suffix) {
  auto other = path;
  other += suffix;
  return other;
}

std::span<const double> values(const std::vector<double>& v) { return v; }

}  // namespace

void optimization_schema::validate() const {
  const std::size_t d = design_names.size();
  if (d == 0) throw parameter_error("design_names", "no design variable");
  if (design_units.size() != d || low.size() != d || high.size() != d || start.size() != d)
    throw parameter_error(
        "design_units", fmt::format("{} design variables but {} units, {} low, {} high, {} start",
                                    d, design_units.size(), low.size(), high.size(), start.size()));
  if (objectives.empty() || objective_units.size() != objectives.size() ||
      objective_senses.size() != objectives.size())
    throw parameter_error("objectives", "one or two objectives, each with a unit and a sense");
  if (constraint_units.size() != constraints.size())
    throw parameter_error("constraint_units", "one unit per constraint");
  if (models.empty()) throw parameter_error("models", "no model");
  require(threads >= 1, "threads", static_cast<double>(threads), "", ">= 1");
}

// ---- writer ----

struct optimization_writer::impl {
  std::filesystem::path path;     // the result, in place once finished
  std::filesystem::path working;  // where the unfinished run is written: path + ".part"
  optimization_schema schema;
  std::optional<hdf5::file> file;
  std::optional<hdf5::dataset> model, phase, x, objectives, constraints, violation, failed,
      messages, status;
  std::size_t rows = 0;
  bool finished = false;
};

optimization_writer::optimization_writer(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
optimization_writer::optimization_writer(optimization_writer&&) noexcept = default;
optimization_writer& optimization_writer::operator=(optimization_writer&&) noexcept = default;
optimization_writer::~optimization_writer() = default;
std::size_t optimization_writer::rows() const noexcept { return impl_->rows; }

namespace {

void write_skeleton(const std::filesystem::path& path, const optimization_schema& s) {
  hdf5::file f(path, hdf5::file_mode::create);
  io::write_result_header(f, {.format = format_name,
                              .format_version = format_version,
                              .method = "optimize",
                              .model = s.model,
                              .study_text = s.study_text,
                              .study_path = s.study_path});
  auto meta = f.create_group("metadata");
  meta.set_attribute("study_path", s.study_path);
  meta.set_attribute("contactuq_version",
                     s.contactuq_version.empty() ? CONTACTUQ_VERSION : s.contactuq_version);
  meta.set_attribute("algorithm", s.algorithm);
  meta.set_attribute("seed", s.seed);
  meta.set_attribute("samples", static_cast<std::uint64_t>(s.samples));
  meta.set_attribute("start_time", s.start_time);
  meta.set_attribute("end_time", std::string());
  meta.set_attribute("host", s.host);
  meta.set_attribute("threads", static_cast<std::uint64_t>(s.threads));
  if (s.mpi_ranks > 0) meta.set_attribute("mpi_ranks", static_cast<std::uint64_t>(s.mpi_ranks));
  auto design = f.create_group("design");
  design.set_attribute("names", s.design_names);
  design.set_attribute("units", s.design_units);
  design.set_attribute("low", values(s.low));
  design.set_attribute("high", values(s.high));
  design.set_attribute("start", values(s.start));
  auto objectives = f.create_group("objectives");
  objectives.set_attribute("names", s.objectives);
  objectives.set_attribute("units", s.objective_units);
  objectives.set_attribute("senses", s.objective_senses);
  auto constraints = f.create_group("constraints");
  constraints.set_attribute("names", s.constraints);
  constraints.set_attribute("units", s.constraint_units);
  f.create_group("models").set_attribute("names", s.models);

  auto h = f.create_group("history");
  const auto matrix = [&](const char* name, std::size_t columns) {
    return h.create_appendable(
        name, {.type = hdf5::element::float64, .columns = columns, .chunk_rows = chunk_rows});
  };
  const auto vector = [&](const char* name, hdf5::element type) {
    return h.create_appendable(name, {.type = type,
                                      .columns = std::nullopt,
                                      .chunk_rows = chunk_rows,
                                      .text_width = type == hdf5::element::text ? message_width : 0,
                                      .integer_fill = -1});
  };
  vector("model", hdf5::element::int32);
  vector("phase", hdf5::element::int32).set_attribute("codes", opt::phase_names());
  matrix("x", s.design_names.size()).set_attribute("names", s.design_names);
  matrix("objectives", s.objectives.size()).set_attribute("names", s.objectives);
  if (!s.constraints.empty())
    matrix("constraints", s.constraints.size()).set_attribute("names", s.constraints);
  vector("violation", hdf5::element::float64);
  vector("failed", hdf5::element::int32);
  vector("messages", hdf5::element::text);
  vector("status", hdf5::element::int32);
  f.close();
}

}  // namespace

optimization_writer optimization_writer::create(const std::filesystem::path& path,
                                                const optimization_schema& schema) {
  schema.validate();
  auto state = std::make_unique<impl>();
  state->path = path;
  state->working = io::unfinished_path(path);
  state->schema = schema;
  const auto temporary = sibling(path, ".new");
  write_skeleton(temporary, schema);
  std::filesystem::rename(temporary, state->working);
  auto& f = state->file.emplace(state->working, hdf5::file_mode::read_write,
                                hdf5::file_options{.swmr_write = true});
  const auto h = f.open_group("history");
  state->model = h.open_dataset("model");
  state->phase = h.open_dataset("phase");
  state->x = h.open_dataset("x");
  state->objectives = h.open_dataset("objectives");
  if (!schema.constraints.empty()) state->constraints = h.open_dataset("constraints");
  state->violation = h.open_dataset("violation");
  state->failed = h.open_dataset("failed");
  state->messages = h.open_dataset("messages");
  state->status = h.open_dataset("status");
  return optimization_writer(std::move(state));
}

void optimization_writer::append(std::span<const opt::evaluation_record> records) {
  auto& s = *impl_;
  if (s.finished) throw std::logic_error(fmt::format("{}: the writer is closed", s.path.string()));
  if (records.empty()) return;
  const std::size_t d = s.schema.design_names.size(), k = s.schema.objectives.size(),
                    m = s.schema.constraints.size();
  std::vector<std::int32_t> model, phase, failed, status;
  std::vector<double> x, objectives, constraints, violation;
  std::vector<std::string> messages;
  for (const auto& r : records) {
    if (r.x.size() != d || r.value.objectives.size() != k || r.value.constraints.size() != m ||
        r.model >= s.schema.models.size())
      throw std::invalid_argument(
          fmt::format("{}: an evaluation record of {} design values, {} objectives and {} "
                      "constraints under model {}; the file has {}, {}, {} and {} models",
                      s.path.string(), r.x.size(), r.value.objectives.size(),
                      r.value.constraints.size(), r.model, d, k, m, s.schema.models.size()));
    model.push_back(static_cast<std::int32_t>(r.model));
    phase.push_back(static_cast<std::int32_t>(r.stage));
    x.insert(x.end(), r.x.begin(), r.x.end());
    objectives.insert(objectives.end(), r.value.objectives.begin(), r.value.objectives.end());
    constraints.insert(constraints.end(), r.value.constraints.begin(), r.value.constraints.end());
    violation.push_back(r.value.violation);
    failed.push_back(static_cast<std::int32_t>(std::min<std::size_t>(r.value.failed, 0x7fffffff)));
    messages.push_back(r.value.message);
    status.push_back(0);
  }
  const std::size_t first = s.rows, end = s.rows + records.size();
  const auto put = [&](hdf5::dataset& ds, const auto& v) {
    ds.resize_rows(end);
    ds.write_rows(first, v);
    ds.flush();
  };
  put(*s.model, std::span<const std::int32_t>(model));
  put(*s.phase, std::span<const std::int32_t>(phase));
  put(*s.x, std::span<const double>(x));
  put(*s.objectives, std::span<const double>(objectives));
  if (s.constraints) put(*s.constraints, std::span<const double>(constraints));
  put(*s.violation, std::span<const double>(violation));
  put(*s.failed, std::span<const std::int32_t>(failed));
  put(*s.messages, messages);
  // Last: a row is complete once its status is written (read_optimization).
  put(*s.status, std::span<const std::int32_t>(status));
  s.file->flush();
  s.rows = end;
}

void optimization_writer::finish(const opt::epistemic_result& result, std::string_view end_time) {
  auto& s = *impl_;
  if (s.finished) throw std::logic_error(fmt::format("{}: the writer is closed", s.path.string()));
  s.model.reset(), s.phase.reset(), s.x.reset(), s.objectives.reset(), s.constraints.reset();
  s.violation.reset(), s.failed.reset(), s.messages.reset(), s.status.reset();
  s.file->close();
  s.file.reset();
  const auto copy = sibling(s.path, ".new");
  std::filesystem::copy_file(s.working, copy, std::filesystem::copy_options::overwrite_existing);
  {
    hdf5::file f(copy, hdf5::file_mode::read_write);
    f.open_group("metadata").set_attribute("end_time", end_time);
    auto r = f.create_group("results");
    const std::size_t models = result.optima.size(), d = s.schema.design_names.size();
    const std::size_t k = s.schema.objectives.size(), m = s.schema.constraints.size();
    r.set_attribute("models", result.models);
    std::vector<double> x, objectives, constraints, violation;
    std::vector<std::string> status, messages;
    std::vector<std::int32_t> feasible;
    for (const auto& o : result.optima) {
      x.insert(x.end(), o.x.begin(), o.x.end());
      objectives.insert(objectives.end(), o.value.objectives.begin(), o.value.objectives.end());
      constraints.insert(constraints.end(), o.value.constraints.begin(), o.value.constraints.end());
      violation.push_back(o.value.violation);
      status.push_back(o.status);
      messages.push_back(o.message);
      feasible.push_back(o.feasible ? 1 : 0);
    }
    r.write("best_x", x, models, d);
    r.write("best_objectives", objectives, models, k);
    if (m > 0) r.write("best_constraints", constraints, models, m);
    r.write("best_violation", violation);
    r.write_texts("status", status);
    r.write_texts("messages", messages);
    std::vector<double> feasible_d(feasible.begin(), feasible.end());
    r.write("feasible", feasible_d);
    // Convergence diagnostics per model; active: 1 where constraint k binds at the optimum.
    std::vector<double> evaluations, last_improvement, converged, active(models * m, 0.0);
    std::vector<std::string> convergence;
    for (std::size_t i = 0; i < models; ++i) {
      const auto& o = result.optima[i];
      evaluations.push_back(static_cast<double>(o.evaluations));
      last_improvement.push_back(static_cast<double>(o.last_improvement));
      converged.push_back(o.converged ? 1.0 : 0.0);
      convergence.push_back(o.convergence);
      for (std::size_t c : o.active_constraints) active[i * m + c] = 1.0;
    }
    r.write("evaluations", evaluations);
    r.write("last_improvement", last_improvement);
    r.write("converged", converged);
    r.write_texts("convergence", convergence);
    if (m > 0) r.write("active_constraints", active, models, m);
    const auto matrix = [&](const char* name, const Eigen::MatrixXd& a) {
      const auto rows = static_cast<std::size_t>(a.rows()),
                 cols = static_cast<std::size_t>(a.cols());
      std::vector<double> v(rows * cols);
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
          v[i * cols + j] = a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
      r.write(name, v, rows, cols);
    };
    if (result.regret.size() > 0) {
      matrix("cross", result.cross);
      matrix("regret", result.regret);
      matrix("cross_feasible", result.cross_feasible.cast<double>());
    }
    if (result.has_robust) {
      auto g = r.create_group("robust");
      g.write("x", result.robust.x);
      g.write("objective", result.robust_objective);
      g.write("regret", result.robust_regret);
      g.set_attribute("aggregate_regret", result.robust.value.objectives.at(0));
      g.set_attribute("violation", result.robust.value.violation);
      g.set_attribute("feasible", static_cast<std::int32_t>(result.robust.feasible ? 1 : 0));
      g.set_attribute("status", result.robust.status);
    }
    for (std::size_t i = 0; i < models; ++i) {
      const auto& o = result.optima[i];
      if (o.pareto_x.empty()) continue;
      auto g = r.contains("pareto") ? r.open_group("pareto") : r.create_group("pareto");
      auto p = g.create_group(fmt::format("{}", i));
      std::vector<double> px, pf;
      for (const auto& v : o.pareto_x) px.insert(px.end(), v.begin(), v.end());
      for (const auto& v : o.pareto_objectives) pf.insert(pf.end(), v.begin(), v.end());
      p.write("x", px, o.pareto_x.size(), d);
      p.write("objectives", pf, o.pareto_objectives.size(), k);
    }
    f.convert_for_old_readers();
    f.close();
  }
  std::filesystem::rename(copy, s.path);
  std::filesystem::remove(s.working);
  s.schema.end_time = std::string(end_time);
  s.finished = true;
}

// ---- reader ----

namespace {

hdf5::file open_for_reading(const std::filesystem::path& path) {
  try {
    return hdf5::file(path, hdf5::file_mode::read_only, {.latest_format = false});
  } catch (const hdf5::error&) {
    // A file whose SWMR writer still runs or was killed opens only as a SWMR reader.
    return hdf5::file(path, hdf5::file_mode::read_only,
                      {.latest_format = false, .swmr_read = true});
  }
}

}  // namespace

optimization_file read_optimization(const std::filesystem::path& path) {
  const hdf5::file f = open_for_reading(path);
  if (!f.has_attribute("format") || f.string_attribute("format") != format_name)
    throw ensemble_error(fmt::format("{}: not a contactuq optimisation file (no format = \"{}\")",
                                     path.string(), format_name));
  if (f.numeric_attribute<std::int64_t>("format_version") != format_version)
    throw ensemble_error(
        fmt::format("{}: optimisation format version {}, this contactuq reads {}", path.string(),
                    f.numeric_attribute<std::int64_t>("format_version"), format_version));
  optimization_file out;
  auto& s = out.schema;
  s.study_text = f.open_dataset("study").read_text();
  const auto meta = f.open_group("metadata");
  s.study_path = meta.string_attribute("study_path");
  if (f.has_attribute("model")) s.model = f.string_attribute("model");
  s.contactuq_version = meta.string_attribute("contactuq_version");
  s.algorithm = meta.string_attribute("algorithm");
  s.seed = meta.numeric_attribute<std::uint64_t>("seed");
  s.samples = meta.numeric_attribute<std::uint64_t>("samples");
  s.start_time = meta.string_attribute("start_time");
  s.end_time = meta.string_attribute("end_time");
  s.host = meta.string_attribute("host");
  s.threads = meta.numeric_attribute<std::uint64_t>("threads");
  if (meta.has_attribute("mpi_ranks")) s.mpi_ranks = meta.numeric_attribute<std::uint64_t>("mpi_ranks");
  const auto design = f.open_group("design");
  s.design_names = design.strings_attribute("names");
  s.design_units = design.strings_attribute("units");
  s.low = design.doubles_attribute("low");
  s.high = design.doubles_attribute("high");
  s.start = design.doubles_attribute("start");
  const auto objectives = f.open_group("objectives");
  s.objectives = objectives.strings_attribute("names");
  s.objective_units = objectives.strings_attribute("units");
  s.objective_senses = objectives.strings_attribute("senses");
  const auto constraints = f.open_group("constraints");
  s.constraints = constraints.strings_attribute("names");
  s.constraint_units = constraints.strings_attribute("units");
  s.models = f.open_group("models").strings_attribute("names");

  const auto h = f.open_group("history");
  std::vector<hdf5::dataset> all;
  for (const char* name :
       {"model", "phase", "x", "objectives", "violation", "failed", "messages", "status"})
    all.push_back(h.open_dataset(name));
  if (!s.constraints.empty()) all.push_back(h.open_dataset("constraints"));
  std::size_t rows = std::numeric_limits<std::size_t>::max();
  for (const auto& ds : all) rows = std::min(rows, ds.rows());
  const auto status = h.open_dataset("status").read_int32s(0, rows);
  rows = static_cast<std::size_t>(std::find(status.begin(), status.end(), -1) - status.begin());
  const std::size_t d = s.design_names.size(), k = s.objectives.size(), m = s.constraints.size();
  const auto model = h.open_dataset("model").read_int32s(0, rows);
  const auto phase = h.open_dataset("phase").read_int32s(0, rows);
  const auto x = h.open_dataset("x").read_doubles(0, rows);
  const auto obj = h.open_dataset("objectives").read_doubles(0, rows);
  const auto con =
      m > 0 ? h.open_dataset("constraints").read_doubles(0, rows) : std::vector<double>{};
  const auto violation = h.open_dataset("violation").read_doubles(0, rows);
  const auto failed = h.open_dataset("failed").read_int32s(0, rows);
  const auto messages = h.open_dataset("messages").read_texts(0, rows);
  const auto slice = [](const std::vector<double>& v, std::size_t i, std::size_t n) {
    return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(i * n),
                               v.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
  };
  for (std::size_t i = 0; i < rows; ++i) {
    opt::evaluation_record r;
    r.model = static_cast<std::size_t>(model[i]);
    r.stage = static_cast<opt::phase>(phase[i]);
    r.x = slice(x, i, d);
    r.value.objectives = slice(obj, i, k);
    r.value.constraints = m > 0 ? slice(con, i, m) : std::vector<double>{};
    r.value.violation = violation[i];
    r.value.failed = static_cast<std::size_t>(failed[i]);
    r.value.message = messages[i];
    out.history.push_back(std::move(r));
  }
  out.finished = f.contains("results");
  if (out.finished) {
    const auto r = f.open_group("results");
    const auto read_matrix = [&](const char* name) {
      const auto ds = r.open_dataset(name);
      const auto shape = ds.shape();
      const auto v = ds.read_doubles();
      Eigen::MatrixXd a(static_cast<Eigen::Index>(shape.at(0)),
                        static_cast<Eigen::Index>(shape.at(1)));
      for (std::size_t i = 0; i < shape[0]; ++i)
        for (std::size_t j = 0; j < shape[1]; ++j)
          a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = v[i * shape[1] + j];
      return a;
    };
    out.best_x = read_matrix("best_x");
    if (r.contains("regret")) out.regret = read_matrix("regret");
  }
  return out;
}

}  // namespace contactuq::opt
