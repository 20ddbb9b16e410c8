#include "contactuq/study/ensemble_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <span>
#include <stdexcept>

#include "contactuq/model/registry.hpp"
#include "contactuq/uq/random.hpp"
#include "contactuq/uq/nataf.hpp"
#include "contactuq/uq/rank_correlation.hpp"
#include "contactuq/uq/sensitivity.hpp"

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

// The role an ensemble stores for a variable (read_ensemble_study accepts no other roles).
io::input_role input_role_of(variable_role r) {
  switch (r) {
    case variable_role::design: return io::input_role::design;
    case variable_role::aleatoric: return io::input_role::aleatoric;
    case variable_role::epistemic: return io::input_role::epistemic;
    default: return io::input_role::fixed;
  }
}

// Every combination of the epistemic choices, the first parameter varying slowest, each with
// its model: rebuilt from the [model] table with the case's [model]-key choices.
std::vector<epistemic_case> make_cases(const ensemble_study& study, const io::study_table& model_table,
                                       const io::study_table& parameters) {
  std::vector<epistemic_case> cases;
  std::vector<std::size_t> choice(study.epistemic.size(), 0);
  while (true) {
    for (std::size_t p = 0; p < study.epistemic.size(); ++p)  // a case table's columns take its row
      if (study.epistemic[p].follows != epistemic_parameter::npos) choice[p] = choice[study.epistemic[p].follows];
    epistemic_case c{"", choice, study.model, {}};
    std::vector<std::string> parts;
    bool rebuild = false;
    io::study_table table = model_table;
    for (std::size_t p = 0; p < study.epistemic.size(); ++p) {
      const epistemic_parameter& e = study.epistemic[p];
      if (e.follows != epistemic_parameter::npos) continue;
      parts.push_back(fmt::format("{}={}", e.name, e.labels[choice[p]]));
      if (e.model_key) {
        table = table.with_element(e.name, parameters.table(e.name), "choices", choice[p]);
        rebuild = true;
      }
    }
    c.label = parts.empty() ? "nominal" : fmt::format("{}", fmt::join(parts, ", "));
    if (rebuild) {
      try {
        c.model = model::make_model(table);
      } catch (const io::study_error& e) {
        if (e.line() > 0) throw;
        // The value came from a choices array (with_element): point there.
        const auto first = std::find_if(study.epistemic.begin(), study.epistemic.end(),
                                        [](const epistemic_parameter& p) { return p.model_key; });
        const std::string prefix = e.file() + ": ";
        const std::string what = e.what();
        parameters.table(first->name)
            .fail("choices", fmt::format("case {}: {}", c.label,
                                         what.starts_with(prefix) ? what.substr(prefix.size()) : what));
      }
      const auto& m0 = study.model;
      bool same = c.model.output_names() == m0.output_names() && c.model.curve_names() == m0.curve_names();
      for (std::size_t k = 0; same && k < m0.curves().size(); ++k)
        same = c.model.curves()[k].abscissa.size() == m0.curves()[k].abscissa.size();
      if (!same)
        parameters.fail(fmt::format("case {} gives the model other outputs or curves than the [model] table; "
                                    "epistemic choices must keep them",
                                    c.label));
      if (c.model.input_names() != m0.input_names()) {
        // Inputs shared with the study come from its columns, the others keep their nominal.
        for (const model::variable& v : c.model.inputs()) {
          const std::size_t i = m0.find_input(v.name);
          if (i == m0.inputs().size() && std::isnan(v.nominal))
            parameters.fail(fmt::format("case {}: input {} has no value; set it in the [model] table", c.label,
                                        v.name));
          c.input_columns.push_back(i == m0.inputs().size() ? epistemic_case::npos : i);
        }
      }
    }
    cases.push_back(std::move(c));
    // Next combination, last parameter fastest; a case table's columns are no parameters of
    // their own (their head comes first, so p = 0 never follows).
    std::size_t p = study.epistemic.size();
    while (p > 0) {
      --p;
      if (study.epistemic[p].follows != epistemic_parameter::npos) continue;
      if (++choice[p] < study.epistemic[p].labels.size()) break;
      choice[p] = 0;
      if (p == 0) return cases;
    }
    if (study.epistemic.empty()) return cases;
  }
}

