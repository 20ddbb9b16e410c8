#include "contactuq/calibrate/calibration_study.hpp"
#include "contactuq/io/result_file.hpp"

#include <fmt/format.h>
#include <fmt/os.h>
#include <fmt/ranges.h>

#include <iterator>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>

#include "contactuq/calibrate/insertion_data.hpp"
#include "contactuq/error.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/text_output.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/variables.hpp"

namespace contactuq::calibrate {

namespace u = units;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    cells.push_back(trim(line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

// A column "name [unit]": what it holds and its factor to SI.
struct column {
  enum kind { label, part, input, output, abscissa, curve } what = output;
  std::size_t index = 0;  // input, output or curve index
  std::string name;
  double to_si = 1.0;
};

column parse_column(std::string_view cell, const model::model& m, const std::string& file,
                    bool curve_file) {
  std::string_view name = cell;
  std::optional<std::string_view> unit;
  if (const std::size_t open = cell.find('['); open != std::string_view::npos) {
    const std::size_t close = cell.find(']', open);
    unit = trim(cell.substr(open + 1, close == std::string_view::npos ? std::string_view::npos
                                                                     : close - open - 1));
    name = trim(cell.substr(0, open));
  }
  column c;
  c.name = std::string(name);
  units::dimension dim = u::dimensionless;
  if (!curve_file && (name == "case" || name == "part")) {
    c.what = name == "case" ? column::label : column::part;
    return c;
  }
  bool found = false;
  if (curve_file) {
    for (std::size_t k = 0; k < m.curves().size() && !found; ++k) {
      if (m.curves()[k].name == name) c.what = column::curve, c.index = k, dim = m.curves()[k].dim, found = true;
      else if (m.curves()[k].abscissa_name == name)
        c.what = column::abscissa, c.index = k, dim = m.curves()[k].abscissa_dim, found = true;
    }
  } else {
    if (const std::size_t i = m.find_input(name); i < m.inputs().size())
      c.what = column::input, c.index = i, dim = m.inputs()[i].dim, found = true;
    for (std::size_t j = 0; j < m.outputs().size() && !found; ++j)
      if (m.outputs()[j].name == name)
        c.what = column::output, c.index = j, dim = m.outputs()[j].dim, found = true;
  }
  if (!found)
    throw data_error(file, 1,
                     curve_file
                         ? fmt::format("column \"{}\" is neither a curve of model {} ({}) nor its "
                                       "abscissa",
                                       cell, m.name(), fmt::join(m.curve_names(), ", "))
                         : fmt::format("column \"{}\" is neither an input nor an output of model "
                                       "{} (nor \"case\" or \"part\"); its inputs: {}; its outputs: {}",
                                       cell, m.name(), fmt::join(m.input_names(), ", "),
                                       fmt::join(m.output_names(), ", ")));
  if (!unit && dim != u::dimensionless)
    throw data_error(file, 1, fmt::format("column \"{}\": {} needs a unit, e.g. \"{} [{}]\"",
                                          cell, u::describe(dim), c.name, u::si_unit(dim)));
  if (unit) {
    try {
      const units::unit un = u::parse_unit(*unit);
      if (un.dim != dim)
        throw std::invalid_argument(fmt::format("[{}] is not {}", *unit, u::describe(dim)));
      c.to_si = un.to_si;
    } catch (const std::invalid_argument& e) {
      throw data_error(file, 1, fmt::format("column \"{}\": {}", cell, e.what()));
    }
  }
  return c;
}

double parse_cell(std::string_view cell, const std::string& file, int line,
                  const column& c) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc() || end != cell.data() + cell.size())
    throw data_error(file, line, fmt::format("{} = \"{}\" is not a number", c.name, cell));
  if (!std::isfinite(v))
    throw data_error(file, line, fmt::format("{} = {} is not a finite number", c.name, cell));
  return v * c.to_si;
}

// The lines of a data file that are not comments or blank, with their line numbers.
std::vector<std::pair<int, std::string>> data_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw data_error(path.string(), 0, "cannot open the file");
  std::vector<std::pair<int, std::string>> lines;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto t = trim(line);
    if (t.empty() || t.front() == '#') continue;
    lines.emplace_back(n, std::string(t));
  }
  if (lines.size() < 2) throw data_error(path.string(), n, "no data rows after the header");
  return lines;
}

