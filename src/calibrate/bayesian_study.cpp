#include "contactuq/calibrate/bayesian_study.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "contactuq/calibrate/calibration_study.hpp"
#include "contactuq/calibrate/insertion_data.hpp"
#include "contactuq/error.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/uq/random.hpp"

namespace contactuq::calibrate {

namespace u = units;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr auto npos = static_cast<std::size_t>(-1);
// Stream of the dispersed start of chain i: uq::make_engine(seed, chain_starts, i).
constexpr auto chain_starts = static_cast<uq::stream_purpose>(0xba1e5);

double normal(uq::engine& e) {
  return -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * uq::open_uniform(e));
}

std::string kinds_text() {
  return "normal {mean, sd}, lognormal {median, sigma_log} or {mean, sd}, uniform {low, high}, "
         "truncated_normal {mean, sd, low, high}, half_normal {scale}, half_cauchy {scale}";
}

std::filesystem::path resolve(const io::study_table& t, const std::string& path) {
  const std::filesystem::path p(path);
  return p.is_absolute() ? p : std::filesystem::path(t.file()).parent_path() / p;
}

std::uint64_t fnv1a(std::uint64_t h, std::string_view bytes) {
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// The support of a prior cut to [low, high] (the study's bounds or an input's valid range).
void cut(prior& p, double low, double high) {
  p.low = std::max(p.low, low);
  p.high = std::min(p.high, high);
}

std::string show(double si, units::dimension dim) {
  const std::string unit = u::si_unit(dim);
  return unit.empty() ? fmt::format("{:.6g}", si) : fmt::format("{:.6g} {}", si, unit);
}

}  // namespace

double prior::log_density(double x) const {
  if (!(x >= low && x <= high)) return -inf;
  switch (kind) {
    case prior_kind::half_normal: return -0.5 * (x / scale) * (x / scale);
    case prior_kind::half_cauchy: return -std::log1p((x / scale) * (x / scale));
    case prior_kind::normal: {
      const double m = law->mean(), s = law->stddev();
      return -0.5 * ((x - m) / s) * ((x - m) / s);
    }
    default: {
      const double d = law->pdf(x);
      return d > 0 ? std::log(d) : -inf;
    }
  }
}

double prior::median() const {
  double m = kind == prior_kind::half_normal   ? 0.6744897501960817 * scale
             : kind == prior_kind::half_cauchy ? scale
                                               : law->quantile(0.5);
  if (m > low && m < high) return m;
  if (std::isfinite(low) && std::isfinite(high)) return 0.5 * (low + high);
  return std::isfinite(low) ? low + spread() : high - spread();
}

double prior::spread() const {
  if (kind == prior_kind::half_normal || kind == prior_kind::half_cauchy) return scale;
  const double s = law->stddev();
  return std::isfinite(s) && s > 0 ? s : 1.0;
}

prior read_prior(const io::study_table& t, std::string_view key, units::dimension dim) {
  const io::study_table p = t.table(key);
  prior out;
  std::vector<std::string> items;
  for (const std::string& k : p.keys()) items.push_back(fmt::format("{} = {}", k, p.value_text(k)));
  out.text = fmt::format("{{ {} }}", fmt::join(items, ", "));
  const std::string kind = p.string("distribution");
  if (kind == "half_normal" || kind == "half_cauchy") {
    p.allow_only({"distribution", "scale"});
    out.kind = kind == "half_normal" ? prior_kind::half_normal : prior_kind::half_cauchy;
    out.scale = p.quantity("scale", dim);
    if (!(out.scale > 0) || !std::isfinite(out.scale)) p.fail("scale", "must be > 0 and finite");
    out.low = 0.0;
    return out;
  }
  const std::vector<std::pair<std::string_view, prior_kind>> laws{
      {"normal", prior_kind::normal},
      {"lognormal", prior_kind::lognormal},
      {"uniform", prior_kind::uniform},
      {"truncated_normal", prior_kind::truncated_normal}};
  const auto found = std::find_if(laws.begin(), laws.end(), [&](const auto& l) { return l.first == kind; });
  if (found == laws.end())
    p.fail("distribution", fmt::format("\"{}\" is not a prior; the priors: {}", kind, kinds_text()));
  out.kind = found->second;
  std::map<std::string, double> params;
  for (const std::string& k : p.keys()) {
    if (k == "distribution") continue;
    params[k] = p.quantity(k, k == "sigma_log" ? u::dimensionless : dim);
  }
  try {
    out.law = uq::make_distribution(kind, params);
  } catch (const parameter_error& e) {
    p.fail(e);
  }
  out.low = out.law->lower();
  out.high = out.law->upper();
  return out;
}

