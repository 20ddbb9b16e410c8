#include "contactuq/calibrate/fit_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"

namespace contactuq::calibrate {

namespace u = units;

namespace {

std::filesystem::path resolve(const io::study_table& t, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return p;
  return std::filesystem::path(t.file()).parent_path() / p;
}

// [output] units = { length, force, angle } or a preset, as in curve studies; angles read
// better in degrees.
study::output_units read_units(const io::study_table& output, bool& given) {
  given = output.has("units");
  return study::read_units_key(output, {"m", "N", "deg"});
}

units::dimension input_dimension(const std::string& name) {
  for (const auto& p : study::receptacle_pin_parameters())
    if (name == p.name) return p.dim;
  return u::length;  // g<g>_d0
}

}  // namespace

namespace {

// [data]: the measurement files, their force convention and v_norm.
void read_data_table(const io::study_table& data, fit_study& s) {
  data.allow_only({"files", "force_convention", "v_norm"});
  for (const std::string& f : data.strings("files")) s.files.push_back(resolve(data, f));
  s.convention = data.choice("force_convention", {"on_receptacle", "insertion_positive"},
                             "on_receptacle") == "on_receptacle"
                     ? force_convention::on_receptacle
                     : force_convention::insertion_positive;
  s.model.v_norm = data.quantity_or("v_norm", u::dimensionless, s.model.v_norm);
  if (!(std::isfinite(s.model.v_norm) && s.model.v_norm > 0)) data.fail("v_norm", "must be > 0");
}

// [fit.parameters.<name>]: one free parameter, an input of the model, with bounds the model
// accepts.
free_parameter read_free_parameter(const io::study_table& params, const std::string& name,
                                   const fit_study& s) {
  const io::study_table t = params.table(name);
  t.allow_only({"low", "high", "start"});
  bool known = name.size() > 4 && name.starts_with("g") && name.ends_with("_d0");
  if (known) {
    const std::string digits = name.substr(1, name.size() - 4);
    known = digits.find_first_not_of("0123456789") == std::string::npos &&
            digits.front() != '0' && std::stoul(digits) <= s.model.groups.size();
  }
  for (const auto& p : study::receptacle_pin_parameters()) known = known || name == p.name;
  if (!known) {
    std::vector<std::string> inputs;
    for (const auto& p : study::receptacle_pin_parameters()) inputs.emplace_back(p.name);
    for (std::size_t g = 1; g <= s.model.groups.size(); ++g)
      inputs.push_back(fmt::format("g{}_d0", g));
    params.fail(name, fmt::format("not an input of the receptacle_pin model; its inputs: {}",
                                  fmt::join(inputs, ", ")));
  }
  const units::dimension dim = input_dimension(name);
  free_parameter fp{name, t.quantity("low", dim), t.quantity("high", dim), std::nullopt};
  if (t.has("start")) fp.start = t.quantity("start", dim);
  if (!(fp.low < fp.high)) t.fail("high", "must be greater than low");
  if (fp.start && !(*fp.start >= fp.low && *fp.start <= fp.high))
    t.fail("start", "must lie within [low, high]");
  // Each bound must be a value the model accepts.
  for (const char* key : {"low", "high"}) {
    contact::receptacle_pin_params p = s.model.params;
    std::vector<contact::arm_group> g = s.model.groups;
    const double v = std::string_view(key) == "low" ? fp.low : fp.high;
    bool set = false;
    for (const auto& info : study::receptacle_pin_parameters())
      if (name == info.name) {
        p.*info.field = v;
        set = true;
      }
    if (!set) g[std::stoul(name.substr(1, name.size() - 4)) - 1].d0 = v;
    try {
      p.validate();
      for (const auto& gr : g) gr.validate();
    } catch (const parameter_error& e) {
      t.fail(key, e.what());
    }
  }
  return fp;
}

// The free parameters in the model's input order (K, mu, ..., g1_d0), whatever the file's.
void order_parameters(std::vector<free_parameter>& parameters) {
  auto order = [](const free_parameter& fp) {
    const auto& info = study::receptacle_pin_parameters();
    for (std::size_t i = 0; i < info.size(); ++i)
      if (fp.name == info[i].name) return i;
    return info.size() + std::stoul(fp.name.substr(1, fp.name.size() - 4));
  };
  std::stable_sort(
      parameters.begin(), parameters.end(),
      [&](const free_parameter& a, const free_parameter& b) { return order(a) < order(b); });
}

// [fit] apart from its parameters: offsets, starts, seed, loss, confidence, bootstrap, limits.
void read_fit_options(const io::study_table& fit, fit_options& o) {
  if (fit.has("offsets")) {
    const io::study_table t = fit.table("offsets");
    t.allow_only({"low", "high"});
    o.offsets = std::pair{t.quantity("low", u::length), t.quantity("high", u::length)};
    if (!(o.offsets->first < 0)) t.fail("low", "must be < 0 (the offsets sum to zero)");
    if (!(o.offsets->second > 0)) t.fail("high", "must be > 0 (the offsets sum to zero)");
  }
  const std::int64_t starts = fit.integer_or("starts", o.starts);
  if (starts < 1 || starts > 1000) fit.fail("starts", "must be an integer in [1, 1000]");
  o.starts = static_cast<int>(starts);
  const std::int64_t seed = fit.integer_or("seed", 1);
  if (seed < 0) fit.fail("seed", "must be an integer >= 0");
  o.seed = static_cast<std::uint64_t>(seed);
  const std::string loss = fit.choice("loss", {"squared", "huber", "cauchy"}, "squared");
  o.loss = loss == "huber"    ? loss_kind::huber
           : loss == "cauchy" ? loss_kind::cauchy
                              : loss_kind::squared;
  if (o.loss != loss_kind::squared) {
    o.loss_scale = fit.quantity("loss_scale", u::force);
    if (!(o.loss_scale > 0)) fit.fail("loss_scale", "must be > 0");
  } else if (fit.has("loss_scale")) {
    fit.fail("loss_scale", "applies only to loss = \"huber\" or \"cauchy\"");
  }
  o.confidence = fit.quantity_or("confidence", u::dimensionless, o.confidence);
  if (!(o.confidence > 0 && o.confidence < 1))
    fit.fail("confidence", "must be in (0, 1), e.g. 0.95");
  const std::int64_t boot = fit.integer_or("bootstrap", 0);
  if (boot != 0 && (boot < 10 || boot > 10000))  // as fit_options::validate(): refits cost
    fit.fail("bootstrap", "must be 0 (off) or an integer in [10, 10000]");
  o.bootstrap = static_cast<int>(boot);
  const std::int64_t maxev = fit.integer_or("max_evaluations", o.max_evaluations);
  if (maxev < 10 || maxev > 100'000'000)
    fit.fail("max_evaluations", "must be an integer in [10, 100000000]");
  o.max_evaluations = static_cast<int>(maxev);
  o.tolerance = fit.quantity_or("tolerance", u::dimensionless, o.tolerance);
  if (!(o.tolerance >= 1e-15 && o.tolerance <= 1e-2))
    fit.fail("tolerance", "must be in [1e-15, 1e-2]");
  o.parallel = fit.boolean_or("parallel", true);
  try {
    o.validate();
  } catch (const parameter_error& e) {
    fit.fail(e.what());
  }
}

}  // namespace

fit_study read_fit_study(const io::study_document& doc) {
  const io::study_table root = doc.root();
  root.allow_only({"title", "method", "model", "data", "fit", "output"});
  fit_study s;
  s.title = root.string_or("title", "");
  const io::study_table model = root.table("model");
  const study::receptacle_pin_setup setup = study::read_receptacle_pin_table(model);
  s.model.params = setup.params;
  s.model.groups = setup.arms;

  const io::study_table data = root.table("data");
  read_data_table(data, s);

  const io::study_table fit = root.table("fit");
  fit.allow_only({"parameters", "offsets", "starts", "seed", "loss", "loss_scale", "confidence",
                  "bootstrap", "max_evaluations", "tolerance", "parallel"});
  fit_options& o = s.options;
  const io::study_table params = fit.table("parameters");
  for (const std::string& name : params.keys())
    o.parameters.push_back(read_free_parameter(params, name, s));
  if (o.parameters.empty())
    params.fail("no free parameter: give at least one [fit.parameters.<input>] table");
  order_parameters(o.parameters);
  read_fit_options(fit, o);

  s.units.angle = "deg";
  if (auto output = root.optional_table("output")) {
    output->allow_only({"units"});
    s.units = read_units(*output, s.units_given);
  }
  return s;
}

insertion_data load_fit_data(fit_study& study) {
  insertion_data data = read_insertion_csvs(study.files, study.convention);
  if (!study.units_given) {
    study.units.length = data.length_unit;
    study.units.force = data.force_unit;
  }
  return data;
}

synthetic_study read_synthetic_study(const io::study_document& doc) {
  const io::study_table root = doc.root();
  root.allow_only({"title", "model", "synthetic", "output"});
  synthetic_study s;
  s.title = root.string_or("title", "");
  const study::receptacle_pin_setup setup = study::read_receptacle_pin_table(root.table("model"));
  s.params = setup.params;
  s.groups = setup.arms;
  const io::study_table t = root.table("synthetic");
  t.allow_only({"insertions", "seed", "from", "to", "points", "v_norm", "noise_sd", "position_sd",
                "misalignment_sd", "ripple", "ripple_wavelength", "disclose"});
  synthetic_options& o = s.options;
  o.insertions = static_cast<int>(t.integer_or("insertions", o.insertions));
  const std::int64_t seed = t.integer_or("seed", 1);
  if (seed < 0) t.fail("seed", "must be an integer >= 0");
  o.seed = static_cast<std::uint64_t>(seed);
  o.from = t.quantity("from", u::length);
  o.to = t.quantity("to", u::length);
  o.points = static_cast<int>(t.integer_or("points", o.points));
  o.v_norm = t.quantity_or("v_norm", u::dimensionless, o.v_norm);
  o.noise_sd = t.quantity_or("noise_sd", u::force, 0.0);
  o.position_sd = t.quantity_or("position_sd", u::length, 0.0);
  o.misalignment_sd = t.quantity_or("misalignment_sd", u::length, 0.0);
  o.ripple = t.quantity_or("ripple", u::dimensionless, 0.0);
  o.ripple_wavelength = t.quantity_or("ripple_wavelength", u::length, o.ripple_wavelength);
  s.disclose = t.boolean_or("disclose", true);
  try {
    o.validate();
  } catch (const parameter_error& e) {
    t.fail(e);
  }
  s.units.angle = "deg";
  if (auto output = root.optional_table("output")) {
    output->allow_only({"units", "file", "digits"});
    const std::int64_t digits = output->integer_or("digits", 0);
    if (digits < 0 || digits > 17)
      output->fail("digits", "must be an integer in [1, 17], or 0 for round-trip text");
    s.digits = static_cast<int>(digits);
    bool given = false;
    s.units = read_units(*output, given);
    if (output->has("file")) s.output = resolve(*output, output->string("file"));
  }
  return s;
}

std::vector<std::string> describe_synthetic(const synthetic_study& s, const synthetic_dataset& d,
                                            const std::string& spec_path) {
  const study::output_units& un = s.units;
  const std::string len = un.unit_for(u::length), force = un.unit_for(u::force);
  auto L = [&](double v) { return un.from_si(v, u::length); };
  std::vector<std::string> c;
  c.push_back("SYNTHETIC insertion-force data: computed by contactuq, not measured on a bench.");
  if (!s.title.empty()) c.push_back(s.title);
  c.push_back(fmt::format(
      "Made by: contactuq synthesize {} (contactuq {}), reproducible bit for bit from that file.",
      spec_path, CONTACTUQ_VERSION));
  c.push_back(
      "Model: receptacle-pin insertion force, Williams SAND2015-20731 eqs. (1.1)-(1.93); F is the "
      "total");
  c.push_back(
      "force of the pin on the receptacle along +x (negative while inserting), columns in the "
      "units shown.");
  c.push_back(fmt::format(
      "Strokes: {} insertions, forward x = {:.6g} -> {:.6g} {} then reverse, {} points each way, "
      "v/v_t = {:g}.",
      s.options.insertions, L(s.options.from), L(s.options.to), len, s.options.points,
      s.options.v_norm));
  c.push_back(fmt::format(
      "Measurement effects: load-cell noise sd {:.6g} {}; pin position scatter sd {:.6g} {}; "
      "lateral misalignment sd {:.6g} {} (arms at h + e and h - e);",
      un.from_si(s.options.noise_sd, u::force), force, L(s.options.position_sd), len,
      L(s.options.misalignment_sd), len));
  c.push_back(fmt::format(
      "friction ripple mu (1 + {:g} sin(2 pi d / {:.6g} {} + phase)), random phase per insertion.",
      s.options.ripple, L(s.options.ripple_wavelength), len));
  if (!s.disclose) {
    c.push_back(
        "Generating parameters: withheld from this file on purpose (a blind test; the test suite "
        "holds them).");
    return c;
  }
  std::vector<std::string> values;
  for (const auto& p : study::receptacle_pin_parameters())
    values.push_back(fmt::format("{} = {:.6g}{}{}", p.name, un.from_si(s.params.*p.field, p.dim),
                                 p.dim == u::dimensionless ? "" : " ", un.unit_for(p.dim)));
  c.push_back(fmt::format("Generating values: {}", fmt::join(values, ", ")));
  for (std::size_t g = 0; g < s.groups.size(); ++g)
    c.push_back(fmt::format("Arm group g{}: d0 = {:.6g} {}, {}, {} arm{}", g + 1, L(s.groups[g].d0),
                            len, contact::to_string(s.groups[g].direction), s.groups[g].count,
                            s.groups[g].count == 1 ? "" : "s"));
  for (const auto& i : d.insertions)
    c.push_back(fmt::format(
        "Insertion {}: position shift s = {:+.6g} {}, misalignment e = {:+.6g} {}, ripple phase "
        "{:.4f} rad",
        i.label, L(i.position), len, L(i.misalignment), len, i.ripple_phase));
  return c;
}

}  // namespace contactuq::calibrate
