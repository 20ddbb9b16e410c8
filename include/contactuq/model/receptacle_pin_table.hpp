#pragma once
// The receptacle–pin model's table as study files spell it (Williams SAND2015-20731, Table 1):
// parameter names and dimensions, the [model] and [stroke] readers, and the figures a person
// reads first from one curve (critical points and peak forces). The registry's receptacle_pin
// model, the switch model, the curve study and calibration all read the model through these.

#include <array>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "contactuq/contact/receptacle_pin.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

// One receptacle–pin parameter: its study-file name, dimension and field.
struct parameter_info {
  const char* name;
  units::dimension dim;
  double contact::receptacle_pin_params::*field;
  valid_range valid = {};  ///< as receptacle_pin_params::validate() requires
};
// Rr Rp phi Rt h R L b K mu theta0, in Table 1's order.
const std::vector<parameter_info>& receptacle_pin_parameters();
// nullptr for a name that is not a parameter.
const parameter_info* find_receptacle_pin_parameter(std::string_view name);
// "Rr, Rp, ..." for error messages.
std::string receptacle_pin_parameter_names();

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

// Figures a person looks at first in one curve.
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
curve_summary summarize(const contact::receptacle& r, const contact::receptacle_curve& curve);

}  // namespace contactuq::model