bool bayesian_study::has_population() const {
  return std::any_of(calibrated.begin(), calibrated.end(),
                     [](const bayes_input& b) { return b.population != population_kind::none; });
}

bayesian_study read_bayesian_study(const io::study_document& doc) {
  const io::study_table root = doc.root();
  root.allow_only({"title", "method", "model", "parameters", "data", "bayesian", "output"});
  bayesian_study s{root.string_or("title", ""), model::make_model(root.table("model")), {}, {}, {}, {}, {}, {}, {},
                   {},                          {},                                   {}, {}};
  const model::model& m = s.model;
  for (const auto& v : m.inputs()) s.inputs.push_back(v.nominal);

  // Parameters: calibrated (with priors) and fixed.
  const io::study_table params = root.table("parameters");
  for (const std::string& name : params.keys()) {
    const io::study_table t = params.table(name);
    const std::size_t i = m.find_input(name);
    if (i == m.inputs().size())
      params.fail(name, fmt::format("\"{}\" is not an input of the {} model; its inputs: {}", name, m.name(),
                                    fmt::join(m.input_names(), ", ")));
    const model::variable& v = m.inputs()[i];
    const std::string role = t.choice("role", {"calibrated", "fixed"});
    if (role == "fixed") {
      t.allow_only({"role", "value"});
      const double x = t.quantity("value", v.dim);
      if (!v.valid.contains(x))
        t.fail("value", fmt::format("{} is outside the valid range of {}: {}", show(x, v.dim), name, v.valid.text(v.dim)));
      s.inputs[i] = x;
      continue;
    }
    t.allow_only({"role", "prior", "start", "low", "high", "population", "location_prior", "scale_prior",
                  "parameterisation"});
    bayes_input b{.name = name, .input = i, .dim = v.dim, .unit = u::si_unit(v.dim)};
    const std::string population = t.choice("population", {"none", "normal", "lognormal"}, "none");
    b.population = population == "normal"      ? population_kind::normal
                   : population == "lognormal" ? population_kind::lognormal
                                               : population_kind::none;
    const std::string_view value_key = b.population == population_kind::none ? "prior" : "location_prior";
    if (b.population == population_kind::none) {
      for (const char* k : {"location_prior", "scale_prior", "parameterisation"})
        if (t.has(k)) t.fail(k, "belongs to an input with a population = \"normal\" | \"lognormal\"");
      if (!t.has("prior"))
        t.fail(fmt::format("a calibrated input needs prior = {{ distribution = \"<kind>\", ... }}; the priors: {}",
                           kinds_text()));
    } else {
      if (t.has("prior"))
        t.fail("prior", "an input with a population takes location_prior and scale_prior instead of prior");
      for (const char* k : {"location_prior", "scale_prior"})
        if (!t.has(k)) t.fail(fmt::format("population = \"{}\" needs {} = {{ distribution = ..., ... }}", population, k));
      b.centred = t.choice("parameterisation", {"noncentred", "centred"}, "noncentred") == "centred";
    }
    prior p = read_prior(t, value_key, v.dim);
    s.prior_texts.push_back(fmt::format("{}: {} = {}", name, value_key, p.text));
    // The study's bounds truncate the prior; they must lie within its support.
    const double low = t.quantity_or("low", v.dim, -inf), high = t.quantity_or("high", v.dim, inf);
    for (const auto& [key, bound] : {std::pair{"low", low}, std::pair{"high", high}})
      if (t.has(key) && !(bound >= p.low && bound <= p.high))
        t.fail(key, fmt::format("{} = {} lies outside the support [{}, {}] of the {} {}", key, show(bound, v.dim),
                                show(p.low, v.dim), show(p.high, v.dim), value_key, p.text));
    if (!(low < high)) t.fail("high", "must be above low");
    cut(p, low, high);
    cut(p, v.valid.low, v.valid.high);
    if (b.population == population_kind::lognormal) cut(p, 0.0, inf);
    if (!(p.low < p.high))
      t.fail(value_key, fmt::format("its support within the bounds and the valid range of {} ({}) is empty", name,
                                    v.valid.text(v.dim)));
    const double nominal = v.nominal;
    b.start = t.has("start") ? t.quantity("start", v.dim)
              : (nominal > p.low && nominal < p.high && std::isfinite(p.log_density(nominal))) ? nominal
                                                                                               : p.median();
    if (!std::isfinite(p.log_density(b.start)) || !(b.start > p.low || p.low == -inf) ||
        !(b.start < p.high || p.high == inf))
      t.fail(t.has("start") ? "start" : value_key,
             fmt::format("the start {} of {} lies outside the support ({}, {}) of its {} (with the bounds and the "
                         "input's valid range {}); give a start inside it",
                         show(b.start, v.dim), name, show(p.low, v.dim), show(p.high, v.dim), value_key,
                         v.valid.text(v.dim)));
    if (b.population == population_kind::none) {
      b.value_prior = std::move(p);
    } else {
      b.location_prior = std::move(p);
      const units::dimension scale_dim = b.population == population_kind::normal ? v.dim : u::dimensionless;
      b.scale_prior = read_prior(t, "scale_prior", scale_dim);
      s.prior_texts.push_back(fmt::format("{}: scale_prior = {}", name, b.scale_prior.text));
      if (b.scale_prior.low < 0)
        t.fail("scale_prior", fmt::format("{}: a population scale is positive: its prior's support must lie in "
                                          "[0, inf) (half_normal, half_cauchy, lognormal, or a uniform or "
                                          "truncated_normal with low >= 0)",
                                          b.scale_prior.text));
      cut(b.scale_prior, 0.0, inf);
    }
    s.inputs[i] = b.start;
    s.calibrated.push_back(std::move(b));
  }
  if (s.calibrated.empty())
    params.fail("no calibrated parameter: give at least one [parameters.<input>] with role = \"calibrated\" and a "
                "prior");
  for (std::size_t i = 0; i < s.inputs.size(); ++i)
    if (!std::isfinite(s.inputs[i]))
      params.fail(fmt::format("input {} of model {} has no value: give [parameters.{}]", m.inputs()[i].name, m.name(),
                              m.inputs()[i].name));

  // Data: the calibrate method's tables, with a part column.
  const io::study_table data = root.table("data");
  data.allow_only({"tables"});
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const std::string& f : data.strings("tables")) {
    const auto path = resolve(data, f);
    auto cases = read_case_table(path, m);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    hash = fnv1a(hash, bytes.str());
    s.cases.insert(s.cases.end(), cases.begin(), cases.end());
  }
  s.data_hash = fmt::format("fnv1a64:{:016x}", hash);
  for (const auto& b : s.calibrated)
    for (const auto& c : s.cases)
      for (const auto& [i, x] : c.inputs)
        if (i == b.input)
          throw data_error(c.file, c.line, fmt::format("case {} sets {}, which is calibrated", c.label, b.name));
  check_measured_cases(m, s.cases, 0);
  const bool population = s.has_population();
  for (const auto& c : s.cases) {
    if (population && c.part.empty()) {
      const auto with = std::find_if(s.calibrated.begin(), s.calibrated.end(),
                                     [](const bayes_input& b) { return b.population != population_kind::none; });
      throw data_error(c.file, c.line,
                       fmt::format("case {} has no part label: the population of {} needs a \"part\" column naming "
                                   "the physical part of every row",
                                   c.label, with->name));
    }
    const auto found = std::find(s.parts.begin(), s.parts.end(), c.part);
    s.case_part.push_back(static_cast<std::size_t>(found - s.parts.begin()));
    if (found == s.parts.end()) s.parts.push_back(c.part);
  }
  if (population && s.parts.size() < 3)
    for (const auto& b : s.calibrated)
      if (b.population != population_kind::none)
        s.warnings.push_back(fmt::format("{} part{} measured: the population scale of {} needs at least 3 parts to "
                                         "be estimated; with fewer its prior decides it",
                                         s.parts.size(), s.parts.size() == 1 ? "" : "s", b.name));

  // Options.
  const io::study_table bt = root.table("bayesian");
  bt.allow_only({"sampler", "chains", "warmup", "draws", "seed", "likelihood", "dof", "predictive_draws", "start_spread",
                 "noise"});
  bayesian_options& o = s.options;
  o.sampler = bt.choice("sampler", {"dram", "stretch"}, "dram");
  const auto count = [&](std::string_view key, std::size_t fallback, std::int64_t least) {
    const std::int64_t v = bt.integer_or(key, static_cast<std::int64_t>(fallback));
    if (v < least || v > 100'000'000) bt.fail(key, fmt::format("must be an integer in [{}, 1e8]", least));
    return static_cast<std::size_t>(v);
  };
  o.chains = count("chains", o.chains, 1);
  o.warmup = count("warmup", o.warmup, 0);
  o.draws = count("draws", o.draws, 2);
  o.predictive_draws = count("predictive_draws", o.predictive_draws, 0);
  const std::int64_t seed = bt.integer_or("seed", 1);
  if (seed < 0) bt.fail("seed", "must be an integer >= 0");
  o.seed = static_cast<std::uint64_t>(seed);
  o.start_spread = bt.quantity_or("start_spread", u::dimensionless, 1.0);
  if (!(o.start_spread > 0 && o.start_spread <= 10)) bt.fail("start_spread", "must be in (0, 10]");
  o.likelihood = bt.choice("likelihood", {"gaussian", "student_t"}, "gaussian") == "student_t"
                     ? likelihood_kind::student_t
                     : likelihood_kind::gaussian;
  if (bt.has("dof")) {
    if (o.likelihood != likelihood_kind::student_t) bt.fail("dof", "belongs to likelihood = \"student_t\"");
    o.dof = bt.quantity("dof", u::dimensionless);
    if (!(o.dof > 0) || !std::isfinite(o.dof)) bt.fail("dof", "must be > 0 and finite");
  }

  // Noise of every measured output and curve: known or inferred.
  for (const auto& c : s.cases) {
    for (const auto& [j, y] : c.outputs)
      if (std::none_of(s.noise.begin(), s.noise.end(), [&](const noise_term& n) { return !n.curve && n.index == j; }))
        s.noise.push_back({m.outputs()[j].name, false, j, m.outputs()[j].dim, 0.0, std::nullopt});
    for (const auto& mc : c.curves)
      if (std::none_of(s.noise.begin(), s.noise.end(),
                       [&](const noise_term& n) { return n.curve && n.index == mc.curve; }))
        s.noise.push_back({m.curves()[mc.curve].name, true, mc.curve, m.curves()[mc.curve].dim, 0.0, std::nullopt});
  }
  const auto noise = bt.optional_table("noise");
  std::vector<std::string> measured;
  for (const auto& n : s.noise) measured.push_back(n.name);
  if (noise)
    for (const std::string& key : noise->keys())
      if (std::find(measured.begin(), measured.end(), key) == measured.end())
        noise->fail(key, fmt::format("\"{}\" is not measured by the data; measured: {}", key, fmt::join(measured, ", ")));
  for (auto& n : s.noise) {
    if (!noise || !noise->has(n.name))
      bt.fail(fmt::format("give the noise of {}: [bayesian.noise] {} = \"<sd>\" (known) or {} = {{ prior = {{ "
                          "distribution = \"half_normal\", scale = \"<sd>\" }} }} (inferred)",
                          n.name, n.name, n.name));
    if (noise->value_text(n.name).starts_with("{")) {  // an inline table: inferred
      const io::study_table nt = noise->table(n.name);
      nt.allow_only({"prior"});
      prior p = read_prior(nt, "prior", n.dim);
      s.prior_texts.push_back(fmt::format("sigma_{}: prior = {}", n.name, p.text));
      if (p.low < 0)
        nt.fail("prior", "a noise sd is positive: its prior's support must lie in [0, inf) (half_normal, "
                         "half_cauchy, lognormal)");
      cut(p, 0.0, inf);
      n.sd_prior = std::move(p);
    } else {
      n.sd = noise->quantity(n.name, n.dim);
      if (!(n.sd > 0) || !std::isfinite(n.sd)) noise->fail(n.name, "must be > 0 and finite");
    }
  }

  if (auto output = root.optional_table("output")) {
    output->allow_only({"units"});
    if (auto un = output->optional_table("units"))
      for (const std::string& name : un->keys()) s.units[name] = un->string(name);
  }
  return s;
}

