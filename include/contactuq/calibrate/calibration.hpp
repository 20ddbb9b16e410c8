#pragma once
// Calibration of any registered model (model/model.hpp) to measured data matched by output
// name: the method of least_squares.hpp on the residuals
//
//   scalar output j of case c:  r = (y_j(x_c; q) - y_cj) / s_j
//   curve k of case c, point i: r = (interp(X_k, Y_k(x_c; q), x_i) - y_ci) / s_k
//
// x_c: the model inputs of case c (the study's fixed values, the calibrated q, and the inputs
// the case varies, e.g. an approach velocity); Y_k on the model's abscissa X_k is interpolated
// linearly at the measured abscissae x_i, which must lie within X_k. s: the residual scale of
// each output or curve (its measurement sd; default the rms of its measured values, so that
// outputs of different units weigh alike). Every residual of a case belongs to the case's
// cluster (its label): the clustered intervals and the bootstrap resample whole clusters.

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

#include "contactuq/calibrate/least_squares.hpp"
#include "contactuq/model/model.hpp"

namespace contactuq::calibrate {

// A measured curve: ordinate y at abscissa x [SI], of model curve `curve`.
struct measured_curve {
  std::size_t curve = 0;  ///< index into model::curves()
  std::vector<double> x, y;
};

// One evaluation of the model and what was measured on it.
struct measured_case {
  std::string label;  ///< cluster label, e.g. "3" or "drop 2"
  std::string part;   ///< the physical part measured (a "part" column); empty: not given
  std::string file;   ///< where it was read, for messages
  int line = 0;
  std::vector<std::pair<std::size_t, double>> inputs;   ///< model input index, value [SI]
  std::vector<std::pair<std::size_t, double>> outputs;  ///< model output index, measured [SI]
  std::vector<measured_curve> curves;
};

// The model and what the study fixes.
struct calibration_setup {
  model::model model;
  // Every model input [SI] in the model's order: fixed values; calibrated ones hold their
  // first start (used when the options give no start).
  std::vector<double> inputs;
  // Residual scale s per output and per curve [their SI units]; 0: the rms of the measured
  // values. Empty: all 0.
  std::vector<double> output_scale, curve_scale;
};

// Measured against fitted, for one output or curve over all cases.
struct residual_set {
  std::string name;             ///< output or curve name
  bool curve = false;
  std::string unit;             ///< SI unit of the values
  double scale = 0.0;           ///< s
  std::vector<std::size_t> case_index;  ///< case of each value
  std::vector<double> x;        ///< curve abscissa [SI] (empty for a scalar output)
  std::vector<double> measured, fitted;
  double rms = 0.0;             ///< sqrt(mean (fitted - measured)^2) [unit]
};

struct calibration_result : least_squares_result {
  std::string model;            ///< the registered name
  std::vector<double> inputs;   ///< the model inputs at the optimum [SI]
  std::vector<std::string> case_labels;  ///< distinct case labels (the clusters)
  std::vector<residual_set> residuals;
};

// Calibrates the inputs options.parameters names. Throws parameter_error for an input the model
// does not have or bad options, data_error for data the model cannot be compared with (an
// unknown index, an abscissa outside the model's curve), fit_error when the fit fails.
calibration_result calibrate(const calibration_setup& setup,
                             const std::vector<measured_case>& cases, const fit_options& options);

// The model's values at every measured point of case c, at model inputs x (every input [SI];
// the case's own inputs are set over them): its scalar outputs in order, then its curves
// interpolated at the measured abscissae. What the residuals above compare with the data.
std::vector<double> case_values(const model::model& m, std::vector<double> x, const measured_case& c);

// Checks the cases against model m as calibrate() does (indices, finite values, curve
// abscissae within the model's, more values than `parameters`); returns the number of values.
std::size_t check_measured_cases(const model::model& m, const std::vector<measured_case>& cases,
                                 std::size_t parameters);

// Model outputs at `inputs` for every case, each with noise_sd[j] * N(0, 1) added to output j
// (inversion of a uniform of uq::make_engine(seed, ..., case)): synthetic measurements made by
// the model itself. `cases` gives the varied inputs and which outputs to fill; their values are
// overwritten.
void synthesize_cases(const model::model& m, const std::vector<double>& inputs,
                      std::vector<measured_case>& cases, const std::vector<double>& noise_sd,
                      std::uint64_t seed);

}  // namespace contactuq::calibrate
