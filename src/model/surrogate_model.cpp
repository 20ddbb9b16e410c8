#include "contactuq/model/surrogate_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "contactuq/error.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {
namespace {

namespace h5 = io::hdf5;

std::vector<double> as_vector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

Eigen::VectorXd as_eigen(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// Row-major values of a matrix, as group::write takes them.
std::vector<double> row_major(const Eigen::MatrixXd& m) {
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(m.size()));
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) v.push_back(m(r, c));
  return v;
}

Eigen::MatrixXd read_matrix(const h5::group& g, std::string_view name) {
  const h5::dataset d = g.open_dataset(name);
  const auto shape = d.shape();
  const std::vector<double> v = d.read_doubles();
  const std::size_t rows = shape.empty() ? 0 : shape[0], cols = shape.size() > 1 ? shape[1] : 1;
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = v[r * cols + c];
  return m;
}

// xi = (x - shift)/scale of an input without the transform, as uq::chaos_input computes it.
std::pair<double, double> affine_map(const uq::chaos_input& in) {
  const uq::distribution& d = in.marginal();
  switch (d.kind()) {
    case uq::distribution_kind::normal:
      return {d.mean(), d.stddev()};
    case uq::distribution_kind::weibull:
      return {0.0, uq::to_map(d.parameters()).at("scale")};
    default:
      return {0.5 * (d.lower() + d.upper()), 0.5 * (d.upper() - d.lower())};
  }
}

units::dimension dimension_of(const std::string& unit) {
  return unit.empty() || unit == "1" ? units::dimensionless : units::parse_unit(unit).dim;
}

}  // namespace

