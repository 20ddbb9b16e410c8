#include "contactuq/opt/epistemic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "contactuq/error.hpp"

namespace contactuq::opt {

namespace {

double aggregate(const std::vector<double>& regrets, model_aggregate how) {
  if (how == model_aggregate::worst) return *std::max_element(regrets.begin(), regrets.end());
  double s = 0.0;
  for (double r : regrets) s += r;
  return s / static_cast<double>(regrets.size());
}


// Whether a is better than b under Deb's rule on the first objective (s: +1 minimised, -1
// maximised).
bool better(const robust_value& a, const robust_value& b, double s, double tolerance) {
  const bool fa = a.violation <= tolerance, fb = b.violation <= tolerance;
  if (fa != fb) return fa;
  if (!fa) return a.violation < b.violation;
  return s * a.objectives[0] < s * b.objectives[0];
}

// +1 for a minimised objective, -1 for a maximised one: sign * (value - own) is a regret.
double objective_sign(const robust_problem& p) { return p.objectives()[0].maximize ? -1.0 : 1.0; }

// How much worse `value` is than the model's own optimum `own` (either sense); written without a
// sign flip so that an equal value is a regret of 0, not -0.
double regret_of(const robust_problem& p, double value, double own) {
  return p.objectives()[0].maximize ? own - value : value - own;
}

// Each model's search stops somewhere; another model's optimum may still be better under it
// (a negative regret). Every optimum is therefore evaluated under every model (phase cross);
// where another's is better, a local search under that model starts from it (phase local).
// Each model's optimum then becomes the best, under that model, of all optima and polished
// designs: no design in that set beats it, so no regret among the final optima is negative.
// A model whose optimum changed is reported as not converged, saying by how much its own
// search fell short.
void seed_and_polish(const std::vector<std::pair<std::string, robust_problem>>& problems,
                     const optimizer_options& options, history& log,
                     std::vector<optimization_result>& optima) {
  const std::size_t m = problems.size();
  if (m < 2) return;
  const double tol = options.constraint_tolerance;
  const auto sign = [&](std::size_t j) { return objective_sign(problems[j].second); };
  std::vector<std::vector<double>> candidates;
  for (const auto& o : optima) candidates.push_back(o.x);
  // values[j][c]: candidate c under model j.
  std::vector<std::vector<robust_value>> values(m);
  for (std::size_t j = 0; j < m; ++j)
    values[j] = log.evaluate(problems[j].second, j, phase::cross, candidates);

  optimizer_options polish = options;
  polish.method = is_global(options.method) ? options.local
                  : options.method == algorithm::hybrid ? options.local
                                                        : options.method;
  std::vector<std::size_t> seeded_from(m, m);
  std::vector<std::size_t> polish_evaluations(m, 0);
  std::vector<std::size_t> polished_for;  // model of each added candidate
  const auto seeded_of = [&](std::size_t candidate) { return polished_for[candidate - m]; };
  for (std::size_t j = 0; j < m; ++j) {
    std::size_t best = j;
    for (std::size_t i = 0; i < m; ++i)
      if (better(values[j][i], values[j][best], sign(j), tol)) best = i;
    if (best == j) continue;
    seeded_from[j] = best;
    const optimization_result p =
        optimize(problems[j].second, candidates[best], polish, log, j);
    polish_evaluations[j] = p.evaluations;
    candidates.push_back(p.x);
    polished_for.push_back(j);
  }
  if (candidates.size() > m) {
    const std::vector<std::vector<double>> added(candidates.begin() + static_cast<long>(m),
                                                 candidates.end());
    for (std::size_t j = 0; j < m; ++j) {
      const auto v = log.evaluate(problems[j].second, j, phase::cross, added);
      values[j].insert(values[j].end(), v.begin(), v.end());
    }
  }
  for (std::size_t j = 0; j < m; ++j) {
    std::size_t best = j;
    for (std::size_t c = 0; c < candidates.size(); ++c)
      if (better(values[j][c], values[j][best], sign(j), tol)) best = c;
    optimization_result& o = optima[j];
    o.evaluations += polish_evaluations[j];
    if (best == j) continue;
    const double own = o.value.objectives[0];
    const auto& v = values[j][best];
    const std::size_t polished = best < m ? m : seeded_of(best);
    const std::string from =
        best < m ? fmt::format("the optimum of model {}", problems[best].first)
                 : fmt::format("a local search under model {} from the optimum of model {}",
                               problems[polished].first, problems[seeded_from[polished]].first);
    o.converged = false;
    o.convergence = fmt::format(
        "not converged: its own search stopped short; {} is better under this model by {:.6g} "
        "and is taken as its optimum",
        from, std::abs(v.objectives[0] - own));
    if (seeded_from[j] < m)
      o.message += fmt::format("; seeded with the optimum of model {} and polished ({})",
                               problems[seeded_from[j]].first, to_string(polish.method));
    o.x = candidates[best];
    o.value = v;
    o.feasible = v.violation <= tol;
    o.status = o.feasible ? "optimal" : "infeasible";
    o.active_constraints.clear();
    for (std::size_t k = 0; k < v.constraints.size(); ++k) {
      const double g = problems[j].second.constraints()[k].normalised(v.constraints[k]);
      if (g >= -active_tolerance && g <= tol) o.active_constraints.push_back(k);
    }
  }
}


// The design over all models may beat a model's optimum under that model (its search stopped
// short): that model then takes it as its optimum, the regret matrix is evaluated again and the
// robust design's regrets are taken against the new optima, so none of them is negative where
// the design meets that model's constraints.
void adopt_robust_design(const std::vector<std::pair<std::string, robust_problem>>& problems,
                         const optimizer_options& options, history& log,
                         const std::vector<robust_value>& robust_values, epistemic_result& result) {
  const std::size_t m = problems.size();
  const double tol = options.constraint_tolerance;
  const auto sign = [&](std::size_t j) { return objective_sign(problems[j].second); };
  bool changed = false;
  for (std::size_t j = 0; j < m; ++j) {
    optimization_result& o = result.optima[j];
    const robust_value& v = robust_values[j];
    if (!better(v, o.value, sign(j), tol)) continue;
    changed = true;
    o.converged = false;
    o.convergence = fmt::format(
        "not converged: its own search stopped short; the design over all models is better "
        "under this model by {:.6g} and is taken as its optimum",
        std::abs(v.objectives[0] - o.value.objectives[0]));
    o.x = result.robust.x;
    o.value = v;
    o.feasible = v.violation <= tol;
    o.status = o.feasible ? "optimal" : "infeasible";
    o.active_constraints.clear();
    for (std::size_t k = 0; k < v.constraints.size(); ++k) {
      const double g = problems[j].second.constraints()[k].normalised(v.constraints[k]);
      if (g >= -active_tolerance && g <= tol) o.active_constraints.push_back(k);
    }
  }
  if (!changed) return;
  std::vector<std::vector<double>> optima_x;
  for (const auto& o : result.optima) optima_x.push_back(o.x);
  for (std::size_t j = 0; j < m; ++j) {
    const auto values = log.evaluate(problems[j].second, j, phase::cross, optima_x);
    const double own = result.optima[j].value.objectives[0];
    for (std::size_t i = 0; i < m; ++i) {
      const auto ii = static_cast<Eigen::Index>(i), jj = static_cast<Eigen::Index>(j);
      result.cross(ii, jj) = values[i].objectives[0];
      result.regret(ii, jj) = regret_of(problems[j].second, values[i].objectives[0], own);
      result.cross_feasible(ii, jj) = values[i].violation <= tol ? 1 : 0;
    }
    result.robust_regret[j] = regret_of(problems[j].second, result.robust_objective[j], own);
  }
  result.robust.value.objectives[0] = aggregate(result.robust_regret, options.over_models);
}

using model_problems = std::vector<std::pair<std::string, robust_problem>>;

// Every model under its own label, with the design bounds and objectives of the first.
void check_problems(const model_problems& problems) {
  std::set<std::string> labels;
  const robust_problem& first = problems.front().second;
  for (const auto& [label, p] : problems) {
    if (!labels.insert(label).second)
      throw parameter_error("models", fmt::format("model label '{}' used twice", label));
    if (p.low() != first.low() || p.high() != first.high() ||
        p.objectives().size() != first.objectives().size())
      throw parameter_error(
          "models", fmt::format("model '{}' has other design bounds or objectives than '{}'", label,
                                problems.front().first));
  }
}

// Regret matrix: every optimum under every model. The candidates were all evaluated under
// every model by seed_and_polish (CRN: the same bits again); each model's optimum is the best
// of them under it, so every regret of a design feasible under its column is >= 0.
void cross_evaluate(const model_problems& problems, const optimizer_options& options, history& log,
                    const std::vector<std::vector<double>>& optima_x, epistemic_result& result) {
  const std::size_t m = problems.size();
  const auto ms = static_cast<Eigen::Index>(m);
  result.cross.resize(ms, ms);
  result.regret.resize(ms, ms);
  result.cross_feasible.resize(ms, ms);
  for (std::size_t j = 0; j < m; ++j) {
    const auto values = log.evaluate(problems[j].second, j, phase::cross, optima_x);
    const double own = result.optima[j].value.objectives[0];
    for (std::size_t i = 0; i < m; ++i) {
      const auto ii = static_cast<Eigen::Index>(i), jj = static_cast<Eigen::Index>(j);
      result.cross(ii, jj) = values[i].objectives[0];
      result.regret(ii, jj) = regret_of(problems[j].second, values[i].objectives[0], own);
      result.cross_feasible(ii, jj) = values[i].violation <= options.constraint_tolerance ? 1 : 0;
    }
  }
}

// The optimum whose worst (or mean) regret over the models is least, infeasible ones last.
std::size_t warm_start(const epistemic_result& result, std::size_t m,
                       const optimizer_options& options) {
  std::size_t warm = 0;
  double warm_score = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<double> row;
    bool feasible = true;
    for (std::size_t j = 0; j < m; ++j) {
      row.push_back(result.regret(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)));
      feasible = feasible && result.cross_feasible(static_cast<Eigen::Index>(i),
                                                   static_cast<Eigen::Index>(j)) == 1;
    }
    const double score = aggregate(row, options.over_models) + (feasible ? 0.0 : 1e300);
    if (score < warm_score || (i == 0)) {
      warm = i;
      warm_score = score;
    }
  }
  return warm;
}

