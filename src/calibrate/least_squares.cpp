#include "contactuq/calibrate/least_squares.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/parallel_for.h>

#include <Eigen/SVD>
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <unsupported/Eigen/LevenbergMarquardt>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"
#include "contactuq/uq/random.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::calibrate {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// Eigen's LM functor over the unbounded u; the Jacobian by forward differences.
struct lm_functor : Eigen::DenseFunctor<double> {
  lm_functor(const residual_problem& pr, double step)
      : Eigen::DenseFunctor<double>(static_cast<int>(pr.size()), static_cast<int>(pr.residuals())),
        pr_(pr),
        step_(step) {}

  int operator()(const Eigen::VectorXd& u, Eigen::VectorXd& f) const {
    ++sweeps;
    pr_.residual(pr_.to_q(u), f);
    return 0;
  }
  int df(const Eigen::VectorXd& u, Eigen::MatrixXd& jac) const {
    Eigen::VectorXd f0, f1, v = u;
    (*this)(u, f0);
    for (Eigen::Index k = 0; k < u.size(); ++k) {
      const double h = step_ * std::max(1.0, std::abs(u[k]));
      v[k] = u[k] + h;
      (*this)(v, f1);
      jac.col(k) = (f1 - f0) / h;
      v[k] = u[k];
    }
    return 0;  // sweeps are counted in operator()
  }

  const residual_problem& pr_;
  double step_;
  mutable int sweeps = 0;
};

std::string_view status_text(Eigen::LevenbergMarquardtSpace::Status s) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (s) {
    case RelativeReductionTooSmall:
      return "converged: relative reduction of the cost below tolerance";
    case RelativeErrorTooSmall:
      return "converged: relative step below tolerance";
    case RelativeErrorAndReductionTooSmall:
      return "converged: relative step and cost reduction below tolerance";
    case CosinusTooSmall:
      return "converged: residuals orthogonal to the Jacobian (or the model failed at the start)";
    case TooManyFunctionEvaluation:
      return "stopped: evaluation limit reached";
    case FtolTooSmall:
      return "stopped: cost tolerance too small for machine precision";
    case XtolTooSmall:
      return "stopped: step tolerance too small for machine precision";
    case GtolTooSmall:
      return "stopped: gradient tolerance too small for machine precision";
    default:
      return "stopped: improper input";
  }
}

template <class F>
void for_each_index(std::size_t n, bool parallel, F&& f) {
  if (parallel)
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { f(i); });
  else
    for (std::size_t i = 0; i < n; ++i) f(i);
}

