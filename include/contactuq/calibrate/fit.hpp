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
// The method (robust loss, multi-start Levenberg–Marquardt in MINUIT's bound transform,
// Jacobian, insertion-clustered and bootstrap intervals) is the one of every calibration,
// least_squares.hpp; this file supplies the insertion curves as its residual problem. Because d0
// and K trade off (a later first contact looks like a softer arm over part of the stroke), the
// solver runs from several starts.

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "contactuq/calibrate/insertion_data.hpp"
#include "contactuq/calibrate/least_squares.hpp"
#include "contactuq/contact/receptacle_pin.hpp"
#include "contactuq/study/curve_study.hpp"

namespace contactuq::calibrate {

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

// Residuals r = F_model - F [N] of one stroke (unweighted).
struct stroke_diagnostics {
  std::string insertion;
  stroke_direction direction = stroke_direction::forward;
  std::size_t points = 0;
  double rms = 0.0;      ///< sqrt(mean r^2) [N]
  double bias = 0.0;     ///< mean r [N]
  double max_abs = 0.0;  ///< max |r| [N]
};

// The estimates of least_squares_result (free parameters, then every insertion's offset, the
// last derived) and the insertion curves at the optimum.
struct fit_result : least_squares_result {
  std::vector<stroke_diagnostics> strokes;
  std::vector<std::vector<double>> fitted;  ///< F_model [N] at each point of each stroke
  std::vector<std::string> insertions;      ///< labels, the order of the offsets
  std::vector<double> offsets;              ///< per insertion [m] (zeros without offsets)
  contact::receptacle_pin_params params;    ///< the model at the optimum
  std::vector<contact::arm_group> groups;
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
std::string export_toml(const least_squares_result& result, const study::output_units& units,
                        const std::string& source);

}  // namespace contactuq::calibrate
