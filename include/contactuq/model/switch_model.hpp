#pragma once
// The switch mechanism (dynamics/switch_mechanism.hpp, docs/switch-mechanism.md) as a model of the
// registry, type "switch": one closing of the switch, from release to t_end, per evaluation.
//
// Inputs (SI), nominal values from the [model] table:
//   m1 m2 m3 k_d F0 k12 c12 k3 c3 g0      the mechanism (switch_params)
//   Rr Rp phi Rt h R L b K mu theta0       the receptacle, Williams Table 1 names
//   d0 v_t                                 arm separation from the pin tip; friction law (1.84)
//   radius                                 sphere on the slider [m]; the stop is a flat
//   sphere_modulus sphere_poisson sphere_yield_strength sphere_hardness    sphere material
//   flat_modulus flat_poisson flat_yield_strength flat_hardness            stop material
//   (hardness in Pa; the material table's Brinell number HB is HB g 1e6 Pa, Brake 2014 below
//   eq. 19), then the contact law's own parameters, where the law reads them:
//   restitution        e [-]: cor, cor_<law>, kelvin_voigt_cr and the hysteresis-damping family
//   contact_stiffness  [N/m]: kelvin_voigt, kelvin_voigt_cr
//   contact_damping    [N*s/m]: kelvin_voigt, elastogap, elastogap_unbounded, elastogap_clipped
// Every law derives what else it needs (effective modulus and radius, Hertz stiffness, yield
// strength, hardness, Poisson's ratio) from the two bodies (contact/law_registry.hpp), so every
// model has the same first 32 inputs, whatever its law.
//
// The law: `law` names a registered contact law (not johnson_cylinder, a line contact of
// cylinders), or "cor_<law>" for the impact map whose constant e is the restitution an
// elastic-plastic <law> (e.g. cor_thornton) predicts at the nominal impact velocity: the
// nominal design is simulated up to the first touch of slider and stop (the approach does not
// depend on the contact law), and a free two-body impact of m1 on m3 at that relative speed is
// simulated with <law> (dynamics::simulate_impact); its restitution is the nominal `restitution`.
//
// Scalar outputs (switch_result): closed [-] (1/0), closure_time [s], closure_margin [m],
// chatter [-] (1/0), impact_velocity [m/s], impacts [-], first_restitution [-],
// rebound_amplitude [m], settling_time [s], energy_dissipated [J], peak_contact_force [N],
// residual_indentation [m]. NaN where switch_result says why (no closure, no impact, an impact
// map's force and indentation, not settled by t_end).
// Curves over the time grid t [s]: slider, carrier, stop [m] (x1, x2, x3) and contact_force [N].

#include <map>
#include <span>
#include <string>
#include <vector>

#include "contactuq/contact/material.hpp"
#include "contactuq/dynamics/switch_mechanism.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"

namespace contactuq::model {

struct switch_setup {
  std::string law;                 ///< a registered contact law, or "cor_<law>"
  dynamics::switch_params params;  ///< the mechanism and receptacle
  double radius = 0.0;             ///< sphere radius on the slider [m], > 0 and finite
  contact::material sphere;        ///< body 1 of the contact (on the slider)
  contact::material flat;          ///< body 2 (the stop)
  // The law's own parameters by input name (restitution, contact_stiffness, contact_damping),
  // SI. kelvin_voigt defaults to Brake's 10 kN/mm and 280 N*s/m; a cor_<law> computes its
  // restitution. Other keys are errors.
  std::map<std::string, double> law_parameters;
  dynamics::switch_options options;
};

class switch_model {
 public:
  // Validates everything (parameter_error naming the field) and, for cor_<law>, computes the
  // restitution; throws model_error when the nominal design never reaches the stop.
  explicit switch_model(switch_setup setup);
  // Reads the [model] table (docs/switch-mechanism.md); materials by name from
  // `material_table` (default: <data_dir>/materials.toml). Errors name file, line and key.
  static switch_model from_study(const io::study_table& table, const std::string& data_dir);
  // The same with the data folder of this build (or $CONTACTUQ_DATA when set).
  static switch_model from_study(const io::study_table& table);

  std::vector<variable> inputs() const;
  std::vector<variable> outputs() const;
  std::vector<curve_output> curves() const;
  bool thread_safe() const { return true; }  // evaluate() builds everything it changes
  std::string name() const { return "switch"; }
  // Throws parameter_error for inputs out of range, model_error when the simulation fails.
  evaluation evaluate(std::span<const double> x) const;
  // evaluate() at full resolution: x1, x2, x3 and the contact force at every accepted step,
  // the peaks inside steps and the located events (switch_options::record_steps).
  evaluation_trace trace(std::span<const double> x) const;
  // The full result of one simulation at inputs x.
  dynamics::switch_result simulate(std::span<const double> x) const;
  dynamics::switch_result simulate(std::span<const double> x, const dynamics::switch_options& options) const;

  const switch_setup& setup() const noexcept { return setup_; }
  // cor_<law>: the relative speed of slider on stop at first touch in the nominal design, at
  // which its restitution was computed [m/s]; NaN for other laws.
  double nominal_impact_velocity() const noexcept { return nominal_speed_; }

 private:
  switch_setup setup_;
  std::string registry_law_;  // the law make_law builds ("cor" for cor_<law>)
  std::vector<std::string> law_inputs_;
  double nominal_speed_;
};

}  // namespace contactuq::model
