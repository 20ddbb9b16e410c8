#pragma once
// The pin-slot validation set-up of Skrinjar et al. (003_..., Section 5; multibody/pinslot.hpp)
// as a model of the registry, type "pinslot": one 60 ms simulation per evaluation.
//
// Inputs (SI), nominal values from the [model] table:
//   clearance        c [m] at both slot ends (R keeps its offset from P for non-parallel flats)
//   friction         mu_k [-]
//   restitution      c_r [-]
//   force_amplitude  F_0 [N] of eq. (34)
// The joint idealisation (`joint`: pscj, rcj, irj) and the contact law (`law`) are string keys of
// the [model] table: the epistemic choices, fixed per model (a study rebuilds the model per
// choice).
// Scalar outputs:
//   peak_force           max |F^1| over every step [N] (the contact force on the pin, body 1)
//   peak_force_filtered  max |F^1| after the 301-point centred moving average [N]
//   peak_fx, peak_fy     max |F_x^1|, |F_y^1| over the samples [N]
//   impulse              integral of |F^1| dt [N*s]
//   impacts              detected contact onsets [-]
//   max_overlap          largest penetration [m]
// Curves: fx_filtered, fy_filtered [N] every 16th sample of the 51.2 kS/s grid (0.3125 ms).
// A simulation that fails (too many steps, a law with no answer) throws model_error.

#include <span>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/model/pinslot_table.hpp"

namespace contactuq::model {

class pinslot_model {
 public:
  explicit pinslot_model(const pinslot_setup& setup);  ///< validates (parameter_error)
  static pinslot_model from_study(const io::study_table& table);

  std::vector<variable> inputs() const;
  std::vector<variable> outputs() const;
  std::vector<curve_output> curves() const;
  bool thread_safe() const { return true; }  // each evaluation builds its own system
  std::string name() const { return "pinslot"; }
  evaluation evaluate(std::span<const double> x) const;

  static constexpr std::size_t curve_stride = 16;

 private:
  pinslot_setup setup_;
};

}  // namespace contactuq::model
