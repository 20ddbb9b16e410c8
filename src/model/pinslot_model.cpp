#include "contactuq/model/pinslot_model.hpp"

#include <fmt/format.h>

#include <cmath>

#include "contactuq/error.hpp"
#include "contactuq/model/physical_limit.hpp"

namespace contactuq::model {

pinslot_model::pinslot_model(const pinslot_setup& setup) : setup_(setup) {
  setup_.params.validate();
  setup_.simulation.validate();
}

pinslot_model pinslot_model::from_study(const io::study_table& table) {
  return pinslot_model(read_pinslot_setup(table));
}

std::vector<variable> pinslot_model::inputs() const {
  const auto& p = setup_.params;
  // As the [model] keys of the same names (pinslot_table.cpp); the force pulls either way.
  return {{"clearance", units::length, p.clearance, positive_up_to(physical_limit::length)},
          {"friction", units::dimensionless, p.contact.friction_coefficient, non_negative_up_to(physical_limit::friction)},
          {"restitution", units::dimensionless, p.contact.restitution, {0.0, 1.0, true, false}},
          {"force_amplitude", units::force, p.force_amplitude, magnitude_up_to(physical_limit::force)}};
}

std::vector<variable> pinslot_model::outputs() const {
  return {{"peak_force", units::force},          {"peak_force_filtered", units::force},
          {"peak_fx", units::force},             {"peak_fy", units::force},
          {"impulse", units::force * units::duration}, {"impacts", units::dimensionless},
          {"max_overlap", units::length}};
}

std::vector<curve_output> pinslot_model::curves() const {
  const auto& o = setup_.simulation;
  const auto n = static_cast<std::size_t>(std::floor(o.end_time / o.sample_interval * (1 + 1e-12))) + 1;
  std::vector<double> t;
  for (std::size_t i = 0; i < n; i += curve_stride) t.push_back(static_cast<double>(i) * o.sample_interval);
  return {{"fx_filtered", units::force, "t", units::duration, t},
          {"fy_filtered", units::force, "t", units::duration, t}};
}

evaluation pinslot_model::evaluate(std::span<const double> x) const {
  auto p = setup_.params;
  const double offset = p.clearance_r - p.clearance;
  p.clearance = x[0];
  p.clearance_r = x[0] + offset;
  p.contact.friction_coefficient = x[1];
  p.contact.restitution = x[2];
  p.force_amplitude = x[3];
  const auto r = multibody::simulate_pinslot(p, setup_.simulation, setup_.window);
  if (!r.ok()) throw model_error(fmt::format("pinslot simulation failed: {}", r.simulation.message));
  evaluation e;
  e.outputs = {r.peak_force, r.peak_force_filtered, r.peak_fx, r.peak_fy,
               r.impulse,    static_cast<double>(r.impacts), r.max_overlap};
  std::vector<double> fx, fy;
  for (std::size_t i = 0; i < r.fx_filtered.size(); i += curve_stride)
    fx.push_back(r.fx_filtered[i]), fy.push_back(r.fy_filtered[i]);
  e.curves = {std::move(fx), std::move(fy)};
  return e;
}

}  // namespace contactuq::model