// ---- the log posterior ----

double bayesian_posterior::transform::value(double z) const {
  if (std::isfinite(low) && std::isfinite(high)) return low + (high - low) / (1.0 + std::exp(-z));
  if (std::isfinite(low)) return low + std::exp(z);
  if (std::isfinite(high)) return high - std::exp(z);
  return z;
}

double bayesian_posterior::transform::log_jacobian(double z) const {
  if (std::isfinite(low) && std::isfinite(high))
    return std::log(high - low) - std::log1p(std::exp(-z)) - std::log1p(std::exp(z));
  if (std::isfinite(low) || std::isfinite(high)) return z;
  return 0.0;
}

double bayesian_posterior::transform::inverse(double x) const {
  if (std::isfinite(low) && std::isfinite(high)) {
    const double w = (x - low) / (high - low);
    return std::log(w) - std::log1p(-w);
  }
  if (std::isfinite(low)) return std::log(x - low);
  if (std::isfinite(high)) return std::log(high - x);
  return x;
}

bayesian_posterior::bayesian_posterior(const bayesian_study& s, std::size_t threads)
    : s_(s), threads_(std::max<std::size_t>(1, threads)) {
  std::vector<double> start;
  const auto add = [&](posterior_parameter p, const prior* pr, std::size_t k, std::size_t part, double x) {
    coordinate c{.p = pr, .calibrated = k, .part = part};
    if (pr) c.t = {pr->low, pr->high};
    coords_.push_back(c);
    params_.push_back(std::move(p));
    start.push_back(pr ? c.t.inverse(x) : x);
  };
  for (std::size_t k = 0; k < s.calibrated.size(); ++k) {
    const bayes_input& b = s.calibrated[k];
    first_.push_back(coords_.size());
    if (b.population == population_kind::none) {
      add({b.name, b.unit, "value", b.dim, b.name}, &b.value_prior, k, 0, b.start);
      continue;
    }
    const bool log = b.population == population_kind::lognormal;
    const std::string law = log ? "lognormal" : "normal";
    add({b.name + "_loc", b.unit, "location", b.dim, b.name, law}, &b.location_prior, k, 0, b.start);
    add({b.name + "_scale", log ? "" : b.unit, "scale", log ? u::dimensionless : b.dim, b.name, law}, &b.scale_prior, k,
        0, b.scale_prior.median());
    for (std::size_t p = 0; p < s.parts.size(); ++p)
      add({fmt::format("{}[{}]", b.name, s.parts[p]), b.unit, "part", b.dim, b.name, law}, nullptr, k, p,
          b.centred ? (log ? std::log(b.start) : b.start) : 0.0);
  }
  for (std::size_t n = 0; n < s.noise.size(); ++n) {
    if (!s.noise[n].sd_prior) {
      noise_coord_.push_back(npos);
      continue;
    }
    noise_coord_.push_back(coords_.size());
    add({"sigma_" + s.noise[n].name, u::si_unit(s.noise[n].dim), "noise", s.noise[n].dim, ""}, &*s.noise[n].sd_prior, n,
        0, s.noise[n].sd_prior->median());
  }
  start_ = Eigen::Map<const Eigen::VectorXd>(start.data(), static_cast<Eigen::Index>(start.size()));
}

