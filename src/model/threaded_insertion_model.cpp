#include "contactuq/model/threaded_insertion_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "contactuq/contact/law_registry.hpp"
#include "contactuq/error.hpp"
#include "contactuq/model/physical_limit.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

using namespace threaded;

namespace u = units;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct input_field {
  const char* name;
  u::dimension dim;
  double& (*ref)(insertion_params&);
  // The part of insertion_params::validate() that holds whatever the other inputs are (the
  // rest, e.g. p < d/2 or z0 <= 10 p, is checked per case), with generous upper bounds
  // (physical_limit) where validate() has none. Azimuths and the phase repeat every turn; two
  // turns either way leave room for any range a study gives them.
  valid_range valid = {};
};

const std::vector<input_field>& input_fields() {
  static const std::vector<input_field> table = {
      {"d", u::length, [](insertion_params& p) -> double& { return p.thread.major_diameter; }, positive_up_to(physical_limit::length)},
      {"p", u::length, [](insertion_params& p) -> double& { return p.thread.pitch; }, positive_up_to(physical_limit::length)},
      {"flank_angle", u::angle, [](insertion_params& p) -> double& { return p.thread.flank_angle; }, {0.05, 1.4, true, true}},
      {"root_radius", u::length, [](insertion_params& p) -> double& { return p.thread.root_radius; }, non_negative_up_to(physical_limit::length)},
      {"allowance", u::length, [](insertion_params& p) -> double& { return p.thread.allowance; }, non_negative_up_to(physical_limit::length)},
      {"runup_angle", u::angle, [](insertion_params& p) -> double& { return p.thread.runup_angle; }, {0.0, 8 * std::numbers::pi}},
      {"chamfer", u::length, [](insertion_params& p) -> double& { return p.thread.chamfer; }, non_negative_up_to(physical_limit::length)},
      {"mass", u::mass, [](insertion_params& p) -> double& { return p.mass; }, positive_up_to(physical_limit::mass)},
      {"mu", u::dimensionless, [](insertion_params& p) -> double& { return p.mu; }, {0.0, 2.0}},
      {"k_t", u::stiffness, [](insertion_params& p) -> double& { return p.grasp.k_t; }, non_negative_up_to(physical_limit::stiffness)},
      {"k_z", u::stiffness, [](insertion_params& p) -> double& { return p.grasp.k_z; }, non_negative_up_to(physical_limit::stiffness)},
      {"k_theta_t", u::torsional_stiffness, [](insertion_params& p) -> double& { return p.grasp.k_theta_t; }, non_negative_up_to(physical_limit::torsional_stiffness)},
      {"k_theta_z", u::torsional_stiffness, [](insertion_params& p) -> double& { return p.grasp.k_theta_z; }, non_negative_up_to(physical_limit::torsional_stiffness)},
      {"k_z_theta_z", u::coupling_stiffness, [](insertion_params& p) -> double& { return p.grasp.k_z_theta_z; }, magnitude_up_to(physical_limit::stiffness)},
      {"z_c", u::length, [](insertion_params& p) -> double& { return p.grasp.z_c; }, magnitude_up_to(physical_limit::length)},
      {"damping_ratio", u::dimensionless, [](insertion_params& p) -> double& { return p.grasp.damping_ratio; }, non_negative_up_to(100.0)},
      {"feed", u::velocity, [](insertion_params& p) -> double& { return p.feed; }, non_negative_up_to(physical_limit::velocity)},
      {"lateral_offset", u::length, [](insertion_params& p) -> double& { return p.lateral_offset; }, non_negative_up_to(physical_limit::length)},
      {"offset_azimuth", u::angle, [](insertion_params& p) -> double& { return p.offset_azimuth; }, magnitude_up_to(physical_limit::angle)},
      {"tilt", u::angle, [](insertion_params& p) -> double& { return p.tilt; }, {0.0, 0.5}},
      {"tilt_azimuth", u::angle, [](insertion_params& p) -> double& { return p.tilt_azimuth; }, magnitude_up_to(physical_limit::angle)},
      {"phase", u::angle, [](insertion_params& p) -> double& { return p.phase; }, magnitude_up_to(physical_limit::angle)},
      {"z0", u::length, [](insertion_params& p) -> double& { return p.z0; }, non_negative_up_to(physical_limit::length)},
      {"turns", u::dimensionless, [](insertion_params& p) -> double& { return p.turns; }, {0.0, 20.0, true, false}},
      {"engage_depth", u::length, [](insertion_params& p) -> double& { return p.engage_depth; }, positive_up_to(physical_limit::length)},
      {"axial_force", u::force, [](insertion_params& p) -> double& { return p.axial_force; }, positive_up_to(physical_limit::force)},
      {"gravity", u::velocity / u::duration, [](insertion_params& p) -> double& { return p.gravity; }, non_negative_up_to(physical_limit::acceleration)},
  };
  return table;
}

