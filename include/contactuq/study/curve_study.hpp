#pragma once
// The `curve` study: one receptacle–pin model evaluated along a stroke (forward and back, as in
// the Appendix B decks of Williams SAND2015-20731), optionally swept over one model parameter.

#include <optional>
#include <string>
#include <vector>

#include "contactuq/contact/receptacle_pin.hpp"
#include "contactuq/io/display_units.hpp"
#include "contactuq/io/study_file.hpp"
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

struct curve_case {
  std::optional<double> sweep_value;  ///< SI value of the swept parameter
  contact::receptacle receptacle;
  contact::receptacle_curve curve;
  curve_summary summary;
};

// Evaluates every case of the study (one without a sweep). Throws parameter_error for a swept
// value the model rejects, model_error where the model has no solution.
std::vector<curve_case> run_curve_study(const curve_study_options& options);

}  // namespace contactuq::study