// Results of the starts and refits as bytes, for an executor's map().
class byte_writer {
 public:
  void put(double v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void put(const std::vector<double>& v) {
    put(static_cast<double>(v.size()));
    for (const double x : v) put(x);
  }
  void put(const std::string& text) {
    put(static_cast<double>(text.size()));
    bytes_ += text;
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class byte_reader {
 public:
  explicit byte_reader(std::string_view bytes) : bytes_(bytes) {}
  double get() {
    double v = 0.0;
    need(sizeof v);
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::vector<double> get_values() {
    std::vector<double> v(static_cast<std::size_t>(get()));
    for (double& x : v) x = get();
    return v;
  }
  std::string get_text() {
    const auto size = static_cast<std::size_t>(get());
    need(size);
    std::string text(bytes_.substr(at_, size));
    at_ += size;
    return text;
  }

 private:
  void need(std::size_t size) const {
    if (size > bytes_.size() - at_) throw std::runtime_error("a fit result of another build");
  }
  std::string_view bytes_;
  std::size_t at_ = 0;
};

// f(i) for i in [0, n), on this process's threads or over the executor's processes; a job that
// throws rethrows here (the lowest i first), as for_each_index would.
template <class Result>
std::vector<Result> map_fits(std::size_t n, const fit_options& o, const std::function<Result(std::size_t)>& f,
                             const std::function<std::string(const Result&)>& encode,
                             const std::function<Result(byte_reader&)>& decode) {
  std::vector<Result> out(n);
  if (!o.executor) {
    for_each_index(n, o.parallel, [&](std::size_t i) { out[i] = f(i); });
    return out;
  }
  const auto bytes = o.executor->map(n, o.parallel, [&](std::size_t i) {
    byte_writer w;
    try {
      const std::string result = encode(f(i));
      w.put(0.0);
      return w.take() + result;
    } catch (const std::exception& e) {
      w.put(1.0);
      w.put(std::string(e.what()));
      return w.take();
    }
  });
  for (std::size_t i = 0; i < n; ++i) {
    byte_reader r(bytes[i]);
    if (r.get() != 0.0) throw fit_error(r.get_text());
    out[i] = decode(r);
  }
  return out;
}

double t_quantile(double dof, double confidence) {
  return boost::math::quantile(boost::math::students_t(dof), 0.5 * (1.0 + confidence));
}

}  // namespace

std::string_view to_string(loss_kind k) {
  switch (k) {
    case loss_kind::squared:
      return "squared";
    case loss_kind::huber:
      return "huber";
    case loss_kind::cauchy:
      return "cauchy";
  }
  return "?";
}

void fit_options::validate() const {
  if (parameters.empty())
    throw parameter_error("parameters", "the fit needs at least one free parameter");
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const auto& p = parameters[i];
    for (std::size_t j = 0; j < i; ++j)
      if (parameters[j].name == p.name)
        throw parameter_error(p.name, fmt::format("{} is listed twice", p.name));
    if (!(std::isfinite(p.low) && std::isfinite(p.high) && p.low < p.high))
      throw parameter_error(
          p.name,
          fmt::format("{} bounds [{}, {}]: must be finite with low < high", p.name, p.low, p.high));
    if (p.start && !(*p.start >= p.low && *p.start <= p.high))
      throw parameter_error(
          p.name, fmt::format("{} start = {}: must lie within the bounds [{}, {}]", p.name,
                              *p.start, p.low, p.high));
  }
  if (offsets && !(std::isfinite(offsets->first) && std::isfinite(offsets->second) &&
                   offsets->first < 0 && offsets->second > 0))
    throw parameter_error(
        "offsets", fmt::format("offset bounds [{}, {}] m: must be finite with low < 0 < high",
                               offsets->first, offsets->second));
  require(starts >= 1 && starts <= 1000, "starts", starts, "", "an integer in [1, 1000]");
  if (loss != loss_kind::squared)
    require(std::isfinite(loss_scale) && loss_scale > 0, "loss_scale", loss_scale, "",
            "> 0 for a robust loss");
  require(confidence > 0 && confidence < 1, "confidence", confidence, "", "in (0, 1)");
  // Each resample is a full multi-start refit. Efron and Tibshirani (1993, section 13.3) find
  // 1000-2000 resamples enough for percentile intervals; 10^4 is five times that.
  require(bootstrap == 0 || (bootstrap >= 10 && bootstrap <= 10000), "bootstrap", bootstrap, "",
          "0 (off) or an integer in [10, 10000]");
  require(max_evaluations >= 10, "max_evaluations", max_evaluations, "", "an integer >= 10");
  require(tolerance >= 1e-15 && tolerance <= 1e-2, "tolerance", tolerance, "", "in [1e-15, 1e-2]");
  require(difference_step >= 1e-12 && difference_step <= 1e-2, "difference_step", difference_step,
          "", "in [1e-12, 1e-2]");
}

double robust_residual(double r, loss_kind loss, double c) {
  const double a = std::abs(r);
  switch (loss) {
    case loss_kind::squared:
      return r;
    case loss_kind::huber:
      return a <= c ? r : std::copysign(std::sqrt(2.0 * c * a - c * c), r);
    case loss_kind::cauchy:
      return std::copysign(c * std::sqrt(std::log1p(a * a / (c * c))), r);
  }
  return r;
}

Eigen::VectorXd residual_problem::to_q(const Eigen::VectorXd& u) const {
  Eigen::VectorXd q(u.size());
  for (Eigen::Index k = 0; k < u.size(); ++k) {
    const auto i = static_cast<std::size_t>(k);
    q[k] = low_[i] + (high_[i] - low_[i]) * 0.5 * (1.0 + std::sin(u[k]));
  }
  return q;
}

Eigen::VectorXd residual_problem::to_u(const Eigen::VectorXd& q) const {
  Eigen::VectorXd u(q.size());
  for (Eigen::Index k = 0; k < q.size(); ++k) {
    const auto i = static_cast<std::size_t>(k);
    u[k] = std::asin(std::clamp(2.0 * (q[k] - low_[i]) / (high_[i] - low_[i]) - 1.0, -1.0, 1.0));
  }
  return u;
}

namespace steps {

std::vector<Eigen::VectorXd> starts(const residual_problem& pr, const Eigen::VectorXd& first,
                                    const fit_options& o) {
  const auto p = static_cast<Eigen::Index>(pr.size());
  std::vector<Eigen::VectorXd> out;
  Eigen::VectorXd q = first;
  for (Eigen::Index k = 0; k < p; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const double w = pr.high(i) - pr.low(i);
    q[k] = std::clamp(q[k], pr.low(i) + 1e-3 * w, pr.high(i) - 1e-3 * w);
  }
  out.push_back(q);
  if (o.starts > 1) {
    uq::design_options d;
    d.kind = uq::design_kind::latin_hypercube;
    d.seed = o.seed;
    const Eigen::MatrixXd u = uq::unit_design(static_cast<std::size_t>(o.starts - 1), pr.size(), d);
    for (Eigen::Index s = 0; s < u.rows(); ++s) {
      for (Eigen::Index k = 0; k < p; ++k) {
        const auto i = static_cast<std::size_t>(k);
        q[k] = pr.low(i) + (pr.high(i) - pr.low(i)) * u(s, k);
      }
      out.push_back(q);
    }
  }
  return out;
}

start_record levenberg_marquardt(const residual_problem& pr, const Eigen::VectorXd& q0,
                                 const fit_options& o) {
  lm_functor f(pr, o.difference_step);
  Eigen::LevenbergMarquardt<lm_functor> lm(f);
  lm.setXtol(o.tolerance);
  lm.setFtol(o.tolerance);
  lm.setGtol(0.0);
  // Each Jacobian costs P sweeps on top of the trial steps LM counts.
  lm.setMaxfev(std::max<Eigen::Index>(2, o.max_evaluations / static_cast<int>(pr.size() + 1)));
  Eigen::VectorXd u = pr.to_u(q0);
  const auto status = lm.minimize(u);
  Eigen::VectorXd r;
  const Eigen::VectorXd q = pr.to_q(u);
  const bool ok = pr.residual(q, r);
  start_record rec;
  rec.start.assign(q0.data(), q0.data() + q0.size());
  rec.end.assign(q.data(), q.data() + q.size());
  rec.cost = ok ? r.squaredNorm() : infinity;
  rec.evaluations = f.sweeps + 1;
  rec.status =
      ok ? std::string(status_text(status)) : "failed: the model has no solution at this point";
  return rec;
}

std::size_t multi_start(const residual_problem& pr, const std::vector<Eigen::VectorXd>& starts,
                        const fit_options& o, least_squares_result& res) {
  res.starts = map_fits<start_record>(
      starts.size(), o, [&](std::size_t s) { return levenberg_marquardt(pr, starts[s], o); },
      [](const start_record& r) {
        byte_writer b;
        b.put(r.start);
        b.put(r.end);
        b.put(r.cost);
        b.put(static_cast<double>(r.evaluations));
        b.put(r.status);
        return b.take();
      },
      [](byte_reader& b) {
        start_record r;
        r.start = b.get_values();
        r.end = b.get_values();
        r.cost = b.get();
        r.evaluations = static_cast<int>(b.get());
        r.status = b.get_text();
        return r;
      });
  for (const auto& s : res.starts) res.evaluations += s.evaluations;
  std::size_t best = 0;
  for (std::size_t i = 1; i < res.starts.size(); ++i)
    if (res.starts[i].cost < res.starts[best].cost) best = i;
  return best;
}

void require_interior(const residual_problem& pr, const Eigen::VectorXd& q,
                      const parameter_labels& labels) {
  for (Eigen::Index k = 0; k < q.size(); ++k) {
    const auto i = static_cast<std::size_t>(k);
    const double w = pr.high(i) - pr.low(i);
    const bool at_low = q[k] - pr.low(i) <= 1e-4 * w, at_high = pr.high(i) - q[k] <= 1e-4 * w;
    if (!at_low && !at_high) continue;
    const std::string unit = units::si_unit(labels.dims[i]);
    throw fit_error(fmt::format(
        "{} = {} {} sits on its {} bound (bounds [{}, {}] {}): the bounds exclude the best "
        "fit, which lies {}; widen them",
        labels.names[i], q[k], unit, at_low ? "lower" : "upper", pr.low(i), pr.high(i), unit,
        at_low ? "below" : "above"));
  }
}

Eigen::MatrixXd jacobian(const residual_problem& pr, const Eigen::VectorXd& q, double step) {
  Eigen::MatrixXd J(static_cast<Eigen::Index>(pr.residuals()), q.size());
  Eigen::VectorXd rp, rm, v = q;
  for (Eigen::Index k = 0; k < q.size(); ++k) {
    const auto i = static_cast<std::size_t>(k);
    const double h = 10.0 * step * (pr.high(i) - pr.low(i));
    v[k] = q[k] + h;
    const bool ok_p = pr.residual(v, rp);
    v[k] = q[k] - h;
    const bool ok_m = pr.residual(v, rm);
    v[k] = q[k];
    if (!ok_p || !ok_m)
      throw fit_error(fmt::format(
          "the model has no solution next to the optimum (step {} in parameter {}): the "
          "covariance cannot be computed",
          h, k));
    J.col(k) = (rp - rm) / (2.0 * h);
  }
  return J;
}

void covariance(const Eigen::MatrixXd& J, const Eigen::VectorXd& r,
                const parameter_labels& labels, least_squares_result& res) {
  const Eigen::Index P = J.cols();
  res.cost = r.squaredNorm();
  const double s2 = res.cost / static_cast<double>(res.dof);
  res.sigma = std::sqrt(s2);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeThinV);
  const Eigen::VectorXd sv = svd.singularValues();
  if (sv[P - 1] <= 1e-10 * sv[0]) {
    const Eigen::VectorXd v = svd.matrixV().col(P - 1);
    std::vector<std::string> involved;
    for (Eigen::Index k = 0; k < P; ++k)
      if (std::abs(v[k]) > 0.1) involved.push_back(labels.names[static_cast<std::size_t>(k)]);
    if (involved.size() == 1)
      throw fit_error(fmt::format(
          "the data do not determine {} (the residuals do not change with it): fix it or "
          "add data where it acts",
          involved.front()));
    throw fit_error(fmt::format(
        "the data cannot tell {} apart (the Jacobian is rank-deficient, condition number "
        "{:.3g}): fix one of them or add data that separates them",
        fmt::join(involved, " and "), sv[0] / std::max(sv[P - 1], 1e-300)));
  }
  const Eigen::MatrixXd V = svd.matrixV();
  res.covariance = s2 * V * sv.cwiseInverse().cwiseAbs2().asDiagonal() * V.transpose();
  const Eigen::VectorXd se = res.covariance.diagonal().cwiseSqrt();
  res.correlation = res.covariance.cwiseQuotient(se * se.transpose());
}

void clustered_covariance(const residual_problem& pr, const Eigen::MatrixXd& J,
                          const Eigen::VectorXd& r, least_squares_result& res) {
  const std::size_t G = pr.clusters();
  res.clusters = G;
  if (G < 3) return;
  const Eigen::Index P = J.cols();
  Eigen::MatrixXd scores = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(G), P);
  for (Eigen::Index i = 0; i < J.rows(); ++i)
    scores.row(static_cast<Eigen::Index>(pr.cluster()[static_cast<std::size_t>(i)])) +=
        J.row(i) * r[i];
  // (J^T J)^-1 = C / s^2.
  const Eigen::MatrixXd bread = res.covariance / (res.sigma * res.sigma);
  const double Gd = static_cast<double>(G), N = static_cast<double>(res.points),
               Pd = static_cast<double>(P);
  res.clustered_covariance =
      Gd / (Gd - 1.0) * (N - 1.0) / (N - Pd) * bread * scores.transpose() * scores * bread;
}

void bootstrap(const residual_problem& pr, const Eigen::VectorXd& q, const fit_options& o,
               least_squares_result& res) {
  if (o.bootstrap <= 0) return;
  const auto P = q.size();
  const std::size_t n = pr.clusters();
  // A refit's sweeps and its optimum (empty when it failed).
  using refit = std::pair<int, std::vector<double>>;
  const auto reps = map_fits<refit>(
      static_cast<std::size_t>(o.bootstrap), o,
      [&](std::size_t b) {
        auto e = uq::make_engine(o.seed, uq::stream_purpose::bootstrap_replicate, b);
        std::vector<std::size_t> picks(n);
        for (auto& p : picks) p = uq::uniform_index(e, n);
        refit r{0, {}};
        try {
          const auto replicate = pr.resample(picks);
          const start_record rec = levenberg_marquardt(*replicate, q, o);
          r.first = rec.evaluations;
          if (std::isfinite(rec.cost)) r.second = rec.end;
        } catch (const std::exception&) {
        }
        return r;
      },
      [](const refit& r) {
        byte_writer b;
        b.put(static_cast<double>(r.first));
        b.put(r.second);
        return b.take();
      },
      [](byte_reader& b) {
        refit r;
        r.first = static_cast<int>(b.get());
        r.second = b.get_values();
        return r;
      });
  std::vector<Eigen::VectorXd> ok;
  for (const auto& [sweeps, end] : reps) {
    res.evaluations += sweeps;
    if (!end.empty())
      ok.push_back(Eigen::Map<const Eigen::VectorXd>(end.data(), P));
    else
      ++res.bootstrap_failed;
  }
  res.bootstrap.resize(static_cast<Eigen::Index>(ok.size()), P);
  for (std::size_t i = 0; i < ok.size(); ++i)
    res.bootstrap.row(static_cast<Eigen::Index>(i)) = ok[i].transpose();
}

}  // namespace steps

