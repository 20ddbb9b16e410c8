#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <complex>
#include <exception>
#include <limits>
#include <nlopt.hpp>
#include <numeric>
#include <optional>
#include <utility>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"
#include "contactuq/uq/reliability.hpp"

// FORM by the improved HL-RF algorithm of Zhang & Der Kiureghian (1995), "An improved
// HL-RF method for structural reliability", with an NLopt SLSQP fallback, and SORM by the
// formulas of Breitung (1984), Hohenbichler & Rackwitz (1988) and Tvedt (1990).

namespace contactuq::uq {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

const boost::math::normal standard_normal;

// Phi(-beta), accurate in the far tail.
double upper_tail(double beta) {
  return boost::math::cdf(boost::math::complement(standard_normal, beta));
}
double density(double beta) { return boost::math::pdf(standard_normal, beta); }

// Armijo: accept a step length lambda when m(u + lambda d) <= m(u) + armijo * lambda * m'(u; d).
constexpr double armijo = 0.1;
// Line search: step lengths 1, then 1/2 .. 1/16, 1/32 .. 1/256, ... down to 2^-20.
constexpr int lengths_per_batch = 4;
constexpr int max_halvings = 20;
// iHL-RF converges linearly, at a rate near beta times the largest curvature: where |g| falls by
// less than a factor 4 over 4 iterations (a rate above 0.7), SLSQP's quasi-Newton steps take over.
constexpr int slow_window = 4;
constexpr double slow_factor = 0.25;

// g counting every call and every non-finite value.
class counted_state {
 public:
  explicit counted_state(const limit_state& g) : g_(g) {}

  Eigen::VectorXd operator()(const Eigen::MatrixXd& u) {
    Eigen::VectorXd v = g_(u);
    if (v.size() != u.rows())
      throw parameter_error(
          "limit_state",
          fmt::format("the limit state returned {} values for {} points", v.size(), u.rows()));
    calls_ += static_cast<std::size_t>(u.rows());
    for (double x : v)
      if (!std::isfinite(x)) ++failed_;
    return v;
  }
  std::size_t calls() const { return calls_; }
  std::size_t failed() const { return failed_; }

