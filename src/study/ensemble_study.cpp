#include "contactuq/study/ensemble_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "contactuq/model/registry.hpp"
#include "contactuq/uq/rank_correlation.hpp"

namespace contactuq::study {

namespace u = units;

std::string_view to_string(failure_policy p) {
  switch (p) {
    case failure_policy::record: return "record";
    case failure_policy::abort: return "abort";
    case failure_policy::retry: return "retry";
  }
  return "?";
}

std::vector<std::size_t> ensemble_study::aleatoric() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].role == io::input_role::aleatoric) out.push_back(i);
  return out;
}

std::vector<std::size_t> ensemble_study::design_variables() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].role == io::input_role::design) out.push_back(i);
  return out;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Distribution parameters that are pure numbers whatever the input's dimension.
bool dimensionless_parameter(std::string_view key) {
  return key == "sigma_log" || key == "shape" || key == "alpha" || key == "beta";
}

uq::distribution read_distribution(const io::study_table& t, u::dimension dim) {
  const std::string kind = t.string("distribution");
  std::map<std::string, double> params;
  if (kind == "discrete") {
    t.allow_only({"role", "distribution", "values", "weights"});
    const auto values = t.quantities("values", dim);
    for (std::size_t i = 0; i < values.size(); ++i) params[fmt::format("value_{}", i)] = values[i];
    if (t.has("weights")) {
      const auto weights = t.quantities("weights", u::dimensionless);
      if (weights.size() != values.size())
        t.fail("weights", fmt::format("has {} entries, values has {}", weights.size(), values.size()));
      for (std::size_t i = 0; i < weights.size(); ++i) params[fmt::format("weight_{}", i)] = weights[i];
    }
  } else {
    for (const std::string& key : t.keys()) {
      if (key == "role" || key == "distribution") continue;
      params[key] = t.quantity(key, dimensionless_parameter(key) ? u::dimensionless : dim);
    }
  }
  try {
    return uq::make_distribution(kind, params);
  } catch (const parameter_error& e) {
    if (e.field() == "kind") t.fail("distribution", e.what());
    t.fail(e);
  }
}

input_spec read_design_variable(const io::study_table& t, input_spec spec, u::dimension dim) {
  t.allow_only({"role", "low", "high", "value"});
  spec.role = io::input_role::design;
  spec.low = t.quantity("low", dim);
  spec.high = t.quantity("high", dim);
  if (!(spec.low < spec.high)) t.fail("high", fmt::format("must be > low = {}", t.value_text("low")));
  spec.value = t.quantity_or("value", dim, 0.5 * (spec.low + spec.high));
  if (!(spec.value >= spec.low && spec.value <= spec.high))
    t.fail("value", "the start of a design variable must lie within [low, high]");
  return spec;
}

input_spec read_parameter(const io::study_table& t, const model::variable& v, const study_reading& reading) {
  input_spec spec{v.name, u::si_unit(v.dim), io::input_role::fixed, v.nominal, std::nullopt};
  const std::string role = t.choice("role", {"fixed", "aleatoric", "design", "epistemic"});
  if (role == "design" && reading.design_inputs) return read_design_variable(t, spec, v.dim);
  if (role == "design" || role == "epistemic")
    t.fail("role", fmt::format("role \"{}\" is not supported by run yet (fixed or aleatoric)", role));
  if (role == "fixed") {
    t.allow_only({"role", "value"});
    spec.value = t.quantity("value", v.dim);
    return spec;
  }
  spec.role = io::input_role::aleatoric;
  spec.distribution = read_distribution(t, v.dim);
  return spec;
}

