// The receptacle-pin stroke (curve) and its sweeps over one parameter: evaluations of the
// receptacle_pin model in the curve layout (study::curve_model, run as a sweep by
// study::run_curve_study), with their critical points, written as CSV or HDF5.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "contactuq/study/curve_output.hpp"
#include "contactuq/study/curve_study.hpp"
#include "methods.hpp"
#include "text_plot.hpp"

namespace contactuq::engine::detail {
namespace {

void print_report(std::FILE* to, const study::curve_study_options& opt, const std::vector<study::curve_case>& cases) {
  const study::output_units& u = opt.units;
  const std::string len = u.unit_for(units::length), force = u.unit_for(units::force),
                    ang = u.unit_for(units::angle);
  auto L = [&](double v) { return u.from_si(v, units::length); };
  auto F = [&](double v) { return u.from_si(v, units::force); };
  auto A = [&](double v) { return u.from_si(v, units::angle); };

  const auto& s = opt.stroke;
  fmt::print(to, "stroke: x = {:.4g} -> {:.4g} {}{}, {} points{}, v/vt = {:g}\n", L(s.from), L(s.to), len,
             s.round_trip ? " and back" : "", s.points, s.round_trip ? " each way" : "", s.v_norm);
  fmt::print(to, "results per arm group (x_c: contact begins for an engaging arm, ends for a disengaging one)\n");

  const study::parameter_info* swept = nullptr;
  if (opt.sweep)
    for (const auto& p : study::receptacle_pin_parameters())
      if (opt.sweep->parameter == p.name) swept = &p;

  for (const study::curve_case& c : cases) {
    if (swept)
      fmt::print(to, "\n{} = {:g} {}\n", swept->name, u.from_si(*c.sweep_value, swept->dim), u.unit_for(swept->dim));
    fmt::print(to, "\n  {:<5} {:<9} {:>5} {:>9} {:>16} {:>9} {:>9} {:>9} {:>9} {:>10}\n", "group", "direction",
               "arms", "d0", "x_c (region)", "x_cr,1", "x_cr,2", "x_cr,3", "x_cr,4", "peak theta");
    fmt::print(to, "  {:<5} {:<9} {:>5} {:>9} {:>16} {:>9} {:>9} {:>9} {:>9} {:>10}\n", "", "", "", len, len, len,
               len, len, len, ang);
    using study::group_figure;
    for (std::size_t g = 0; g < opt.arms.size(); ++g) {
      const double xc = c.figure(g, group_figure::x_c);
      const auto region = static_cast<contact::pin_region>(c.figure(g, group_figure::first_contact));
      const std::string xc_text =
          std::isnan(xc) ? std::string("never") : fmt::format("{:.4f} ({})", L(xc), contact::to_string(region));
      fmt::print(to, "  g{:<4} {:<9} {:>5} {:>9.4f} {:>16} {:>9.4f} {:>9.4f} {:>9.4f} {:>9.4f} {:>10.4f}\n", g + 1,
                 contact::to_string(opt.arms[g].direction), opt.arms[g].count, L(opt.arms[g].d0), xc_text,
                 L(c.figure(g, group_figure::x_cr1)), L(c.figure(g, group_figure::x_cr2)),
                 L(c.figure(g, group_figure::x_cr3)), L(c.figure(g, group_figure::x_cr4)),
                 A(c.figure(g, group_figure::peak_theta)));
    }
    using study::curve_figure;
    fmt::print(to, "\n  peak insertion force  (forward, max -Fx_total): {:.4g} {} at x = {:.4f} {}\n",
               F(c.figure(curve_figure::peak_insertion)), force, L(c.figure(curve_figure::peak_insertion_x)), len);
    if (s.round_trip)
      fmt::print(to, "  peak withdrawal force (reverse, max +Fx_total): {:.4g} {} at x = {:.4f} {}\n",
                 F(c.figure(curve_figure::peak_withdrawal)), force, L(c.figure(curve_figure::peak_withdrawal_x)), len);
  }

  // Total insertion force of the first case along the stroke.
  const std::vector<double> x = s.positions();
  const std::vector<double>& Fx_total = cases.front().Fx_total();
  plot_series forward{{}, {}, '>', "forward stroke"}, reverse{{}, {}, '<', "reverse stroke"};
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto& series = i < static_cast<std::size_t>(s.points) ? forward : reverse;
    series.x.push_back(L(x[i]));
    series.y.push_back(F(Fx_total[i]));
  }
  std::vector<plot_series> series{forward};
  if (!reverse.x.empty()) series.push_back(reverse);
  fmt::print(to, "\n{}", text_plot(series, 64, 16, fmt::format("x [{}]", len),
                               fmt::format("Fx_total [{}] (force on the receptacle{})", force,
                                           swept ? ", first sweep case" : "")));
}

}  // namespace

run_result run_curve(const io::study_document& doc, const run_options& o, const path& out) {
  if (!out.empty() && out.extension() != ".csv" && out.extension() != ".h5")
    throw std::invalid_argument(fmt::format("-o {}: the output must end in .csv or .h5", out.string()));
  const auto options = study::read_curve_study(doc);
  if (o.check_only)
    return {.method_name = options.sweep ? "sweep" : "curve", .output = out,
            .planned = options.sweep ? options.sweep->values.size() : 1, .model = "receptacle_pin"};
  const auto cases = study::run_curve_study(options);
  std::FILE* to = report(o);
  print_report(to, options, cases);
  run_result r{.method_name = options.sweep ? "sweep" : "curve", .output = out, .planned = cases.size()};
  if (out.empty()) return r;
  io::make_parent_folder(out);
  if (out.extension() == ".csv") {
    io::write_then_rename(out, [&](const path& file) { study::write_curve_csv(file, options, cases); });
    fmt::print(to, "\nwrote {} ({} rows)\n", out.string(), cases.size() * options.stroke.positions().size());
  } else {
    io::write_then_rename(out, [&](const path& file) { study::write_curve_hdf5(file, doc, options, cases); });
    fmt::print(to, "\nwrote {} ({} case{} x {} points)\n", out.string(), cases.size(), cases.size() == 1 ? "" : "s",
               options.stroke.positions().size());
  }
  return r;
}

method curve_method() {
  return {.name = "curve",
          .summary = "the receptacle-pin stroke forward and back with its critical points",
          .counts = "curve",
          .result_optional = true,
          .run = run_curve};
}

}  // namespace contactuq::engine::detail