 private:
  const limit_state& g_;
  std::size_t calls_ = 0, failed_ = 0;
};

// g and its forward-difference gradient at u, steps h_i = step * max(1, |u_i|). A stencil point
// with a non-finite value is retried backwards; ok = false when a value stays non-finite.
struct point_value {
  Eigen::VectorXd u;
  double g = nan;
  Eigen::VectorXd gradient;
  bool ok = false;
};

point_value evaluate_with_gradient(counted_state& g, const Eigen::VectorXd& u, double step,
                                   std::optional<double> known_g = std::nullopt) {
  const Eigen::Index d = u.size();
  point_value p{u, nan, Eigen::VectorXd::Constant(d, nan), false};
  // One batch: u itself (unless its value is known from the line search) and the d neighbours.
  const Eigen::Index first = known_g ? 0 : 1;
  Eigen::MatrixXd batch(d + first, d);
  if (!known_g) batch.row(0) = u.transpose();
  Eigen::VectorXd h(d);
  for (Eigen::Index i = 0; i < d; ++i) {
    h(i) = step * std::max(1.0, std::abs(u(i)));
    batch.row(first + i) = u.transpose();
    batch(first + i, i) += h(i);
  }
  const Eigen::VectorXd v = g(batch);
  p.g = known_g ? *known_g : v(0);
  if (!std::isfinite(p.g)) return p;
  std::vector<Eigen::Index> retry;
  for (Eigen::Index i = 0; i < d; ++i) {
    const double step_i = (u(i) + h(i)) - u(i);  // the step actually taken, after rounding
    p.gradient(i) = (v(first + i) - p.g) / step_i;
    if (!std::isfinite(p.gradient(i))) retry.push_back(i);
  }
  if (!retry.empty()) {
    Eigen::MatrixXd back(static_cast<Eigen::Index>(retry.size()), d);
    for (std::size_t k = 0; k < retry.size(); ++k) {
      const Eigen::Index i = retry[k];
      back.row(static_cast<Eigen::Index>(k)) = u.transpose();
      back(static_cast<Eigen::Index>(k), i) -= h(i);
    }
    const Eigen::VectorXd w = g(back);
    for (std::size_t k = 0; k < retry.size(); ++k) {
      const Eigen::Index i = retry[k];
      p.gradient(i) = (p.g - w(static_cast<Eigen::Index>(k))) / (u(i) - (u(i) - h(i)));
    }
  }
  p.ok = p.gradient.allFinite();
  return p;
}

// The convergence tests shared by both searches, at a point with its gradient:
//   |g(u)| <= tol * g_scale                      on the limit state
//   1 - |alpha . u| / |u| < tol                  u parallel to the gradient (any |u| = 0 passes)
struct optimality {
  double g_residual = nan;  // |g| / g_scale
  double direction = nan;   // 1 - |alpha . u| / |u|
  bool met(double tol) const { return g_residual <= tol && direction < tol; }
};

optimality check(const point_value& p, double g_scale) {
  const double gn = p.gradient.norm(), un = p.u.norm();
  optimality o;
  o.g_residual = std::abs(p.g) / g_scale;
  o.direction = un == 0.0 ? 0.0 : 1.0 - std::abs(p.gradient.dot(p.u)) / (gn * un);
  return o;
}

// One start's search.
struct start_run {
  bool converged = false;
  std::string search;
  std::string message;
  point_value at;  // the last point (the design point when converged)
  std::vector<form_iteration> history;
  std::size_t calls = 0, failed = 0;
};

void record(start_run& run, const point_value& p) { run.history.push_back({p.u, p.g, p.u.norm()}); }

// NLopt SLSQP: minimise |u|^2 / 2 subject to g(u) = 0, g's gradient by forward differences.
struct slsqp_state {
  counted_state* g = nullptr;
  double step = 1e-4;
  point_value cached;
  start_run* run = nullptr;
  bool not_finite = false;
  std::exception_ptr error;
};

double slsqp_objective(unsigned n, const double* x, double* grad, void*) {
  double f = 0.0;
  for (unsigned i = 0; i < n; ++i) {
    f += 0.5 * x[i] * x[i];
    if (grad) grad[i] = x[i];
  }
  return f;
}

double slsqp_constraint(unsigned n, const double* x, double* grad, void* data) {
  auto& s = *static_cast<slsqp_state*>(data);
  try {
    const Eigen::Map<const Eigen::VectorXd> u(x, n);
    if (!s.cached.ok || s.cached.u != u) {
      s.cached = evaluate_with_gradient(*s.g, u, s.step);
      record(*s.run, s.cached);
    }
    if (!s.cached.ok) {
      s.not_finite = true;
      throw nlopt::forced_stop();
    }
    if (grad)
      for (unsigned i = 0; i < n; ++i) grad[i] = s.cached.gradient(static_cast<Eigen::Index>(i));
    return s.cached.g;
  } catch (const nlopt::forced_stop&) {
    throw;
  } catch (...) {
    s.error = std::current_exception();
    throw nlopt::forced_stop();
  }
}

std::string nlopt_outcome(nlopt::result r) {
  switch (r) {
    case nlopt::SUCCESS:
      return "succeeded";
    case nlopt::FTOL_REACHED:
      return "reached ftol";
    case nlopt::XTOL_REACHED:
      return "reached xtol";
    case nlopt::MAXEVAL_REACHED:
      return "ran out of evaluations";
    default:
      return fmt::format("ended with NLopt code {}", static_cast<int>(r));
  }
}

// The fallback from `from`; on return run.at is the verified end point.
void run_slsqp(counted_state& g, const Eigen::VectorXd& from, double g_scale, const form_options& o,
               start_run& run) {
  const auto n = static_cast<unsigned>(from.size());
  nlopt::opt opt(nlopt::LD_SLSQP, n);
  slsqp_state s;
  s.g = &g;
  s.step = o.difference_step;
  s.run = &run;
  opt.set_min_objective(slsqp_objective, nullptr);
  opt.add_equality_constraint(slsqp_constraint, &s, o.tolerance * g_scale);
  opt.set_xtol_rel(o.tolerance);
  opt.set_ftol_rel(o.tolerance * o.tolerance);
  opt.set_maxeval(std::max(2 * o.max_iterations, 50));
  std::vector<double> x(from.data(), from.data() + from.size());
  double f = 0.0;
  std::string outcome;
  try {
    outcome = nlopt_outcome(opt.optimize(x, f));
  } catch (const nlopt::forced_stop&) {
    outcome = s.not_finite ? "stopped at a non-finite g" : "stopped";
  } catch (const nlopt::roundoff_limited&) {
    outcome = "roundoff limited";
  } catch (const std::exception& e) {
    outcome = fmt::format("failed: {}", e.what());
  }
  if (s.error) std::rethrow_exception(s.error);
  run.search = "slsqp";
  const Eigen::Map<const Eigen::VectorXd> end(x.data(), n);
  const point_value p = s.cached.ok && s.cached.u == end
                            ? s.cached
                            : evaluate_with_gradient(g, end, o.difference_step);
  if (!(s.cached.ok && s.cached.u == end)) record(run, p);
  run.at = p;
  if (!p.ok) {
    run.message +=
        fmt::format("; SLSQP fallback {} after {} evaluations, g not finite at its end point",
                    outcome, opt.get_numevals());
    return;
  }
  const optimality opt_end = check(p, g_scale);
  run.converged = opt_end.met(o.tolerance);
  if (!run.converged)
    run.message += fmt::format(
        "; SLSQP fallback {} after {} evaluations: |g| = {:.3g} (|g(0)| = {:.3g}), 1 - |cos(u, "
        "grad)| = {:.3g}, "
        "|u| = {:.6g}",
        outcome, opt.get_numevals(), std::abs(p.g), g_scale, opt_end.direction, p.u.norm());
}

// iHL-RF from u0 (Zhang & Der Kiureghian 1995):
//   d = ((grad . u - g) / |grad|^2) grad - u                   (the HL-RF step)
//   m(u) = |u|^2 / 2 + c |g(u)|,  c = 2 |u| / |grad| + 10 > |u| / |grad|
// so d is a descent direction of m, whose derivative along d is u . d - c |g|; the step
// length is the largest of 1, 1/2, 1/4, ... that passes Armijo's test. Converged when
// |g| <= tol g_scale, u is parallel to the gradient and the next step is below
// tol max(1, |u|). `start` holds g and its gradient at u0 (already evaluated).
void run_ihlrf(counted_state& g, point_value start, double g_scale, const form_options& o,
               start_run& run) {
  run.search = "ihlrf";
  point_value p = std::move(start);
  record(run, p);
  const double tol = o.tolerance;
  std::string stop;
  for (int k = 0;; ++k) {
    const double gn2 = p.gradient.squaredNorm();
    if (!(gn2 > 0.0) || !std::isfinite(gn2)) {
      stop = "zero gradient";
      break;
    }
    const Eigen::VectorXd d = ((p.gradient.dot(p.u) - p.g) / gn2) * p.gradient - p.u;
    const double un = p.u.norm();
    if (check(p, g_scale).met(tol) && d.norm() / std::max(1.0, un) < tol) {
      run.converged = true;
      break;
    }
    if (k == o.max_iterations) {
      stop = fmt::format("{} iterations", k);
      break;
    }
    const auto& h = run.history;
    if (k >= 2 * slow_window && std::abs(h.back().g) > slow_factor * std::abs(h[h.size() - 1 - slow_window].g)) {
      stop = fmt::format("converging slowly after {} iterations", k);
      break;
    }
    const double c = 2.0 * un / std::sqrt(gn2) + 10.0;
    const double merit = 0.5 * un * un + c * std::abs(p.g);
    const double slope = p.u.dot(d) - c * std::abs(p.g);
    // Trial step lengths: 1 alone (usually accepted), then batches of lengths_per_batch.
    std::optional<double> accepted_g;
    double lambda = 1.0;
    for (int tried = 0; tried <= max_halvings && !accepted_g;) {
      const int count = tried == 0 ? 1 : std::min(lengths_per_batch, max_halvings + 1 - tried);
      Eigen::MatrixXd trial(count, p.u.size());
      for (int j = 0; j < count; ++j)
        trial.row(j) = (p.u + std::ldexp(1.0, -(tried + j)) * d).transpose();
      const Eigen::VectorXd v = g(trial);
      for (int j = 0; j < count; ++j) {
        const double l = std::ldexp(1.0, -(tried + j));
        const Eigen::VectorXd u_new = trial.row(j).transpose();
        // A non-finite g rejects the length, as a failed decrease would.
        if (std::isfinite(v(j)) &&
            0.5 * u_new.squaredNorm() + c * std::abs(v(j)) <= merit + armijo * l * slope) {
          accepted_g = v(j);
          lambda = l;
          break;
        }
      }
      tried += count;
    }
    if (!accepted_g) {
      stop = fmt::format("line search found no decrease down to step 2^-{} after {} iterations",
                         max_halvings, k);
      break;
    }
    point_value next = evaluate_with_gradient(g, p.u + lambda * d, o.difference_step, accepted_g);
    record(run, next);
    if (!next.ok) {
      p = std::move(next);
      stop = fmt::format("g not finite at a gradient stencil point after {} iterations", k + 1);
      break;
    }
    p = std::move(next);
  }
  run.at = p;
  if (!run.converged)
    run.message = fmt::format("iHL-RF stopped ({}): |g| = {:.3g} (|g(0)| = {:.3g}), |u| = {:.6g}",
                              stop, std::abs(p.g), g_scale, p.u.norm());
}

// The result of one converged or failed start.
form_result to_result(const start_run& run, double g_origin, std::size_t d) {
  form_result r;
  r.converged = run.converged;
  r.message = run.converged ? std::string() : run.message;
  r.search = run.search;
  r.history = run.history;
  r.g_at_origin = g_origin;
  r.probability.cov = nan;
  r.probability.interval = "none (FORM approximation)";
  r.probability.model_calls = run.calls;
  r.probability.failed_calls = run.failed;
  if (!run.converged) {
    r.u_star = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(d), nan);
    r.alpha = r.u_star;
    r.beta = nan;
    r.g_at_design = run.at.g;
    r.probability.estimate = r.probability.ci_low = r.probability.ci_high = nan;
    r.probability.interval = "none (FORM did not converge)";
    return r;
  }
  const point_value& p = run.at;
  r.u_star = p.u;
  r.alpha = -p.gradient / p.gradient.norm();
  r.g_at_design = p.g;
  // Signed: negative when the origin is in the failure domain. Where g(0) is unknown, the
  // side follows from alpha . u* (u* = beta alpha on the limit state's tangent plane).
  const bool origin_fails = std::isfinite(g_origin) ? g_origin <= 0.0 : r.alpha.dot(p.u) < 0.0;
  r.beta = origin_fails ? -p.u.norm() : p.u.norm();
  r.probability.estimate = upper_tail(r.beta);
  r.probability.ci_low = r.probability.ci_high = r.probability.estimate;
  return r;
}

