#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "commands.hpp"
#include "contactuq/calibrate/calibration_study.hpp"
#include "contactuq/calibrate/fit.hpp"
#include "contactuq/calibrate/fit_output.hpp"
#include "contactuq/calibrate/fit_study.hpp"
#include "contactuq/calibrate/synthetic.hpp"
#include "contactuq/model/registry.hpp"
#include "text_plot.hpp"

namespace contactuq::cli {
namespace {

namespace cal = calibrate;

void print_fit(const cal::fit_study& s, const cal::insertion_data& data, const cal::fit_result& r) {
  const study::output_units& u = s.units;
  const std::string len = u.unit_for(units::length), force = u.unit_for(units::force);
  auto F = [&](double v) { return u.from_si(v, units::force); };
  fmt::print("data: {} insertion{}, {} strokes, {} points ({} with weight > 0)\n",
             r.insertions.size(), r.insertions.size() == 1 ? "" : "s", data.strokes.size(),
             data.points(), r.points);
  fmt::print("fit: loss {}, {} start{}, {} at the best cost, {} model sweeps, {:.3f} s\n",
             to_string(s.options.loss), r.starts.size(), r.starts.size() == 1 ? "" : "s",
             r.starts_at_best, r.evaluations, r.seconds);

  const int pct = static_cast<int>(std::lround(100 * r.confidence));
  const bool clustered = !r.parameters.empty() && r.parameters.front().clustered_se.has_value();
  const bool boot = r.bootstrap.rows() > 0;
  fmt::print("\n  {} % intervals: Jacobian (independent residuals){}{}\n", pct,
             clustered ? "; clustered by insertion (sandwich, t with G-1 dof)" : "",
             boot ? fmt::format("; bootstrap over insertions ({} refits)", r.bootstrap.rows())
                  : std::string());
  fmt::print("  {:<14} {:>11} {:>24}{}{}  {}\n", "parameter", "value", "Jacobian",
             clustered ? fmt::format(" {:>24}", "clustered") : std::string(),
             boot ? fmt::format(" {:>24}", "bootstrap") : std::string(), "unit");
  for (const auto& e : r.parameters) {
    auto v = [&](double si) { return u.from_si(si, e.dim); };
    auto interval = [&](double lo, double hi) {
      return fmt::format(" {:>24}", fmt::format("[{:.5g}, {:.5g}]", v(lo), v(hi)));
    };
    fmt::print("  {:<14} {:>11.6g}{}{}{}  {}\n", e.name, v(e.value), interval(e.low, e.high),
               e.clustered_low ? interval(*e.clustered_low, *e.clustered_high) : std::string(),
               e.bootstrap_low ? interval(*e.bootstrap_low, *e.bootstrap_high) : std::string(),
               u.unit_for(e.dim));
  }
  for (const auto& e : r.parameters) {
    const double wider = std::max(e.clustered_se.value_or(0.0), e.bootstrap_sd.value_or(0.0));
    if (!e.derived && wider > 2.0 * e.standard_error) {
      fmt::print(
          "  note: for {} the insertions scatter {:.1f} times more than the Jacobian's standard "
          "error says: the\n"
          "  residuals are not independent (scatter between insertions, ripples); read the "
          "clustered or\n"
          "  bootstrap interval.\n",
          e.name, wider / e.standard_error);
      break;
    }
  }

  std::vector<std::string> names;
  for (const auto& e : r.parameters)
    if (!e.derived) names.push_back(e.name);
  if (names.size() > 1) {
    fmt::print("\n  correlation of the estimates (Jacobian)\n  {:<16}", "");
    for (const auto& n : names) fmt::print(" {:>10.10}", n);
    fmt::print("\n");
    for (std::size_t i = 0; i < names.size(); ++i) {
      fmt::print("  {:<16}", names[i]);
      for (std::size_t j = 0; j < names.size(); ++j)
        fmt::print(" {:>10.4f}",
                   r.correlation(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)));
      fmt::print("\n");
    }
  }

  fmt::print("\n  residuals F_model - F [{}]: rms {:.4g}, s = {:.4g} over {} degrees of freedom\n",
             force, F(r.rms), F(r.sigma), r.dof);
  fmt::print("  {:<10} {:<9} {:>7} {:>10} {:>10} {:>10}\n", "insertion", "stroke", "points", "rms",
             "bias", "max |r|");
  for (const auto& d : r.strokes)
    fmt::print("  {:<10} {:<9} {:>7} {:>10.4g} {:>+10.3g} {:>10.4g}\n", d.insertion,
               to_string(d.direction), d.points, F(d.rms), F(d.bias), F(d.max_abs));

  // Measured (all insertions) and fitted total force.
  plot_series measured{{}, {}, '.', "measured"}, fitted{{}, {}, '*', "fitted model"};
  for (const auto& st : data.strokes)
    for (std::size_t i = 0; i < st.x.size(); ++i) {
      measured.x.push_back(u.from_si(st.x[i], units::length));
      measured.y.push_back(F(st.force[i]));
    }
  const cal::model_curve c = cal::fitted_curve(r, data, s.model.v_norm, 64);
  for (std::size_t i = 0; i < c.x.size(); ++i)
    for (double y : {c.forward[i], c.reverse[i]}) {
      fitted.x.push_back(u.from_si(c.x[i], units::length));
      fitted.y.push_back(F(y));
    }
  fmt::print("\n{}", text_plot({measured, fitted}, 64, 16, fmt::format("x [{}]", len),
                               fmt::format("F [{}] (force on the receptacle)", force)));
}

}  // namespace