std::filesystem::path resolve(const io::study_table& t, const std::string& path) {
  const std::filesystem::path p(path);
  return p.is_absolute() ? p : std::filesystem::path(t.file()).parent_path() / p;
}

measured_case read_curve(const io::study_table& t, const model::model& m, std::size_t index) {
  t.allow_only({"file", "curve", "label", "inputs"});
  const auto path = resolve(t, t.string("file"));
  const std::string file = path.string();
  const std::string name = t.string("curve");
  const auto names = m.curve_names();
  const auto k = static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  if (k == names.size())
    t.fail("curve", fmt::format("\"{}\" is not a curve of model {}; its curves: {}", name, m.name(),
                                fmt::join(names, ", ")));
  measured_case c;
  c.label = t.string_or("label", fmt::format("curve {}", index + 1));
  c.file = file;
  if (auto in = t.optional_table("inputs"))
    for (const std::string& key : in->keys()) {
      const std::size_t i = m.find_input(key);
      if (i == m.inputs().size())
        in->fail(key, fmt::format("not an input of model {}", m.name()));
      c.inputs.emplace_back(i, in->quantity(key, m.inputs()[i].dim));
    }
  const auto lines = data_lines(path);
  const auto header = split(lines.front().second);
  std::optional<column> xc, yc;
  std::size_t x_column = 0;
  for (std::size_t h = 0; h < header.size(); ++h) {
    const column col = parse_column(header[h], m, file, true);
    if (col.index != k)
      throw data_error(file, lines.front().first,
                       fmt::format("column \"{}\" is not of curve {}", header[h], name));
    if (col.what == column::abscissa) x_column = h;
    (col.what == column::abscissa ? xc : yc) = col;
  }
  if (!xc || !yc || header.size() != 2)
    throw data_error(file, lines.front().first,
                     fmt::format("a curve file has two columns, \"{} [unit]\" and \"{} [unit]\"",
                                 m.curves()[k].abscissa_name, name));
  measured_curve mc;
  mc.curve = k;
  c.line = lines.front().first;
  for (std::size_t l = 1; l < lines.size(); ++l) {
    const auto cells = split(lines[l].second);
    if (cells.size() != 2) throw data_error(file, lines[l].first, "expected two cells");
    mc.x.push_back(parse_cell(cells[x_column], file, lines[l].first, *xc));
    mc.y.push_back(parse_cell(cells[1 - x_column], file, lines[l].first, *yc));
  }
  c.curves.push_back(std::move(mc));
  return c;
}

// "<value> <unit>" in the report unit of `name`, or SI.
std::string show(const calibration_study& s, const std::string& name, double si,
                 units::dimension dim) {
  const auto it = s.units.find(name);
  if (it == s.units.end()) {
    const std::string unit = u::si_unit(dim);
    return unit.empty() ? fmt::format("{:.6g}", si) : fmt::format("{:.6g} {}", si, unit);
  }
  return fmt::format("{:.6g} {}", u::from_si(si, it->second, dim), it->second);
}

}  // namespace

bool is_calibration_study(const io::study_document& doc) {
  const io::study_table root = doc.root();
  if (root.has("calibrate")) return true;
  if (auto params = root.optional_table("parameters"))
    for (const std::string& name : params->keys())
      if (params->table(name).string_or("role", "") == "calibrated") return true;
  return false;
}