// SORM formulas for beta >= 0 and curvatures kappa (failure domain convex for kappa > 0).
struct sorm_values {
  double breitung = nan, hohenbichler = nan, tvedt = nan;
};

sorm_values sorm_formulas(double beta, const Eigen::VectorXd& kappa) {
  const double tail = upper_tail(beta), phi = density(beta);
  const double psi = phi / tail;  // the inverse Mills ratio, > beta
  sorm_values s;
  bool breitung_ok = true, hr_ok = true, tvedt_ok = true;
  double p_beta = 1.0, p_psi = 1.0, p_beta1 = 1.0;
  std::complex<double> p_complex(1.0, 0.0);
  for (double k : kappa) {
    const double a = 1.0 + beta * k, b = 1.0 + psi * k, c = 1.0 + (beta + 1.0) * k;
    breitung_ok = breitung_ok && a > 0.0;
    hr_ok = hr_ok && b > 0.0;
    tvedt_ok = tvedt_ok && a > 0.0 && c > 0.0;
    p_beta *= 1.0 / std::sqrt(a);
    p_psi *= 1.0 / std::sqrt(b);
    p_beta1 *= 1.0 / std::sqrt(c);
    p_complex *= std::sqrt(1.0 + std::complex<double>(beta, 1.0) * k);
  }
  // Breitung (1984): Pf = Phi(-beta) prod (1 + beta kappa_i)^-1/2.
  if (breitung_ok) s.breitung = tail * p_beta;
  // Hohenbichler & Rackwitz (1988): beta replaced by psi = phi(beta) / Phi(-beta).
  if (hr_ok) s.hohenbichler = tail * p_psi;
  // Tvedt (1990), three terms:
  //   A1 = Phi(-beta) prod (1 + beta kappa_i)^-1/2
  //   A2 = (beta Phi(-beta) - phi(beta)) [prod (1 + beta kappa_i)^-1/2 - prod (1 + (beta + 1)
  //   kappa_i)^-1/2] A3 = (beta + 1) (beta Phi(-beta) - phi(beta))
  //        [prod (1 + beta kappa_i)^-1/2 - Re prod (1 + (beta + i) kappa_i)^-1/2]
  if (tvedt_ok) {
    const double q = beta * tail - phi;
    const double a1 = tail * p_beta;
    const double a2 = q * (p_beta - p_beta1);
    const double a3 = (beta + 1.0) * q * (p_beta - std::real(1.0 / p_complex));
    s.tvedt = a1 + a2 + a3;
  }
  return s;
}

}  // namespace