const char* const curve_names[] = {"tip_z", "tilt", "phase_lag", "axial_force", "torque_z"};

}  // namespace

threaded_insertion_model::threaded_insertion_model(insertion_params nominal, int curve_points)
    : nominal_(std::move(nominal)), curve_points_(curve_points) {
  if (std::isnan(nominal_.mass)) {  // the nominal mass, a steel cylinder of radius R_b (4.9)
    const thread_geometry g(nominal_.thread);
    const double rb = g.bolt_minor_radius();
    nominal_.mass = nominal_.density * std::numbers::pi * rb * rb * nominal_.thread.bolt_length;
  }
  nominal_.validate();
  require(curve_points_ == 0 || (curve_points_ >= 2 && curve_points_ <= 100000), "curve_points",
          curve_points_, "", "0 or in [2, 100000]");
}

std::vector<variable> threaded_insertion_model::inputs() const {
  std::vector<variable> v;
  insertion_params copy = nominal_;
  for (const auto& f : input_fields()) v.push_back({f.name, f.dim, f.ref(copy), f.valid});
  return v;
}

std::vector<variable> threaded_insertion_model::outputs() const {
  return {{"success", u::dimensionless},      {"outcome", u::dimensionless},
          {"cross_threaded", u::dimensionless}, {"engagement_margin", u::length},
          {"time_to_engage", u::duration},    {"axial_advance", u::length},
          {"max_tilt", u::angle},             {"final_tilt", u::angle},
          {"phase_error", u::angle},          {"max_contact_force", u::force},
          {"max_axial_force", u::force},      {"max_torque_z", u::force * u::length, nan, {}, "N*m"},
          {"energy_dissipated", u::energy},   {"max_contacts", u::dimensionless},
          {"drive_slip", u::angle}};
}

std::vector<curve_output> threaded_insertion_model::curves() const {
  if (curve_points_ == 0) return {};
  std::vector<double> fraction(curve_points_);
  for (int i = 0; i < curve_points_; ++i) fraction[i] = static_cast<double>(i) / (curve_points_ - 1);
  const u::dimension dims[] = {u::length, u::angle, u::angle, u::force, u::force * u::length};
  std::vector<curve_output> c;
  const char* const unit[] = {"", "", "", "", "N*m"};  // a torque, not an energy
  for (int k = 0; k < 5; ++k) c.push_back({curve_names[k], dims[k], "run_fraction", u::dimensionless, fraction, unit[k]});
  return c;
}

insertion_params threaded_insertion_model::parameters(std::span<const double> x) const {
  insertion_params p = nominal_;
  const auto& fields = input_fields();
  for (std::size_t i = 0; i < fields.size() && i < x.size(); ++i) fields[i].ref(p) = x[i];
  p.history_points = curve_points_;
  if (curve_points_ > 0) p.stop_when_decided = false;
  return p;
}

