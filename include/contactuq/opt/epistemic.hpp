#pragma once
// Robust design when the model itself is uncertain (epistemic uncertainty: which contact law
// is right), after Brake 2014 (001_90c6add22e317e74.txt, abstract): optimise once per model,
// evaluate every optimum under every model, and look for a design that is good under all.
//
// With J_j(x) the (first) objective under model j, to be minimised (a maximised measure is
// negated), and x_j* the optimum found for model j:
//   cross(i, j)  = J_j(x_i*)                      measure of model i's optimum under model j
//   regret(i, j) = s (J_j(x_i*) - J_j(x_j*))      s = +1 minimised, -1 maximised: >= 0 when
//                                                 x_j* is really optimal for j; diagonal 0
//   robust design: argmin_x  max_j regret_j(x)   (over_models = worst: min-max regret)
//                  or mean_j regret_j(x)         (over_models = mean)
//                  subject to every model's constraints,
//   regret_j(x) = s (J_j(x) - J_j(x_j*)).
// Every model is evaluated on the same CRN sample set (crn_samples), so they see the same
// parts. Units: those of the objective's output.
//
// One objective only: with two objectives (nsga2) each model gets its Pareto front and no
// regret matrix or robust design is computed.

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

#include "contactuq/model/model.hpp"
#include "contactuq/opt/optimizer.hpp"
#include "contactuq/opt/robust_objective.hpp"
#include "contactuq/study/ensemble_study.hpp"

namespace contactuq::opt {

struct epistemic_result {
  std::vector<std::string> models;          ///< labels, in the order given
  std::vector<optimization_result> optima;  ///< one per model
  Eigen::MatrixXd cross;                    ///< models x models (empty for two objectives)
  Eigen::MatrixXd regret;                   ///< models x models, diagonal 0
  Eigen::MatrixXi cross_feasible;           ///< 1 where x_i* meets model j's constraints
  // The design over all models (only with more than one model and one objective).
  bool has_robust = false;
  optimization_result robust;            ///< value.objectives = {aggregated regret}
  std::vector<double> robust_objective;  ///< J_j(x_robust) per model
  std::vector<double> robust_regret;     ///< regret_j(x_robust) per model
};

// Optimises problems[i] (label, robust problem: same design variables in the same order)
// from `start` [SI] with `options`, recording everything in `log` (models by index): each
// model's optimisation, the cross evaluations (phase cross), then the design over all models
// (phases models_global / models_local). Throws parameter_error for an empty list, repeated
// labels or problems with different design bounds.
epistemic_result optimize_over_models(
    const std::vector<std::pair<std::string, robust_problem>>& problems,
    std::span<const double> start, const optimizer_options& options, history& log);

// The same for labelled models of one study (read with design inputs): each model gets the
// study's design variables, CRN set (crn_samples), objectives and constraints; the start is
// the study's start values.
epistemic_result optimize_over_models(
    const std::vector<std::pair<std::string, model::model>>& models,
    const study::ensemble_study& study, const std::vector<objective>& objectives,
    const std::vector<constraint>& constraints, const optimizer_options& options, history& log);

}  // namespace contactuq::opt