Eigen::VectorXd solve(const residual_problem& pr, const Eigen::VectorXd& first,
                      const fit_options& o, const parameter_labels& labels, std::size_t points,
                      least_squares_result& res) {
  const auto P = static_cast<Eigen::Index>(pr.size());
  res.confidence = o.confidence;
  res.points = points;
  res.dof = points - pr.size();

  const auto starts = steps::starts(pr, first, o);
  const std::size_t best = steps::multi_start(pr, starts, o, res);
  const start_record& b = res.starts[best];
  if (!std::isfinite(b.cost))
    throw fit_error(fmt::format(
        "the model has no solution anywhere the {} start{} went within the bounds{}",
        starts.size(), starts.size() == 1 ? "" : "s", labels.no_solution_hint));
  // Costs this far below the data's own scale count as equal (a perfect fit has cost ~0).
  for (const auto& s : res.starts)
    res.starts_at_best += std::abs(s.cost - b.cost) <= 1e-6 * b.cost + 1e-20 * labels.cost_scale;
  const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(b.end.data(), P);

  steps::require_interior(pr, q, labels);
  const Eigen::MatrixXd J = steps::jacobian(pr, q, o.difference_step);
  Eigen::VectorXd r;
  pr.residual(q, r);
  steps::covariance(J, r, labels, res);
  steps::clustered_covariance(pr, J, r, res);
  steps::bootstrap(pr, q, o, res);
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(o.parameters.size()); ++k) {
    const auto i = static_cast<std::size_t>(k);
    res.parameters.push_back(linear_estimate(res, labels.names[i], labels.dims[i], q[k],
                                             Eigen::VectorXd::Unit(P, k), pr.low(i), pr.high(i),
                                             first[k], false));
  }
  return q;
}