evaluation threaded_insertion_model::evaluate(std::span<const double> x) const {
  const insertion_result r = simulate_insertion(parameters(x));
  evaluation e;
  e.outputs = {r.success ? 1.0 : 0.0,
               static_cast<double>(static_cast<int>(r.outcome)),
               r.cross_threaded ? 1.0 : 0.0,
               r.engagement_margin,
               r.time_to_engage,
               r.axial_advance,
               r.max_tilt,
               r.final_tilt,
               r.phase_error,
               r.max_contact_force,
               r.max_axial_force,
               r.max_torque_z,
               r.energy_dissipated,
               static_cast<double>(r.max_contacts),
               r.drive_slip};
  if (!r.message.empty()) e.note = "inconclusive: " + r.message;
  if (curve_points_ > 0) {
    e.curves.assign(5, std::vector<double>(curve_points_, nan));
    for (std::size_t i = 0; i < r.history.size() && i < static_cast<std::size_t>(curve_points_); ++i) {
      const auto& s = r.history[i];
      e.curves[0][i] = s.tip_z;
      e.curves[1][i] = s.tilt;
      e.curves[2][i] = s.phase_lag;
      e.curves[3][i] = s.axial_force;
      e.curves[4][i] = s.torque_z;
    }
  }
  return e;
}

