#include "contactuq/opt/robust_objective.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <set>

#include "contactuq/error.hpp"

namespace contactuq::opt {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
}

std::string_view to_string(statistic s) {
  switch (s) {
    case statistic::mean:
      return "mean";
    case statistic::mean_plus_sd:
      return "mean_plus_sd";
    case statistic::quantile:
      return "quantile";
    case statistic::probability:
      return "probability";
  }
  return "?";
}

void measure::validate(const std::string& field) const {
  if (output.empty()) throw parameter_error(field + ".output", field + ".output is empty");
  switch (kind) {
    case statistic::mean:
      break;
    case statistic::mean_plus_sd:
      require(kappa >= 0 && std::isfinite(kappa), field + ".kappa", kappa, "", "finite and >= 0");
      break;
    case statistic::quantile:
      require(level >= 0 && level <= 1, field + ".level", level, "", "in [0, 1]");
      break;
    case statistic::probability:
      require(std::isfinite(limit), field + ".limit", limit, "", "finite");
      require(smoothing >= 0 && std::isfinite(smoothing), field + ".smoothing", smoothing, "",
              "finite and >= 0");
      break;
  }
}

std::string measure::describe(std::string_view unit) const {
  const std::string u = unit.empty() ? "" : fmt::format(" {}", unit);
  switch (kind) {
    case statistic::mean:
      return fmt::format("mean({})", output);
    case statistic::mean_plus_sd:
      return fmt::format("mean+{}sd({})", kappa, output);
    case statistic::quantile:
      return fmt::format("q{}({})", level, output);
    case statistic::probability:
      return fmt::format("P({} {} {:.6g}{})", output, above ? ">" : "<", limit, u);
  }
  return "?";
}

void constraint::validate(const std::string& field) const {
  what.validate(field);
  if (max.has_value() == min.has_value())
    throw parameter_error(field + ".max",
                          fmt::format("{}: give exactly one of max and min", field));
  const double bound = max ? *max : *min;
  require(std::isfinite(bound), field + (max ? ".max" : ".min"), bound, "", "finite");
}

double constraint::normalised(double value) const {
  const double bound = max ? *max : *min;
  const double scale = bound != 0.0 ? std::abs(bound) : 1.0;
  return max ? (value - bound) / scale : (bound - value) / scale;
}

double evaluate_measure(const measure& m, std::span<const double> y) {
  const auto n = static_cast<double>(y.size());
  if (y.empty()) return nan;
  // Sums in sample order: the same bits whatever evaluated the samples.
  const auto mean = [&] {
    double s = 0.0;
    for (double v : y) s += v;
    return s / n;
  };
  switch (m.kind) {
    case statistic::mean:
      return mean();
    case statistic::mean_plus_sd: {
      const double mu = mean();
      double ss = 0.0;
      for (double v : y) ss += (v - mu) * (v - mu);
      const double sd = y.size() > 1 ? std::sqrt(ss / (n - 1.0)) : 0.0;
      return mu + m.kappa * sd;
    }
    case statistic::quantile: {
      std::vector<double> sorted(y.begin(), y.end());
      std::sort(sorted.begin(), sorted.end());
      const double h = (n - 1.0) * m.level;
      const auto lo = static_cast<std::size_t>(std::floor(h));
      const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
      return sorted[lo] + (h - std::floor(h)) * (sorted[hi] - sorted[lo]);
    }
    case statistic::probability: {
      double s = 0.0;
      for (double v : y) {
        const double t = m.above ? v - m.limit : m.limit - v;
        if (m.smoothing > 0.0)
          s += 1.0 / (1.0 + std::exp(-t / m.smoothing));  // logistic H_w
        else
          s += t > 0.0 ? 1.0 : 0.0;  // unit step
      }
      return s / n;
    }
  }
  return nan;
}