double reliability_index(double probability) {
  if (std::isnan(probability)) return nan;
  if (probability < 0.0 || probability > 1.0)
    throw parameter_error("probability",
                          fmt::format("probability = {}: must be in [0, 1]", probability));
  if (probability == 0.0) return inf;
  if (probability == 1.0) return -inf;
  // -Phi^-1(p) = Phi^-1(1 - p), taken through the complement so small p keeps its digits.
  return boost::math::quantile(boost::math::complement(standard_normal, probability));
}

void form_options::validate() const {
  if (max_iterations < 1 || max_iterations > 10000)
    throw parameter_error(
        "max_iterations",
        fmt::format("max_iterations = {}: must be in [1, 10000]", max_iterations));
  if (!(tolerance >= 1e-14 && tolerance <= 0.1))
    throw parameter_error("tolerance",
                          fmt::format("tolerance = {}: must be in [1e-14, 0.1]", tolerance));
  if (!(difference_step >= 1e-10 && difference_step <= 1.0))
    throw parameter_error(
        "difference_step",
        fmt::format("difference_step = {}: must be in [1e-10, 1]", difference_step));
  if (starts < 1 || starts > 1000)
    throw parameter_error("starts", fmt::format("starts = {}: must be in [1, 1000]", starts));
}

form_search run_form(const limit_state& g, std::size_t dimension, const form_options& options) {
  options.validate();
  if (dimension == 0) throw parameter_error("dimension", "FORM needs at least one input");
  if (!g) throw parameter_error("limit_state", "FORM needs a limit state function");
  const auto d = static_cast<Eigen::Index>(dimension);
  counted_state counted(g);

  // |g| is judged against |g(0)|, g's own scale; where g(0) is 0 or unknown, against
  // |grad g(0)| (g's change over one unit of u), else 1.
  double g_origin = nan, g_scale = 1.0;
  std::vector<start_run> runs;
  for (int s = 0; s < options.starts; ++s) {
    Eigen::VectorXd u0 = Eigen::VectorXd::Zero(d);
    if (s > 0) {
      // A random direction, at the distance of start 0's design point (at least 1), so the
      // starts spread over the sphere where other design points are likely.
      engine e = make_engine(options.seed, stream_purpose::reliability_form_start,
                             static_cast<std::uint64_t>(s));
      for (Eigen::Index i = 0; i < d; ++i)
        u0(i) = boost::math::quantile(standard_normal, open_uniform(e));
      const double radius = runs[0].converged ? std::max(1.0, runs[0].at.u.norm()) : 1.0;
      const double n = u0.norm();
      if (n > 0.0) u0 *= radius / n;
    }
    const std::size_t calls_before = counted.calls(), failed_before = counted.failed();
    start_run run;
    point_value p = evaluate_with_gradient(counted, u0, options.difference_step);
    if (s == 0) {
      g_origin = p.g;
      const double gn = p.gradient.norm();
      g_scale = std::isfinite(g_origin) && g_origin != 0.0 ? std::abs(g_origin)
                : std::isfinite(gn) && gn > 0.0            ? gn
                                                           : 1.0;
    }
    if (!p.ok) {
      record(run, p);
      run.at = p;
      run.search = "ihlrf";
      run.message = std::isfinite(p.g)
                        ? "g not finite at a gradient stencil point of the start point"
                        : "g not finite at the start point";
    } else {
      run_ihlrf(counted, p, g_scale, options, run);
      if (!run.converged && run.at.ok) run_slsqp(counted, run.at.u, g_scale, options, run);
    }
    run.calls = counted.calls() - calls_before;
    run.failed = counted.failed() - failed_before;
    runs.push_back(std::move(run));
  }

  // Converged starts by |beta|; the nearest is the design point, the distinct others follow.
  std::vector<std::size_t> order;
  for (std::size_t s = 0; s < runs.size(); ++s)
    if (runs[s].converged) order.push_back(s);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return runs[a].at.u.norm() < runs[b].at.u.norm();
  });

  form_search out;
  if (order.empty()) {
    out.best = to_result(runs[0], g_origin, dimension);
    std::string why = fmt::format("FORM did not converge: start 0: {}", runs[0].message);
    if (runs.size() > 1)
      why += fmt::format(" (and the other {} starts did not converge either)", runs.size() - 1);
    out.best.message = why;
  } else {
    out.best = to_result(runs[order[0]], g_origin, dimension);
    std::vector<Eigen::VectorXd> kept{runs[order[0]].at.u};
    for (std::size_t k = 1; k < order.size(); ++k) {
      const Eigen::VectorXd& u = runs[order[k]].at.u;
      const bool distinct = std::all_of(kept.begin(), kept.end(), [&](const Eigen::VectorXd& v) {
        return (u - v).norm() > 1e-3 * v.norm();
      });
      if (!distinct) continue;
      kept.push_back(u);
      out.others.push_back(to_result(runs[order[k]], g_origin, dimension));
    }
  }
  out.best.probability.model_calls = counted.calls();
  out.best.probability.failed_calls = counted.failed();
  return out;
}

