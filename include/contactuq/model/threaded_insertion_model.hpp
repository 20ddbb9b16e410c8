#pragma once
// The threaded start (threaded/threaded_insertion.hpp, docs/threaded-insertion.md) as a model of
// the registry, type "threaded_insertion": one start of a bolt in a nut per evaluation.
//
// [model] keys that are not inputs: thread ("M8x1.25", "1/4-20 UNC", ... or "custom" with d and
// p), law (a registered contact law, default "hunt_crossley"), restitution (of the hysteresis
// laws, default 0.5), contact_velocity, v_t, nut_height, bolt_length, density, tip_angle,
// points_per_turn, relative_tolerance, max_steps, curve_points (0: no curves).
// Inputs (SI; nominal values from the [model] table, else the defaults below):
//   d p flank_angle root_radius allowance runup_angle chamfer        geometry (standard's d, p, e;
//                                                                    30 deg, 0.1 p, pi, 0)
//   mass mu                                                          (steel cylinder; 0.15)
//   k_t k_z k_theta_t k_theta_z k_z_theta_z z_c damping_ratio        grasp (eqs. 5.2-5.4)
//   feed lateral_offset offset_azimuth tilt tilt_azimuth phase z0 turns engage_depth
// Outputs: success outcome cross_threaded engagement_margin time_to_engage axial_advance
//   max_tilt final_tilt phase_error max_contact_force max_axial_force max_torque_z
//   energy_dissipated max_contacts drive_slip. A start the integrator cannot finish is outcome 5
//   (inconclusive), not an error. Curves over the run fraction [0, 1]: tip_z, tilt, phase_lag,
//   axial_force, torque_z (NaN after an early stop).

#include <span>
#include <string>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/threaded/threaded_insertion.hpp"

namespace contactuq::model {

class threaded_insertion_model {
 public:
  // Validates the nominal parameters (parameter_error naming the input).
  explicit threaded_insertion_model(threaded::insertion_params nominal, int curve_points = 0);
  static threaded_insertion_model from_study(const io::study_table& table);

  std::vector<variable> inputs() const;
  std::vector<variable> outputs() const;
  std::vector<curve_output> curves() const;
  bool thread_safe() const { return true; }
  std::string name() const { return "threaded_insertion"; }
  evaluation evaluate(std::span<const double> x) const;
  // The parameters of one evaluation at inputs x.
  threaded::insertion_params parameters(std::span<const double> x) const;

 private:
  threaded::insertion_params nominal_;
  int curve_points_;
};

}  // namespace contactuq::model