Eigen::VectorXd bayesian_posterior::physical(const Eigen::VectorXd& z) const {
  Eigen::VectorXd x(z.size());
  for (std::size_t i = 0; i < coords_.size(); ++i) {
    const auto e = static_cast<Eigen::Index>(i);
    const coordinate& c = coords_[i];
    if (c.p) {
      x[e] = c.t.value(z[e]);
      continue;
    }
    const bayes_input& b = s_.calibrated[c.calibrated];
    const auto f = static_cast<Eigen::Index>(first_[c.calibrated]);
    const double loc = x[f], scale = x[f + 1];  // earlier coordinates: already physical
    const bool log = b.population == population_kind::lognormal;
    x[e] = b.centred ? (log ? std::exp(z[e]) : z[e]) : (log ? loc * std::exp(scale * z[e]) : loc + scale * z[e]);
  }
  return x;
}

double bayesian_posterior::log_prior(const Eigen::VectorXd& z) const {
  if (!z.allFinite()) return -inf;
  const Eigen::VectorXd x = physical(z);
  double lp = 0.0;
  for (std::size_t i = 0; i < coords_.size(); ++i) {
    const auto e = static_cast<Eigen::Index>(i);
    const coordinate& c = coords_[i];
    if (c.p) {
      lp += c.p->log_density(x[e]) + c.t.log_jacobian(z[e]);
      continue;
    }
    const bayes_input& b = s_.calibrated[c.calibrated];
    if (!b.centred) {
      lp += -0.5 * z[e] * z[e];
      continue;
    }
    const auto f = static_cast<Eigen::Index>(first_[c.calibrated]);
    const double loc = b.population == population_kind::lognormal ? std::log(x[f]) : x[f], scale = x[f + 1];
    if (!(scale > 0)) return -inf;
    const double r = (z[e] - loc) / scale;
    lp += -std::log(scale) - 0.5 * r * r;
  }
  return std::isnan(lp) ? -inf : lp;
}