std::vector<measured_case> read_case_table(const std::filesystem::path& path,
                                           const model::model& m) {
  const std::string file = path.string();
  const auto lines = data_lines(path);
  std::vector<column> cols;
  for (const auto cell : split(lines.front().second)) cols.push_back(parse_column(cell, m, file, false));
  std::vector<measured_case> cases;
  for (std::size_t l = 1; l < lines.size(); ++l) {
    const auto cells = split(lines[l].second);
    const int line = lines[l].first;
    if (cells.size() != cols.size())
      throw data_error(file, line,
                       fmt::format("{} cells for the {} columns of the header", cells.size(), cols.size()));
    measured_case c;
    c.file = file;
    c.line = line;
    c.label = fmt::format("{}", l);
    for (std::size_t k = 0; k < cols.size(); ++k) {
      if (cols[k].what == column::label || cols[k].what == column::part) {
        (cols[k].what == column::label ? c.label : c.part) = std::string(cells[k]);
        continue;
      }
      if (cells[k].empty()) {
        if (cols[k].what == column::input)
          throw data_error(file, line, fmt::format("{}: empty cell", cols[k].name));
        continue;  // an output not measured on this row
      }
      const double v = parse_cell(cells[k], file, line, cols[k]);
      (cols[k].what == column::input ? c.inputs : c.outputs).emplace_back(cols[k].index, v);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

void write_case_table(const std::filesystem::path& path, const model::model& m,
                      const std::vector<measured_case>& cases,
                      const std::map<std::string, std::string>& units,
                      const std::vector<std::string>& comments) {
  if (cases.empty()) throw std::invalid_argument("write_case_table: no cases");
  struct col {
    std::string name, unit;
    units::dimension dim;
  };
  std::vector<col> cols;
  const auto add = [&](const model::variable& v) {
    const auto it = units.find(v.name);
    cols.push_back({v.name, it == units.end() ? v.unit : it->second, v.dim});
  };
  for (const auto& [i, v] : cases.front().inputs) add(m.inputs()[i]);
  for (const auto& [j, y] : cases.front().outputs) add(m.outputs()[j]);
  io::text_output out;
  for (const auto& c : comments) out.print("# {}\n", c);
  std::vector<std::string> header{"case"};
  for (const auto& c : cols)
    header.push_back(c.unit.empty() ? c.name : fmt::format("{} [{}]", c.name, c.unit));
  out.print("{}\n", fmt::join(header, ","));
  for (const auto& c : cases) {
    std::vector<std::string> row{c.label};
    std::size_t k = 0;
    for (const auto& [i, v] : c.inputs)
      row.push_back(fmt::format("{}", u::from_si(v, cols[k].unit, cols[k].dim))), ++k;
    for (const auto& [j, y] : c.outputs)
      row.push_back(fmt::format("{}", u::from_si(y, cols[k].unit, cols[k].dim))), ++k;
    out.print("{}\n", fmt::join(row, ","));
  }
  out.write_to(path);
}

calibration_study read_calibration_study(const io::study_document& doc) {
  const io::study_table root = doc.root();
  if (root.has("fit"))
    root.fail("fit", "a study with calibrated parameters takes its options in [calibrate]; [fit] "
                     "belongs to receptacle-pin insertion-curve fits");
  root.allow_only({"title", "method", "model", "parameters", "data", "calibrate", "output"});
  if (root.has("method") && root.string("method") != "calibrate")
    root.fail("method", "must be \"calibrate\" in a calibration study");
  calibration_study s{root.string_or("title", ""),
                      calibration_setup{model::make_model(root.table("model")), {}, {}, {}},
                      {},
                      {},
                      {}};
  const model::model& m = s.setup.model;

  // Parameters: calibrated and fixed inputs.
  const io::study_table params = root.table("parameters");
  const study::variables vars =
      study::read_variables(root, m, {"a calibrate study", {study::variable_role::calibrated, study::variable_role::fixed}});
  // Calibrated inputs hold their first start; they are fitted in the order of their tables.
  s.setup.inputs = vars.values();
  for (const std::size_t i : vars.listed_with_role(study::variable_role::calibrated)) {
    const study::variable& v = vars.inputs[i];
    s.options.parameters.push_back(free_parameter{v.name, v.low, v.high, v.value});
  }
  if (s.options.parameters.empty())
    params.fail("no calibrated parameter: give at least one [parameters.<input>] with role = "
                "\"calibrated\"");

  // Data.
  const io::study_table data = root.table("data");
  data.allow_only({"tables", "curves"});
  if (data.has("tables"))
    for (const std::string& f : data.strings("tables")) {
      auto cases = read_case_table(resolve(data, f), m);
      s.cases.insert(s.cases.end(), cases.begin(), cases.end());
    }
  if (data.has("curves")) {
    const auto curves = data.tables("curves");
    for (std::size_t k = 0; k < curves.size(); ++k) s.cases.push_back(read_curve(curves[k], m, k));
  }
  if (s.cases.empty()) data.fail("give tables = [\"<csv>\", ...] or [[data.curves]]");

  // Options.
  fit_options& o = s.options;
  if (auto cal = root.optional_table("calibrate")) {
    cal->allow_only({"starts", "seed", "loss", "loss_scale", "confidence", "bootstrap",
                     "max_evaluations", "tolerance", "difference_step", "parallel", "scales"});
    // Counts are checked before they become an int, so that 2^32 + 10 is not read as 10;
    // o.validate() below checks their ranges.
    const auto count = [&](std::string_view key, int fallback) {
      const std::int64_t v = cal->integer_or(key, fallback);
      if (v < 0 || v > std::numeric_limits<int>::max()) cal->fail(key, "must be a non-negative integer below 2^31");
      return static_cast<int>(v);
    };
    o.starts = count("starts", o.starts);
    const std::int64_t seed = cal->integer_or("seed", 1);
    if (seed < 0) cal->fail("seed", "must be an integer >= 0");
    o.seed = static_cast<std::uint64_t>(seed);
    const std::string loss = cal->choice("loss", {"squared", "huber", "cauchy"}, "squared");
    o.loss = loss == "huber" ? loss_kind::huber : loss == "cauchy" ? loss_kind::cauchy : loss_kind::squared;
    o.loss_scale = cal->quantity_or("loss_scale", u::dimensionless, 0.0);
    o.confidence = cal->quantity_or("confidence", u::dimensionless, o.confidence);
    o.bootstrap = count("bootstrap", 0);
    o.max_evaluations = count("max_evaluations", o.max_evaluations);
    o.tolerance = cal->quantity_or("tolerance", u::dimensionless, o.tolerance);
    o.difference_step = cal->quantity_or("difference_step", u::dimensionless, o.difference_step);
    o.parallel = cal->boolean_or("parallel", true);
    s.setup.output_scale.assign(m.outputs().size(), 0.0);
    s.setup.curve_scale.assign(m.curves().size(), 0.0);
    if (auto scales = cal->optional_table("scales"))
      for (const std::string& name : scales->keys()) {
        const auto on = m.output_names(), cn = m.curve_names();
        const auto j = static_cast<std::size_t>(std::find(on.begin(), on.end(), name) - on.begin());
        const auto k = static_cast<std::size_t>(std::find(cn.begin(), cn.end(), name) - cn.begin());
        if (j < on.size())
          s.setup.output_scale[j] = scales->quantity(name, m.outputs()[j].dim);
        else if (k < cn.size())
          s.setup.curve_scale[k] = scales->quantity(name, m.curves()[k].dim);
        else
          scales->fail(name, fmt::format("not an output or curve of model {}", m.name()));
        if (!(scales->quantity(name, j < on.size() ? m.outputs()[j].dim : m.curves()[k].dim) > 0))
          scales->fail(name, "must be > 0");
      }
    try {
      o.validate();
    } catch (const parameter_error& e) {
      cal->fail(e);
    }
  }
  if (auto output = root.optional_table("output")) {
    output->allow_only({"units"});
    if (auto un = output->optional_table("units"))
      for (const std::string& name : un->keys()) s.units[name] = un->string(name);
  }
  return s;
}

std::string describe_calibration(const calibration_study& s, const calibration_result& r) {
  std::string out;
  const auto o = std::back_inserter(out);
  fmt::format_to(o, "model {}: {} case{} in {} cluster{}, {} measured values\n", r.model, s.cases.size(),
    s.cases.size() == 1 ? "" : "s", r.case_labels.size(), r.case_labels.size() == 1 ? "" : "s",
    r.points);
  fmt::format_to(o, "fit: loss {}, {} start{}, {} at the best cost, {} model evaluations, {:.3f} s\n",
    to_string(s.options.loss), r.starts.size(), r.starts.size() == 1 ? "" : "s", r.starts_at_best,
    r.evaluations, r.seconds);
  const int pct = static_cast<int>(std::lround(100 * r.confidence));
  fmt::format_to(o, "\n  {} % intervals: Jacobian{}{}\n", pct,
    r.clustered_covariance.size() > 0 ? "; clustered by case label (sandwich)" : "",
    r.bootstrap.rows() > 0 ? fmt::format("; bootstrap over case labels ({} refits)", r.bootstrap.rows())
                           : std::string());
  for (const auto& e : r.parameters) {
    const auto v = [&](double si) { return show(s, e.name, si, e.dim); };
    fmt::format_to(o, "  {:<16} {:>16}  Jacobian [{}, {}]", e.name, v(e.value), v(e.low), v(e.high));
    if (e.clustered_low) fmt::format_to(o, "  clustered [{}, {}]", v(*e.clustered_low), v(*e.clustered_high));
    if (e.bootstrap_low) fmt::format_to(o, "  bootstrap [{}, {}]", v(*e.bootstrap_low), v(*e.bootstrap_high));
    fmt::format_to(o, "\n");
  }
  if (r.parameters.size() > 1) {
    fmt::format_to(o, "\n  correlation of the estimates (Jacobian)\n");
    for (Eigen::Index i = 0; i < r.correlation.rows(); ++i) {
      fmt::format_to(o, "  {:<16}", r.parameters[static_cast<std::size_t>(i)].name);
      for (Eigen::Index j = 0; j < r.correlation.cols(); ++j) fmt::format_to(o, " {:>8.4f}", r.correlation(i, j));
      fmt::format_to(o, "\n");
    }
  }
  fmt::format_to(o, "\n  residuals fitted - measured: scaled rms {:.4g}, s = {:.4g} over {} degrees of freedom\n",
    r.rms, r.sigma, r.dof);
  for (const auto& rs : r.residuals) {
    const units::dimension dim = [&] {
      for (const auto& v : s.setup.model.outputs())
        if (v.name == rs.name) return v.dim;
      for (const auto& c : s.setup.model.curves())
        if (c.name == rs.name) return c.dim;
      return u::dimensionless;
    }();
    fmt::format_to(o, "  {:<20} {:>5} value{}  rms {}  (scale {})\n", rs.name, rs.measured.size(),
      rs.measured.size() == 1 ? " " : "s", show(s, rs.name, rs.rms, dim),
      show(s, rs.name, rs.scale, dim));
  }
  return out;
}

bool is_synthetic_cases_spec(const io::study_document& doc) {
  const io::study_table root = doc.root();
  return root.has("synthetic") && root.table("synthetic").has("outputs");
}

synthetic_cases_spec read_synthetic_cases_spec(const io::study_document& doc) {
  const io::study_table root = doc.root();
  root.allow_only({"title", "model", "synthetic", "output"});
  model::model m = model::make_model(root.table("model"));
  synthetic_cases_spec s{root.string_or("title", ""), m, {}, {}, {}, 1, {}, {}};
  for (const auto& v : m.inputs()) s.inputs.push_back(v.nominal);
  const io::study_table t = root.table("synthetic");
  t.allow_only({"vary", "repeats", "outputs", "noise", "seed"});
  std::vector<std::size_t> outputs;
  const auto on = m.output_names();
  for (const std::string& name : t.strings("outputs")) {
    const auto j = static_cast<std::size_t>(std::find(on.begin(), on.end(), name) - on.begin());
    if (j == on.size())
      t.fail("outputs", fmt::format("\"{}\" is not an output of model {}; its outputs: {}", name,
                                    m.name(), fmt::join(on, ", ")));
    outputs.push_back(j);
  }
  s.noise_sd.assign(on.size(), 0.0);
  if (auto noise = t.optional_table("noise"))
    for (const std::string& name : noise->keys()) {
      const auto j = static_cast<std::size_t>(std::find(on.begin(), on.end(), name) - on.begin());
      if (j == on.size()) noise->fail(name, fmt::format("not an output of model {}", m.name()));
      s.noise_sd[j] = noise->quantity(name, m.outputs()[j].dim);
      if (!(s.noise_sd[j] >= 0)) noise->fail(name, "must be >= 0");
    }
  const std::int64_t repeats = t.integer_or("repeats", 1);
  if (repeats < 1 || repeats > 10000) t.fail("repeats", "must be an integer in [1, 10000]");
  const std::int64_t seed = t.integer_or("seed", 1);
  if (seed < 0) t.fail("seed", "must be an integer >= 0");
  s.seed = static_cast<std::uint64_t>(seed);
  // Full factorial over the varied inputs, first key slowest.
  std::vector<std::vector<std::pair<std::size_t, double>>> combos{{}};
  if (auto vary = t.optional_table("vary"))
    for (const std::string& name : vary->keys()) {
      const std::size_t i = m.find_input(name);
      if (i == m.inputs().size()) vary->fail(name, fmt::format("not an input of model {}", m.name()));
      std::vector<std::vector<std::pair<std::size_t, double>>> next;
      for (const auto& c : combos)
        for (double v : vary->quantities(name, m.inputs()[i].dim)) {
          if (const model::variable& in = m.inputs()[i]; !in.valid.contains(v))
            vary->fail(name, fmt::format("{} = {:g}{}{} is outside the valid range of {}: {}", name, v,
                                         in.unit.empty() ? "" : " ", in.unit, name, in.valid.text(in.dim)));
          next.push_back(c);
          next.back().emplace_back(i, v);
        }
      combos = std::move(next);
    }
  for (std::size_t c = 0; c < combos.size(); ++c)
    for (std::int64_t r = 0; r < repeats; ++r) {
      measured_case mc;
      mc.label = repeats == 1 ? fmt::format("{}", c + 1) : fmt::format("{}.{}", c + 1, r + 1);
      mc.inputs = combos[c];
      for (std::size_t j : outputs) mc.outputs.emplace_back(j, 0.0);
      s.cases.push_back(std::move(mc));
    }
  if (auto output = root.optional_table("output")) {
    output->allow_only({"file", "units"});
    if (output->has("file")) s.output = resolve(*output, output->string("file"));
    if (auto un = output->optional_table("units"))
      for (const std::string& name : un->keys()) s.units[name] = un->string(name);
  }
  return s;
}

void write_synthetic_cases(const synthetic_cases_spec& spec, const std::string& spec_path,
                           const std::filesystem::path& output) {
  std::vector<measured_case> cases = spec.cases;
  synthesize_cases(spec.model, spec.inputs, cases, spec.noise_sd, spec.seed);
  std::vector<std::string> c;
  c.push_back(fmt::format("SYNTHETIC measurements: computed by contactuq from model {}, not measured.",
                          spec.model.name()));
  if (!spec.title.empty()) c.push_back(spec.title);
  c.push_back(fmt::format("Made by: contactuq synthesize {} (contactuq {}), seed {}, reproducible bit "
                          "for bit from that file.",
                          spec_path, CONTACTUQ_VERSION, spec.seed));
  std::vector<std::string> noise;
  for (std::size_t j = 0; j < spec.noise_sd.size(); ++j)
    if (spec.noise_sd[j] > 0)
      noise.push_back(fmt::format("{} sd {:.6g} {}", spec.model.outputs()[j].name, spec.noise_sd[j],
                                  spec.model.outputs()[j].unit));
  c.push_back(fmt::format("Noise (normal, per value): {}.", noise.empty() ? "none" : fmt::format("{}", fmt::join(noise, ", "))));
  c.push_back("Generating inputs (SI) are those of the spec's [model] table.");
  write_case_table(output, spec.model, cases, spec.units, c);
}

namespace {

namespace h5 = io::hdf5;

// The result's attributes: the header, the loss and the fit's summary.
void write_calibration_attributes(h5::file& file, const io::study_document& doc, const calibration_study& s,
                                  const calibration_result& r) {
  io::write_result_header(file, {.format = "contactuq-calibration", .method = "calibrate", .model = r.model,
                                 .title = s.title, .study_text = doc.text(), .study_path = doc.file()});
  file.set_attribute("loss", std::string(to_string(s.options.loss)));
  file.set_attribute("confidence", r.confidence);
  file.set_attribute("cost", r.cost);
  file.set_attribute("sigma", r.sigma);
  file.set_attribute("points", static_cast<std::int64_t>(r.points));
  file.set_attribute("dof", static_cast<std::int64_t>(r.dof));
  file.set_attribute("starts_at_best", static_cast<std::int64_t>(r.starts_at_best));
  file.set_attribute("evaluations", static_cast<std::int64_t>(r.evaluations));
}

// Estimates: value, standard errors and intervals, in SI with units per row.
void write_estimates(h5::file& file, const calibration_result& r) {
  auto params = file.create_group("estimates");
  std::vector<std::string> names, unit_names;
  for (const auto& e : r.parameters) names.push_back(e.name), unit_names.push_back(e.unit);
  params.write_texts("names", names);
  params.write_texts("units", unit_names);
  const auto column = [&](std::string_view name, auto&& get) {
    std::vector<double> v;
    for (const auto& e : r.parameters) v.push_back(get(e));
    params.write(name, v).set_attribute("units", "as /estimates/units");
  };
  column("value", [](const parameter_estimate& e) { return e.value; });
  column("standard_error", [](const parameter_estimate& e) { return e.standard_error; });
  column("low", [](const parameter_estimate& e) { return e.low; });
  column("high", [](const parameter_estimate& e) { return e.high; });
  column("bound_low", [](const parameter_estimate& e) { return e.bound_low; });
  column("bound_high", [](const parameter_estimate& e) { return e.bound_high; });
  column("start", [](const parameter_estimate& e) { return e.start; });
  column("clustered_low", [](const parameter_estimate& e) { return e.clustered_low.value_or(nan); });
  column("clustered_high", [](const parameter_estimate& e) { return e.clustered_high.value_or(nan); });
  column("bootstrap_low", [](const parameter_estimate& e) { return e.bootstrap_low.value_or(nan); });
  column("bootstrap_high", [](const parameter_estimate& e) { return e.bootstrap_high.value_or(nan); });
  const auto matrix = [&](std::string_view name, const Eigen::MatrixXd& a) {
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rm = a;
    params.write(name, std::span<const double>(rm.data(), static_cast<std::size_t>(rm.size())),
                 static_cast<std::size_t>(rm.rows()), static_cast<std::size_t>(rm.cols()))
        .set_attribute("names", names);
  };
  matrix("covariance", r.covariance);
  matrix("correlation", r.correlation);
  if (r.clustered_covariance.size() > 0) matrix("clustered_covariance", r.clustered_covariance);
  if (r.bootstrap.rows() > 0) matrix("bootstrap", r.bootstrap);
}

// The model inputs at the optimum.
void write_optimum_inputs(h5::file& file, const calibration_study& s, const calibration_result& r) {
  auto inputs = file.create_group("inputs");
  inputs.write_texts("names", s.setup.model.input_names());
  inputs.write_texts("units", s.setup.model.input_units());
  inputs.write("value", r.inputs).set_attribute("units", "as /inputs/units");
}

// The cases: every model input of each case (the optimum with the case's measured inputs),
// so that figures draw measured and fitted values against whatever varied between cases.
void write_cases(h5::file& file, const calibration_study& s, const calibration_result& r) {
  auto cases = file.create_group("cases");
  std::vector<std::string> labels;
  std::vector<double> case_inputs;
  for (const auto& c : s.cases) {
    labels.push_back(c.label);
    std::vector<double> x = r.inputs;
    for (const auto& [i, v] : c.inputs) x[i] = v;
    case_inputs.insert(case_inputs.end(), x.begin(), x.end());
  }
  cases.write_texts("labels", labels);
  auto ci = cases.write("inputs", std::span<const double>(case_inputs), s.cases.size(), r.inputs.size());
  ci.set_attribute("names", s.setup.model.input_names());
  ci.set_attribute("units", s.setup.model.input_units());
  std::vector<std::string> measured_inputs;
  for (std::size_t i = 0; i < r.inputs.size(); ++i)
    if (std::any_of(s.cases.begin(), s.cases.end(), [i](const measured_case& c) {
          return std::any_of(c.inputs.begin(), c.inputs.end(), [i](const auto& p) { return p.first == i; });
        }))
      measured_inputs.push_back(s.setup.model.inputs()[i].name);
  cases.set_attribute("measured_inputs", measured_inputs);
}

// Residuals: one group per measured output or curve.
void write_residuals(h5::file& file, const calibration_study& s, const calibration_result& r) {
  auto res = file.create_group("residuals");
  res.set_attribute("cases", r.case_labels);
  for (const auto& rs : r.residuals) {
    auto g = res.create_group(rs.name);
    g.set_attribute("kind", rs.curve ? "curve" : "output");
    g.set_attribute("scale", rs.scale);
    g.set_attribute("rms", rs.rms);
    std::vector<double> ci_index(rs.case_index.begin(), rs.case_index.end()), d(rs.measured.size());
    for (std::size_t p = 0; p < d.size(); ++p) d[p] = rs.fitted[p] - rs.measured[p];
    if (rs.curve) {
      const auto& curves = s.setup.model.curves();
      const auto c = std::find_if(curves.begin(), curves.end(), [&](const auto& k) { return k.name == rs.name; });
      auto x = g.write("x", rs.x);
      if (c != curves.end()) {
        x.set_attribute("units", units::si_unit(c->abscissa_dim));
        x.set_attribute("name", c->abscissa_name);
      }
    }
    g.write("case", ci_index).set_attribute("units", "row of /cases");
    g.write("measured", rs.measured).set_attribute("units", rs.unit);
    g.write("fitted", rs.fitted).set_attribute("units", rs.unit);
    g.write("residual", d).set_attribute("units", rs.unit);
  }
}

}  // namespace

void write_calibration_hdf5(const std::filesystem::path& path, const io::study_document& doc,
                            const calibration_study& s, const calibration_result& r) {
  h5::file file(path, h5::file_mode::create);
  write_calibration_attributes(file, doc, s, r);
  write_estimates(file, r);
  write_optimum_inputs(file, s, r);
  write_cases(file, s, r);
  write_residuals(file, s, r);
  file.close();  // checked: a write that fails is an error, not a damaged file
}

}  // namespace contactuq::calibrate
