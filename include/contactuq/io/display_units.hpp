#pragma once
// How results are shown: a study's `[output] units`. Result files stay SI; summaries, figures
// and CSV exports convert with these (docs/study-format.md, "Output units").

#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::io {

// Units composed from base units: a quantity of dimension force^f length^l angle^a time^t (mass
// enters through force) is shown in force^f*length^l*angle^a*time^t, e.g. "lbf*in/deg".
struct unit_system {
  std::string length = "m";
  std::string force = "N";
  std::string angle = "rad";
  std::string time = "s";

  bool is_si() const;
  void validate() const;  // throws std::invalid_argument for an unknown or mismatched unit
  // Unit text for a quantity of dimension d ("in", "lbf*in/deg"; SI names such as "J" while
  // every base unit is SI; "" for dimensionless).
  std::string unit_for(units::dimension d) const;
  double from_si(double si, units::dimension d) const;
};

// A variable (input, output, curve or curve abscissa) a study may name in `[output] units`.
struct named_dimension {
  std::string name;
  units::dimension dim;
};

// Base units plus units for single variables by name.
struct display_units {
  unit_system base;
  std::vector<std::pair<std::string, std::string>> by_name;  ///< variable -> unit text

  // The unit a variable of dimension d is shown in: its own, else composed from the base.
  std::string unit_for(std::string_view name, units::dimension d) const;
  // Shown value = SI value * factor (every unit contactuq knows is a pure scale).
  double factor(std::string_view name, units::dimension d) const;
};

// The `units` key of `table` (an [output] table): a preset ("SI", "in-lbf", "in-grf", "mm-N";
// the last three show angles in degrees) or an inline table whose keys are base names (length,
// force, angle, time) or names of `variables`, e.g. { force = "lbf", settling_time = "ms" }.
// `fallback` where the key is absent. Errors name file, line and key, and list the allowed names.
display_units read_display_units(const study_table& table, const std::vector<named_dimension>& variables,
                                 display_units fallback = {});

// The display units a result file's verbatim study asks for (its [output] units), for the
// variables `variables`; SI when the study has none. A study that no longer parses (written by
// another version) falls back to SI rather than failing a summary.
display_units display_units_of_study(const std::string& study_text, const std::string& file_name,
                                     const std::vector<named_dimension>& variables);

// A specification limit of a scalar output, [output.limits] name = { low = "...", high = "..." }:
// values outside [low, high] violate it. SI; an open side is -inf or +inf.
struct output_limit {
  std::string name;
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
};

// The [output.limits] table of `output` (none when absent): every key an output of `outputs`
// with a low and/or high value of its dimension, low < high. Errors name file, line and key.
std::vector<output_limit> read_output_limits(const study_table& output, const std::vector<named_dimension>& outputs);

// The limits a result file's verbatim study declares; none when it declares none or no longer
// reads.
std::vector<output_limit> output_limits_of_study(const std::string& study_text, const std::string& file_name,
                                                 const std::vector<named_dimension>& outputs);

// An ensemble read for showing: every output and curve converted to the display units its
// study asks for, units renamed to match (inputs stay SI, as their distributions are stored).
// Every conversion is a pure scale, so statistics of the converted values are the converted
// statistics. Returns the factor each output was multiplied by (all 1 when nothing changed).
struct ensemble;
std::vector<double> convert_for_display(ensemble& e, const std::string& file_name);

}  // namespace contactuq::io