void add_fit_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "fit",
      "Calibrate model inputs to measured data (any registered model; receptacle-pin insertion curves)");
  struct options {
    std::string study, output, csv, toml;
    bool quiet = false;
    bool force = false;
  };
  auto o = std::make_shared<options>();
  sub->add_option("study", o->study, "Fit study (TOML), e.g. studies/fit_williams.toml")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output,
                  "Write the fit to OUT.h5 (format contactuq-fit; contactuq plot draws it)");
  sub->add_option("--csv", o->csv, "Write measured and fitted force at every point to OUT.csv");
  sub->add_option(
      "--export", o->toml,
      "Write the fitted parameters as [parameters.<x>] tables of a run study to OUT.toml");
  sub->add_flag("-q,--quiet", o->quiet, "Print only where the results went");
  sub->add_flag("--force", o->force, "Replace existing output files");
  sub->callback([o, &exit_code] {
    for (const auto& out : {o->output, o->csv, o->toml})
      if (!out.empty() && !o->force) refuse_overwrite(out, false);
    const auto doc = io::study_document::load(o->study);
    if (cal::is_calibration_study(doc)) {  // any registered model
      model::register_builtin_models();
      const auto study = cal::read_calibration_study(doc);
      const auto result = cal::calibrate(study.setup, study.cases, study.options);
      if (!o->quiet) {
        fmt::print("contactuq fit: {}\n", o->study);
        if (!study.title.empty()) fmt::print("{}\n", study.title);
        fmt::print("{}", cal::describe_calibration(study, result));
      }
      if (!o->output.empty()) {
        cal::write_calibration_hdf5(o->output, doc, study, result);
        fmt::print("\nwrote {}\n", o->output);
      }
      if (!o->csv.empty() || !o->toml.empty())
        throw std::invalid_argument(
            "--csv and --export apply to receptacle-pin insertion fits; the result file holds the "
            "residuals of a calibration");
      exit_code = 0;
      return;
    }
    auto study = cal::read_fit_study(doc);
    const auto data = cal::load_fit_data(study);
    const auto result = cal::fit(study.model, data, study.options);
    if (!o->quiet) {
      fmt::print("contactuq fit: {}\n", o->study);
      if (!study.title.empty()) fmt::print("{}\n", study.title);
      print_fit(study, data, result);
    }
    if (!o->output.empty()) {
      cal::write_fit_hdf5(o->output, doc, study, data, result);
      fmt::print("\nwrote {}\n", o->output);
    }
    if (!o->csv.empty()) {
      cal::write_fit_csv(o->csv, study, data, result);
      fmt::print("wrote {} ({} rows)\n", o->csv, data.points());
    }
    const std::string toml = cal::export_toml(result, study.units, o->study);
    if (!o->toml.empty()) {
      std::ofstream out(o->toml);
      out << toml;
      if (!out) throw std::runtime_error(fmt::format("cannot write {}", o->toml));
      fmt::print("wrote {}\n", o->toml);
    } else if (!o->quiet) {
      fmt::print("\nfitted parameters for a run study (--export FILE writes them):\n{}", toml);
    }
    exit_code = 0;
  });
}

void add_synthesize_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "synthesize",
      "Generate measurement-like synthetic insertion-force data from the receptacle-pin model");
  struct options {
    std::string spec, output;
  };
  auto o = std::make_shared<options>();
  sub->add_option("spec", o->spec,
                  "Generator spec (TOML), e.g. data/insertion/williams_synthetic.toml")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output, "CSV to write (default: the spec's [output] file)");
  sub->callback([o, &exit_code] {
    const auto doc = io::study_document::load(o->spec);
    if (cal::is_synthetic_cases_spec(doc)) {  // any registered model
      model::register_builtin_models();
      const auto spec = cal::read_synthetic_cases_spec(doc);
      const std::filesystem::path out =
          o->output.empty() ? spec.output : std::filesystem::path(o->output);
      if (out.empty())
        throw std::invalid_argument(fmt::format("{}: give -o OUT.csv or [output] file", o->spec));
      cal::write_synthetic_cases(spec, o->spec, out);
      fmt::print("wrote {} ({} cases)\n", out.string(), spec.cases.size());
      exit_code = 0;
      return;
    }
    const auto spec = cal::read_synthetic_study(doc);
    const std::filesystem::path out =
        o->output.empty() ? spec.output : std::filesystem::path(o->output);
    if (out.empty())
      throw std::invalid_argument(fmt::format("{}: give -o OUT.csv or [output] file", o->spec));
    const auto d = cal::make_synthetic(spec.params, spec.groups, spec.options);
    cal::write_insertion_csv(out, d.data, spec.units.unit_for(units::length),
                             spec.units.unit_for(units::force),
                             cal::describe_synthetic(spec, d, o->spec), spec.digits);
    fmt::print("wrote {} ({} insertions, {} points)\n", out.string(), d.insertions.size(),
               d.data.points());
    exit_code = 0;
  });
}

}  // namespace contactuq::cli
