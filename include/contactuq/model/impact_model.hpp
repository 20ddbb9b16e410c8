#pragma once
// A single two-body impact (dynamics/single_impact.hpp, Brake 2014 seeds/001_...) as a model of
// the registry, type "impact": body 1 meets body 2 at relative speed v0 and the contact law
// stops and releases them,
//   m delta'' = -F(delta, delta'),  delta(0) = 0,  delta'(0) = v0,  m = (1/m1 + 1/m2)^-1.
//
// Inputs (SI), nominal values from the [model] table:
//   approach_velocity      v0 [m/s]
//   mass_1 [, mass_2]      [kg]; mass_2 only when body 2 is not fixed
//   radius_1 [, radius_2]  [m]; a flat body has no radius input
//   body_1_modulus body_1_poisson body_1_yield_strength body_1_hardness, and body_2_ ...
//                          the materials [Pa, -, Pa, Pa]; hardness HB g 1e6 Pa (Brake 2014,
//                          below eq. 19)
//   then the chosen law's explicit parameters ([model.laws.<law>]), by the law's field names
//   (contact/law_registry.hpp), e.g. restitution, stiffness, damping. What a law does not get
//   explicitly it derives from the two bodies.
// Scalar outputs:
//   restitution        e = -delta'_out / v0 [-]
//   peak_force         max F [N]; NaN for an impact map (cor)
//   contact_time       first touch to release [s]; 0 for an impact map
//   max_overlap        max delta [m]
//   residual_overlap   delta where the force returned to zero [m]
//   energy_dissipated  1/2 m (v0^2 - delta'_out^2) [J]
// Curves over tau = t / contact_time in [0, 1] ([-], curve_points points, default 101):
//   force [N] and overlap [m], interpolated linearly in the integrator's dense output; NaN for
//   an impact map, which has no time history.
// A failed simulation (too many steps, a law with no answer) throws model_error.
//
// The [model] table:
//   type = "impact", law = "<registered law>" (a [model] key, so a study may make it epistemic),
//   approach_velocity = "<velocity>", material_table = "<path>" (default data/materials.toml),
//   [model.body_1], [model.body_2]: material = "<name>" (or modulus, poisson, yield_strength,
//     density, brinell_hardness given in full; any of them overrides the table), radius =
//     "<length>" | "flat", mass = "<mass>" | "fixed" (default: fixed for a flat, else a solid
//     sphere of the material's density)
//   [model.laws.<law>]: that law's parameters, used only when it is the chosen law
//   relative_tolerance, absolute_tolerance, max_steps, integrator = "dopri5" | "cvode_adams",
//   curve_points (0: no curves)

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/dynamics/single_impact.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

// One body of an impact: its material, radius (contact::flat_radius for a flat) and mass
// (infinity for a fixed body).
struct impact_body {
  contact::material material;
  double radius = 0.0;  ///< [m], > 0; flat_radius for a flat
  double mass = 0.0;    ///< [kg], > 0; infinity when fixed
};

// Reads a body table (material, radius, mass and material overrides, as above); errors name
// file, line and key.
impact_body read_impact_body(const io::study_table& table, const contact::material_table& materials);

// One law parameter given explicitly: SI value and the dimension it was written with.
struct law_value {
  double si = 0.0;
  units::dimension dim;
};

struct impact_setup {
  std::string law;  ///< a registered contact law
  impact_body body_1, body_2;
  std::map<std::string, law_value> law_parameters;  ///< by the law's field names
  dynamics::impact_options solver;  ///< masses and v0 are taken from the inputs
  int curve_points = 101;           ///< 0 or >= 2
};

class impact_model {
 public:
  // Validates the setup and builds the law once at the nominal values (parameter_error naming
  // the field).
  explicit impact_model(impact_setup setup);
  // Reads the [model] table above; materials from `data_dir`/materials.toml unless the table
  // names another. Errors name file, line and key.
  static impact_model from_study(const io::study_table& table, const std::string& data_dir);
  // The same with the data folder of this build (or $CONTACTUQ_DATA when set).
  static impact_model from_study(const io::study_table& table);

  std::vector<variable> inputs() const;
  std::vector<variable> outputs() const;
  std::vector<curve_output> curves() const;
  bool thread_safe() const { return true; }  // each evaluation builds its own law and simulator
  std::string name() const { return "impact"; }
  // Throws parameter_error for inputs out of range, model_error when the simulation fails.
  evaluation evaluate(std::span<const double> x) const;
  // The simulator's full result at inputs x (history recorded when the model has curves).
  dynamics::impact_result simulate(std::span<const double> x) const;

  const impact_setup& setup() const noexcept { return setup_; }

 private:
  // The simulator's options and the law at inputs x; throws parameter_error for bad inputs.
  struct prepared {
    dynamics::impact_options options;
    std::optional<contact::contact_law> law;
  };
  prepared prepare(std::span<const double> x) const;

  impact_setup setup_;
};

}  // namespace contactuq::model