// The Spearman correlation a [[sampling.correlation]] entry asks for: rho itself (kind =
// "spearman"), or the rank correlation of the Gaussian copula that a Pearson or normal
// correlation gives (uq/nataf.hpp), so a kind means the same here as in a reliability study.
double rank_correlation_of(const io::study_table& c, const uq::distribution& a, const uq::distribution& b) {
  const double rho = c.quantity("rho", u::dimensionless);
  const std::string kind = c.choice("kind", {"spearman", "pearson", "normal"}, "spearman");
  if (kind == "spearman") return rho;
  if (!(std::abs(rho) < 1)) c.fail("rho", "must be in (-1, 1)");
  try {
    return uq::spearman_correlation_of(a, b, rho, kind == "pearson" ? uq::correlation_kind::pearson
                                                                    : uq::correlation_kind::normal);
  } catch (const parameter_error& e) {
    c.fail(e.field() == "distribution" ? "kind" : "rho", e.what());
  }
}

sampling_options read_sampling(const io::study_table& t, const std::vector<input_spec>& inputs,
                               const std::vector<std::size_t>& aleatoric) {
  t.allow_only({"design", "method", "samples", "seed", "stratum", "failures", "retries", "correlation", "sobol",
                "replicates"});
  sampling_options s;
  // `method` is another name of `design` (the word other UQ tools use).
  if (t.has("design") && t.has("method")) t.fail("method", "give the design once: design or method, not both");
  const char* design_key = t.has("method") ? "method" : "design";
  s.design.kind = uq::parse_design_kind(t.choice(
      design_key, {"monte_carlo", "latin_hypercube", "maximin_latin_hypercube", "sobol", "halton"}, "latin_hypercube"));
  const bool qmc = uq::is_quasi_monte_carlo(s.design.kind);
  const std::int64_t n = t.integer("samples");
  if (n < 1 || n > 1'000'000'000) t.fail("samples", "must be an integer in [1, 1000000000]");
  s.samples = static_cast<std::size_t>(n);
  const std::int64_t seed = t.integer_or("seed", 1);
  if (seed < 0) t.fail("seed", "must be an integer >= 0");
  s.design.seed = static_cast<std::uint64_t>(seed);
  // A pick-freeze design estimates Sobol indices from one set: one replicate by default.
  const std::int64_t replicates = t.integer_or("replicates", qmc && !t.boolean_or("sobol", false) ? 10 : 1);
  if (!qmc && t.has("replicates"))
    t.fail("replicates", fmt::format("only the sobol and halton designs take replicates (design {})",
                                     uq::to_string(s.design.kind)));
  if (replicates < 1 || replicates > 1'000'000) t.fail("replicates", "must be an integer in [1, 1000000]");
  s.design.replicates = static_cast<std::size_t>(replicates);
  if (qmc && s.samples % s.design.replicates != 0)
    t.fail("samples", fmt::format("{} samples are no multiple of replicates = {}: each replicate scrambles "
                                  "samples / replicates points (a power of 2 suits sobol best)",
                                  s.samples, s.design.replicates));
  s.design.position = uq::parse_stratum_position(t.choice("stratum", {"random", "centred", "centered"}, "random"));
  const std::string policy = t.choice("failures", {"record", "abort", "retry"}, "record");
  s.failures = policy == "abort" ? failure_policy::abort
               : policy == "retry" ? failure_policy::retry
                                   : failure_policy::record;
  const std::int64_t retries = t.integer_or("retries", s.retries);
  if (retries < 1 || retries > 100) t.fail("retries", "must be an integer in [1, 100]");
  s.retries = static_cast<int>(retries);
  s.sobol = t.boolean_or("sobol", false);
  if (s.sobol && qmc && s.design.replicates > 1)
    t.fail("replicates", "a pick-freeze (sobol = true) study takes replicates = 1");
  if (s.sobol && t.has("correlation"))
    t.fail("sobol", "Sobol indices need independent inputs: remove [[sampling.correlation]] or sobol = true");

  if (!t.has("correlation")) return s;
  const auto d = static_cast<Eigen::Index>(aleatoric.size());
  s.rank_correlation = Eigen::MatrixXd::Identity(d, d);
  std::vector<std::string> names;
  for (std::size_t j : aleatoric) names.push_back(inputs[j].name);
  std::set<std::pair<Eigen::Index, Eigen::Index>> seen;
  for (const io::study_table& c : t.tables("correlation")) {
    c.allow_only({"between", "rho", "kind"});
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
    const double spearman = rank_correlation_of(c, *inputs[aleatoric[static_cast<std::size_t>(ij[0])]].distribution,
                                                 *inputs[aleatoric[static_cast<std::size_t>(ij[1])]].distribution);
    s.rank_correlation(ij[0], ij[1]) = s.rank_correlation(ij[1], ij[0]) = spearman;
  }
  try {
    uq::validate_rank_correlation(s.rank_correlation, d, names);
  } catch (const parameter_error& e) {
    t.fail("correlation", e.what());
  }
  if (s.samples / s.design.replicates <= aleatoric.size())
    t.fail("samples", fmt::format("rank correlations need more samples{} than aleatoric parameters ({})",
                                  s.design.replicates > 1 ? " per replicate" : "", aleatoric.size()));
  return s;
}

}  // namespace

