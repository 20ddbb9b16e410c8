#include "contactuq/calibrate/calibration.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <chrono>
#include <cmath>
#include <memory>
#include <numbers>

#include "contactuq/calibrate/insertion_data.hpp"
#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"

namespace contactuq::calibrate {

namespace {

// Linear interpolation of y(X) at x, X increasing; x within [X.front(), X.back()].
double interpolate(const std::vector<double>& X, const std::vector<double>& Y, double x) {
  const auto hi = std::upper_bound(X.begin(), X.end(), x);
  if (hi == X.begin()) return Y.front();
  if (hi == X.end()) return Y.back();
  const auto i = static_cast<std::size_t>(hi - X.begin());
  const double w = (x - X[i - 1]) / (X[i] - X[i - 1]);
  return Y[i - 1] + w * (Y[i] - Y[i - 1]);
}

// The residual problem over the calibrated inputs q; residuals case by case: its scalar
// outputs in order, then its curves point by point.
class model_problem final : public residual_problem {
 public:
  model_problem(const calibration_setup& setup, std::shared_ptr<const std::vector<measured_case>> cases,
                const fit_options& o, std::vector<std::size_t> targets,
                std::vector<double> output_scale, std::vector<double> curve_scale)
      : setup_(setup),
        cases_(std::move(cases)),
        options_(o),
        targets_(std::move(targets)),
        output_scale_(std::move(output_scale)),
        curve_scale_(std::move(curve_scale)) {
    for (const auto& p : o.parameters) {
      low_.push_back(p.low);
      high_.push_back(p.high);
    }
    for (const auto& c : *cases_) {
      const auto found = std::find(labels_.begin(), labels_.end(), c.label);
      const auto g = static_cast<std::size_t>(found - labels_.begin());
      if (found == labels_.end()) labels_.push_back(c.label);
      std::size_t n = c.outputs.size();
      for (const auto& mc : c.curves) n += mc.x.size();
      cluster_.insert(cluster_.end(), n, g);
      for (const auto& [j, y] : c.outputs) penalty_ = std::max(penalty_, std::abs(y / output_scale_[j]));
      for (const auto& mc : c.curves)
        for (double y : mc.y) penalty_ = std::max(penalty_, std::abs(y / curve_scale_[mc.curve]));
    }
    clusters_ = labels_.size();
    penalty_ = 1e3 * (penalty_ + 1.0);
  }

  const std::vector<std::string>& labels() const { return labels_; }

  // The model inputs of case c at q.
  std::vector<double> inputs(const Eigen::VectorXd& q, const measured_case& c) const {
    std::vector<double> x = setup_.inputs;
    for (std::size_t k = 0; k < targets_.size(); ++k) x[targets_[k]] = q[static_cast<Eigen::Index>(k)];
    for (const auto& [i, v] : c.inputs) x[i] = v;
    return x;
  }

  // Model values at every measured point, case by case (scalar outputs, then curve points).
  std::vector<double> values(const Eigen::VectorXd& q) const {
    std::vector<double> out;
    out.reserve(residuals());
    for (const auto& c : *cases_) {
      const auto e = setup_.model.evaluate(inputs(q, c));
      for (const auto& [j, y] : c.outputs) out.push_back(e.outputs[j]);
      for (const auto& mc : c.curves) {
        const auto& X = setup_.model.curves()[mc.curve].abscissa;
        for (double x : mc.x) out.push_back(interpolate(X, e.curves[mc.curve], x));
      }
    }
    return out;
  }

  bool residual(const Eigen::VectorXd& q, Eigen::VectorXd& r) const override {
    r.resize(static_cast<Eigen::Index>(residuals()));
    try {
      const std::vector<double> v = values(q);
      Eigen::Index i = 0;
      for (const auto& c : *cases_) {
        for (const auto& [j, y] : c.outputs) {
          r[i] = robust_residual((v[static_cast<std::size_t>(i)] - y) / output_scale_[j],
                                 options_.loss, options_.loss_scale);
          ++i;
        }
        for (const auto& mc : c.curves)
          for (std::size_t p = 0; p < mc.x.size(); ++p, ++i)
            r[i] = robust_residual((v[static_cast<std::size_t>(i)] - mc.y[p]) / curve_scale_[mc.curve],
                                   options_.loss, options_.loss_scale);
      }
      if (r.allFinite()) return true;
    } catch (const std::exception&) {
    }
    r.setConstant(penalty_);
    return false;
  }