robust_problem::robust_problem(model::model m, io::sample_matrix samples,
                               std::vector<std::size_t> design, std::vector<double> low,
                               std::vector<double> high, std::vector<objective> objectives,
                               std::vector<constraint> constraints)
    : model_(std::move(m)),
      samples_(std::move(samples)),
      design_(std::move(design)),
      low_(std::move(low)),
      high_(std::move(high)),
      objectives_(std::move(objectives)),
      constraints_(std::move(constraints)) {
  const std::size_t inputs = model_.inputs().size();
  require(samples_.rows() >= 2, "samples", static_cast<double>(samples_.rows()), "", ">= 2 rows");
  if (static_cast<std::size_t>(samples_.cols()) != inputs)
    throw parameter_error("samples", fmt::format("samples have {} columns, model {} has {} inputs",
                                                 samples_.cols(), model_.name(), inputs));
  if (design_.empty()) throw parameter_error("design", "no design variable");
  if (low_.size() != design_.size() || high_.size() != design_.size())
    throw parameter_error("low", fmt::format("{} design variables, {} lower and {} upper bounds",
                                             design_.size(), low_.size(), high_.size()));
  std::set<std::size_t> seen;
  for (std::size_t k = 0; k < design_.size(); ++k) {
    const auto field = fmt::format("design[{}]", k);
    if (design_[k] >= inputs || !seen.insert(design_[k]).second)
      throw parameter_error(field, fmt::format("{} = {}: not a distinct input index below {}",
                                               field, design_[k], inputs));
    if (!(low_[k] < high_[k]) || !std::isfinite(low_[k]) || !std::isfinite(high_[k]))
      throw parameter_error(fmt::format("high[{}]", k),
                            fmt::format("{}: bounds [{}, {}] must be finite with low < high",
                                        model_.inputs()[design_[k]].name, low_[k], high_[k]));
  }
  if (objectives_.empty() || objectives_.size() > 2)
    throw parameter_error(
        "objectives",
        fmt::format("{} objectives: give one, or two for a Pareto front", objectives_.size()));
  const auto column = [&](const measure& what, const std::string& field) {
    what.validate(field);
    const auto names = model_.output_names();
    const auto at = std::find(names.begin(), names.end(), what.output);
    if (at == names.end())
      throw parameter_error(field + ".output",
                            fmt::format("{}.output = '{}': model {} has outputs {}", field,
                                        what.output, model_.name(), fmt::join(names, ", ")));
    return static_cast<std::size_t>(at - names.begin());
  };
  for (std::size_t k = 0; k < objectives_.size(); ++k)
    objective_columns_.push_back(column(objectives_[k].what, fmt::format("objective[{}]", k)));
  for (std::size_t k = 0; k < constraints_.size(); ++k) {
    constraints_[k].validate(fmt::format("constraint[{}]", k));
    constraint_columns_.push_back(column(constraints_[k].what, fmt::format("constraint[{}]", k)));
  }
}

namespace {

// Sample i of the problem's set at design x into row `row` of out; "" or the failure message.
std::string evaluate_sample(const model::model& m, const io::sample_matrix& samples, const std::vector<std::size_t>& design,
                            std::span<const double> x, Eigen::Index i, io::sample_matrix& out, Eigen::Index row) {
  std::vector<double> in(samples.row(i).data(), samples.row(i).data() + samples.cols());
  for (std::size_t k = 0; k < design.size(); ++k) in[design[k]] = x[k];
  try {
    const model::evaluation e = m.evaluate(in);
    for (Eigen::Index j = 0; j < out.cols(); ++j) out(row, j) = e.outputs[static_cast<std::size_t>(j)];
    return {};
  } catch (const std::exception& error) {
    out.row(row).setConstant(nan);
    return *error.what() ? error.what() : "failed";
  }
}

}  // namespace

io::sample_matrix robust_problem::all_sample_outputs(std::span<const double> x, std::vector<std::string>& errors) const {
  if (x.size() != design_.size())
    throw std::invalid_argument(
        fmt::format("a design of {} values for {} design variables", x.size(), design_.size()));
  const auto n = samples_.rows();
  const auto m = static_cast<Eigen::Index>(model_.outputs().size());
  io::sample_matrix out(n, m);
  errors.assign(static_cast<std::size_t>(n), "");
  const auto run = [&](Eigen::Index i) {
    errors[static_cast<std::size_t>(i)] = evaluate_sample(model_, samples_, design_, x, i, out, i);
  };
  if (model_.thread_safe())
    tbb::parallel_for(Eigen::Index{0}, n, run);
  else
    for (Eigen::Index i = 0; i < n; ++i) run(i);
  return out;
}

io::sample_matrix robust_problem::sample_outputs(std::span<const double> x, std::size_t* failed,
                                                 std::string* message) const {
  std::vector<std::string> errors;
  io::sample_matrix out = all_sample_outputs(x, errors);
  std::size_t count = 0;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (errors[i].empty()) continue;
    if (count++ == 0 && message) *message = fmt::format("sample {}: {}", i, errors[i]);
  }
  if (failed) *failed = count;
  return out;
}

