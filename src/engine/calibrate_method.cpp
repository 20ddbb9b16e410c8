// Calibration: model inputs fitted to measured data. A `method = "calibrate"` study fits any
// registered model to tables and curves matched by output name; a `[fit]` study fits the
// receptacle-pin insertion model to measured strokes (Williams, SAND2015-20731).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "contactuq/calibrate/calibration_study.hpp"
#include "contactuq/calibrate/fit.hpp"
#include "contactuq/calibrate/fit_output.hpp"
#include "contactuq/calibrate/fit_study.hpp"
#include "methods.hpp"
#include "text_plot.hpp"

namespace contactuq::engine::detail {
namespace {

namespace cal = calibrate;

void print_fit(std::FILE* to, const cal::fit_study& s, const cal::insertion_data& data, const cal::fit_result& r) {
  const study::output_units& u = s.units;
  const std::string len = u.unit_for(units::length), force = u.unit_for(units::force);
  auto F = [&](double v) { return u.from_si(v, units::force); };
  fmt::print(to, "data: {} insertion{}, {} strokes, {} points ({} with weight > 0)\n",
             r.insertions.size(), r.insertions.size() == 1 ? "" : "s", data.strokes.size(),
             data.points(), r.points);
  fmt::print(to, "fit: loss {}, {} start{}, {} at the best cost, {} model sweeps, {:.3f} s\n",
             to_string(s.options.loss), r.starts.size(), r.starts.size() == 1 ? "" : "s",
             r.starts_at_best, r.evaluations, r.seconds);

  const int pct = static_cast<int>(std::lround(100 * r.confidence));
  const bool clustered = !r.parameters.empty() && r.parameters.front().clustered_se.has_value();
  const bool boot = r.bootstrap.rows() > 0;
  fmt::print(to, "\n  {} % intervals: Jacobian (independent residuals){}{}\n", pct,
             clustered ? "; clustered by insertion (sandwich, t with G-1 dof)" : "",
             boot ? fmt::format("; bootstrap over insertions ({} refits)", r.bootstrap.rows())
                  : std::string());
  fmt::print(to, "  {:<14} {:>11} {:>24}{}{}  {}\n", "parameter", "value", "Jacobian",
             clustered ? fmt::format(" {:>24}", "clustered") : std::string(),
             boot ? fmt::format(" {:>24}", "bootstrap") : std::string(), "unit");
  for (const auto& e : r.parameters) {
    auto v = [&](double si) { return u.from_si(si, e.dim); };
    auto interval = [&](double lo, double hi) {
      return fmt::format(" {:>24}", fmt::format("[{:.5g}, {:.5g}]", v(lo), v(hi)));
    };
    fmt::print(to, "  {:<14} {:>11.6g}{}{}{}  {}\n", e.name, v(e.value), interval(e.low, e.high),
               e.clustered_low ? interval(*e.clustered_low, *e.clustered_high) : std::string(),
               e.bootstrap_low ? interval(*e.bootstrap_low, *e.bootstrap_high) : std::string(),
               u.unit_for(e.dim));
  }
  for (const auto& e : r.parameters) {
    const double wider = std::max(e.clustered_se.value_or(0.0), e.bootstrap_sd.value_or(0.0));
    if (!e.derived && wider > 2.0 * e.standard_error) {
      fmt::print(
          to, "  note: for {} the insertions scatter {:.1f} times more than the Jacobian's standard "
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
    fmt::print(to, "\n  correlation of the estimates (Jacobian)\n  {:<16}", "");
    for (const auto& n : names) fmt::print(to, " {:>10.10}", n);
    fmt::print(to, "\n");
    for (std::size_t i = 0; i < names.size(); ++i) {
      fmt::print(to, "  {:<16}", names[i]);
      for (std::size_t j = 0; j < names.size(); ++j)
        fmt::print(to, " {:>10.4f}",
                   r.correlation(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)));
      fmt::print(to, "\n");
    }
  }

  fmt::print(to, "\n  residuals F_model - F [{}]: rms {:.4g}, s = {:.4g} over {} degrees of freedom\n",
             force, F(r.rms), F(r.sigma), r.dof);
  fmt::print(to, "  {:<10} {:<9} {:>7} {:>10} {:>10} {:>10}\n", "insertion", "stroke", "points", "rms",
             "bias", "max |r|");
  for (const auto& d : r.strokes)
    fmt::print(to, "  {:<10} {:<9} {:>7} {:>10.4g} {:>+10.3g} {:>10.4g}\n", d.insertion,
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
  fmt::print(to, "\n{}", text_plot({measured, fitted}, 64, 16, fmt::format("x [{}]", len),
                               fmt::format("F [{}] (force on the receptacle)", force)));
}

}  // namespace

run_result run_calibrate(const io::study_document& doc, const run_options& o, const path& out) {
  std::FILE* to = report(o);
  run_result r{.method_name = "calibrate", .output = out, .planned = 1};
  for (const auto& extra : {o.csv, o.export_study})
    if (!extra.empty() && !o.force) refuse_overwrite(extra, false);
  if (cal::is_calibration_study(doc)) {  // any registered model
    if (!o.csv.empty() || !o.export_study.empty())
      throw std::invalid_argument(
          "--csv and --export apply to receptacle-pin insertion fits ([fit]); the result file holds the residuals "
          "of a calibration");
    auto study = cal::read_calibration_study(doc);
    if (o.check_only) return r;
    const study::executor_session fits(o.executor, doc, o.threads);
    study.options.executor = fits.get();
    const auto result = cal::calibrate(study.setup, study.cases, study.options);
    fmt::print(to, "{}", cal::describe_calibration(study, result));
    if (!out.empty()) {
      io::make_parent_folder(out);
      io::write_then_rename(out, [&](const path& file) { cal::write_calibration_hdf5(file, doc, study, result); });
      fmt::print(to, "\nwrote {}\n", out.string());
    }
    return r;
  }
  auto study = cal::read_fit_study(doc);
  const auto data = cal::load_fit_data(study);
  if (o.check_only) return r;
  const study::executor_session fits(o.executor, doc, o.threads);
  study.options.executor = fits.get();
  const auto result = cal::fit(study.model, data, study.options);
  print_fit(to, study, data, result);
  for (const path& file : {out, o.csv, o.export_study}) io::make_parent_folder(file);
  if (!out.empty()) {
    io::write_then_rename(out, [&](const path& file) { cal::write_fit_hdf5(file, doc, study, data, result); });
    fmt::print(to, "\nwrote {}\n", out.string());
  }
  if (!o.csv.empty()) {
    io::write_then_rename(o.csv, [&](const path& file) { cal::write_fit_csv(file, study, data, result); });
    fmt::print(to, "wrote {} ({} rows)\n", o.csv.string(), data.points());
  }
  const std::string toml = cal::export_toml(result, study.units, doc.file());
  if (!o.export_study.empty()) {
    io::write_then_rename(o.export_study, [&](const path& name) {
      std::ofstream file(name);
      file << toml;
      file.close();
      if (!file) throw std::runtime_error(fmt::format("cannot write {}", o.export_study.string()));
    });
    fmt::print(to, "wrote {}\n", o.export_study.string());
  } else {
    fmt::print(to, "\nfitted parameters for a run study (--export FILE writes them):\n{}", toml);
  }
  return r;
}

method calibrate_method() {
  return {.name = "calibrate",
          .summary = "model inputs fitted to measured data",
          .counts = "fit",
          .result_optional = true,
          .run = run_calibrate};
}

}  // namespace contactuq::engine::detail
