// Maximum-likelihood hyperparameters of a Gaussian process (gaussian_process.hpp).

#include <fmt/format.h>

#include <cmath>
#include <exception>
#include <limits>
#include <nlopt.hpp>
#include <stdexcept>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/design.hpp"
#include "contactuq/uq/gaussian_process.hpp"
#include "gaussian_process_detail.hpp"

namespace contactuq::uq {
namespace {

// The objective in the log box: theta = (log l_j/range_j, [log nugget]).
struct likelihood_problem {
  gp_kernel kernel;
  const Eigen::MatrixXd* u = nullptr;  ///< scaled inputs
  const Eigen::MatrixXd* f = nullptr;  ///< scaled trend basis
  const Eigen::VectorXd* y = nullptr;
  bool estimate_nugget = false;
  double fixed_nugget = 0.0;

  detail::concentrated operator()(const double* theta) const {
    const auto d = u->cols();
    Eigen::VectorXd inv(d);
    for (Eigen::Index j = 0; j < d; ++j) inv(j) = std::exp(-theta[j]);
    const double nugget = estimate_nugget ? std::exp(theta[d]) : fixed_nugget;
    return detail::concentrated_likelihood(kernel, *u * inv.asDiagonal(), *f, *y, nugget);
  }
};

// One local run: keeps the best finite point it saw, whatever NLopt ends with.
struct start_state {
  const likelihood_problem* problem = nullptr;
  std::size_t evaluations = 0;
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> best_theta;
  double worst_finite = -std::numeric_limits<double>::infinity();
};

double objective(unsigned n, const double* theta, double* /*grad*/, void* data) {
  auto& s = *static_cast<start_state*>(data);
  ++s.evaluations;
  const detail::concentrated c = (*s.problem)(theta);
  if (!c.ok) {
    // A failed factorisation or a non-finite likelihood: a finite penalty above everything
    // seen so far keeps the quadratic models of BOBYQA usable (an infinity would not).
    return std::isfinite(s.worst_finite) ? s.worst_finite + 1e3 * (1.0 + std::abs(s.worst_finite))
                                         : 1e10;
  }
  s.worst_finite = std::max(s.worst_finite, c.value);
  if (c.value < s.best) {
    s.best = c.value;
    s.best_theta.assign(theta, theta + n);
  }
  return c.value;
}

}  // namespace

gaussian_process fit_gaussian_process(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                      const gp_options& options) {
  options.validate();
  detail::check_data("gp", x, y, options.trend);
  if (y.maxCoeff() == y.minCoeff())
    throw parameter_error("y",
                          fmt::format("gp: y is constant ({}); there is nothing to model", y(0)));
  const auto d = x.cols();
  if (options.lower_length_scales.size() != 0 && options.lower_length_scales.size() != d)
    throw parameter_error("lower_length_scales",
                          fmt::format("gp: {} length-scale bounds for {} inputs",
                                      options.lower_length_scales.size(), d));

  Eigen::RowVectorXd lo, range;
  detail::input_scaling(x, lo, range);
  const Eigen::MatrixXd u = (x.rowwise() - lo).array().rowwise() / range.array();
  const Eigen::MatrixXd f = detail::scaled_basis(options.trend, u);

  // The log box, in scaled units (l_j / range_j).
  const auto dim = static_cast<std::size_t>(d) + (options.estimate_nugget ? 1 : 0);
  std::vector<double> lower(dim), upper(dim);
  for (Eigen::Index j = 0; j < d; ++j) {
    const bool given = options.lower_length_scales.size() == d;
    lower[j] = given ? std::log(options.lower_length_scales(j) / range(j)) : std::log(0.01);
    upper[j] = given ? std::log(options.upper_length_scales(j) / range(j)) : std::log(10.0);
  }
  if (options.estimate_nugget) {
    lower[dim - 1] = std::log(options.min_nugget);
    upper[dim - 1] = std::log(options.max_nugget);
  }

  const likelihood_problem problem{options.kernel,      &u, &f, &y, options.estimate_nugget,
                                   options.fixed_nugget};
  const Eigen::MatrixXd starts = unit_design(
      options.starts, dim, {.kind = design_kind::latin_hypercube, .seed = options.seed});

  gp_fit_report report;
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> best_theta;
  // BOBYQA needs two variables at least; a single length scale goes to COBYLA.
  const nlopt::algorithm algorithm = dim >= 2 ? nlopt::LN_BOBYQA : nlopt::LN_COBYLA;
  for (std::size_t s = 0; s < options.starts; ++s) {
    std::vector<double> theta(dim), step(dim);
    for (std::size_t k = 0; k < dim; ++k) {
      const double width = upper[k] - lower[k];
      theta[k] =
          lower[k] + starts(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(k)) * width;
      step[k] = width > 0.0 ? 0.1 * width : 1e-3;
    }
    start_state state;
    state.problem = &problem;
    nlopt::opt opt(algorithm, static_cast<unsigned>(dim));
    opt.set_lower_bounds(lower);
    opt.set_upper_bounds(upper);
    opt.set_min_objective(objective, &state);
    opt.set_initial_step(step);
    opt.set_xtol_abs(1e-6);
    opt.set_ftol_abs(1e-9);
    opt.set_maxeval(static_cast<int>(options.max_evaluations));
    double value = 0.0;
    try {
      opt.optimize(theta, value);
    } catch (const nlopt::roundoff_limited&) {
      // The best point seen is kept.
    } catch (const std::invalid_argument&) {
      throw;  // a bug in the set-up above, not a failed start
    } catch (const std::runtime_error&) {
    }
    ++report.starts;
    report.evaluations += state.evaluations;
    if (state.best_theta.empty()) {
      ++report.failed_starts;
      continue;
    }
    if (state.best < best) {
      best = state.best;
      best_theta = state.best_theta;
      report.best_start = s;
    }
  }
  if (best_theta.empty())
    throw std::runtime_error(fmt::format(
        "gp: the likelihood maximisation failed: none of the {} start(s) reached a finite "
        "likelihood ({} evaluations; the correlation matrix could not be factored or the "
        "likelihood was not finite)",
        report.starts, report.evaluations));

  const detail::concentrated at = problem(best_theta.data());
  gp_hyperparameters h;
  h.length_scales.resize(d);
  for (Eigen::Index j = 0; j < d; ++j) h.length_scales(j) = std::exp(best_theta[j]) * range(j);
  h.nugget = options.estimate_nugget ? std::exp(best_theta[dim - 1]) : options.fixed_nugget;
  h.variance = at.sigma2;
  gaussian_process gp(options.kernel, options.trend, x, y, h);
  gp.set_fit_report(report);
  return gp;
}

}  // namespace contactuq::uq