void write_surrogate(h5::file& f, const surrogate_data& data) {
  h5::group s = f.create_group("surrogate");
  std::vector<std::string> in_names, in_units, out_names, out_units;
  for (const auto& i : data.inputs) in_names.push_back(i.name), in_units.push_back(i.unit);
  for (const auto& o : data.outputs) out_names.push_back(o.name), out_units.push_back(o.unit);
  s.set_attribute("kind", data.kind);
  s.set_attribute("model", data.model);
  s.set_attribute("inputs", in_names);
  s.set_attribute("input_units", in_units);
  s.set_attribute("outputs", out_names);
  s.set_attribute("output_units", out_units);
  s.set_attribute("training", data.training);
  s.set_attribute("folds", static_cast<std::int64_t>(data.folds));
  s.set_attribute("fold_seed", static_cast<std::int64_t>(data.fold_seed));
  s.set_attribute("q2_warning", data.q2_warning);
  s.set_attribute("test_samples", static_cast<std::int64_t>(data.test_samples));
  s.set_attribute("evaluation",
                  "y = sum_t coefficients[t] prod_i psi_i[multi_indices[t, i]](xi_i); xi_i = (x_i "
                  "- shift)/scale "
                  "(transform affine) or Phi^-1(F(x_i)) (isoprobabilistic); orthonormal psi by "
                  "sqrt(b[n+1]) psi[n+1] = (xi - a[n]) psi[n] - sqrt(b[n]) psi[n-1], psi[0] = 1");
  s.write("x", row_major(data.x), static_cast<std::size_t>(data.x.rows()),
          static_cast<std::size_t>(data.x.cols()))
      .set_attribute("columns", in_names);
  s.write("y", row_major(data.y), static_cast<std::size_t>(data.y.rows()),
          static_cast<std::size_t>(data.y.cols()))
      .set_attribute("columns", out_names);

  // The largest degree of each input over every output: how far its recurrence is stored.
  std::vector<int> top(data.inputs.size(), 0);
  for (const auto& o : data.outputs)
    if (o.chaos)
      for (std::size_t i = 0; i < top.size(); ++i)
        top[i] = std::max(top[i], o.chaos->indices().col(static_cast<Eigen::Index>(i)).maxCoeff());

  h5::group inputs = s.create_group("inputs");
  for (std::size_t i = 0; i < data.inputs.size(); ++i) {
    const surrogate_input& in = data.inputs[i];
    h5::group g = inputs.create_group(in.name);
    g.set_attribute("unit", in.unit);
    g.set_attribute("distribution", in.marginal.name());
    std::vector<std::string> names;
    std::vector<double> values;
    for (const auto& [k, v] : in.marginal.parameters()) names.push_back(k), values.push_back(v);
    g.set_attribute("parameter_names", names);
    g.set_attribute("parameter_values", std::span<const double>(values));
    g.set_attribute("low", in.low);
    g.set_attribute("high", in.high);
    const uq::chaos_input ci(in.marginal);
    const uq::orthonormal_family& fam = ci.family();
    g.set_attribute("family", uq::to_string(fam.family));
    g.set_attribute("jacobi_alpha", fam.jacobi_alpha);
    g.set_attribute("jacobi_beta", fam.jacobi_beta);
    g.set_attribute("transform", ci.transformed() ? "isoprobabilistic" : "affine");
    const auto [shift, scale] = ci.transformed() ? std::pair{0.0, 1.0} : affine_map(ci);
    g.set_attribute("shift", shift);
    g.set_attribute("scale", scale);
    std::vector<double> a, b{0.0};  // b_0 multiplies psi_-1 = 0
    for (int n = 0; n <= top[i]; ++n) a.push_back(fam.a(static_cast<std::size_t>(n)));
    for (int n = 1; n <= top[i] + 1; ++n) b.push_back(fam.b(static_cast<std::size_t>(n)));
    g.write("recurrence_a", a);
    g.write("recurrence_b", b);
  }

  h5::group outputs = s.create_group("outputs");
  for (const auto& o : data.outputs) {
    h5::group g = outputs.create_group(o.name);
    g.set_attribute("unit", o.unit);
    g.set_attribute("kind", data.kind);
    const surrogate_validation& v = o.validation;
    g.set_attribute("q2_kfold", v.q2_kfold);
    g.set_attribute("loo_error", v.loo_error);
    g.set_attribute("corrected_loo_error", v.corrected_loo_error);
    g.set_attribute(
        "loo_note",
        "leave-one-out errors after the selection saw every point: optimistic; q2_kfold "
        "repeats the selection in every fold");
    if (v.test_error) g.set_attribute("test_error", *v.test_error);
    g.write("kfold_predictions", as_vector(v.kfold_predictions));
    std::vector<double> fold(v.fold.begin(), v.fold.end());
    g.write("fold", fold);
    if (o.gp) {
      const uq::gaussian_process& gp = *o.gp;
      g.set_attribute("kernel", uq::to_string(gp.kernel()));
      g.set_attribute("trend", uq::to_string(gp.trend()));
      g.set_attribute("process_variance", gp.hyperparameters().variance);
      g.set_attribute("nugget", gp.hyperparameters().nugget);
      g.set_attribute("jitter", gp.jitter());
      g.set_attribute("log_likelihood", gp.log_likelihood());
      g.set_attribute("condition_estimate", gp.condition_estimate());
      g.set_attribute("mean", o.mean);
      g.set_attribute("variance", o.variance);
      g.write("length_scales", as_vector(gp.hyperparameters().length_scales))
          .set_attribute("columns", in_names);
      g.write("trend_coefficients", as_vector(gp.trend_coefficients()));
      g.write("weights", as_vector(gp.weights()));
      g.write("cholesky_factor", row_major(gp.cholesky_factor()), gp.size(), gp.size());
      g.write("loo_residuals", as_vector(gp.loo_residuals()));
      g.write("standardized_loo_residuals", as_vector(gp.standardized_loo_residuals()));
      continue;
    }
    if (!o.chaos) continue;
    const uq::polynomial_chaos& c = *o.chaos;
    g.set_attribute("degree", static_cast<std::int64_t>(o.degree));
    g.set_attribute("max_degree", static_cast<std::int64_t>(o.max_degree));
    g.set_attribute("q_norm", o.q_norm);
    g.set_attribute("selection", o.selection);
    g.set_attribute("candidates", static_cast<std::int64_t>(o.candidates));
    g.set_attribute("mean", c.mean());
    g.set_attribute("variance", c.variance());
    g.write("multi_indices", row_major(c.indices().cast<double>()),
            static_cast<std::size_t>(c.indices().rows()),
            static_cast<std::size_t>(c.indices().cols()))
        .set_attribute("columns", in_names);
    g.write("coefficients", as_vector(c.coefficients()));
    g.write("sobol_first", as_vector(c.first_order_indices())).set_attribute("columns", in_names);
    g.write("sobol_total", as_vector(c.total_order_indices())).set_attribute("columns", in_names);
  }
}

