#pragma once
// The `curve` study: one receptacle–pin model evaluated along a stroke (forward and back, as in
// the Appendix B decks of Williams SAND2015-20731), optionally swept over one model parameter.
// It runs through model::model like every method: curve_model below is the receptacle_pin
// model with every figure of a stroke, and a curve study is a sweep of it (study/sweep.hpp).

#include <optional>
#include <string>
#include <vector>

#include "contactuq/contact/receptacle_pin.hpp"
#include "contactuq/io/display_units.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/model/receptacle_pin_table.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::study {

// Units the results are reported in; SI unless the study's [output] units say otherwise.
// Units of printed and CSV results: length, force, angle (and time) base units.
using output_units = io::unit_system;

// The `units` key of a study table: an inline table { length, force, angle } (missing entries
// from `fallback`) or a preset "SI", "in-lbf", "in-grf", "mm-N"; `fallback` when absent. Errors
// name file, line and key.
output_units read_units_key(const io::study_table& table, output_units fallback);

// One model parameter varied over a list of values, e.g. theta0 for Williams Fig. 15.
struct parameter_sweep {
  std::string parameter;        ///< a receptacle_pin_params field name
  std::vector<double> values;   ///< SI values
};

struct curve_study_options {
  std::string title;
  contact::receptacle_pin_params model;
  std::vector<contact::arm_group> arms;
  contact::stroke stroke;
  std::optional<parameter_sweep> sweep;
  output_units units;
};

// The receptacle–pin table lives with the model (model/receptacle_pin_table.hpp); these names
// keep callers written against study:: compiling.
using model::curve_summary;
using model::parameter_info;
using model::read_receptacle_pin_table;
using model::read_stroke;
using model::receptacle_pin_parameters;
using model::receptacle_pin_setup;
using model::summarize;

// Reads and validates a curve study; every error names file, line and key.
curve_study_options read_curve_study(const io::study_document& doc);

// The receptacle_pin model in the layout of a curve study: the inputs of the registry's
// receptacle_pin model (Rr .. theta0 of Table 1, then g<g>_d0; nominal values from the study),
// and every figure of one stroke (one way or both, as the study's [stroke] says):
//   outputs  peak_insertion, peak_insertion_x, peak_withdrawal, peak_withdrawal_x, then per arm
//            group g: g<g>_x_c (NaN: never touches), g<g>_x_cr1 .. g<g>_x_cr4, g<g>_peak_theta,
//            g<g>_first_contact (the contact::pin_region of first contact, as a number)
//   curves   over x at the stroke's points: Fx_total, Fy_total, then per arm group g (one arm)
//            g<g>_Fx g<g>_Fy g<g>_Fn g<g>_Ft g<g>_theta g<g>_alpha g<g>_Lmn g<g>_Lmt (NaN
//            where the arm is not over the pin)
// A curve study is a sweep (study/sweep.hpp) of this model, or one evaluation without [sweep].
model::model curve_model(const curve_study_options& options);

enum class arm_field { Fx, Fy, Fn, Ft, theta, alpha, Lmn, Lmt };
enum class curve_figure { peak_insertion, peak_insertion_x, peak_withdrawal, peak_withdrawal_x };
enum class group_figure { x_c, x_cr1, x_cr2, x_cr3, x_cr4, peak_theta, first_contact };

struct curve_case {
  std::optional<double> sweep_value;  ///< SI value of the swept parameter
  model::evaluation result;           ///< curve_model's outputs and curves

  // curve_model's layout by name.
  const std::vector<double>& Fx_total() const { return result.curves[0]; }
  const std::vector<double>& Fy_total() const { return result.curves[1]; }
  const std::vector<double>& arm(std::size_t group, arm_field f) const {
    return result.curves[2 + 8 * group + static_cast<std::size_t>(f)];
  }
  double figure(curve_figure f) const { return result.outputs[static_cast<std::size_t>(f)]; }
  double figure(std::size_t group, group_figure f) const {
    return result.outputs[4 + 7 * group + static_cast<std::size_t>(f)];
  }
};

// Evaluates every case of the study (one without a sweep) through curve_model. Throws
// parameter_error for a swept value the model rejects, model_error where the model has no
// solution.
std::vector<curve_case> run_curve_study(const curve_study_options& options);

}  // namespace contactuq::study
