#pragma once
// Measurement-like synthetic insertion-force data from the receptacle–pin model, for testing and
// demonstrating the calibration when bench data are not public (Williams' measurements of
// SAND2015-20731 section 3.2 are not). Insertion i = 1..n, forward then reverse stroke:
//
//   F_ij = sum over arms a of Fx_a(x_j + s_i; h_a, mu_a(d)) + sigma z_ij       (1.5), (1.82),
//   (1.84) s_i ~ N(0, position_sd^2)         pin position scatter: every arm's d0 moves by -s_i
//   (engaging) h_a = h + (-1)^a e_i, e_i ~ N(0, misalignment_sd^2)
//                                     lateral misalignment: of a bifurcated receptacle's two arms
//                                     one sits e_i higher above the pin axis, the other e_i lower
//   mu_a(d) = mu (1 + ripple sin(2 pi d / wavelength + phi_i)),  phi_i ~ U(0, 2 pi)
//                                     friction ripple of the surface texture, a function of the
//                                     position d on the pin (the same going in and out)
//   z_ij ~ N(0, 1)                    load-cell noise
//
// x_j are equally spaced from `from` to `to` and back. Each arm of a group (count arms) is
// evaluated on its own. Every random number comes from a stream seeded by (seed, insertion), so a
// data set depends only on its options.

#include <cstdint>
#include <string>
#include <vector>

#include "contactuq/calibrate/insertion_data.hpp"
#include "contactuq/contact/receptacle_pin.hpp"

namespace contactuq::calibrate {

struct synthetic_options {
  int insertions = 5;               ///< n, in [1, 1000]
  double from = 0.0;                ///< stroke start [m], finite
  double to = 0.0;                  ///< stroke end [m], finite, > from
  int points = 250;                 ///< points per stroke, in [2, 1000000]
  double v_norm = 10.0;             ///< |v| / v_t [-], > 0 (1.84)
  double noise_sd = 0.0;            ///< sigma, load-cell noise [N], >= 0
  double position_sd = 0.0;         ///< sd of the pin position s_i [m], >= 0
  double misalignment_sd = 0.0;     ///< sd of the lateral misalignment e_i [m], >= 0
  double ripple = 0.0;              ///< relative friction ripple amplitude [-], in [0, 1)
  double ripple_wavelength = 1e-4;  ///< ripple wavelength along the pin [m], > 0
  std::uint64_t seed = 1;

  void validate() const;  // throws parameter_error naming the field
};

// What was drawn for one insertion.
struct synthetic_insertion {
  std::string label;
  double position = 0.0;      ///< s_i [m]
  double misalignment = 0.0;  ///< e_i [m]
  double ripple_phase = 0.0;  ///< phi_i [rad]
};

struct synthetic_dataset {
  insertion_data data;  ///< forces in the model convention (on the receptacle along +x)
  std::vector<synthetic_insertion> insertions;
};

// Throws parameter_error for invalid options or parameters, model_error where the model has no
// solution along the stroke.
synthetic_dataset make_synthetic(const contact::receptacle_pin_params& params,
                                 const std::vector<contact::arm_group>& groups,
                                 const synthetic_options& options);

}  // namespace contactuq::calibrate