std::vector<double> bayesian_posterior::case_inputs(const Eigen::VectorXd& x, std::size_t c) const {
  std::vector<double> in = s_.inputs;
  for (std::size_t k = 0; k < s_.calibrated.size(); ++k) {
    const bayes_input& b = s_.calibrated[k];
    const std::size_t i = b.population == population_kind::none ? first_[k] : first_[k] + 2 + s_.case_part[c];
    in[b.input] = x[static_cast<Eigen::Index>(i)];
  }
  return in;
}

std::vector<std::vector<double>> bayesian_posterior::noise_sd(const Eigen::VectorXd& x) const {
  std::vector<std::vector<double>> out;
  for (const auto& c : s_.cases) {
    auto& v = out.emplace_back();
    const auto sd = [&](bool curve, std::size_t index) {
      for (std::size_t n = 0; n < s_.noise.size(); ++n)
        if (s_.noise[n].curve == curve && s_.noise[n].index == index)
          return noise_coord_[n] == npos ? s_.noise[n].sd : x[static_cast<Eigen::Index>(noise_coord_[n])];
      return 1.0;
    };
    for (const auto& [j, y] : c.outputs) v.push_back(sd(false, j));
    for (const auto& mc : c.curves) v.insert(v.end(), mc.x.size(), sd(true, mc.curve));
  }
  return out;
}