parameter_estimate linear_estimate(const least_squares_result& res, std::string name,
                                   units::dimension dim, double value, const Eigen::VectorXd& c,
                                   double bound_low, double bound_high, double start,
                                   bool derived) {
  const double t = t_quantile(static_cast<double>(res.dof), res.confidence);
  const double se = std::sqrt(c.dot(res.covariance * c));
  parameter_estimate e;
  e.name = std::move(name);
  e.dim = dim;
  e.unit = units::si_unit(dim);
  e.value = value;
  e.standard_error = se;
  e.low = value - t * se;
  e.high = value + t * se;
  e.bound_low = bound_low;
  e.bound_high = bound_high;
  e.start = start;
  e.derived = derived;
  if (res.clustered_covariance.size() > 0) {
    const double t_cl = t_quantile(static_cast<double>(res.clusters) - 1.0, res.confidence);
    const double se_cl = std::sqrt(c.dot(res.clustered_covariance * c));
    e.clustered_se = se_cl;
    e.clustered_low = value - t_cl * se_cl;
    e.clustered_high = value + t_cl * se_cl;
  }
  if (res.bootstrap.rows() >= 2) {
    const Eigen::VectorXd boot = res.bootstrap * c;
    std::vector<double> v(boot.data(), boot.data() + boot.size());
    std::sort(v.begin(), v.end());
    const double mean = boot.mean();
    e.bootstrap_sd =
        std::sqrt((boot.array() - mean).square().sum() / static_cast<double>(boot.size() - 1));
    e.bootstrap_low = uq::sorted_quantile(v, 0.5 * (1.0 - res.confidence));
    e.bootstrap_high = uq::sorted_quantile(v, 0.5 * (1.0 + res.confidence));
  }
  return e;
}

}  // namespace contactuq::calibrate