// The design over all models (its aggregated regret least), started from optimum `warm`.
void robust_design(const model_problems& problems, const optimizer_options& options, history& log,
                   const std::vector<std::vector<double>>& optima_x, std::size_t warm,
                   epistemic_result& result) {
  const robust_problem& first = problems.front().second;
  const std::size_t m = problems.size();
  const std::size_t d = first.dimension();
  const auto to_x = [&](const std::vector<double>& u) {
    std::vector<double> x(d);
    for (std::size_t k = 0; k < d; ++k)
      x[k] = std::clamp(first.low()[k] + u[k] * (first.high()[k] - first.low()[k]), first.low()[k],
                        first.high()[k]);
    return x;
  };
  std::vector<double> u0(d);
  for (std::size_t k = 0; k < d; ++k)
    u0[k] = (optima_x[warm][k] - first.low()[k]) / (first.high()[k] - first.low()[k]);

  std::vector<std::vector<robust_value>> per_point;  // every point's value under each model
  std::vector<std::vector<double>> point_x;
  std::size_t constraints = 0;
  for (const auto& [label, p] : problems) constraints += p.constraints().size();
  detail::box_problem box;
  box.dimension = d;
  box.objectives = 1;
  box.constraints = constraints;
  box.evaluate = [&](const std::vector<std::vector<double>>& us, bool local_stage) {
    std::vector<std::vector<double>> xs;
    for (const auto& u : us) xs.push_back(to_x(u));
    std::vector<std::vector<robust_value>> values(xs.size());
    for (std::size_t j = 0; j < m; ++j) {
      const auto v = log.evaluate(problems[j].second, j,
                                  local_stage ? phase::models_local : phase::models_global, xs);
      for (std::size_t p = 0; p < xs.size(); ++p) values[p].push_back(v[p]);
    }
    std::vector<detail::box_point> points;
    for (std::size_t p = 0; p < xs.size(); ++p) {
      detail::box_point point;
      std::vector<double> regrets;
      for (std::size_t j = 0; j < m; ++j) {
        const auto& v = values[p][j];
        regrets.push_back(
            regret_of(problems[j].second, v.objectives[0], result.optima[j].value.objectives[0]));
        for (std::size_t k = 0; k < v.constraints.size(); ++k)
          point.constraints.push_back(
              problems[j].second.constraints()[k].normalised(v.constraints[k]));
        point.violation += v.violation;
      }
      point.objectives.push_back(aggregate(regrets, options.over_models));
      if (std::isnan(point.objectives[0]))
        point.violation = std::numeric_limits<double>::infinity();
      points.push_back(std::move(point));
      per_point.push_back(values[p]);
      point_x.push_back(xs[p]);
    }
    return points;
  };
  const std::size_t before = log.records().size();
  const detail::box_run run = detail::run_box(box, u0, options);
  const std::size_t best = detail::best_point(run.points, options.constraint_tolerance);

  result.has_robust = true;
  auto& r = result.robust;
  r.method = options.method;
  r.x = point_x[best];
  r.evaluations = log.records().size() - before;
  r.message = run.message;
  r.feasible = run.points[best].violation <= options.constraint_tolerance;
  r.status = r.feasible ? "optimal" : "infeasible";
  r.value.objectives = run.points[best].objectives;
  r.value.violation = run.points[best].violation;
  for (std::size_t j = 0; j < m; ++j) {
    const auto& v = per_point[best][j];
    r.value.constraints.insert(r.value.constraints.end(), v.constraints.begin(),
                               v.constraints.end());
    r.value.failed += v.failed;
    result.robust_objective.push_back(v.objectives[0]);
    result.robust_regret.push_back(
        regret_of(problems[j].second, v.objectives[0], result.optima[j].value.objectives[0]));
  }
  adopt_robust_design(problems, options, log, per_point[best], result);
}

}  // namespace