  std::unique_ptr<residual_problem> resample(const std::vector<std::size_t>& picks) const override {
    auto d = std::make_shared<std::vector<measured_case>>();
    for (std::size_t slot = 0; slot < picks.size(); ++slot)
      for (const auto& c : *cases_)
        if (c.label == labels_[picks[slot]]) {
          d->push_back(c);
          d->back().label = fmt::format("{}", slot);
        }
    return std::make_unique<model_problem>(setup_, d, options_, targets_, output_scale_,
                                           curve_scale_);
  }

 private:
  const calibration_setup& setup_;
  std::shared_ptr<const std::vector<measured_case>> cases_;
  const fit_options& options_;
  std::vector<std::size_t> targets_;
  std::vector<double> output_scale_, curve_scale_;
  std::vector<std::string> labels_;
  double penalty_ = 0.0;
};

// Checks the data against the model: indices, curve abscissae within the model's, finite
// values, more residuals than parameters. Returns the number of residuals.
std::size_t check_cases(const model::model& m, const std::vector<measured_case>& cases,
                        std::size_t parameters) {
  if (cases.empty()) throw data_error("data", 0, "no measured cases to calibrate against");
  std::size_t n = 0;
  for (const auto& c : cases) {
    for (const auto& [i, v] : c.inputs)
      if (i >= m.inputs().size() || !std::isfinite(v))
        throw data_error(c.file, c.line, fmt::format("case {}: input {} = {} is not a finite "
                                                     "value of an input of model {}",
                                                     c.label, i, v, m.name()));
    for (const auto& [j, y] : c.outputs) {
      if (j >= m.outputs().size())
        throw data_error(c.file, c.line, fmt::format("case {}: output index {} is not an output "
                                                     "of model {}", c.label, j, m.name()));
      if (!std::isfinite(y))
        throw data_error(c.file, c.line, fmt::format("case {}: measured {} = {} is not finite",
                                                     c.label, m.outputs()[j].name, y));
    }
    n += c.outputs.size();
    for (const auto& mc : c.curves) {
      if (mc.curve >= m.curves().size())
        throw data_error(c.file, c.line, fmt::format("case {}: curve index {} is not a curve of "
                                                     "model {}", c.label, mc.curve, m.name()));
      const auto& cv = m.curves()[mc.curve];
      for (std::size_t p = 0; p < mc.x.size(); ++p)
        if (!(mc.x[p] >= cv.abscissa.front() && mc.x[p] <= cv.abscissa.back()) ||
            !std::isfinite(mc.y[p]))
          throw data_error(
              c.file, c.line + static_cast<int>(p) + 1,
              fmt::format("case {}: curve {} point {}: {} = {} {} must lie within the model's "
                          "[{}, {}] and {} must be finite",
                          c.label, cv.name, p, cv.abscissa_name, mc.x[p],
                          units::si_unit(cv.abscissa_dim), cv.abscissa.front(),
                          cv.abscissa.back(), cv.name));
      n += mc.x.size();
    }
  }
  if (n <= parameters)
    throw data_error(cases.front().file, 0,
                     fmt::format("{} measured values for {} calibrated parameters: the fit "
                                 "needs more values than parameters",
                                 n, parameters));
  return n;
}

// Residual scales: the given ones, else the rms of the measured values (1 if they are all 0).
std::pair<std::vector<double>, std::vector<double>> residual_scales(
    const calibration_setup& s, const std::vector<measured_case>& cases) {
  const std::size_t no = s.model.outputs().size(), nc = s.model.curves().size();
  std::vector<double> os(no, 0.0), cs(nc, 0.0);
  for (std::size_t j = 0; j < std::min(no, s.output_scale.size()); ++j) os[j] = s.output_scale[j];
  for (std::size_t k = 0; k < std::min(nc, s.curve_scale.size()); ++k) cs[k] = s.curve_scale[k];
  std::vector<double> sum_o(no, 0.0), sum_c(nc, 0.0);
  std::vector<std::size_t> n_o(no, 0), n_c(nc, 0);
  for (const auto& c : cases) {
    for (const auto& [j, y] : c.outputs) sum_o[j] += y * y, ++n_o[j];
    for (const auto& mc : c.curves)
      for (double y : mc.y) sum_c[mc.curve] += y * y, ++n_c[mc.curve];
  }
  const auto fill = [](std::vector<double>& scale, const std::vector<double>& sum,
                       const std::vector<std::size_t>& n) {
    for (std::size_t j = 0; j < scale.size(); ++j) {
      if (scale[j] > 0) continue;
      const double rms = n[j] ? std::sqrt(sum[j] / static_cast<double>(n[j])) : 0.0;
      scale[j] = rms > 0 ? rms : 1.0;
    }
  };
  fill(os, sum_o, n_o);
  fill(cs, sum_c, n_c);
  return {os, cs};
}

// Measured against fitted per output and curve.
std::vector<residual_set> residual_sets(const model_problem& pr, const Eigen::VectorXd& q,
                                        const model::model& m,
                                        const std::vector<measured_case>& cases,
                                        const std::vector<double>& os,
                                        const std::vector<double>& cs) {
  const std::vector<double> v = pr.values(q);
  std::vector<residual_set> sets;
  const auto set_for = [&](const std::string& name, bool curve, units::dimension dim,
                           double scale) -> residual_set& {
    for (auto& s : sets)
      if (s.name == name && s.curve == curve) return s;
    auto& s = sets.emplace_back();
    s.name = name;
    s.curve = curve;
    s.unit = units::si_unit(dim);
    s.scale = scale;
    return s;
  };
  std::size_t i = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    for (const auto& [j, y] : cases[c].outputs) {
      auto& s = set_for(m.outputs()[j].name, false, m.outputs()[j].dim, os[j]);
      s.case_index.push_back(c);
      s.measured.push_back(y);
      s.fitted.push_back(v[i++]);
    }
    for (const auto& mc : cases[c].curves) {
      const auto& cv = m.curves()[mc.curve];
      auto& s = set_for(cv.name, true, cv.dim, cs[mc.curve]);
      for (std::size_t p = 0; p < mc.x.size(); ++p) {
        s.case_index.push_back(c);
        s.x.push_back(mc.x[p]);
        s.measured.push_back(mc.y[p]);
        s.fitted.push_back(v[i++]);
      }
    }
  }
  for (auto& s : sets) {
    double sum = 0.0;
    for (std::size_t p = 0; p < s.measured.size(); ++p)
      sum += (s.fitted[p] - s.measured[p]) * (s.fitted[p] - s.measured[p]);
    s.rms = std::sqrt(sum / static_cast<double>(s.measured.size()));
  }
  return sets;
}

// Standard normal deviate by inversion, z = -sqrt(2) erfc^-1(2u), bits fixed by this file.
double normal(uq::engine& e) {
  return -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * uq::open_uniform(e));
}
// Stream of the synthetic noise of case i: uq::make_engine(seed, synthetic_cases, i).
constexpr auto synthetic_cases = static_cast<uq::stream_purpose>(0x5ca1a2);

}  // namespace

