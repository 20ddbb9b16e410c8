#include "contactuq/calibrate/fit_output.hpp"
#include "contactuq/io/result_file.hpp"

#include <fmt/format.h>
#include <fmt/os.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <system_error>

#include "contactuq/error.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/text_output.hpp"

namespace contactuq::calibrate {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
}

model_curve fitted_curve(const fit_result& result, const insertion_data& data, double v_norm,
                         int points) {
  model_curve c;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : data.strokes)
    for (double x : s.x) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  if (!(hi > lo) || points < 2) return c;
  const contact::receptacle r(result.params, result.groups);
  for (int i = 0; i < points; ++i) {
    const double x = lo + (hi - lo) * i / (points - 1);
    c.x.push_back(x);
    for (auto [dir, out] : {std::pair{stroke_direction::forward, &c.forward},
                            {stroke_direction::reverse, &c.reverse}}) {
      try {
        out->push_back(model_force(r, x, dir, v_norm));
      } catch (const model_error&) {
        out->push_back(nan);
      }
    }
  }
  return c;
}

void write_fit_csv(const std::filesystem::path& path, const fit_study& study,
                   const insertion_data& data, const fit_result& result) {
  const auto& un = study.units;
  const std::string len = un.unit_for(units::length), force = un.unit_for(units::force);
  io::text_output out;
  out.print("insertion,direction,x [{0}],F_measured [{1}],F_fitted [{1}],residual [{1}]\n", len,
            force);
  for (std::size_t s = 0; s < data.strokes.size(); ++s) {
    const measured_stroke& st = data.strokes[s];
    for (std::size_t i = 0; i < st.x.size(); ++i) {
      const double f = result.fitted[s][i];
      out.print("{},{},{},{},{},{}\n", st.insertion, to_string(st.direction),
                un.from_si(st.x[i], units::length), un.from_si(st.force[i], units::force),
                un.from_si(f, units::force), un.from_si(f - st.force[i], units::force));
    }
  }
  out.write_to(path);
}