double bayesian_posterior::case_log_likelihood(const Eigen::VectorXd& x, std::size_t c) const {
  const measured_case& mc = s_.cases[c];
  const std::vector<double> in = case_inputs(x, c);
  for (const auto& b : s_.calibrated)
    if (!s_.model.inputs()[b.input].valid.contains(in[b.input])) return -inf;  // no model call
  std::vector<double> v;
  try {
    ++calls_;
    v = case_values(s_.model, in, mc);
  } catch (const std::exception&) {
    return -inf;
  }
  std::vector<double> y;
  for (const auto& [j, yj] : mc.outputs) y.push_back(yj);
  for (const auto& k : mc.curves) y.insert(y.end(), k.y.begin(), k.y.end());
  // The sd of each value of this case.
  std::vector<double> sd;
  for (const auto& [j, yj] : mc.outputs)
    for (std::size_t n = 0; n < s_.noise.size(); ++n)
      if (!s_.noise[n].curve && s_.noise[n].index == j)
        sd.push_back(noise_coord_[n] == npos ? s_.noise[n].sd : x[static_cast<Eigen::Index>(noise_coord_[n])]);
  for (const auto& k : mc.curves)
    for (std::size_t n = 0; n < s_.noise.size(); ++n)
      if (s_.noise[n].curve && s_.noise[n].index == k.curve)
        sd.insert(sd.end(), k.x.size(),
                  noise_coord_[n] == npos ? s_.noise[n].sd : x[static_cast<Eigen::Index>(noise_coord_[n])]);
  const double nu = s_.options.dof;
  const double t_const = std::lgamma(0.5 * (nu + 1)) - std::lgamma(0.5 * nu) - 0.5 * std::log(nu * std::numbers::pi);
  const double g_const = -0.5 * std::log(2 * std::numbers::pi);
  double ll = 0.0;
  for (std::size_t p = 0; p < y.size(); ++p) {
    const double r = (v[p] - y[p]) / sd[p];
    ll += s_.options.likelihood == likelihood_kind::gaussian ? g_const - std::log(sd[p]) - 0.5 * r * r
                                                             : t_const - std::log(sd[p]) - 0.5 * (nu + 1) * std::log1p(r * r / nu);
  }
  return std::isfinite(ll) ? ll : -inf;
}

