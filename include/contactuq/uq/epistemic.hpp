#pragma once
// Epistemic (model-form) against aleatoric (parameter) uncertainty of one scalar output, from a
// nested study with common random numbers: K model forms each evaluated at the same N aleatoric
// samples x_1..x_N, giving the K x N matrix Y_kn = f_k(x_n) (Brake 2014, `001_...`: the contact
// model is the epistemic factor, the parameter scatter the aleatoric one).
//
// Model weights w_k >= 0 (default equal) are normalised to sum 1; every aleatoric sample has
// weight 1/N. With
//   m_k = (1/N) sum_n Y_kn                     E_aleatoric[Y | model k]
//   v_k = (1/N) sum_n (Y_kn - m_k)^2           Var_aleatoric[Y | model k]
//   m   = sum_k w_k m_k                        overall mean
// the law of total variance holds exactly for these plug-in (divisor N) estimates:
//   Var_total = sum_k w_k (1/N) sum_n (Y_kn - m)^2
//             = sum_k w_k v_k  +  sum_k w_k (m_k - m)^2
//             = E_model[Var_aleatoric]  +  Var_model[E_aleatoric]
//             =      aleatoric          +       epistemic
//   epistemic share = 100 epistemic / Var_total  [%]
//
// The model form as a discrete input M with P(M = k) = w_k, independent of X:
//   first order  S_M  = Var_M( E[Y | M] ) / Var(Y)    = epistemic / Var_total
//   total order  S_TM = E_X( Var_M[Y | X] ) / Var(Y)
//                     = (1/N) sum_n sum_k w_k (Y_kn - ybar_n)^2 / Var_total,
//                       ybar_n = sum_k w_k Y_kn
// computed exactly from the common-random-number matrix (every model at the same x_n is the
// pick-freeze "change M only" evaluation of Saltelli et al. 2010 for every other model at once).
// S_TM - S_M is the share of the variance due to interactions of the model form with the
// parameters: a model choice that matters only for some parameter values.
//
// Failures: a model with no finite value (e.g. an output the model does not define) is left out
// and named in excluded_models, and the weights of the others renormalised. Then an aleatoric
// sample with a non-finite value in any remaining model is dropped for every model, which keeps
// the comparison on common random numbers; the drops are counted. Estimates are NaN when no
// sample remains or Var_total = 0 (shares and indices).
//
// Bootstrap intervals resample the N' remaining aleatoric samples (columns of Y, all models
// together) and recompute every estimate; percentile method at confidence c, replicate b from
// stream (seed, bootstrap_replicate, b), as in statistics.hpp.
//
// p-box (Ferson et al., "Constructing probability boxes and Dempster-Shafer structures",
// SAND2002-4015, 2003): the family of per-model empirical CDFs F_k (the "horsetail"), each over
// that model's own finite values, on a common grid t_g, and its envelope
//   lower(t) = min_k F_k(t),   upper(t) = max_k F_k(t),
// which bounds the CDF of the output whatever the model form.
//
// Probability of an event, p = P(Y > threshold), from k events in n finite values (non-finite
// values skipped and counted), p_hat = k/n, with a binomial confidence interval at level c,
// z = Phi^-1((1 + c)/2), alpha = 1 - c:
//   Wilson (1927):        ( p_hat + z^2/2n  -+  z sqrt( p_hat(1-p_hat)/n + z^2/4n^2 ) )
//                         / (1 + z^2/n)
//   Clopper-Pearson (1934), exact:
//                         low  = Beta^-1(alpha/2;   k,     n - k + 1)   (0 when k = 0)
//                         high = Beta^-1(1-alpha/2; k + 1, n - k)       (1 when k = n)
// Wilson is the better default (Brown, Cai & DasGupta, Stat. Sci. 16 (2001) 101-133);
// Clopper-Pearson guarantees at least the nominal coverage and is wider.

#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/uq/sensitivity.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::uq {

struct model_form_decomposition {
  std::size_t models = 0;                    ///< K rows of Y
  std::size_t samples = 0;                   ///< N aleatoric samples (columns of Y)
  std::size_t used = 0;                      ///< samples finite in every included model
  std::size_t dropped = 0;                   ///< samples - used
  std::vector<std::size_t> excluded_models;  ///< rows with no finite value, left out
  std::vector<double> weights;         ///< w_k normalised over the included models (0: excluded)
  std::vector<double> model_mean;      ///< m_k over the used samples (NaN: excluded)
  std::vector<double> model_variance;  ///< v_k over the used samples (NaN: excluded)
  double mean = 0.0;                   ///< m
  estimate total_variance;             ///< Var_total
  estimate aleatoric_variance;         ///< E_model[Var_aleatoric]
  estimate epistemic_variance;         ///< Var_model[E_aleatoric]
  estimate epistemic_share_percent;    ///< 100 epistemic / Var_total [%]
  estimate model_first_order;          ///< S_M
  estimate model_total_order;          ///< S_TM
  double confidence = 0.0;             ///< of every interval above
  std::size_t bootstrap_resamples = 0;
};

// y: K x N, model k at aleatoric sample n (K >= 1, N >= 1). weights: empty (equal) or K values
// >= 0 with a positive sum over the models that are not excluded (parameter_error "weights").
model_form_decomposition decompose_model_form(const Eigen::MatrixXd& y,
                                              std::span<const double> weights = {},
                                              const sensitivity_options& options = {});

struct probability_box {
  std::vector<double> grid;          ///< t_g, increasing
  Eigen::MatrixXd cdf;               ///< K x G, F_k(t_g); NaN row for a model with no value
  std::vector<double> lower;         ///< min_k F_k(t_g) over models with values
  std::vector<double> upper;         ///< max_k F_k(t_g) over models with values
  std::vector<std::size_t> used;     ///< finite values of each model
  std::vector<std::size_t> skipped;  ///< non-finite values of each model
};

// p-box of the rows of y (K x N) on the given increasing grid (parameter_error "grid"
// otherwise; empty is allowed).
probability_box make_probability_box(const Eigen::MatrixXd& y, std::span<const double> grid);
// As above on grid_points (>= 2) evenly spaced points from the smallest to the largest finite
// value of y; an empty grid when y has no finite value, a single point when all are equal.
probability_box make_probability_box(const Eigen::MatrixXd& y, std::size_t grid_points);

enum class binomial_interval {
  wilson,
  clopper_pearson,
};
// "wilson", "clopper_pearson".
std::string to_string(binomial_interval method);
// Inverse of to_string; throws parameter_error (field "interval") listing the known methods.
binomial_interval parse_binomial_interval(std::string_view name);

struct event_probability {
  std::size_t events = 0;   ///< k: values above the threshold
  std::size_t trials = 0;   ///< n: finite values
  std::size_t skipped = 0;  ///< non-finite values left out
  double value = 0.0;       ///< k/n (NaN for n = 0)
  interval ci{0.0, 0.0};    ///< binomial interval at the confidence asked ([0, 1] for n = 0)
};

// Interval for k events in n trials (k <= n; confidence in (0, 1); parameter_error otherwise).
event_probability binomial_proportion(std::size_t events, std::size_t trials, double confidence,
                                      binomial_interval method = binomial_interval::wilson);

// P(Y > threshold) from the finite values.
event_probability probability_above(std::span<const double> values, double threshold,
                                    double confidence = 0.95,
                                    binomial_interval method = binomial_interval::wilson);
// One per row of y (K x N): each model's probability of the event.
std::vector<event_probability> probability_above(
    const Eigen::MatrixXd& y, double threshold, double confidence = 0.95,
    binomial_interval method = binomial_interval::wilson);

}  // namespace contactuq::uq