robust_value robust_problem::value_of(const io::sample_matrix& outputs, std::span<const std::string> errors) const {
  robust_value v = measures(outputs);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (errors[i].empty()) continue;
    if (v.failed++ == 0) v.message = fmt::format("sample {}: {}", i, errors[i]);
  }
  if (v.failed > 0) {
    std::fill(v.objectives.begin(), v.objectives.end(), nan);
    std::fill(v.constraints.begin(), v.constraints.end(), nan);
    v.violation = std::numeric_limits<double>::infinity();
  } else if (std::isinf(v.violation) && v.message.empty()) {
    v.message = "an output used by an objective or constraint is NaN";
  }
  return v;
}

robust_value robust_problem::measures(const io::sample_matrix& outputs) const {
  robust_value v;
  std::vector<std::vector<double>> columns(static_cast<std::size_t>(outputs.cols()));
  bool any_nan = false;
  for (Eigen::Index j = 0; j < outputs.cols(); ++j) {
    auto& c = columns[static_cast<std::size_t>(j)];
    c.resize(static_cast<std::size_t>(outputs.rows()));
    for (Eigen::Index i = 0; i < outputs.rows(); ++i)
      c[static_cast<std::size_t>(i)] = outputs(i, j);
  }
  const auto value = [&](const measure& what, std::size_t column) {
    const auto& y = columns[column];
    if (std::any_of(y.begin(), y.end(), [](double t) { return std::isnan(t); })) {
      any_nan = true;
      return nan;
    }
    return evaluate_measure(what, y);
  };
  for (std::size_t k = 0; k < objectives_.size(); ++k)
    v.objectives.push_back(value(objectives_[k].what, objective_columns_[k]));
  for (std::size_t k = 0; k < constraints_.size(); ++k) {
    const double c = value(constraints_[k].what, constraint_columns_[k]);
    v.constraints.push_back(c);
    v.violation += std::max(0.0, constraints_[k].normalised(c));
  }
  if (any_nan) v.violation = std::numeric_limits<double>::infinity();
  return v;
}

robust_value robust_problem::evaluate(std::span<const double> x) const {
  std::vector<std::string> errors;
  const io::sample_matrix y = all_sample_outputs(x, errors);
  return value_of(y, errors);
}

io::sample_matrix crn_samples(const study::ensemble_study& study, const model::model& m) {
  // The aleatoric samples of the first epistemic case; every case has the same ones. The model
  // form (a [model] key) comes with m; an epistemic *input* would differ between cases.
  for (const auto& e : study.epistemic)
    if (!e.model_key)
      throw parameter_error(e.name, fmt::format("{} is an epistemic input: robust design takes epistemic choices of "
                                                "[model] keys (e.g. the contact law) only",
                                                e.name));
  const io::sample_matrix base = study::sample_inputs(study).topRows(static_cast<Eigen::Index>(study.per_case()));
  io::sample_matrix out(base.rows(), static_cast<Eigen::Index>(m.inputs().size()));
  std::vector<bool> used(study.inputs.size(), false);
  for (std::size_t i = 0; i < m.inputs().size(); ++i) {
    const auto& v = m.inputs()[i];
    const auto at = std::find_if(study.inputs.begin(), study.inputs.end(),
                                 [&](const study::input_spec& s) { return s.name == v.name; });
    if (at != study.inputs.end()) {
      const auto j = static_cast<std::size_t>(at - study.inputs.begin());
      used[j] = true;
      out.col(static_cast<Eigen::Index>(i)) = base.col(static_cast<Eigen::Index>(j));
    } else {
      if (std::isnan(v.nominal))
        throw parameter_error(
            v.name, fmt::format("model {} needs a value for input {}, which the study does not set",
                                m.name(), v.name));
      out.col(static_cast<Eigen::Index>(i)).setConstant(v.nominal);
    }
  }
  for (std::size_t j = 0; j < study.inputs.size(); ++j)
    if (!used[j] && study.inputs[j].role != io::input_role::fixed)
      throw parameter_error(
          study.inputs[j].name,
          fmt::format("the study varies {} ({}), which model {} does not have",
                      study.inputs[j].name, io::to_string(study.inputs[j].role), m.name()));
  return out;
}

robust_problem make_robust_problem(const study::ensemble_study& study, const model::model& m,
                                   std::vector<objective> objectives,
                                   std::vector<constraint> constraints) {
  io::sample_matrix samples = crn_samples(study, m);
  std::vector<std::size_t> design;
  std::vector<double> low, high;
  for (std::size_t j : study.design_variables()) {
    const std::size_t i = m.find_input(study.inputs[j].name);
    design.push_back(i);  // crn_samples checked that m has it
    low.push_back(study.inputs[j].low);
    high.push_back(study.inputs[j].high);
  }
  return robust_problem(m, std::move(samples), std::move(design), std::move(low), std::move(high),
                        std::move(objectives), std::move(constraints));
}

}  // namespace contactuq::opt