void bayesian_posterior::log_density(const Eigen::MatrixXd& Z, Eigen::VectorXd& out, Eigen::VectorXd* ll) const {
  const auto rows = static_cast<std::size_t>(Z.rows()), cases = s_.cases.size();
  out.resize(Z.rows());
  std::vector<Eigen::VectorXd> x(rows);
  std::vector<char> live(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const Eigen::VectorXd z = Z.row(static_cast<Eigen::Index>(r)).transpose();
    out[static_cast<Eigen::Index>(r)] = log_prior(z);
    live[r] = std::isfinite(out[static_cast<Eigen::Index>(r)]);
    if (live[r]) x[r] = physical(z);
  }
  // Rows x cases on the threads; each cell its own slot, summed in order below (the same bits
  // whatever the threads).
  std::vector<double> cell(rows * cases, 0.0);
  const auto one = [&](std::size_t k) {
    const std::size_t r = k / cases, c = k % cases;
    if (live[r]) cell[k] = case_log_likelihood(x[r], c);
  };
  if (s_.model.thread_safe() && threads_ > 1 && rows * cases > 1) {
    tbb::task_arena arena(static_cast<int>(threads_));
    arena.execute([&] { tbb::parallel_for(std::size_t{0}, rows * cases, one); });
  } else {
    for (std::size_t k = 0; k < rows * cases; ++k) one(k);
  }
  if (ll) ll->resize(Z.rows());
  for (std::size_t r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (std::size_t c = 0; c < cases; ++c) sum += cell[r * cases + c];
    const auto e = static_cast<Eigen::Index>(r);
    if (ll) (*ll)[e] = live[r] ? sum : -inf;
    if (live[r]) out[e] = std::isfinite(sum) ? out[e] + sum : -inf;
  }
}