epistemic_result optimize_over_models(
    const std::vector<std::pair<std::string, robust_problem>>& problems,
    std::span<const double> start, const optimizer_options& options, history& log) {
  options.validate();
  if (problems.empty()) throw parameter_error("models", "no model to optimise");
  check_problems(problems);
  const robust_problem& first = problems.front().second;
  const std::size_t m = problems.size();
  epistemic_result result;
  for (std::size_t i = 0; i < m; ++i) {
    result.models.push_back(problems[i].first);
    result.optima.push_back(optimize(problems[i].second, start, options, log, i));
  }
  if (first.objectives().size() != 1) return result;
  seed_and_polish(problems, options, log, result.optima);

  std::vector<std::vector<double>> optima_x;
  for (const auto& o : result.optima) optima_x.push_back(o.x);
  cross_evaluate(problems, options, log, optima_x, result);
  if (m == 1) return result;

  robust_design(problems, options, log, optima_x, warm_start(result, m, options), result);
  return result;
}

epistemic_result optimize_over_models(
    const std::vector<std::pair<std::string, model::model>>& models,
    const study::ensemble_study& study, const std::vector<objective>& objectives,
    const std::vector<constraint>& constraints, const optimizer_options& options, history& log) {
  std::vector<std::pair<std::string, robust_problem>> problems;
  for (const auto& [label, m] : models)
    problems.emplace_back(label, make_robust_problem(study, m, objectives, constraints));
  std::vector<double> start;
  for (std::size_t j : study.design_variables()) start.push_back(study.inputs[j].value);
  return optimize_over_models(problems, start, options, log);
}

}  // namespace contactuq::opt