threaded_insertion_model threaded_insertion_model::from_study(const io::study_table& t) {
  std::vector<std::string_view> allowed = {"type", "thread", "law", "restitution", "contact_velocity",
                                           "v_t", "contact_length", "drive_torque_limit", "nut_height", "bolt_length", "density", "tip_angle",
                                           "points_per_turn", "relative_tolerance", "max_steps",
                                           "stall_abort_turns", "curve_points", "feed_mode", "runup"};
  for (const auto& f : input_fields()) allowed.push_back(f.name);
  for (const auto& key : t.keys())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      t.fail(key, fmt::format("unknown key; allowed keys: {}", fmt::join(allowed, ", ")));
  insertion_params p;
  const std::string thread = t.string_or("thread", "M8x1.25");
  auto& th = p.thread;
  if (thread == "custom") {
    th.major_diameter = t.quantity("d", u::length);
    th.pitch = t.quantity("p", u::length);
    th.allowance = t.quantity_or("allowance", u::length, 0.0);
  } else if (thread == "plain") {  // Whitney's peg-in-hole: bore diameter d, diametral clearance
    th.plain_bore = true;
    th.major_diameter = t.quantity("d", u::length);
    th.pitch = t.quantity_or("p", u::length, th.major_diameter / 8);  // probe helix lead, length scales
    if (!t.has("allowance"))
      t.fail("allowance", "thread = \"plain\" needs the diametral clearance D - d_peg as allowance, in (0, d)");
    th.allowance = t.quantity("allowance", u::length);
  } else {
    if (t.has("d") || t.has("p"))
      t.fail(t.has("d") ? "d" : "p", fmt::format("thread = \"{}\" sets d and p; use thread = \"custom\" (or \"plain\" for a plain bore) to give them", thread));
    try {
      const thread_standard s = find_thread_standard(thread);
      th.major_diameter = s.major_diameter;
      th.pitch = s.pitch;
      th.allowance = t.quantity_or("allowance", u::length, s.allowance);
    } catch (const parameter_error& e) {
      t.fail("thread", e.what());
    }
  }
  const double d = th.major_diameter, pitch = th.pitch;
  th.flank_angle = t.quantity_or("flank_angle", u::angle, th.flank_angle);
  th.root_radius = t.quantity_or("root_radius", u::length, 0.1 * pitch);
  th.runup_angle = t.quantity_or("runup_angle", u::angle, th.runup_angle);
  // where the run-up sits: "ramp" (default) or "thesis" (full threads to the faces, the run-up a
  // sliver beyond them; docs/threaded-insertion.md, "Run-up: the ramp against the thesis")
  const std::string runup = t.string_or("runup", "ramp");
  if (runup != "ramp" && runup != "thesis")
    t.fail("runup", "must be \"ramp\" (the ridge's height ramps up from where it leaves the end face) or "
                    "\"thesis\" (full threads up to the end faces, the run-up a sliver beyond them)");
  th.runup = runup == "thesis" ? runup_kind::thesis : runup_kind::ramp;
  th.chamfer = t.quantity_or("chamfer", u::length, 0.0);
  th.nut_height = t.quantity_or("nut_height", u::length, 0.8 * d);
  th.bolt_length = t.quantity_or("bolt_length", u::length, 2.5 * d);
  p.density = t.quantity_or("density", u::density, p.density);
  p.mass = t.quantity_or("mass", u::mass, nan);
  p.law = t.string_or("law", p.law);
  if (t.has("restitution")) p.law_parameters["restitution"] = t.quantity("restitution", u::dimensionless);
  p.contact_velocity = t.quantity_or("contact_velocity", u::velocity, p.contact_velocity);
  p.v_t = t.quantity_or("v_t", u::velocity, p.v_t);
  p.contact_length = t.quantity_or("contact_length", u::length, p.contact_length);
  p.drive_torque_limit = t.quantity_or("drive_torque_limit", u::force * u::length, p.drive_torque_limit);
  p.tip_angle = t.quantity_or("tip_angle", u::angle, p.tip_angle);
  p.relative_tolerance = t.quantity_or("relative_tolerance", u::dimensionless, p.relative_tolerance);
  p.stall_abort_turns = t.quantity_or("stall_abort_turns", u::dimensionless, p.stall_abort_turns);
  if (!(p.stall_abort_turns >= 0.5))
    t.fail("stall_abort_turns", "must be at least 0.5 turns of drive (a stall is seen over half a turn)");
  const std::string feed_mode = t.string_or("feed_mode", "path");
  if (feed_mode != "path" && feed_mode != "force" && feed_mode != "guarded")
    t.fail("feed_mode", "must be \"path\" (the equilibrium path 5.1: feed with matching spin), "
                        "\"force\" (constant axial_force with the same spin) or \"guarded\" (the "
                        "path until the grasp pushes with axial_force, then that force)");
  p.feed_mode = feed_mode == "force"     ? feed_kind::force
                : feed_mode == "guarded" ? feed_kind::guarded
                                         : feed_kind::path;
  p.max_steps = t.integer_or("max_steps", p.max_steps);
  const std::int64_t ppt = t.integer_or("points_per_turn", p.points_per_turn);
  if (ppt < 8 || ppt > 4000) t.fail("points_per_turn", "must be an integer in [8, 4000]");
  p.points_per_turn = static_cast<int>(ppt);
  // defaults that scale with the thread
  p.z0 = 0.5 * pitch;
  p.engage_depth = 1.5 * pitch;
  p.feed = 2 * pitch;  // 2 rev/s
  p.grasp.z_c = -2 * pitch;
  const std::vector<std::string_view> geometry = {"d", "p", "allowance", "flank_angle", "root_radius",
                                                  "runup_angle", "chamfer", "mass"};
  for (const auto& f : input_fields()) {
    if (std::find(geometry.begin(), geometry.end(), std::string_view(f.name)) != geometry.end()) continue;
    double& v = f.ref(p);
    v = t.quantity_or(f.name, f.dim, v);
  }
  const std::int64_t curve_points = t.integer_or("curve_points", 0);
  if (curve_points != 0 && (curve_points < 2 || curve_points > 100000))
    t.fail("curve_points", "must be 0 (no curves) or in [2, 100000]");
  try {
    if (p.grasp.validate())
      fmt::print(stderr, "warning: {}: the grasp stiffness is singular (some direction has no stiffness)\n",
                 t.qualified("k_t"));
    contact::register_builtin_laws();
    const auto laws = contact::registered_laws();
    if (std::find(laws.begin(), laws.end(), p.law) == laws.end())
      t.fail("law", fmt::format("unknown contact law; known: {}", fmt::join(laws, ", ")));
    return threaded_insertion_model(std::move(p), static_cast<int>(curve_points));
  } catch (const parameter_error& e) {
    t.fail(e);
  }
}

}  // namespace contactuq::model
