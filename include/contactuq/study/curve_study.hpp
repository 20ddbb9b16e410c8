#pragma once
// The `curve` study: one receptacle–pin model evaluated along a stroke (forward and back, as in
// the Appendix B decks of Williams SAND2015-20731), optionally swept over one model parameter.

#include <initializer_list>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "contactuq/contact/receptacle_pin.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::study {

// Units the results are reported in; SI unless the study's [output] units say otherwise.
struct output_units {
  std::string length = "m";
  std::string force = "N";
  std::string angle = "rad";

  void validate() const;  // throws std::invalid_argument for an unknown or mismatched unit
  // Unit text for a quantity of dimension d built from these ("in", "lbf*in/deg", "").
  std::string unit_for(units::dimension d) const;
  double from_si(double si, units::dimension d) const;
};

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

// Names and dimensions of the receptacle–pin model parameters as study files spell them.
struct parameter_info {
  const char* name;
  units::dimension dim;
  double contact::receptacle_pin_params::*field;
};
const std::vector<parameter_info>& receptacle_pin_parameters();

// A receptacle–pin [model] table: type = "receptacle_pin", the parameters of
// receptacle_pin_parameters() (all required but theta0, default 0) and [[model.arms]] (d0,
// direction, count). Keys other than these and `extra_keys` are errors; every error names file,
// line and key.
struct receptacle_pin_setup {
  contact::receptacle_pin_params params;
  std::vector<contact::arm_group> arms;
};
receptacle_pin_setup read_receptacle_pin_table(const io::study_table& model,
                                               std::initializer_list<std::string_view> extra_keys = {});
// A stroke table: from, to (lengths), points (default 500), v_norm (default 10), round_trip
// (default true).
contact::stroke read_stroke(const io::study_table& stroke);

// Reads and validates a curve study; every error names file, line and key.
curve_study_options read_curve_study(const io::study_document& doc);

// Figures a person looks at first, per sweep case.
struct curve_summary {
  struct group {
    std::optional<double> xc;            ///< displacement at first contact [m]
    contact::pin_region first_contact = contact::pin_region::none;
    std::array<double, 4> x_cr{};        ///< critical displacements [m]
    double peak_theta = 0.0;             ///< largest |theta| over the stroke [rad]
  };
  std::vector<group> groups;
  double peak_insertion = 0.0;    ///< max of -Fx_total over the forward stroke [N]
  double peak_insertion_x = 0.0;  ///< where it occurs [m]
  double peak_withdrawal = 0.0;   ///< max of Fx_total over the reverse stroke [N] (0 without one)
  double peak_withdrawal_x = 0.0;
};

struct curve_case {
  std::optional<double> sweep_value;  ///< SI value of the swept parameter
  contact::receptacle receptacle;
  contact::receptacle_curve curve;
  curve_summary summary;
};

// Evaluates every case of the study (one without a sweep). Throws parameter_error for a swept
// value the model rejects, model_error where the model has no solution.
std::vector<curve_case> run_curve_study(const curve_study_options& options);

curve_summary summarize(const contact::receptacle& r, const contact::receptacle_curve& curve);

}  // namespace contactuq::study