ensemble_study read_ensemble_study(const io::study_document& doc, const study_reading& reading) {
  const io::study_table root = doc.root();
  std::vector<std::string_view> tables{"title", "method", "model", "parameters", "output"};
  if (reading.sampling) tables.push_back("sampling");
  if (reading.design_inputs) tables.push_back("optimization");
  tables.insert(tables.end(), reading.method_tables.begin(), reading.method_tables.end());
  root.allow_only(tables);
  const io::study_table model_table = root.table("model");
  ensemble_study study{root.string_or("title", ""), model::make_model(model_table), {}, {}, {}, {}, reading};
  const model::model& m = study.model;
  // [output]: where the result goes (engine/run_study.cpp) and how it is shown (summarize, plot).
  if (const auto output = root.optional_table("output")) {
    output->allow_only({"file", "units", "limits"});
    io::read_display_units(*output, m.named_dimensions());
    std::vector<io::named_dimension> outputs;
    for (const auto& v : m.outputs()) outputs.push_back({v.name, v.dim});
    io::read_output_limits(*output, outputs);
  }

  // The roles: an ensemble samples aleatoric inputs, in a case per combination of epistemic
  // choices, at the value of design variables.
  const io::study_table parameters = root.table("parameters");
  const variables vars = read_variables(
      root, m,
      {!reading.study_kind.empty() ? reading.study_kind
       : reading.design_inputs     ? "an optimize study"
                                   : "a sample or nested study",
       {variable_role::fixed, variable_role::aleatoric, variable_role::design, variable_role::epistemic}});
  for (const variable& v : vars.inputs) {
    if (!v.given && std::isnan(v.value))
      parameters.fail(fmt::format("model {} has no default for input {}: give it a [parameters.{}] table",
                                  m.name(), v.name, v.name));
    study.inputs.push_back({v.name, v.unit, input_role_of(v.role), v.value, v.distribution, v.low, v.high});
  }
  study.epistemic = vars.epistemic;
  const auto aleatoric = study.aleatoric();
  if (aleatoric.empty()) parameters.fail("no parameter has role \"aleatoric\": there is nothing to sample");
  if (reading.sampling) study.sampling = read_sampling(root.table("sampling"), study.inputs, aleatoric);
  study.cases = make_cases(study, model_table, parameters);
  if (study.rows() > 1'000'000'000)
    root.table("sampling").fail("samples", fmt::format("{} cases x {} samples is more than 1e9 evaluations",
                                                       study.cases.size(), study.sampling.samples));
  return study;
}

namespace {

// Rows of case c for aleatoric points whose values are the rows of x: every input's fixed or
// design value, the aleatoric columns from x, the case's epistemic choices.
void fill_case_rows(Eigen::Ref<io::sample_matrix> block, const ensemble_study& study, std::span<const std::size_t> aleatoric,
                    std::size_t c, const Eigen::MatrixXd& x) {
  for (std::size_t i = 0; i < study.inputs.size(); ++i)
    block.col(static_cast<Eigen::Index>(i)).setConstant(study.inputs[i].value);
  for (std::size_t k = 0; k < aleatoric.size(); ++k)
    block.col(static_cast<Eigen::Index>(aleatoric[k])) = x.col(static_cast<Eigen::Index>(k));
  for (std::size_t p = 0; p < study.epistemic.size() && !study.cases.empty(); ++p) {
    const epistemic_parameter& e = study.epistemic[p];
    if (!e.model_key && !e.case_table)
      block.col(static_cast<Eigen::Index>(e.input)).setConstant(e.values[study.cases[c].choice[p]]);
  }
}

std::vector<uq::distribution> aleatoric_distributions(const ensemble_study& study) {
  std::vector<uq::distribution> dists;
  for (std::size_t j : study.aleatoric()) dists.push_back(*study.inputs[j].distribution);
  return dists;
}

// The whole matrix, for designs whose rows cannot be made alone.
// The unit design of a study whose rows cannot be made alone (a Latin hypercube, rank
// correlation), before it is mapped to the inputs.
Eigen::MatrixXd whole_unit_design(const ensemble_study& study) {
  const std::size_t n = study.per_case(), d = study.aleatoric().size();
  Eigen::MatrixXd u = uq::unit_design(n, d, study.sampling.design);
  if (study.sampling.rank_correlation.size() > 0) {
    // Per QMC replicate, each with its own scores, so that the replicates stay independent.
    const std::size_t r_count = study.sampling.design.replicates;
    const auto m = static_cast<Eigen::Index>(n / r_count);
    for (std::size_t r = 0; r < r_count; ++r) {
      const std::uint64_t seed = r == 0 ? study.sampling.design.seed
                                        : uq::derive_seed(study.sampling.design.seed, uq::stream_purpose::qmc_scramble, r);
      const auto first = static_cast<Eigen::Index>(r) * m;
      u.middleRows(first, m) = uq::impose_rank_correlation(u.middleRows(first, m), study.sampling.rank_correlation, seed);
    }
  }
  return u;
}

// A pick-freeze (Sobol' indices) plan, made whole.
io::sample_matrix pick_freeze_inputs(const ensemble_study& study) {
  const auto aleatoric = study.aleatoric();
  const Eigen::MatrixXd u =
      uq::make_pick_freeze_design(study.sampling.samples, aleatoric.size(), study.sampling.design).points();
  const Eigen::MatrixXd x = uq::map_to_inputs(u, aleatoric_distributions(study));
  const auto rows = static_cast<Eigen::Index>(study.per_case());
  io::sample_matrix out(static_cast<Eigen::Index>(study.rows()), static_cast<Eigen::Index>(study.inputs.size()));
  for (std::size_t c = 0; c < std::max<std::size_t>(study.cases.size(), 1); ++c)
    fill_case_rows(out.middleRows(static_cast<Eigen::Index>(c) * rows, rows), study, aleatoric, c, x);
  return out;
}

}  // namespace

io::sample_matrix sample_inputs(const ensemble_study& study) { return sample_plan(study).rows(0, study.rows()); }

bool sample_plan::streams(const ensemble_study& study) {
  return uq::has_row_access(study.sampling.design.kind) && !study.sampling.sobol &&
         study.sampling.rank_correlation.size() == 0;
}

sample_plan::sample_plan(const ensemble_study& study)
    : study_(&study), rows_(study.rows()), aleatoric_(study.aleatoric()), distributions_(aleatoric_distributions(study)) {
  if (study.sampling.sobol)
    whole_ = pick_freeze_inputs(study);
  else if (!streams(study))
    unit_ = whole_unit_design(study);
}

sample_plan::sample_plan(const ensemble_study& study, const io::sample_matrix& given)
    : study_(&study), rows_(study.rows()), given_(&given) {
  if (static_cast<std::size_t>(given.rows()) != study.rows() || static_cast<std::size_t>(given.cols()) != study.inputs.size())
    throw std::invalid_argument(fmt::format("sample_plan: inputs are {} x {}, the study needs {} x {}", given.rows(),
                                            given.cols(), study.rows(), study.inputs.size()));
}

io::sample_matrix sample_plan::rows(std::size_t first, std::size_t count) const {
  if (first > rows_ || count > rows_ - first)
    throw std::out_of_range(fmt::format("sample_plan: rows [{}, {}) of {}", first, first + count, rows_));
  const auto from = static_cast<Eigen::Index>(first), size = static_cast<Eigen::Index>(count);
  if (given_) return given_->middleRows(from, size);
  if (whole_) return whole_->middleRows(from, size);
  // Case by case: row r is point r % n of case r / n. The unit design's rows are made here or
  // taken from the whole one; either way they are mapped to the inputs here, in the block.
  const std::size_t n = study_->per_case();
  io::sample_matrix out(size, static_cast<Eigen::Index>(cols()));
  for (std::size_t r = first; r < first + count;) {
    const std::size_t c = r / n, point = r % n, take = std::min(n - point, first + count - r);
    const Eigen::MatrixXd u =
        unit_ ? Eigen::MatrixXd(unit_->middleRows(static_cast<Eigen::Index>(point), static_cast<Eigen::Index>(take)))
              : uq::rows_of_unit_design(n, aleatoric_.size(), study_->sampling.design, point, take);
    fill_case_rows(out.middleRows(static_cast<Eigen::Index>(r - first), static_cast<Eigen::Index>(take)), *study_,
                   aleatoric_, c, uq::map_to_inputs(u, distributions_));
    r += take;
  }
  return out;
}

}  // namespace contactuq::study
