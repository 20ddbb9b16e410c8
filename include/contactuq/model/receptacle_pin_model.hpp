#pragma once
// The receptacle–pin insertion model (contact/receptacle_pin.hpp, Williams SAND2015-20731) as a
// model of the registry, type "receptacle_pin": one stroke forward and back per evaluation.
//
// Inputs (SI): the 11 parameters Rr Rp phi Rt h R L b K mu theta0 of Williams Table 1, then
// g<g>_d0, the initial separation of arm group g = 1..G. Nominal values come from the [model]
// table.
// Scalar outputs:
//   peak_insertion     max over the forward stroke of -Fx_total [N]
//   peak_withdrawal    max over the reverse stroke of +Fx_total [N]
//   peak_theta         largest |theta| of any arm over the stroke [rad]
//   hysteresis_energy  W = -(closed path integral of Fx_total dx) over forward then reverse,
//                      i.e. the area between the forward and reverse Fx_total curves: the work
//                      friction dissipates in one cycle [J]; trapezoidal rule on the stroke
//                      points; 0 for mu = 0, since (1.4) and (1.81) then coincide
//   x_c                displacement at first contact of group 1 [m]; NaN when it never touches
// Curve output: Fx_total [N] at every stroke point, over x forward then back (abscissa [m]).
//
// The study's [model] table holds the receptacle_pin keys of a curve study plus the stroke:
//   [model]  type = "receptacle_pin", Rr = ..., ..., [[model.arms]] ..., [model.stroke] from, to,
//   points (default 200 here), v_norm; round_trip must stay true (the hysteresis needs both ways).

#include <span>
#include <vector>

#include "contactuq/contact/receptacle_pin.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"

namespace contactuq::model {

class receptacle_pin_model {
 public:
  // Validates params, groups and stroke (parameter_error naming the field); the stroke must be a
  // round trip.
  receptacle_pin_model(const contact::receptacle_pin_params& params, std::vector<contact::arm_group> groups,
                       const contact::stroke& stroke);
  // Reads the [model] table described above; errors name file, line and key.
  static receptacle_pin_model from_study(const io::study_table& table);

  std::vector<variable> inputs() const;
  std::vector<variable> outputs() const;
  std::vector<curve_output> curves() const;
  bool thread_safe() const { return true; }  // evaluate() is a pure function of its inputs
  std::string name() const { return "receptacle_pin"; }
  // Throws parameter_error for inputs the model rejects, model_error where it has no solution
  // (friction lock).
  evaluation evaluate(std::span<const double> x) const;
  // evaluate for every row of b, writing in place (no per-row allocation of the result).
  void evaluate_batch(const batch& b) const;

 private:
  // What evaluate returns, written to `outputs` (5) and `curve` (the stroke's points).
  void evaluate_into(std::span<const double> x, std::span<double> outputs, std::span<double> curve) const;

  contact::receptacle_pin_params params_;
  std::vector<contact::arm_group> groups_;
  contact::stroke stroke_;
};

}  // namespace contactuq::model