calibration_result calibrate(const calibration_setup& setup,
                             const std::vector<measured_case>& cases, const fit_options& options) {
  const auto t0 = std::chrono::steady_clock::now();
  options.validate();
  if (options.offsets)
    throw parameter_error("offsets", "per-insertion offsets belong to insertion-curve fits");
  const model::model& m = setup.model;
  if (setup.inputs.size() != m.inputs().size())
    throw parameter_error("inputs", fmt::format("{} input values for the {} inputs of model {}",
                                                setup.inputs.size(), m.inputs().size(), m.name()));
  std::vector<std::size_t> targets;
  parameter_labels labels;
  Eigen::VectorXd first(static_cast<Eigen::Index>(options.parameters.size()));
  for (const auto& p : options.parameters) {
    const std::size_t i = m.find_input(p.name);
    if (i == m.inputs().size())
      throw parameter_error(p.name, fmt::format("\"{}\" is not an input of the {} model; its "
                                                "inputs: {}",
                                                p.name, m.name(), fmt::join(m.input_names(), ", ")));
    for (const auto& c : cases)
      for (const auto& ci : c.inputs)
        if (ci.first == i)
          throw data_error(c.file, c.line,
                           fmt::format("case {} sets {}, which is calibrated", c.label, p.name));
    const double start = p.start.value_or(setup.inputs[i]);
    if (!(start >= p.low && start <= p.high))
      throw parameter_error(p.name, fmt::format("{} = {} {} is the first start and must lie "
                                                "within the bounds [{}, {}]; give a start",
                                                p.name, start, m.inputs()[i].unit,
                                                p.low, p.high));
    first[static_cast<Eigen::Index>(targets.size())] = start;
    targets.push_back(i);
    labels.names.push_back(p.name);
    labels.dims.push_back(m.inputs()[i].dim);
  }
  const std::size_t n = check_cases(m, cases, targets.size());
  auto [os, cs] = residual_scales(setup, cases);
  for (const auto& c : cases)
    for (const auto& [j, y] : c.outputs) labels.cost_scale += (y / os[j]) * (y / os[j]);
  labels.no_solution_hint = fmt::format(": model {} failed at every point tried; narrow the bounds",
                                        m.name());

  // A model that is not thread safe is evaluated from one thread.
  fit_options o = options;
  o.parallel = o.parallel && m.thread_safe();
  const auto shared = std::make_shared<const std::vector<measured_case>>(cases);
  const model_problem pr(setup, shared, o, targets, os, cs);
  if (o.bootstrap > 0 && pr.clusters() < 2)
    throw parameter_error("bootstrap", "the bootstrap over cases needs at least two case labels");

  calibration_result res;
  const Eigen::VectorXd q = solve(pr, first, o, labels, n, res);
  res.model = m.name();
  res.inputs = setup.inputs;
  for (std::size_t k = 0; k < targets.size(); ++k) res.inputs[targets[k]] = q[static_cast<Eigen::Index>(k)];
  res.case_labels = pr.labels();
  res.residuals = residual_sets(pr, q, m, cases, os, cs);
  double sum2 = 0.0;
  std::size_t count = 0;
  for (const auto& s : res.residuals) {
    sum2 += s.rms * s.rms * static_cast<double>(s.measured.size()) / (s.scale * s.scale);
    count += s.measured.size();
  }
  res.rms = std::sqrt(sum2 / static_cast<double>(count));  // of the scaled residuals
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

std::vector<double> case_values(const model::model& m, std::vector<double> x, const measured_case& c) {
  for (const auto& [i, v] : c.inputs) x[i] = v;
  const auto e = m.evaluate(x);
  std::vector<double> out;
  for (const auto& [j, y] : c.outputs) out.push_back(e.outputs[j]);
  for (const auto& mc : c.curves) {
    const auto& X = m.curves()[mc.curve].abscissa;
    for (double xi : mc.x) out.push_back(interpolate(X, e.curves[mc.curve], xi));
  }
  return out;
}

std::size_t check_measured_cases(const model::model& m, const std::vector<measured_case>& cases,
                                 std::size_t parameters) {
  return check_cases(m, cases, parameters);
}

void synthesize_cases(const model::model& m, const std::vector<double>& inputs,
                      std::vector<measured_case>& cases, const std::vector<double>& noise_sd,
                      std::uint64_t seed) {
  for (std::size_t c = 0; c < cases.size(); ++c) {
    std::vector<double> x = inputs;
    for (const auto& [i, v] : cases[c].inputs) x.at(i) = v;
    const auto e = m.evaluate(x);
    auto rng = uq::make_engine(seed, synthetic_cases, c);
    for (auto& [j, y] : cases[c].outputs)
      y = e.outputs.at(j) + (j < noise_sd.size() ? noise_sd[j] : 0.0) * normal(rng);
  }
}

}  // namespace contactuq::calibrate