sampling_options read_sampling(const io::study_table& t, const std::vector<input_spec>& inputs,
                               const std::vector<std::size_t>& aleatoric) {
  t.allow_only({"design", "samples", "seed", "stratum", "failures", "retries", "correlation"});
  sampling_options s;
  s.design.kind = uq::parse_design_kind(
      t.choice("design", {"monte_carlo", "latin_hypercube", "maximin_latin_hypercube"}, "latin_hypercube"));
  const std::int64_t n = t.integer("samples");
  if (n < 1 || n > 1'000'000'000) t.fail("samples", "must be an integer in [1, 1000000000]");
  s.samples = static_cast<std::size_t>(n);
  const std::int64_t seed = t.integer_or("seed", 1);
  if (seed < 0) t.fail("seed", "must be an integer >= 0");
  s.design.seed = static_cast<std::uint64_t>(seed);
  s.design.position = uq::parse_stratum_position(t.choice("stratum", {"random", "centred", "centered"}, "random"));
  const std::string policy = t.choice("failures", {"record", "abort", "retry"}, "record");
  s.failures = policy == "abort" ? failure_policy::abort
               : policy == "retry" ? failure_policy::retry
                                   : failure_policy::record;
  const std::int64_t retries = t.integer_or("retries", s.retries);
  if (retries < 1 || retries > 100) t.fail("retries", "must be an integer in [1, 100]");
  s.retries = static_cast<int>(retries);

  if (!t.has("correlation")) return s;
  const auto d = static_cast<Eigen::Index>(aleatoric.size());
  s.rank_correlation = Eigen::MatrixXd::Identity(d, d);
  std::vector<std::string> names;
  for (std::size_t j : aleatoric) names.push_back(inputs[j].name);
  std::set<std::pair<Eigen::Index, Eigen::Index>> seen;
  for (const io::study_table& c : t.tables("correlation")) {
    c.allow_only({"between", "rho"});
    const auto between = c.strings("between");
    if (between.size() != 2 || between[0] == between[1])
      c.fail("between", "must name two different aleatoric parameters");
    Eigen::Index ij[2];
    for (int k = 0; k < 2; ++k) {
      const auto at = std::find(names.begin(), names.end(), between[static_cast<std::size_t>(k)]);
      if (at == names.end())
        c.fail("between", fmt::format("\"{}\" is not an aleatoric parameter; aleatoric: {}",
                                      between[static_cast<std::size_t>(k)], joined(names)));
      ij[k] = at - names.begin();
    }
    if (!seen.insert(std::minmax(ij[0], ij[1])).second)
      c.fail("between", "this pair is given a correlation twice");
    const double rho = c.quantity("rho", u::dimensionless);
    s.rank_correlation(ij[0], ij[1]) = s.rank_correlation(ij[1], ij[0]) = rho;
  }
  try {
    uq::validate_rank_correlation(s.rank_correlation, d, names);
  } catch (const parameter_error& e) {
    t.fail("correlation", e.what());
  }
  if (s.samples <= aleatoric.size())
    t.fail("samples", fmt::format("rank correlations need more samples than aleatoric parameters ({})",
                                  aleatoric.size()));
  return s;
}

}  // namespace

ensemble_study read_ensemble_study(const io::study_document& doc, const study_reading& reading) {
  const io::study_table root = doc.root();
  if (reading.design_inputs)
    root.allow_only({"title", "model", "parameters", "sampling", "optimization"});
  else
    root.allow_only({"title", "model", "parameters", "sampling"});
  ensemble_study study{root.string_or("title", ""), model::make_model(root.table("model")), {}, {}};
  const model::model& m = study.model;

  std::vector<std::optional<input_spec>> given(m.inputs().size());
  const io::study_table parameters = root.table("parameters");
  for (const std::string& name : parameters.keys()) {
    const std::size_t i = m.find_input(name);
    if (i == m.inputs().size())
      parameters.fail(name, fmt::format("not an input of model {}; its inputs: {}", m.name(),
                                        joined(m.input_names())));
    given[i] = read_parameter(parameters.table(name), m.inputs()[i], reading);
  }
  for (std::size_t i = 0; i < given.size(); ++i) {
    const model::variable& v = m.inputs()[i];
    if (given[i]) {
      study.inputs.push_back(*given[i]);
    } else {
      if (std::isnan(v.nominal))
        parameters.fail(fmt::format("model {} has no default for input {}: give it a [parameters.{}] table",
                                    m.name(), v.name, v.name));
      study.inputs.push_back({v.name, u::si_unit(v.dim), io::input_role::fixed, v.nominal, std::nullopt});
    }
  }
  const auto aleatoric = study.aleatoric();
  if (aleatoric.empty()) parameters.fail("no parameter has role \"aleatoric\": there is nothing to sample");
  study.sampling = read_sampling(root.table("sampling"), study.inputs, aleatoric);
  return study;
}

io::sample_matrix sample_inputs(const ensemble_study& study) {
  const auto aleatoric = study.aleatoric();
  const std::size_t n = study.sampling.samples;
  Eigen::MatrixXd u = uq::unit_design(n, aleatoric.size(), study.sampling.design);
  if (study.sampling.rank_correlation.size() > 0)
    u = uq::impose_rank_correlation(u, study.sampling.rank_correlation, study.sampling.design.seed);
  std::vector<uq::distribution> dists;
  for (std::size_t j : aleatoric) dists.push_back(*study.inputs[j].distribution);
  const Eigen::MatrixXd x = uq::map_to_inputs(u, dists);

  io::sample_matrix out(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(study.inputs.size()));
  for (std::size_t i = 0; i < study.inputs.size(); ++i)
    out.col(static_cast<Eigen::Index>(i)).setConstant(study.inputs[i].value);
  for (std::size_t k = 0; k < aleatoric.size(); ++k)
    out.col(static_cast<Eigen::Index>(aleatoric[k])) = x.col(static_cast<Eigen::Index>(k));
  return out;
}

}  // namespace contactuq::study