surrogate_data read_surrogate(const std::filesystem::path& file) {
  const h5::file f(file, h5::file_mode::read_only);
  if (!f.has_attribute("format") || f.string_attribute("format") != surrogate_format)
    throw std::runtime_error(fmt::format("{}: not a {} file", file.string(), surrogate_format));
  if (!f.contains("surrogate"))
    throw std::runtime_error(fmt::format("{}: has no /surrogate group", file.string()));
  const h5::group s = f.open_group("surrogate");
  surrogate_data d;
  d.kind = s.string_attribute("kind");
  if (d.kind != "pce" && d.kind != "gp")
    throw std::runtime_error(
        fmt::format("{}: surrogate kind \"{}\" is not known to this build", file.string(), d.kind));
  d.model = s.string_attribute("model");
  d.training = s.string_attribute("training");
  d.folds = static_cast<std::size_t>(s.numeric_attribute<std::int64_t>("folds"));
  d.fold_seed = static_cast<std::uint64_t>(s.numeric_attribute<std::int64_t>("fold_seed"));
  d.q2_warning = s.numeric_attribute<double>("q2_warning");
  d.test_samples = static_cast<std::size_t>(s.numeric_attribute<std::int64_t>("test_samples"));
  d.x = read_matrix(s, "x");
  d.y = read_matrix(s, "y");
  const auto in_names = s.strings_attribute("inputs"),
             in_units = s.strings_attribute("input_units");
  const auto out_names = s.strings_attribute("outputs"),
             out_units = s.strings_attribute("output_units");
  const h5::group inputs = s.open_group("inputs");
  std::vector<uq::chaos_input> chaos_inputs;
  for (std::size_t i = 0; i < in_names.size(); ++i) {
    const h5::group g = inputs.open_group(in_names[i]);
    const auto names = g.strings_attribute("parameter_names");
    const auto values = g.doubles_attribute("parameter_values");
    std::map<std::string, double> params;
    for (std::size_t k = 0; k < names.size() && k < values.size(); ++k)
      params[names[k]] = values[k];
    surrogate_input in{in_names[i], in_units.at(i),
                       uq::make_distribution(g.string_attribute("distribution"), params),
                       g.numeric_attribute<double>("low"), g.numeric_attribute<double>("high")};
    chaos_inputs.emplace_back(in.marginal);
    d.inputs.push_back(std::move(in));
  }
  const h5::group outputs = s.open_group("outputs");
  for (std::size_t j = 0; j < out_names.size(); ++j) {
    const h5::group g = outputs.open_group(out_names[j]);
    surrogate_output o;
    o.name = out_names[j];
    o.unit = out_units.at(j);
    o.validation.q2_kfold = g.numeric_attribute<double>("q2_kfold");
    o.validation.loo_error = g.numeric_attribute<double>("loo_error");
    o.validation.corrected_loo_error = g.numeric_attribute<double>("corrected_loo_error");
    if (g.has_attribute("test_error"))
      o.validation.test_error = g.numeric_attribute<double>("test_error");
    o.validation.kfold_predictions = as_eigen(g.open_dataset("kfold_predictions").read_doubles());
    for (double k : g.open_dataset("fold").read_doubles())
      o.validation.fold.push_back(static_cast<std::size_t>(k));
    o.mean = g.numeric_attribute<double>("mean");
    o.variance = g.numeric_attribute<double>("variance");
    if (d.kind == "gp") {
      const uq::gp_hyperparameters h{as_eigen(g.open_dataset("length_scales").read_doubles()),
                                     g.numeric_attribute<double>("process_variance"),
                                     g.numeric_attribute<double>("nugget")};
      o.gp.emplace(uq::parse_gp_kernel(g.string_attribute("kernel")),
                   uq::parse_gp_trend(g.string_attribute("trend")), d.x,
                   Eigen::VectorXd(d.y.col(static_cast<Eigen::Index>(j))), h);
      d.outputs.push_back(std::move(o));
      continue;
    }
    o.degree = static_cast<unsigned>(g.numeric_attribute<std::int64_t>("degree"));
    o.max_degree = static_cast<unsigned>(g.numeric_attribute<std::int64_t>("max_degree"));
    o.q_norm = g.numeric_attribute<double>("q_norm");
    o.selection = g.string_attribute("selection");
    o.candidates = static_cast<std::size_t>(g.numeric_attribute<std::int64_t>("candidates"));
    const Eigen::MatrixXd indices = read_matrix(g, "multi_indices");
    o.chaos.emplace(chaos_inputs, indices.cast<int>(),
                    as_eigen(g.open_dataset("coefficients").read_doubles()));
    d.outputs.push_back(std::move(o));
  }
  return d;
}

