#include "contactuq/calibrate/bayesian_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/json_writer.hpp"
#include "contactuq/io/result_file.hpp"

namespace contactuq::calibrate {

namespace h5 = io::hdf5;

namespace {

// What makes a summary worth a word of warning (Vehtari et al. 2021).
constexpr double rhat_limit = 1.01, ess_limit = 400;

using row_major = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void write_matrix(h5::group& g, std::string_view name, const row_major& a) {
  g.write(name, std::span<const double>(a.data(), static_cast<std::size_t>(a.size())),
          static_cast<std::size_t>(a.rows()), static_cast<std::size_t>(a.cols()));
}

// The file read back: what the summaries need.
struct posterior_file {
  std::string model, sampler, data_hash;
  std::size_t chains = 0, iterations = 0, warmup = 0, d = 0, model_calls = 0;
  std::vector<std::string> names, units, kinds, inputs, laws, warnings;
  std::vector<double> draws;  // (chains * iterations) x d
  std::vector<std::vector<double>> diag;  // per column below, per parameter
  std::vector<double> acceptance;
  // Kept draws of parameter p, all chains.
  std::vector<double> kept(std::size_t p) const {
    std::vector<double> v;
    for (std::size_t c = 0; c < chains; ++c)
      for (std::size_t i = warmup; i < iterations; ++i) v.push_back(draws[(c * iterations + i) * d + p]);
    return v;
  }
  std::size_t find(const std::string& name) const {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  }
};

const std::vector<std::string> diag_columns{"mean", "sd",  "mcse_mean", "mcse_sd", "q025",     "q05",
                                            "q50",  "q95", "q975",      "rhat",    "ess_bulk", "ess_tail"};
enum diag_column { c_mean, c_sd, c_mcse_mean, c_mcse_sd, c_q025, c_q05, c_q50, c_q95, c_q975, c_rhat, c_bulk, c_tail };

posterior_file read_posterior(const std::filesystem::path& path) {
  const h5::file f(path, h5::file_mode::read_only, {.latest_format = false});
  posterior_file p;
  p.model = f.string_attribute("model");
  p.sampler = f.string_attribute("sampler");
  p.data_hash = f.string_attribute("data_hash");
  p.model_calls = f.numeric_attribute<std::size_t>("model_calls");
  if (f.has_attribute("warnings")) p.warnings = f.strings_attribute("warnings");
  const h5::group post = f.open_group("posterior");
  p.names = post.open_dataset("names").read_texts();
  p.units = post.open_dataset("units").read_texts();
  p.kinds = post.open_dataset("kinds").read_texts();
  p.inputs = post.open_dataset("inputs").read_texts();
  p.laws = post.open_dataset("populations").read_texts();
  const h5::dataset draws = post.open_dataset("draws");
  const std::vector<double> shape = draws.doubles_attribute("shape");
  p.chains = static_cast<std::size_t>(shape.at(0));
  p.iterations = static_cast<std::size_t>(shape.at(1));
  p.d = static_cast<std::size_t>(shape.at(2));
  p.warmup = draws.numeric_attribute<std::size_t>("warmup");
  p.draws = draws.read_doubles();
  p.acceptance = post.open_dataset("acceptance").read_doubles();
  const h5::group diag = f.open_group("diagnostics");
  for (const auto& c : diag_columns) p.diag.push_back(diag.open_dataset(c).read_doubles());
  return p;
}

struct interval_summary {
  double median, low, high;
};
interval_summary summarize_values(const std::vector<double>& v) {
  return {sample_quantile(v, 0.5), sample_quantile(v, 0.025), sample_quantile(v, 0.975)};
}

// Per input with a population: its mean and sd per draw (lognormal: from median and sigma_log).
struct population_summary {
  std::string input, law;
  interval_summary mean, sd;
};
std::vector<population_summary> populations(const posterior_file& p) {
  std::vector<population_summary> out;
  for (std::size_t i = 0; i < p.d; ++i) {
    if (p.kinds[i] != "location") continue;
    const std::size_t s = p.find(p.inputs[i] + "_scale");
    if (s == p.names.size()) continue;
    const std::vector<double> loc = p.kept(i), scale = p.kept(s);
    const bool lognormal = p.laws[i] == "lognormal";
    std::vector<double> mean(loc.size()), sd(loc.size());
    for (std::size_t k = 0; k < loc.size(); ++k) {
      // A lognormal population's location is its median and its scale sigma_log.
      if (lognormal) {
        mean[k] = loc[k] * std::exp(0.5 * scale[k] * scale[k]);
        sd[k] = mean[k] * std::sqrt(std::expm1(scale[k] * scale[k]));
      } else {
        mean[k] = loc[k];
        sd[k] = scale[k];
      }
    }
    out.push_back({p.inputs[i], lognormal ? "lognormal" : "normal", summarize_values(mean), summarize_values(sd)});
  }
  return out;
}

std::vector<std::string> warnings(const posterior_file& p) {
  std::vector<std::string> out = p.warnings;
  std::vector<std::string> rhat, ess;
  for (std::size_t i = 0; i < p.d; ++i) {
    if (!(p.diag[c_rhat][i] <= rhat_limit)) rhat.push_back(fmt::format("{} ({:.3f})", p.names[i], p.diag[c_rhat][i]));
    if (!(std::min(p.diag[c_bulk][i], p.diag[c_tail][i]) >= ess_limit))
      ess.push_back(fmt::format("{} ({:.0f})", p.names[i], std::min(p.diag[c_bulk][i], p.diag[c_tail][i])));
  }
  if (!rhat.empty())
    out.push_back(fmt::format("R-hat above {} for {}: the chains have not mixed and disagree; run longer chains (more "
                              "warmup and draws), or reparameterise (parameterisation = \"noncentred\" when the data "
                              "per part are weak, \"centred\" when they are strong)",
                              rhat_limit, fmt::join(rhat, ", ")));
  if (!ess.empty())
    out.push_back(fmt::format("effective sample size below {} for {}: too few independent draws for stable intervals; "
                              "run more draws (or chains)",
                              ess_limit, fmt::join(ess, ", ")));
  for (std::size_t c = 0; c < p.acceptance.size(); ++c)
    if (p.acceptance[c] < 0.01)
      out.push_back(fmt::format("chain {} accepted {:.2g} % of its proposals: it is stuck; check the priors against the "
                                "data, give better starts, or use sampler = \"stretch\"",
                                c, 100 * p.acceptance[c]));
  return out;
}

}  // namespace

double sample_quantile(std::vector<double> v, double p) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double h = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

void write_posterior_hdf5(const std::filesystem::path& path, const io::study_document& doc, const bayesian_study& s,
                          const posterior_run& r) {
  h5::file file(path, h5::file_mode::create);
  io::write_result_header(file, {.format = "contactuq-posterior", .method = "bayesian", .model = s.model.name(),
                                 .title = s.title, .study_text = doc.text(), .study_path = doc.file()});
  const std::size_t chains = r.kept.size(), d = r.parameters.size(), iterations = r.warmup + r.draws;
  file.set_attribute("sampler", s.options.sampler);
  file.set_attribute("chains", static_cast<std::int64_t>(chains));
  file.set_attribute("warmup", static_cast<std::int64_t>(r.warmup));
  file.set_attribute("draws", static_cast<std::int64_t>(r.draws));
  file.set_attribute("seed", static_cast<std::uint64_t>(s.options.seed));
  file.set_attribute("likelihood", s.options.likelihood == likelihood_kind::gaussian ? "gaussian" : "student_t");
  if (s.options.likelihood == likelihood_kind::student_t) file.set_attribute("dof", s.options.dof);
  file.set_attribute("model_calls", static_cast<std::int64_t>(r.model_calls));
  file.set_attribute("log_density_rows", static_cast<std::int64_t>(r.evaluations));
  file.set_attribute("seconds", r.seconds);
  file.set_attribute("data_hash", s.data_hash);
  file.set_attribute("parts", s.parts);
  file.set_attribute("warnings", s.warnings);

  auto post = file.create_group("posterior");
  std::vector<std::string> names, units, kinds, inputs, laws;
  for (const auto& p : r.parameters) {
    laws.push_back(p.population);
    names.push_back(p.name);
    units.push_back(p.unit);
    kinds.push_back(p.kind);
    inputs.push_back(p.input);
  }
  post.write_texts("names", names);
  post.write_texts("units", units);
  post.write_texts("kinds", kinds);
  post.write_texts("inputs", inputs);
  post.write_texts("populations", laws);
  row_major all(static_cast<Eigen::Index>(chains * iterations), static_cast<Eigen::Index>(d));
  for (std::size_t c = 0; c < chains; ++c) {
    const auto first = static_cast<Eigen::Index>(c * iterations);
    if (r.warmup > 0) all.middleRows(first, static_cast<Eigen::Index>(r.warmup)) = r.warmup_draws[c];
    all.middleRows(first + static_cast<Eigen::Index>(r.warmup), static_cast<Eigen::Index>(r.draws)) = r.kept[c];
  }
  write_matrix(post, "draws", all);
  auto ds = post.open_dataset("draws");
  const std::vector<double> shape{static_cast<double>(chains), static_cast<double>(iterations), static_cast<double>(d)};
  ds.set_attribute("shape", std::span<const double>(shape));
  ds.set_attribute("dims", std::vector<std::string>{"chain", "draw", "parameter"});
  ds.set_attribute("warmup", static_cast<std::int64_t>(r.warmup));
  ds.set_attribute("units", "as /posterior/units");
  std::vector<double> mask(iterations, 0.0);
  std::fill(mask.begin(), mask.begin() + static_cast<std::ptrdiff_t>(r.warmup), 1.0);
  post.write("warmup_mask", mask);
  write_matrix(post, "starts", r.starts);
  row_major lp(static_cast<Eigen::Index>(chains), static_cast<Eigen::Index>(r.draws)), ll = lp;
  for (std::size_t c = 0; c < chains; ++c) {
    lp.row(static_cast<Eigen::Index>(c)) = r.log_posterior[c].transpose();
    ll.row(static_cast<Eigen::Index>(c)) = r.log_likelihood[c].transpose();
  }
  write_matrix(post, "log_posterior", lp);
  post.open_dataset("log_posterior")
      .set_attribute("note", "log density in the sampler's coordinates: log prior + log-Jacobian of the transforms + "
                             "log likelihood");
  write_matrix(post, "log_likelihood", ll);
  post.write("acceptance", r.acceptance);
  post.write("warmup_acceptance", r.warmup_acceptance);

  auto priors = file.create_group("priors");
  priors.write_texts("texts", s.prior_texts.empty() ? std::vector<std::string>{""} : s.prior_texts);

  auto diag = file.create_group("diagnostics");
  diag.write_texts("names", names);
  const auto column = [&](std::string_view name, auto&& get) {
    std::vector<double> v;
    for (const auto& e : r.diagnostics) v.push_back(get(e));
    diag.write(name, v);
  };
  column("mean", [](const parameter_diagnostics& e) { return e.mean; });
  column("sd", [](const parameter_diagnostics& e) { return e.sd; });
  column("mcse_mean", [](const parameter_diagnostics& e) { return e.mcse_mean; });
  column("mcse_sd", [](const parameter_diagnostics& e) { return e.mcse_sd; });
  column("q025", [](const parameter_diagnostics& e) { return e.q025; });
  column("q05", [](const parameter_diagnostics& e) { return e.q05; });
  column("q50", [](const parameter_diagnostics& e) { return e.q50; });
  column("q95", [](const parameter_diagnostics& e) { return e.q95; });
  column("q975", [](const parameter_diagnostics& e) { return e.q975; });
  column("rhat", [](const parameter_diagnostics& e) { return e.rhat; });
  column("ess_bulk", [](const parameter_diagnostics& e) { return e.ess_bulk; });
  column("ess_tail", [](const parameter_diagnostics& e) { return e.ess_tail; });

  if (!r.predictive.empty()) {
    auto pred = file.create_group("predictive");
    std::vector<std::string> pn, labels, parts;
    for (const auto& v : r.predictive) {
      pn.push_back(v.name);
      labels.push_back(s.cases[v.case_index].label);
      parts.push_back(s.cases[v.case_index].part);
    }
    pred.write_texts("name", pn);
    pred.write_texts("case_label", labels);
    pred.write_texts("part", parts);
    const auto col = [&](std::string_view name, auto&& get) {
      std::vector<double> v;
      for (const auto& e : r.predictive) v.push_back(get(e));
      pred.write(name, v);
    };
    col("case", [](const predictive_value& e) { return static_cast<double>(e.case_index); });
    col("x", [](const predictive_value& e) { return e.x; });
    col("measured", [](const predictive_value& e) { return e.measured; });
    col("mean", [](const predictive_value& e) { return e.mean; });
    col("q05", [](const predictive_value& e) { return e.q05; });
    col("q50", [](const predictive_value& e) { return e.q50; });
    col("q95", [](const predictive_value& e) { return e.q95; });
    col("p_below", [](const predictive_value& e) { return e.p_below; });
  }
  file.close();
}

std::string describe_posterior_file(const std::filesystem::path& path) {
  const posterior_file p = read_posterior(path);
  std::string out;
  const auto o = std::back_inserter(out);
  fmt::format_to(o, "posterior of model {}: sampler {}, {} chain{}, {} warm-up + {} draws each, {} model calls\n",
                 p.model, p.sampler, p.chains, p.chains == 1 ? "" : "s", p.warmup, p.iterations - p.warmup,
                 p.model_calls);
  fmt::format_to(o, "acceptance per chain: {:.3f}\n\n", fmt::join(p.acceptance, ", "));
  fmt::format_to(o, "  {:<20} {:>12} {:>27} {:>12} {:>7} {:>8} {:>8}  {}\n", "parameter", "median", "95 % interval",
                 "sd", "R-hat", "ESS bulk", "ESS tail", "unit (SI)");
  for (std::size_t i = 0; i < p.d; ++i) {
    const bool bad = !(p.diag[c_rhat][i] <= rhat_limit) || !(std::min(p.diag[c_bulk][i], p.diag[c_tail][i]) >= ess_limit);
    fmt::format_to(o, "  {:<20} {:>12.5g} {:>27} {:>12.4g} {:>7.3f} {:>8.0f} {:>8.0f}  {}{}\n", p.names[i],
                   p.diag[c_q50][i], fmt::format("[{:.5g}, {:.5g}]", p.diag[c_q025][i], p.diag[c_q975][i]),
                   p.diag[c_sd][i], p.diag[c_rhat][i], p.diag[c_bulk][i], p.diag[c_tail][i], p.units[i],
                   bad ? "  <- check" : "");
  }
  const auto pops = populations(p);
  if (!pops.empty()) {
    fmt::format_to(o, "\n  population (part-to-part scatter): median and 95 % interval\n");
    for (const auto& pop : pops)
      fmt::format_to(o, "  {:<14} {:<9} mean {:.5g} [{:.5g}, {:.5g}]   sd {:.5g} [{:.5g}, {:.5g}]\n", pop.input, pop.law,
                     pop.mean.median, pop.mean.low, pop.mean.high, pop.sd.median, pop.sd.low, pop.sd.high);
  }
  const auto w = warnings(p);
  if (!w.empty()) fmt::format_to(o, "\n");
  for (const auto& line : w) fmt::format_to(o, "warning: {}\n", line);
  return out;
}

std::string posterior_file_json(const std::filesystem::path& path) {
  const posterior_file p = read_posterior(path);
  io::json_writer w;
  w.begin_object();
  w.field("file", path.string());
  w.field("format", std::string_view("contactuq-posterior"));
  w.field("method", std::string_view("bayesian"));
  w.field("model", p.model);
  w.field("sampler", p.sampler);
  w.field("chains", p.chains);
  w.field("warmup", p.warmup);
  w.field("draws", p.iterations - p.warmup);
  w.field("model_calls", p.model_calls);
  w.field("data_hash", p.data_hash);
  w.key("bayesian");
  w.begin_object();
  w.key("parameters");
  w.begin_object();
  const auto interval = [&](double lo, double hi) {
    w.begin_array();
    w.value(lo);
    w.value(hi);
    w.end_array();
  };
  for (std::size_t i = 0; i < p.d; ++i) {
    w.key(p.names[i]);
    w.begin_object();
    w.field("median", p.diag[c_q50][i]);
    w.key("ci95");
    interval(p.diag[c_q025][i], p.diag[c_q975][i]);
    w.field("mean", p.diag[c_mean][i]);
    w.field("sd", p.diag[c_sd][i]);
    w.field("mcse_mean", p.diag[c_mcse_mean][i]);
    w.field("rhat", p.diag[c_rhat][i]);
    w.field("ess_bulk", p.diag[c_bulk][i]);
    w.field("ess_tail", p.diag[c_tail][i]);
    w.field("unit", p.units[i]);
    w.field("kind", p.kinds[i]);
    w.end_object();
  }
  w.end_object();
  w.key("population");
  w.begin_object();
  for (const auto& pop : populations(p)) {
    w.key(pop.input);
    w.begin_object();
    w.field("law", pop.law);
    for (const auto& [name, v] : {std::pair{"mean", pop.mean}, std::pair{"sd", pop.sd}}) {
      w.key(name);
      w.begin_object();
      w.field("median", v.median);
      w.key("ci95");
      interval(v.low, v.high);
      w.end_object();
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
  w.key("warnings");
  w.begin_array();
  for (const auto& line : warnings(p)) w.value(line);
  w.end_array();
  w.end_object();
  return w.str();
}

}  // namespace contactuq::calibrate