std::vector<std::vector<double>> bayesian_posterior::predictions(const Eigen::VectorXd& x) const {
  std::vector<std::vector<double>> out(s_.cases.size());
  const auto one = [&](std::size_t c) {
    ++calls_;
    try {
      out[c] = case_values(s_.model, case_inputs(x, c), s_.cases[c]);
    } catch (const std::exception&) {
      std::size_t n = s_.cases[c].outputs.size();
      for (const auto& k : s_.cases[c].curves) n += k.x.size();
      out[c].assign(n, std::numeric_limits<double>::quiet_NaN());
    }
  };
  if (s_.model.thread_safe() && threads_ > 1) {
    tbb::task_arena arena(static_cast<int>(threads_));
    arena.execute([&] { tbb::parallel_for(std::size_t{0}, s_.cases.size(), one); });
  } else {
    for (std::size_t c = 0; c < s_.cases.size(); ++c) one(c);
  }
  return out;
}

Eigen::VectorXd bayesian_posterior::start() const { return start_; }

Eigen::VectorXd bayesian_posterior::spread() const {
  // Half the prior's sd for an unbounded value, a factor e^0.5 for a log or logit coordinate,
  // half the scale prior's median for a centred part, half a population sd for a non-centred one.
  const auto d = static_cast<Eigen::Index>(coords_.size());
  Eigen::VectorXd out(d);
  for (Eigen::Index i = 0; i < d; ++i) {
    const coordinate& c = coords_[static_cast<std::size_t>(i)];
    const bool unbounded = c.p && !std::isfinite(c.t.low) && !std::isfinite(c.t.high);
    const bool centred = !c.p && s_.calibrated[c.calibrated].centred;
    out[i] = unbounded  ? 0.5 * c.p->spread()
             : centred ? 0.5 * s_.calibrated[c.calibrated].scale_prior.median()
                       : 0.5;
  }
  return out;
}

Eigen::MatrixXd bayesian_posterior::starts(std::size_t chains, std::uint64_t seed, double factor) const {
  const auto d = static_cast<Eigen::Index>(coords_.size());
  Eigen::MatrixXd z(static_cast<Eigen::Index>(chains), d);
  const Eigen::VectorXd spread = this->spread();
  for (std::size_t k = 0; k < chains; ++k) {
    auto rng = uq::make_engine(seed, chain_starts, k);
    Eigen::VectorXd best = start_;
    for (int attempt = 0; k > 0 && attempt < 20; ++attempt) {
      Eigen::VectorXd t(d);
      for (Eigen::Index i = 0; i < d; ++i) t[i] = start_[i] + factor * spread[i] * normal(rng);
      if (std::isfinite(log_prior(t))) {
        best = t;
        break;
      }
    }
    z.row(static_cast<Eigen::Index>(k)) = best.transpose();
  }
  // A start where the model fails moves back to the study's start.
  Eigen::VectorXd lp;
  log_density(z, lp);
  for (Eigen::Index k = 0; k < z.rows(); ++k)
    if (!std::isfinite(lp[k])) z.row(k) = start_.transpose();
  return z;
}

}  // namespace contactuq::calibrate