namespace {

struct hessian_estimate {
  Eigen::MatrixXd hessian;
  Eigen::VectorXd gradient;
  bool finite = true;  ///< g finite at every stencil point
};

// Central differences at u, steps s_i = 10 difference_step max(1, |u_i|), all points in one batch:
//   u;  u +- s_i e_i;  u +- s_i e_i +- s_j e_j (i < j)
//   H_ii = (g(u + s_i e_i) - 2 g(u) + g(u - s_i e_i)) / s_i^2
//   H_ij = (g(++) - g(+-) - g(-+) + g(--)) / (4 s_i s_j),  grad_i = (g(u + s_i e_i) - g(u - s_i
//   e_i)) / 2 s_i
hessian_estimate central_differences(counted_state& counted, const Eigen::VectorXd& u, double difference_step) {
  const auto d = u.size();
  Eigen::VectorXd s(d);
  for (Eigen::Index i = 0; i < d; ++i) {
    const double step = 10.0 * difference_step * std::max(1.0, std::abs(u(i)));
    s(i) = (u(i) + step) - u(i);
  }
  const Eigen::Index rows = 1 + 2 * d + 2 * d * (d - 1);
  Eigen::MatrixXd batch = u.transpose().replicate(rows, 1);
  Eigen::Index row = 1;
  for (Eigen::Index i = 0; i < d; ++i) {
    batch(row++, i) += s(i);
    batch(row++, i) -= s(i);
  }
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = i + 1; j < d; ++j)
      for (double si : {1.0, -1.0})
        for (double sj : {1.0, -1.0}) {
          batch(row, i) += si * s(i);
          batch(row, j) += sj * s(j);
          ++row;
        }
  const Eigen::VectorXd v = counted(batch);
  hessian_estimate h{Eigen::MatrixXd(d, d), Eigen::VectorXd(d), v.allFinite()};
  if (!h.finite) return h;
  for (Eigen::Index i = 0; i < d; ++i) {
    const double plus = v(1 + 2 * i), minus = v(2 + 2 * i);
    h.hessian(i, i) = (plus - 2.0 * v(0) + minus) / (s(i) * s(i));
    h.gradient(i) = (plus - minus) / (2.0 * s(i));
  }
  row = 1 + 2 * d;
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = i + 1; j < d; ++j) {
      const double pp = v(row), pm = v(row + 1), mp = v(row + 2), mm = v(row + 3);
      row += 4;
      h.hessian(i, j) = h.hessian(j, i) = (pp - pm - mp + mm) / (4.0 * s(i) * s(j));
    }
  return h;
}

}  // namespace

