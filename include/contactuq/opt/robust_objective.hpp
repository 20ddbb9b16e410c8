#pragma once
// Robust measures of a model's outputs over a fixed aleatoric sample set (common random
// numbers, CRN). For a design x and the N fixed samples xi_1..xi_N of the aleatoric inputs,
// y_i = y(x, xi_i) is one model output and
//   mean           m(x)  = (1/N) sum_i y_i
//   mean_plus_sd   m(x) + kappa s(x),  s^2 = 1/(N-1) sum_i (y_i - m)^2
//   quantile       Q_p(x): linear interpolation between order statistics,
//                  h = (N-1) p, Q = y_(floor h) + (h - floor h)(y_(floor h + 1) - y_(floor h))
//   probability    P(y > limit) ~ (1/N) sum_i H(y_i - limit), or P(y < limit) with H(limit - y_i);
//                  H the unit step, or with a smoothing width w > 0 the logistic
//                  H_w(t) = 1 / (1 + exp(-t / w)), differentiable in x for gradient methods.
// The samples are fixed, so each measure is a deterministic function of x: repeated
// evaluations give the same bits, and differences between designs are not blurred by sampling
// noise. Units: those of the output, probability dimensionless.
//
// A robust problem minimises (or maximises) one or two measures subject to constraints
//   c_k(x) <= max_k  or  c_k(x) >= min_k,
// e.g. the chance constraint P(y > limit) <= p. Constraint k is met when its normalised value
//   g_k(x) = (c_k(x) - max_k) / scale_k   (or (min_k - c_k(x)) / scale_k)
// is <= 0; scale_k = |bound| when the bound is not 0, else 1. The violation of a design is
//   V(x) = sum_k max(0, g_k(x)).

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/study/ensemble_study.hpp"

namespace contactuq::opt {

enum class statistic {
  mean,
  mean_plus_sd,  ///< mean + kappa * sd
  quantile,      ///< the level-quantile
  probability,   ///< P(y > limit) or P(y < limit)
};
std::string_view to_string(statistic s);

// One robust measure of one model output.
struct measure {
  std::string output;  ///< a scalar output of the model
  statistic kind = statistic::mean;
  double kappa = 3.0;      ///< mean_plus_sd: multiple of the sd, >= 0 (finite)
  double level = 0.5;      ///< quantile: p, in [0, 1]
  double limit = 0.0;      ///< probability: threshold [output's SI unit], finite
  bool above = true;       ///< probability: P(y > limit); false: P(y < limit)
  double smoothing = 0.0;  ///< probability: logistic width w [output unit], >= 0; 0: step

  // Throws parameter_error naming the field (prefixed by `field`, e.g. "objective[0]").
  void validate(const std::string& field) const;
  // Short text, e.g. "mean+3sd(peak_insertion)", "P(peak_withdrawal < 0.98 N)".
  std::string describe(std::string_view unit = "") const;
};

struct objective {
  measure what;
  bool maximize = false;  ///< optimisers minimise the negated value; results hold the measure
};

struct constraint {
  measure what;
  std::optional<double> max;  ///< c(x) <= max, in the measure's unit
  std::optional<double> min;  ///< c(x) >= min; exactly one of max and min is set

  void validate(const std::string& field) const;
  // Normalised value g (see the header): <= 0 when the constraint is met.
  double normalised(double value) const;
};

// The measures of one design.
struct robust_value {
  std::vector<double> objectives;   ///< one per objective, the measure (not negated) [unit]
  std::vector<double> constraints;  ///< one per constraint, the measure c_k [unit]
  double violation = 0.0;           ///< V(x) >= 0; +inf when a sample failed
  std::size_t failed = 0;           ///< samples whose model threw; then the measures are NaN
  std::string message;              ///< the first failure's message, or ""
};

// A design problem on one model: which inputs are design variables, the fixed sample matrix of
// every other input (CRN), the objectives and constraints.
class robust_problem {
 public:
  // samples: N x model.inputs() values [SI], one row per aleatoric sample; the design columns
  // are overwritten by each design. design: indices of the design inputs, low/high their
  // bounds [SI]. Throws parameter_error for unknown outputs, bad measures, no objective or more
  // than two, design columns out of range or repeated, low >= high, N < 2.
  robust_problem(model::model m, io::sample_matrix samples, std::vector<std::size_t> design,
                 std::vector<double> low, std::vector<double> high,
                 std::vector<objective> objectives, std::vector<constraint> constraints);

  const model::model& model() const noexcept { return model_; }
  const io::sample_matrix& samples() const noexcept { return samples_; }
  const std::vector<std::size_t>& design() const noexcept { return design_; }
  const std::vector<double>& low() const noexcept { return low_; }
  const std::vector<double>& high() const noexcept { return high_; }
  const std::vector<objective>& objectives() const noexcept { return objectives_; }
  const std::vector<constraint>& constraints() const noexcept { return constraints_; }
  std::size_t dimension() const noexcept { return design_.size(); }

  // The measures at design x (dimension() values [SI], within the bounds or not). The N model
  // evaluations run in parallel (TBB) when the model is thread safe; the measures are reduced
  // in sample order, so the result does not depend on the thread count. Never throws for a
  // failing sample: see robust_value::failed.
  robust_value evaluate(std::span<const double> x) const;
  // Outputs y(x, xi_i) of every sample, N x outputs (NaN rows for failed samples), and the
  // measures computed from them.
  io::sample_matrix sample_outputs(std::span<const double> x, std::size_t* failed = nullptr,
                                   std::string* message = nullptr) const;
  robust_value measures(const io::sample_matrix& outputs) const;
  // evaluate(x) from sample_outputs(x) and each sample's failure message ("" for none): the
  // reduction of the samples of designs evaluated elsewhere (design_ensembles).
  robust_value value_of(const io::sample_matrix& outputs, std::span<const std::string> errors) const;

 private:
  // Every sample's outputs at x, in parallel when the model allows; errors[i] is sample i's
  // failure message ("" for none).
  io::sample_matrix all_sample_outputs(std::span<const double> x, std::vector<std::string>& errors) const;

  model::model model_;
  io::sample_matrix samples_;
  std::vector<std::size_t> design_;
  std::vector<double> low_, high_;
  std::vector<objective> objectives_;
  std::vector<constraint> constraints_;
  std::vector<std::size_t> objective_columns_, constraint_columns_;
};

// One measure of the values y (NaN-free) as defined in the header.
double evaluate_measure(const measure& m, std::span<const double> y);

// The CRN sample set of a study for `m`: the aleatoric inputs of `study` (in the study's order)
// sampled as sample_inputs(study) does, placed in the columns of `m`'s inputs of the same
// names; inputs `study` fixes are set by name, the design inputs to their start values, and
// inputs of `m` the study does not name keep m's nominal values. For m = study.model this is
// sample_inputs(study). The same uniforms drive every model, so that models compared on it see
// the same parts. Throws parameter_error when m lacks an input the study varies or has an input
// without a nominal value that the study does not set.
io::sample_matrix crn_samples(const study::ensemble_study& study, const model::model& m);

// A robust problem of `m` from a study read with design inputs: design variables, bounds and
// the CRN set from the study, matched to m's inputs by name.
robust_problem make_robust_problem(const study::ensemble_study& study, const model::model& m,
                                   std::vector<objective> objectives,
                                   std::vector<constraint> constraints);

}  // namespace contactuq::opt
