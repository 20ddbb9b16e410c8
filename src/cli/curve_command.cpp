#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "contactuq/study/curve_output.hpp"
#include "contactuq/study/curve_study.hpp"
#include "text_plot.hpp"

namespace contactuq::cli {
namespace {

void print_report(const study::curve_study_options& opt, const std::vector<study::curve_case>& cases) {
  const study::output_units& u = opt.units;
  const std::string len = u.unit_for(units::length), force = u.unit_for(units::force),
                    ang = u.unit_for(units::angle);
  auto L = [&](double v) { return u.from_si(v, units::length); };
  auto F = [&](double v) { return u.from_si(v, units::force); };
  auto A = [&](double v) { return u.from_si(v, units::angle); };

  const auto& s = opt.stroke;
  fmt::print("stroke: x = {:.4g} -> {:.4g} {}{}, {} points{}, v/vt = {:g}\n", L(s.from), L(s.to), len,
             s.round_trip ? " and back" : "", s.points, s.round_trip ? " each way" : "", s.v_norm);
  fmt::print("results per arm group (x_c: contact begins for an engaging arm, ends for a disengaging one)\n");

  const study::parameter_info* swept = nullptr;
  if (opt.sweep)
    for (const auto& p : study::receptacle_pin_parameters())
      if (opt.sweep->parameter == p.name) swept = &p;

  for (const study::curve_case& c : cases) {
    if (swept)
      fmt::print("\n{} = {:g} {}\n", swept->name, u.from_si(*c.sweep_value, swept->dim), u.unit_for(swept->dim));
    fmt::print("\n  {:<5} {:<9} {:>5} {:>9} {:>16} {:>9} {:>9} {:>9} {:>9} {:>10}\n", "group", "direction",
               "arms", "d0", "x_c (region)", "x_cr,1", "x_cr,2", "x_cr,3", "x_cr,4", "peak theta");
    fmt::print("  {:<5} {:<9} {:>5} {:>9} {:>16} {:>9} {:>9} {:>9} {:>9} {:>10}\n", "", "", "", len, len, len,
               len, len, len, ang);
    for (std::size_t g = 0; g < opt.arms.size(); ++g) {
      const auto& gs = c.summary.groups[g];
      const std::string xc = gs.xc ? fmt::format("{:.4f} ({})", L(*gs.xc), contact::to_string(gs.first_contact))
                                   : std::string("never");
      fmt::print("  g{:<4} {:<9} {:>5} {:>9.4f} {:>16} {:>9.4f} {:>9.4f} {:>9.4f} {:>9.4f} {:>10.4f}\n", g + 1,
                 contact::to_string(opt.arms[g].direction), opt.arms[g].count, L(opt.arms[g].d0), xc,
                 L(gs.x_cr[0]), L(gs.x_cr[1]), L(gs.x_cr[2]), L(gs.x_cr[3]), A(gs.peak_theta));
    }
    fmt::print("\n  peak insertion force  (forward, max -Fx_total): {:.4g} {} at x = {:.4f} {}\n",
               F(c.summary.peak_insertion), force, L(c.summary.peak_insertion_x), len);
    if (s.round_trip)
      fmt::print("  peak withdrawal force (reverse, max +Fx_total): {:.4g} {} at x = {:.4f} {}\n",
                 F(c.summary.peak_withdrawal), force, L(c.summary.peak_withdrawal_x), len);
  }

  // Total insertion force of the first case along the stroke.
  const auto& curve = cases.front().curve;
  plot_series forward{{}, {}, '>', "forward stroke"}, reverse{{}, {}, '<', "reverse stroke"};
  for (std::size_t i = 0; i < curve.x.size(); ++i) {
    auto& series = i < curve.forward_points ? forward : reverse;
    series.x.push_back(L(curve.x[i]));
    series.y.push_back(F(curve.Fx_total[i]));
  }
  std::vector<plot_series> series{forward};
  if (!reverse.x.empty()) series.push_back(reverse);
  fmt::print("\n{}", text_plot(series, 64, 16, fmt::format("x [{}]", len),
                               fmt::format("Fx_total [{}] (force on the receptacle{})", force,
                                           swept ? ", first sweep case" : "")));
}

}  // namespace

void add_curve_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "curve", "Evaluate a receptacle-pin insertion stroke (forward and back) and summarise it");
  struct options {
    std::string study;
    std::string output;
    bool quiet = false;
    bool force = false;
  };
  auto o = std::make_shared<options>();
  sub->add_option("study", o->study, "Study file (TOML), e.g. studies/williams_bifurcated.toml")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output, "Write the curves to OUT.csv or OUT.h5");
  sub->add_flag("-q,--quiet", o->quiet, "Print only where the results went");
  sub->add_flag("--force", o->force, "Replace existing output files");
  sub->callback([o, &exit_code] {
    if (!o->output.empty() && !o->force) refuse_overwrite(o->output, false);
    const auto doc = io::study_document::load(o->study);
    const auto options = study::read_curve_study(doc);
    const auto cases = study::run_curve_study(options);
    if (!o->quiet) {
      fmt::print("contactuq curve: {}\n", o->study);
      if (!options.title.empty()) fmt::print("{}\n", options.title);
      print_report(options, cases);
    }
    if (!o->output.empty()) {
      const std::filesystem::path out(o->output);
      if (out.extension() == ".csv") {
        study::write_curve_csv(out, options, cases);
        fmt::print("\nwrote {} ({} rows)\n", o->output, cases.size() * cases.front().curve.x.size());
      } else if (out.extension() == ".h5") {
        study::write_curve_hdf5(out, doc, options, cases);
        fmt::print("\nwrote {} ({} case{} x {} points)\n", o->output, cases.size(), cases.size() == 1 ? "" : "s",
                   cases.front().curve.x.size());
      } else {
        throw std::invalid_argument(fmt::format("-o {}: the output must end in .csv or .h5", o->output));
      }
    }
    exit_code = 0;
  });
}

}  // namespace contactuq::cli