sorm_result run_sorm(const limit_state& g, const form_result& form, const form_options& options) {
  options.validate();
  sorm_result r;
  r.probability.cov = nan;
  r.breitung = r.hohenbichler = r.tvedt = nan;
  r.probability.estimate = r.probability.ci_low = r.probability.ci_high = nan;
  const auto d = form.u_star.size();
  r.curvatures = Eigen::VectorXd::Constant(std::max<Eigen::Index>(d - 1, 0), nan);
  if (!form.converged || d == 0 || !form.u_star.allFinite() || !std::isfinite(form.beta)) {
    r.probability.interval = "none (SORM needs a converged FORM design point)";
    return r;
  }
  if (!g) throw parameter_error("limit_state", "SORM needs a limit state function");
  counted_state counted(g);
  const Eigen::VectorXd& u = form.u_star;

  const hessian_estimate h = central_differences(counted, u, options.difference_step);
  r.probability.model_calls = counted.calls();
  r.probability.failed_calls = counted.failed();
  if (!h.finite) {
    r.probability.interval = fmt::format("none (SORM: g not finite at {} of the {} Hessian points)",
                                         counted.failed(), counted.calls());
    return r;
  }
  const Eigen::MatrixXd& hessian = h.hessian;
  const Eigen::VectorXd& gradient = h.gradient;
  const double gn = gradient.norm();
  if (!(gn > 0.0)) {
    r.probability.interval = "none (SORM: zero gradient at the design point)";
    return r;
  }
  // Main curvatures: the eigenvalues of P^T H P / |grad g|, P an orthonormal basis of the plane
  // normal to alpha (the first d - 1 rows of a rotation whose last row is alpha). With this
  // sign a positive curvature means the failure domain is locally convex (the limit state
  // bends away from the origin, Pf below Phi(-beta)); for g = b - u_d + (k/2) sum u_i^2
  // every curvature is k.
  const Eigen::VectorXd alpha = -gradient / gn;
  if (d > 1) {
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(alpha);
    const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(d, d);
    const Eigen::MatrixXd p = q.rightCols(d - 1);  // orthogonal to q.col(0) = +-alpha
    const Eigen::MatrixXd k = p.transpose() * hessian * p / gn;
    r.curvatures =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (k + k.transpose())).eigenvalues();
  } else {
    r.curvatures.resize(0);
  }
  // With the origin in the failure domain (beta < 0) the formulas hold for the safe domain,
  // the failure domain of -g: its beta is |beta| and its curvatures -kappa; Pf = 1 - P_safe.
  sorm_values f;
  if (form.beta >= 0.0) {
    f = sorm_formulas(form.beta, r.curvatures);
  } else {
    const sorm_values safe = sorm_formulas(-form.beta, -r.curvatures);
    f = {1.0 - safe.breitung, 1.0 - safe.hohenbichler, 1.0 - safe.tvedt};
  }
  r.breitung = f.breitung;
  r.hohenbichler = f.hohenbichler;
  r.tvedt = f.tvedt;
  // Tvedt's where defined (1 + beta kappa_i > 0 and 1 + (beta + 1) kappa_i > 0), else
  // Hohenbichler-Rackwitz's (1 + psi kappa_i > 0), else Breitung's (1 + beta kappa_i > 0).
  const std::pair<double, const char*> choices[] = {
      {f.tvedt, "Tvedt"}, {f.hohenbichler, "Hohenbichler-Rackwitz"}, {f.breitung, "Breitung"}};
  r.probability.interval = "none (SORM undefined: 1 + beta kappa_i <= 0 for some main curvature)";
  for (const auto& [value, name] : choices)
    if (std::isfinite(value)) {
      r.probability.estimate = r.probability.ci_low = r.probability.ci_high = value;
      r.probability.interval = fmt::format("none (SORM approximation, {})", name);
      break;
    }
  return r;
}

}  // namespace contactuq::uq