surrogate_model::surrogate_model(std::shared_ptr<const surrogate_data> data, bool extrapolate)
    : data_(std::move(data)), extrapolate_(extrapolate) {
  if (!data_ || data_->inputs.empty() || data_->outputs.empty())
    throw std::invalid_argument("surrogate model: no inputs or no outputs");
}

surrogate_model surrogate_model::from_study(const io::study_table& t) {
  t.allow_only({"type", "file", "extrapolate"});
  std::filesystem::path p = t.string("file");
  if (p.is_relative()) p = std::filesystem::path(t.file()).parent_path() / p;
  if (!std::filesystem::exists(p))
    t.fail("file",
           fmt::format("{} does not exist (relative paths are taken from the study's folder)",
                       p.string()));
  std::shared_ptr<const surrogate_data> data;
  try {
    data = std::make_shared<const surrogate_data>(read_surrogate(p));
  } catch (const std::exception& e) {
    t.fail("file", e.what());
  }
  return surrogate_model(std::move(data), t.boolean_or("extrapolate", false));
}

std::vector<variable> surrogate_model::inputs() const {
  std::vector<variable> v;
  for (const auto& in : data_->inputs) {
    variable x{.name = in.name,
               .dim = dimension_of(in.unit),
               .nominal = in.marginal.mean(),
               .unit = in.unit};
    // Extrapolating: a polynomial of an affine map is defined everywhere; the transform
    // Phi^-1(F(x)) only on the marginal's support.
    x.valid = !extrapolate_ ? valid_range{in.low, in.high}
              : uq::chaos_input(in.marginal).transformed()
                  ? valid_range{in.marginal.lower(), in.marginal.upper()}
                  : valid_range{};
    v.push_back(std::move(x));
  }
  return v;
}

std::vector<variable> surrogate_model::outputs() const {
  std::vector<variable> v;
  for (const auto& o : data_->outputs)
    v.push_back({.name = o.name, .dim = dimension_of(o.unit), .unit = o.unit});
  for (const auto& o : data_->outputs)
    if (o.gp) v.push_back({.name = o.name + "_sd", .dim = dimension_of(o.unit), .unit = o.unit});
  return v;
}

evaluation surrogate_model::evaluate(std::span<const double> x) const {
  Eigen::MatrixXd row(1, static_cast<Eigen::Index>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const surrogate_input& in = data_->inputs[i];
    if (!extrapolate_ && !(x[i] >= in.low && x[i] <= in.high))
      throw parameter_error(
          in.name, fmt::format("{} = {} is outside the surrogate's training box [{}, {}] {}; set "
                               "extrapolate = true in [model] to evaluate it anyway",
                               in.name, format_value(x[i]), format_value(in.low),
                               format_value(in.high), in.unit));
    row(0, static_cast<Eigen::Index>(i)) = x[i];
  }
  evaluation e;
  std::vector<double> sd;
  for (const auto& o : data_->outputs) {
    if (o.gp) {
      Eigen::VectorXd mean, s;
      o.gp->predict(row, mean, s);
      e.outputs.push_back(mean(0));
      sd.push_back(s(0));
    } else {
      e.outputs.push_back(o.chaos->evaluate(row)(0));
    }
  }
  e.outputs.insert(e.outputs.end(), sd.begin(), sd.end());
  return e;
}

}  // namespace contactuq::model
