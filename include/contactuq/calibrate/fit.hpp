#pragma once
// Field calibration of the receptacle–pin model (Williams, SAND2015-20731, section 3.2) to
// measured insertion-force curves: weighted, optionally robust, nonlinear least squares
//
//   min over p in [low, high]   sum_i rho( w_i (F_model(x_i + o_s(i); p, dir_i) - F_i)^2 )
//
// F_model is the total force of all arms on the receptacle along +x, Fx_total = sum_g count_g Fx_g
// (1.5), (1.82), evaluated at each measured displacement with the stroke's direction: +v/v_t on
// the forward stroke, -v/v_t on the reverse (1.84), so friction opposes the motion on each.
// p holds the free parameters the study names (K, mu, g1_d0 by default; theta0 or any other
// model input optionally) and, optionally, one displacement offset o_s per insertion with
// sum_s o_s = 0 (insertion-to-insertion scatter of the pin position; the mean is d0's).
// rho is the identity (least squares), Huber's or Cauchy's loss with scale c [N]:
//   huber:  rho(s) = s for s <= c^2, 2 c sqrt(s) - c^2 above
//   cauchy: rho(s) = c^2 log(1 + s / c^2)
//
// Solver: Levenberg–Marquardt (Eigen's unsupported LevenbergMarquardt, a port of MINPACK's
// lmder: trust-region steps on the residual vector, scaled by the Jacobian's column norms) on
// r~_i = sign(r_i) sqrt(rho(r_i^2)), so that sum r~^2 is the robust cost. Bounds enter through
// MINUIT's transform p = low + (high - low) (1 + sin u) / 2, which also puts every parameter on
// a scale of 1 whatever its unit. Because d0 and K trade off (a later first contact looks like a
// softer arm over part of the stroke), the solver runs from several starts: the study's values
// and a Latin hypercube in the bounds; the lowest cost wins (ties: the lower start index), so the
// result does not depend on the thread count.
//
// Uncertainty: covariance from the Jacobian J = d r~ / d p at the optimum (central differences),
//   C = s^2 (J^T J)^-1,  s^2 = sum r~^2 / (N - P),
// intervals value +- t_{(1+c)/2, N-P} sqrt(C_kk), correlations C_jk / sqrt(C_jj C_kk). These assume
// independent residuals; ripples and insertion-to-insertion scatter are not. With G >= 3
// insertions the fit also gives the insertion-clustered sandwich covariance (Liang & Zeger 1986;
// CR1 small-sample factor, Cameron & Miller 2015, J. Human Resources 50(2), eq. 12)
//   C_cl = G/(G-1) (N-1)/(N-P) (J^T J)^-1 [sum_g (J_g^T r~_g)(J_g^T r~_g)^T] (J^T J)^-1
// with intervals value +- t_{(1+c)/2, G-1} sqrt(C_cl,kk), which allows any correlation within an
// insertion, and optionally a bootstrap over insertions (whole insertions resampled with
// replacement and refitted; percentile intervals, which run narrow for G as small as 5).

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "contactuq/calibrate/insertion_data.hpp"
#include "contactuq/contact/receptacle_pin.hpp"
#include "contactuq/study/curve_study.hpp"

namespace contactuq::calibrate {

// The fit could not produce an estimate: the best fit lies on a bound, no start could be
// evaluated, or a stroke can never reach contact within the bounds.
class fit_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The receptacle being fitted: parameters (free ones hold their first start value), arm groups
// and the speed of the measured strokes.
struct insertion_model {
  contact::receptacle_pin_params params;
  std::vector<contact::arm_group> groups;
  double v_norm = 10.0;  ///< |v| / v_t of the measured strokes [-], > 0 (1.84)

  void validate() const;  // throws parameter_error
};

// Fx_total [N] at displacement x [m] on a stroke in direction d, (1.5), (1.82), (1.84).
double model_force(const contact::receptacle& r, double x, stroke_direction d, double v_norm);

// A model input the fit adjusts. Names are the receptacle_pin model's inputs: Rr Rp phi Rt h R L
// b K mu theta0 and g<g>_d0 (initial separation of arm group g, 1-based).
struct free_parameter {
  std::string name;
  double low = 0.0;             ///< lower bound [SI], finite
  double high = 0.0;            ///< upper bound [SI], finite, > low
  std::optional<double> start;  ///< first start [SI], in [low, high]; default: the model's value
};

enum class loss_kind { squared, huber, cauchy };
std::string_view to_string(loss_kind k);

struct fit_options {
  std::vector<free_parameter> parameters;  ///< at least one, names unique
  // Per-insertion displacement offsets [m], bounds of each, low < 0 < high; none: no offsets.
  std::optional<std::pair<double, double>> offsets;
  int starts = 8;          ///< Levenberg–Marquardt starts, in [1, 1000]
  std::uint64_t seed = 1;  ///< Latin hypercube of the starts and bootstrap draws
  loss_kind loss = loss_kind::squared;
  double loss_scale = 0.0;     ///< c [N], > 0 for huber and cauchy
  double confidence = 0.95;    ///< level of the intervals, in (0, 1)
  int bootstrap = 0;           ///< replicates over insertions, 0 (off) or in [10, 100000]
  int max_evaluations = 2000;  ///< model sweeps per start (Jacobian columns count), >= 10
  double tolerance = 1e-12;    ///< relative step and cost tolerance of LM, in [1e-15, 1e-2]
  bool parallel = true;        ///< run starts and replicates on TBB threads

