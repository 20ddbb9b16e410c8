// The threaded insertion's parameters and their defaults (threaded_insertion.hpp). The pieces of
// a start live beside this file: grasp.cpp (the grasp's spring), contact_detector.cpp (bolt
// against nut), insertion_system.cpp (the equations of motion), insertion_integrator.cpp (the
// CVODE glue) and insertion_run.cpp (one start, run and judged).
#include "contactuq/threaded/threaded_insertion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contactuq/error.hpp"
#include "rotation.hpp"

namespace contactuq::threaded {

using namespace detail;

double default_contact_length(const thread_params& t) { return t.pitch; }

double drive_torque_limit(const insertion_params& p) {
  if (!std::isnan(p.drive_torque_limit)) return p.drive_torque_limit;
  return std::min(0.2, 0.5 * pi * p.grasp.k_theta_z);
}

void insertion_params::validate() const {
  thread.validate();
  grasp.validate();
  require(std::isnan(mass) || (std::isfinite(mass) && mass > 0), "mass", mass, "kg",
          "positive and finite (or unset: a steel cylinder)");
  require(std::isfinite(density) && density > 0, "density", density, "kg/m^3", "positive");
  require(std::isfinite(contact_velocity) && contact_velocity > 0, "contact_velocity",
          contact_velocity, "m/s", "positive");
  require(std::isnan(contact_length) || (std::isfinite(contact_length) && contact_length > 0),
          "contact_length", contact_length, "m", "positive (or unset: the pitch)");
  require(std::isnan(drive_torque_limit) || (std::isfinite(drive_torque_limit) && drive_torque_limit > 0),
          "drive_torque_limit", drive_torque_limit, "N*m", "positive (or unset: 0.2 N*m)");
  // the twist error log(R_e R^T) wraps at half a turn: the drive must slip well before it
  require(std::isnan(drive_torque_limit) || grasp.k_theta_z == 0 ||
              drive_torque_limit < 0.9 * pi * grasp.k_theta_z,
          "drive_torque_limit", drive_torque_limit, "N*m",
          fmt::format("below 0.9 pi k_theta_z = {} N*m (the twist wraps at half a turn)",
                      format_value(0.9 * pi * grasp.k_theta_z))
              .c_str());
  require(std::isfinite(mu) && mu >= 0 && mu <= 2, "mu", mu, "", "in [0, 2]");
  require(std::isfinite(v_t) && v_t > 0, "v_t", v_t, "m/s", "positive");
  require(std::isfinite(feed) && feed >= 0, "feed", feed, "m/s", "non-negative and finite");
  require(std::isnan(duration) || (std::isfinite(duration) && duration > 0), "duration", duration,
          "s", "positive (or unset: turns p / feed)");
  require(feed > 0 || !std::isnan(duration), "feed", feed, "m/s", "positive unless a duration is given");
  require(std::isfinite(gravity) && gravity >= 0, "gravity", gravity, "m/s^2", "non-negative and finite");
  if (feed_mode != feed_kind::path) {
    require(std::isfinite(axial_force) && axial_force > 0, "axial_force", axial_force, "N",
            "positive and finite (force and guarded feeds)");
    require(grasp.k_z > 0, "k_z", grasp.k_z, "N/m",
            "positive with a force or guarded feed (the axial spring carries the force)");
  }
  require(std::isfinite(lateral_offset) && lateral_offset >= 0 &&
              lateral_offset <= thread.major_diameter,
          "lateral_offset", lateral_offset, "m", "in [0, d]");
  require(std::isfinite(offset_azimuth), "offset_azimuth", offset_azimuth, "rad", "finite");
  require(std::isfinite(tilt) && tilt >= 0 && tilt <= 0.5, "tilt", tilt, "rad", "in [0, 0.5]");
  require(std::isfinite(tilt_azimuth), "tilt_azimuth", tilt_azimuth, "rad", "finite");
  require(std::isfinite(phase), "phase", phase, "rad", "finite");
  // z0 < 0 starts the tip inside the nut (tests of the nut's helical symmetry; the model's input
  // keeps z0 >= 0)
  require(std::isfinite(z0) && z0 >= -thread.nut_height && z0 <= 10 * thread.pitch, "z0", z0, "m",
          "in [-H, 10 p]");
  require(std::isfinite(turns) && turns > 0 && turns <= 20, "turns", turns, "", "in (0, 20]");
  require(stall_abort_turns >= 0.5, "stall_abort_turns", stall_abort_turns, "",
          "at least 0.5 (a stall is seen over half a turn of drive), or infinite (never)");
  require(std::isfinite(engage_depth) && engage_depth > 0 && engage_depth < thread.nut_height,
          "engage_depth", engage_depth, "m", "positive and below the nut height");
  require(tip_angle > 0 && tip_angle < 1.5, "tip_angle", tip_angle, "rad", "in (0, 1.5)");
  require(points_per_turn >= 8 && points_per_turn <= 4000, "points_per_turn", points_per_turn, "",
          "in [8, 4000]");
  require(relative_tolerance >= 1e-10 && relative_tolerance <= 1e-2, "relative_tolerance",
          relative_tolerance, "", "in [1e-10, 1e-2]");
  require(max_steps >= 100 && max_steps <= 100000000, "max_steps", static_cast<double>(max_steps), "",
          "in [100, 1e8]");
  require(history_points >= 0 && history_points <= 100000, "history_points", history_points, "",
          "in [0, 100000]");
}

}  // namespace contactuq::threaded