namespace {

namespace h5 = io::hdf5;

h5::dataset write_ints(h5::group& g, std::string_view name, const std::vector<std::int32_t>& v) {
  h5::appendable_options o;
  o.type = h5::element::int32;
  o.chunk_rows = std::max<std::size_t>(1, v.size());
  auto ds = g.create_appendable(name, o);
  ds.append_rows(v);
  return ds;
}

// The result's attributes: the header, the display units, the fit's summary and export_toml.
void write_fit_attributes(h5::file& file, const io::study_document& doc, const fit_study& study,
                          const fit_result& result) {
  // The fit's model is the receptacle-pin model (fit_study.hpp).
  io::write_result_header(file, {.format = "contactuq-fit", .method = "calibrate", .model = "receptacle_pin",
                                 .title = study.title, .study_text = doc.text(), .study_path = doc.file()});
  file.set_attribute("length_unit", study.units.unit_for(units::length));
  file.set_attribute("force_unit", study.units.unit_for(units::force));
  file.set_attribute("angle_unit", study.units.unit_for(units::angle));
  file.set_attribute("length_factor", study.units.from_si(1.0, units::length));
  file.set_attribute("force_factor", study.units.from_si(1.0, units::force));
  file.set_attribute("loss", std::string(to_string(study.options.loss)));
  file.set_attribute("confidence", result.confidence);
  file.set_attribute("cost", result.cost);
  file.set_attribute("rms", result.rms);
  file.set_attribute("sigma", result.sigma);
  file.set_attribute("points", static_cast<std::int64_t>(result.points));
  file.set_attribute("dof", static_cast<std::int64_t>(result.dof));
  file.set_attribute("starts_at_best", static_cast<std::int64_t>(result.starts_at_best));
  file.set_attribute("evaluations", static_cast<std::int64_t>(result.evaluations));
  file.set_attribute("seconds", result.seconds);
  file.write_text("export_toml", export_toml(result, study.units, doc.file()));
}

// Parameters: one entry per estimate (free parameters, then every insertion's offset).
// `independent` names the rows and columns of the covariance matrices.
void write_parameters(h5::file& file, const fit_result& result, const std::vector<std::string>& independent) {
  auto params = file.create_group("parameters");
  std::vector<std::string> names, unit_names;
  for (const auto& e : result.parameters) {
    names.push_back(e.name);
    unit_names.push_back(e.unit);
  }
  params.write_texts("names", names);
  params.write_texts("units", unit_names);
  auto column = [&](std::string_view name, auto&& get) {
    std::vector<double> v;
    for (const auto& e : result.parameters) v.push_back(get(e));
    params.write(name, v).set_attribute("units", "as /parameters/units");
  };
  column("value", [](const parameter_estimate& e) { return e.value; });
  column("standard_error", [](const parameter_estimate& e) { return e.standard_error; });
  column("low", [](const parameter_estimate& e) { return e.low; });
  column("high", [](const parameter_estimate& e) { return e.high; });
  column("bound_low", [](const parameter_estimate& e) { return e.bound_low; });
  column("bound_high", [](const parameter_estimate& e) { return e.bound_high; });
  column("start", [](const parameter_estimate& e) { return e.start; });
  column("clustered_se", [](const parameter_estimate& e) { return e.clustered_se.value_or(nan); });
  column("clustered_low",
         [](const parameter_estimate& e) { return e.clustered_low.value_or(nan); });
  column("clustered_high",
         [](const parameter_estimate& e) { return e.clustered_high.value_or(nan); });
  column("bootstrap_sd", [](const parameter_estimate& e) { return e.bootstrap_sd.value_or(nan); });
  column("bootstrap_low",
         [](const parameter_estimate& e) { return e.bootstrap_low.value_or(nan); });
  column("bootstrap_high",
         [](const parameter_estimate& e) { return e.bootstrap_high.value_or(nan); });
  auto matrix = [&](std::string_view name, const Eigen::MatrixXd& m) {
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rm = m;
    auto ds =
        params.write(name, std::span<const double>(rm.data(), static_cast<std::size_t>(rm.size())),
                     static_cast<std::size_t>(rm.rows()), static_cast<std::size_t>(rm.cols()));
    ds.set_attribute("names", independent);
    return ds;
  };
  matrix("covariance", result.covariance).set_attribute("units", "products of /parameters/units");
  matrix("correlation", result.correlation).set_attribute("units", "");
  if (result.clustered_covariance.size() > 0)
    matrix("clustered_covariance", result.clustered_covariance)
        .set_attribute("units", "products of /parameters/units");
  if (result.bootstrap.rows() > 0) {
    matrix("bootstrap", result.bootstrap).set_attribute("units", "as /parameters/units");
    params.set_attribute("bootstrap_failed", static_cast<std::int64_t>(result.bootstrap_failed));
  }
}

// Every measured point.
void write_data_points(h5::file& file, const insertion_data& data, const fit_result& result) {
  auto pts = file.create_group("data");
  std::vector<std::int32_t> ins, dir;
  std::vector<double> x, f, fit, res, w;
  for (std::size_t s = 0; s < data.strokes.size(); ++s) {
    const measured_stroke& st = data.strokes[s];
    const auto idx = static_cast<std::int32_t>(
        std::find(result.insertions.begin(), result.insertions.end(), st.insertion) -
        result.insertions.begin());
    for (std::size_t i = 0; i < st.x.size(); ++i) {
      ins.push_back(idx);
      dir.push_back(st.direction == stroke_direction::forward ? 0 : 1);
      x.push_back(st.x[i]);
      f.push_back(st.force[i]);
      fit.push_back(result.fitted[s][i]);
      res.push_back(result.fitted[s][i] - st.force[i]);
      w.push_back(st.weight[i]);
    }
  }
  write_ints(pts, "insertion", ins).set_attribute("units", "index into /insertions");
  write_ints(pts, "direction", dir).set_attribute("units", "0 forward, 1 reverse");
  pts.write("x", x).set_attribute("units", "m");
  pts.write("force", f).set_attribute("units", "N");
  pts.write("fitted", fit).set_attribute("units", "N");
  pts.write("residual", res).set_attribute("units", "N");
  pts.write("weight", w).set_attribute("units", "");
}

// Residual diagnostics per stroke.
void write_stroke_diagnostics(h5::file& file, const fit_result& result) {
  auto strokes = file.create_group("strokes");
  std::vector<std::int32_t> s_ins, s_dir, s_n;
  std::vector<double> rms, bias, maxabs;
  for (const auto& d : result.strokes) {
    s_ins.push_back(static_cast<std::int32_t>(
        std::find(result.insertions.begin(), result.insertions.end(), d.insertion) -
        result.insertions.begin()));
    s_dir.push_back(d.direction == stroke_direction::forward ? 0 : 1);
    s_n.push_back(static_cast<std::int32_t>(d.points));
    rms.push_back(d.rms);
    bias.push_back(d.bias);
    maxabs.push_back(d.max_abs);
  }
  write_ints(strokes, "insertion", s_ins).set_attribute("units", "index into /insertions");
  write_ints(strokes, "direction", s_dir).set_attribute("units", "0 forward, 1 reverse");
  write_ints(strokes, "points", s_n).set_attribute("units", "");
  strokes.write("rms", rms).set_attribute("units", "N");
  strokes.write("bias", bias).set_attribute("units", "N");
  strokes.write("max_abs", maxabs).set_attribute("units", "N");
}

// The fitted model over the data's range.
void write_model_curve(h5::file& file, const fit_study& study, const insertion_data& data,
                       const fit_result& result) {
  const model_curve c = fitted_curve(result, data, study.model.v_norm);
  auto mc = file.create_group("model_curve");
  mc.write("x", c.x).set_attribute("units", "m");
  mc.write("forward", c.forward).set_attribute("units", "N");
  mc.write("reverse", c.reverse).set_attribute("units", "N");
}

// Every Levenberg–Marquardt start, its start and end points named by `independent`.
void write_starts(h5::file& file, const fit_result& result, const std::vector<std::string>& independent) {
  auto st = file.create_group("starts");
  const std::size_t S = result.starts.size(),
                    Q = result.starts.empty() ? 0 : result.starts.front().start.size();
  std::vector<double> start, end, cost;
  std::vector<std::int32_t> evals;
  std::vector<std::string> status;
  for (const auto& s : result.starts) {
    start.insert(start.end(), s.start.begin(), s.start.end());
    end.insert(end.end(), s.end.begin(), s.end.end());
    cost.push_back(s.cost);
    evals.push_back(s.evaluations);
    status.push_back(s.status);
  }
  st.write("start", start, S, Q).set_attribute("names", independent);
  st.write("end", end, S, Q).set_attribute("names", independent);
  st.write("cost", cost).set_attribute("units", "N^2");
  write_ints(st, "evaluations", evals).set_attribute("units", "model sweeps");
  st.write_texts("status", status);
}

}  // namespace

void write_fit_hdf5(const std::filesystem::path& path, const io::study_document& doc,
                    const fit_study& study, const insertion_data& data, const fit_result& result) {
  h5::file file(path, h5::file_mode::create);
  write_fit_attributes(file, doc, study, result);
  // Covariance and correlation over the independent parameters: all but the last offset.
  std::vector<std::string> independent;
  for (const auto& e : result.parameters)
    if (!e.derived) independent.push_back(e.name);
  write_parameters(file, result, independent);
  file.write_texts("insertions", result.insertions);
  file.write("offsets", result.offsets).set_attribute("units", "m");
  write_data_points(file, data, result);
  write_stroke_diagnostics(file, result);
  write_model_curve(file, study, data, result);
  write_starts(file, result, independent);
  file.close();  // checked: a write that fails is an error, not a damaged file
}

}  // namespace contactuq::calibrate
