#include "contactuq/study/curve_output.hpp"
#include "contactuq/io/result_file.hpp"

#include <fmt/format.h>
#include <fmt/os.h>

#include <cmath>
#include <stdexcept>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/text_output.hpp"

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

  io::text_output out;
  out.print("{}\n", fmt::join(columns, ","));
  std::vector<std::string> row;
  const std::vector<double> x = options.stroke.positions();
  for (const curve_case& c : cases) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      row.clear();
      if (swept) row.push_back(cell(u.from_si(*c.sweep_value, swept->dim)));
      row.push_back(cell(u.from_si(x[i], units::length)));
      for (std::size_t g = 0; g < options.arms.size(); ++g) {
        for (arm_field f : {arm_field::Fx, arm_field::Fy, arm_field::Fn, arm_field::Ft})
          row.push_back(cell(u.from_si(c.arm(g, f)[i], units::force)));
        for (arm_field a : {arm_field::theta, arm_field::alpha}) row.push_back(cell(u.from_si(c.arm(g, a)[i], units::angle)));
        for (arm_field l : {arm_field::Lmn, arm_field::Lmt}) row.push_back(cell(u.from_si(c.arm(g, l)[i], units::length)));
      }
      row.push_back(cell(u.from_si(c.Fx_total()[i], units::force)));
      row.push_back(cell(u.from_si(c.Fy_total()[i], units::force)));
      out.print("{}\n", fmt::join(row, ","));
    }
  }
  out.write_to(path);
}

void write_curve_hdf5(const std::filesystem::path& path, const io::study_document& study,
                      const curve_study_options& options, const std::vector<curve_case>& cases) {
  namespace h5 = io::hdf5;
  const output_units& u = options.units;
  const std::size_t k = cases.size(), n = options.stroke.positions().size();

  h5::file file(path, h5::file_mode::create);
  auto text = io::write_result_header(file, {.format = "contactuq-curve", .method = options.sweep ? "sweep" : "curve",
                                             .model = "receptacle_pin", .title = options.title,
                                             .study_text = study.text(), .study_path = study.file()});
  text.set_attribute("file", study.file());  // where readers of format_version 1 look
  text.set_attribute("title", options.title);
  text.set_attribute("contactuq_version", CONTACTUQ_VERSION);

  // A [k x n] (or [k x columns]) matrix in output units, one row per sweep case.
  auto write_matrix = [&](h5::group& g, std::string_view name, units::dimension dim, std::size_t columns,
                          auto&& value) {
    std::vector<double> data;
    data.reserve(k * columns);
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t i = 0; i < columns; ++i) data.push_back(u.from_si(value(cases[c], i), dim));
    g.write(name, data, k, columns).set_attribute("units", u.unit_for(dim));
  };
  auto write_vector = [&](h5::group& g, std::string_view name, units::dimension dim, auto&& value) {
    std::vector<double> data;
    for (const auto& c : cases) data.push_back(u.from_si(value(c), dim));
    g.write(name, data).set_attribute("units", u.unit_for(dim));
  };

  std::vector<double> x = options.stroke.positions();
  for (double& xi : x) xi = u.from_si(xi, units::length);
  file.write("x", x).set_attribute("units", u.unit_for(units::length));
  file.write("v_norm", options.stroke.velocities()).set_attribute("units", "");
  write_matrix(file, "Fx_total", units::force, n, [](const curve_case& c, std::size_t i) { return c.Fx_total()[i]; });
  write_matrix(file, "Fy_total", units::force, n, [](const curve_case& c, std::size_t i) { return c.Fy_total()[i]; });

  struct field {
    const char* name;
    units::dimension dim;
    arm_field member;
  };
  const field fields[] = {{"Fx", units::force, arm_field::Fx},       {"Fy", units::force, arm_field::Fy},
                          {"Fn", units::force, arm_field::Fn},       {"Ft", units::force, arm_field::Ft},
                          {"theta", units::angle, arm_field::theta}, {"alpha", units::angle, arm_field::alpha},
                          {"Lmn", units::length, arm_field::Lmn},    {"Lmt", units::length, arm_field::Lmt}};
  auto groups = file.create_group("groups");
  for (std::size_t g = 0; g < options.arms.size(); ++g) {
    auto grp = groups.create_group(fmt::format("g{}", g + 1));
    grp.set_attribute("d0", u.from_si(options.arms[g].d0, units::length));
    grp.set_attribute("d0_units", u.unit_for(units::length));
    grp.set_attribute("direction", contact::to_string(options.arms[g].direction));
    grp.set_attribute("count", static_cast<std::int32_t>(options.arms[g].count));
    for (const field& f : fields)
      write_matrix(grp, f.name, f.dim, n,
                   [&](const curve_case& c, std::size_t i) { return c.arm(g, f.member)[i]; });
    write_vector(grp, "x_c", units::length, [&](const curve_case& c) { return c.figure(g, group_figure::x_c); });
    write_matrix(grp, "x_cr", units::length, 4, [&](const curve_case& c, std::size_t i) {
      return c.figure(g, static_cast<group_figure>(static_cast<std::size_t>(group_figure::x_cr1) + i));
    });
  }

  auto summary = file.create_group("summary");
  const struct {
    const char* name;
    units::dimension dim;
    curve_figure figure;
  } figures[] = {{"peak_insertion", units::force, curve_figure::peak_insertion},
                 {"peak_insertion_x", units::length, curve_figure::peak_insertion_x},
                 {"peak_withdrawal", units::force, curve_figure::peak_withdrawal},
                 {"peak_withdrawal_x", units::length, curve_figure::peak_withdrawal_x}};
  for (const auto& f : figures)
    write_vector(summary, f.name, f.dim, [&](const curve_case& c) { return c.figure(f.figure); });

  if (options.sweep) {
    units::dimension dim = units::dimensionless;
    for (const auto& p : receptacle_pin_parameters())
      if (options.sweep->parameter == p.name) dim = p.dim;
    std::vector<double> values;
    for (const auto& c : cases) values.push_back(u.from_si(*c.sweep_value, dim));
    auto ds = file.write("sweep", values);
    ds.set_attribute("parameter", options.sweep->parameter);
    ds.set_attribute("units", u.unit_for(dim));
  }
  file.close();
}

}  // namespace contactuq::study