  void validate() const;  // throws parameter_error naming the field
};

// One fitted quantity, in SI.
struct parameter_estimate {
  std::string name;      ///< model input name, or "offset[<insertion>]"
  units::dimension dim;  ///< its dimension
  std::string unit;      ///< SI unit ("N*m/rad", "", "m")
  double value = 0.0;
  double standard_error = 0.0;   ///< sqrt(C_kk)
  double low = 0.0, high = 0.0;  ///< Jacobian interval at the confidence level
  double bound_low = 0.0, bound_high = 0.0;
  double start = 0.0;  ///< the study's start value
  // Insertion-clustered (sandwich) standard error and interval, t with G - 1 degrees of freedom;
  // empty with fewer than 3 insertions.
  std::optional<double> clustered_se, clustered_low, clustered_high;
  std::optional<double> bootstrap_sd, bootstrap_low, bootstrap_high;  ///< percentile interval
  bool derived = false;  ///< the last offset, minus the sum of the others
};

// Residuals r = F_model - F [N] of one stroke (unweighted).
struct stroke_diagnostics {
  std::string insertion;
  stroke_direction direction = stroke_direction::forward;
  std::size_t points = 0;
  double rms = 0.0;      ///< sqrt(mean r^2) [N]
  double bias = 0.0;     ///< mean r [N]
  double max_abs = 0.0;  ///< max |r| [N]
};

// One Levenberg–Marquardt run.
struct start_record {
  std::vector<double> start;  ///< free parameters and offsets [SI]
  std::vector<double> end;
  double cost = 0.0;    ///< sum r~^2 [N^2] (infinite when the model failed)
  int evaluations = 0;  ///< model sweeps
  std::string status;   ///< why LM stopped
};

struct fit_result {
  std::vector<parameter_estimate> parameters;  ///< free parameters, then offsets (if any)
  Eigen::MatrixXd covariance;                  ///< [SI^2], over the independent parameters
  Eigen::MatrixXd clustered_covariance;        ///< insertion-clustered; empty below 3 insertions
  Eigen::MatrixXd correlation;
  double confidence = 0.95;
  double cost = 0.0;       ///< sum r~^2 at the optimum [N^2]
  double rms = 0.0;        ///< sqrt(mean r^2) over all points, unweighted [N]
  double sigma = 0.0;      ///< s = sqrt(cost / (N - P)) [N]
  std::size_t points = 0;  ///< N (points with weight > 0)
  std::size_t dof = 0;     ///< N - P
  std::vector<stroke_diagnostics> strokes;
  std::vector<std::vector<double>> fitted;  ///< F_model [N] at each point of each stroke
  std::vector<std::string> insertions;      ///< labels, the order of the offsets
  std::vector<double> offsets;              ///< per insertion [m] (zeros without offsets)
  contact::receptacle_pin_params params;    ///< the model at the optimum
  std::vector<contact::arm_group> groups;
  std::vector<start_record> starts;
  std::size_t starts_at_best = 0;  ///< starts that ended within 1e-6 of the best cost
  Eigen::MatrixXd bootstrap;       ///< replicate x independent parameter [SI] (empty if off)
  int bootstrap_failed = 0;        ///< replicates whose refit failed (left out)
  int evaluations = 0;             ///< model sweeps, all starts and replicates
  double seconds = 0.0;            ///< wall time of the fit
};

// Fits `model` to `data`. Throws parameter_error for invalid options or a free parameter the
// model does not have, data_error for a stroke that cannot reach contact within the bounds,
// fit_error when the fit fails (see above).
fit_result fit(const insertion_model& model, const insertion_data& data,
               const fit_options& options);

// The free parameters of a fit as [parameters.<name>] tables of a `contactuq run` study:
// role = "aleatoric", distribution = "normal", mean = the fitted value, sd = the largest of its
// standard errors (Jacobian, clustered, bootstrap), in `units` (e.g. lbf*in/deg for K); then the
// Jacobian correlations
// as [[sampling.correlation]] tables of Spearman's rho = 6/pi asin(r/2) (a normal pair's).
// `source` names the data and study in the snippet's opening comment.
std::string export_toml(const fit_result& result, const study::output_units& units,
                        const std::string& source);

}  // namespace contactuq::calibrate
