#include "contactuq/study/curve_output.hpp"

#include <fmt/format.h>
#include <fmt/os.h>

#include <cmath>
#include <stdexcept>

namespace contactuq::study {
namespace {

std::string header(std::string_view name, const std::string& unit) {
  return unit.empty() ? std::string(name) : fmt::format("{} [{}]", name, unit);
}

// Shortest text that reads back to the same double; NaN as an empty cell.
std::string cell(double v) { return std::isnan(v) ? std::string() : fmt::format("{}", v); }

}  // namespace

void write_curve_csv(const std::filesystem::path& path, const curve_study_options& options,
                     const std::vector<curve_case>& cases) {
  const output_units& u = options.units;
  const std::string len = u.unit_for(units::length), force = u.unit_for(units::force),
                    ang = u.unit_for(units::angle);
  std::vector<std::string> columns;
  const parameter_info* swept = nullptr;
  if (options.sweep) {
    for (const auto& p : receptacle_pin_parameters())
      if (options.sweep->parameter == p.name) swept = &p;
    columns.push_back(header(swept->name, u.unit_for(swept->dim)));
  }
  columns.push_back(header("x", len));
  for (std::size_t g = 1; g <= options.arms.size(); ++g) {
    for (const char* f : {"Fx", "Fy", "Fn", "Ft"}) columns.push_back(header(fmt::format("g{}_{}", g, f), force));
    for (const char* a : {"theta", "alpha"}) columns.push_back(header(fmt::format("g{}_{}", g, a), ang));
    for (const char* l : {"Lmn", "Lmt"}) columns.push_back(header(fmt::format("g{}_{}", g, l), len));
  }
  columns.push_back(header("Fx_total", force));
  columns.push_back(header("Fy_total", force));

  try {
    auto out = fmt::output_file(path.string());
    out.print("{}\n", fmt::join(columns, ","));
    std::vector<std::string> row;
    for (const curve_case& c : cases) {
      const auto& curve = c.curve;
      for (std::size_t i = 0; i < curve.x.size(); ++i) {
        row.clear();
        if (swept) row.push_back(cell(u.from_si(*c.sweep_value, swept->dim)));
        row.push_back(cell(u.from_si(curve.x[i], units::length)));
        for (const auto& states : curve.group_states) {
          const contact::arm_state& s = states[i];
          for (double f : {s.Fx, s.Fy, s.Fn, s.Ft}) row.push_back(cell(u.from_si(f, units::force)));
          for (double a : {s.theta, s.alpha}) row.push_back(cell(u.from_si(a, units::angle)));
          for (double l : {s.Lmn, s.Lmt}) row.push_back(cell(u.from_si(l, units::length)));
        }
        row.push_back(cell(u.from_si(curve.Fx_total[i], units::force)));
        row.push_back(cell(u.from_si(curve.Fy_total[i], units::force)));
        out.print("{}\n", fmt::join(row, ","));
      }
    }
  } catch (const std::system_error& e) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), e.code().message()));
  }
}

}  // namespace contactuq::study
