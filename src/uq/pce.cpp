#include "contactuq/uq/pce.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "contactuq/error.hpp"
#include "pce_lars.hpp"

namespace contactuq::uq {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// Every alpha of d entries, in lexicographic order, with sum alpha_i^q <= budget.
void collect_indices(std::size_t d, unsigned p, double q, double budget, std::vector<int>& alpha,
                     std::vector<std::vector<int>>& out) {
  const std::size_t i = alpha.size();
  if (i == d) {
    out.push_back(alpha);
    return;
  }
  for (unsigned k = 0; k <= p; ++k) {
    const double cost = k == 0 ? 0.0 : std::pow(static_cast<double>(k), q);
    if (cost > budget) break;
    alpha.push_back(static_cast<int>(k));
    collect_indices(d, p, q, budget - cost, alpha, out);
    alpha.pop_back();
  }
}

double sample_variance(const Eigen::VectorXd& y) {
  const double n = static_cast<double>(y.size());
  return (y.array() - y.mean()).square().sum() / (n - 1.0);
}

void check_data(std::size_t d, const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  if (static_cast<std::size_t>(x.cols()) != d)
    throw parameter_error("x",
                          fmt::format("pce: x has {} columns, the inputs are {}", x.cols(), d));
  if (x.rows() != y.size())
    throw parameter_error(
        "y", fmt::format("pce: x has {} rows but y has {} values", x.rows(), y.size()));
  if (!x.allFinite() || !y.allFinite()) throw parameter_error("y", "pce: x and y must be finite");
  if (y.size() < 3)
    throw parameter_error("samples",
                          fmt::format("pce: {} points; at least 3 are needed", y.size()));
  if (y.maxCoeff() == y.minCoeff())
    throw parameter_error(
        "y", fmt::format("pce: y is constant ({}); its relative error is undefined", y(0)));
}

// The best hybrid-LARS fit at one degree: LARS orders the candidates, the least-squares path
// picks the length, a column-pivoted QR refits the kept columns.
struct degree_fit {
  std::vector<Eigen::Index> columns;
  least_squares_fit fit;
  double corrected = infinity;
};

degree_fit fit_one_degree(const Eigen::MatrixXd& psi, const Eigen::VectorXd& y,
                          pce_selection selection) {
  degree_fit out;
  const auto n = psi.rows(), p = psi.cols();
  if (selection == pce_selection::full) {
    if (p >= n) return out;
    out.columns.resize(static_cast<std::size_t>(p));
    std::iota(out.columns.begin(), out.columns.end(), Eigen::Index{0});
  } else {
    const auto order =
        detail::lars_order(psi, y, static_cast<std::size_t>(std::min<Eigen::Index>(p - 1, n - 3)));
    const std::size_t kept = detail::best_lars_prefix(psi, y, order);
    out.columns.push_back(0);
    out.columns.insert(out.columns.end(), order.begin(),
                       order.begin() + static_cast<std::ptrdiff_t>(kept));
  }
  Eigen::MatrixXd kept(n, static_cast<Eigen::Index>(out.columns.size()));
  for (std::size_t j = 0; j < out.columns.size(); ++j)
    kept.col(static_cast<Eigen::Index>(j)) = psi.col(out.columns[j]);
  try {
    out.fit = fit_least_squares(kept, y);
    out.corrected = out.fit.corrected_loo_error;
  } catch (const parameter_error&) {
    out.corrected = infinity;  // rank-deficient at this degree: not a candidate
  }
  return out;
}

}  // namespace

std::string to_string(polynomial_family family) {
  switch (family) {
    case polynomial_family::hermite:
      return "hermite";
    case polynomial_family::legendre:
      return "legendre";
    case polynomial_family::laguerre:
      return "laguerre";
    case polynomial_family::jacobi:
      return "jacobi";
  }
  return "unknown";
}

double orthonormal_family::a(std::size_t n) const {
  const double k = static_cast<double>(n);
  switch (family) {
    case polynomial_family::hermite:
    case polynomial_family::legendre:
      return 0.0;
    case polynomial_family::laguerre:
      return 2.0 * k + 1.0;
    case polynomial_family::jacobi: {
      const double al = jacobi_alpha, be = jacobi_beta, s = 2.0 * k + al + be;
      if (n == 0) return (be - al) / (al + be + 2.0);
      return (be * be - al * al) / (s * (s + 2.0));
    }
  }
  return 0.0;
}

double orthonormal_family::b(std::size_t n) const {
  const double k = static_cast<double>(n);
  switch (family) {
    case polynomial_family::hermite:
      return k;
    case polynomial_family::legendre:
      return k * k / (4.0 * k * k - 1.0);
    case polynomial_family::laguerre:
      return k * k;
    case polynomial_family::jacobi: {
      const double al = jacobi_alpha, be = jacobi_beta, s = 2.0 * k + al + be;
      // n = 1 simplified, so that al + be = -1 does not give 0/0.
      if (n == 1)
        return 4.0 * (1.0 + al) * (1.0 + be) /
               ((2.0 + al + be) * (2.0 + al + be) * (3.0 + al + be));
      return 4.0 * k * (k + al) * (k + be) * (k + al + be) / (s * s * (s + 1.0) * (s - 1.0));
    }
  }
  return 0.0;
}

void orthonormal_family::values(double xi, std::span<double> out) const {
  if (out.empty()) return;
  out[0] = 1.0;
  double previous = 0.0, sqrt_b = 0.0;
  for (std::size_t n = 0; n + 1 < out.size(); ++n) {
    const double sqrt_b_next = std::sqrt(b(n + 1));
    out[n + 1] = ((xi - a(n)) * out[n] - sqrt_b * previous) / sqrt_b_next;
    previous = out[n];
    sqrt_b = sqrt_b_next;
  }
}

gauss_rule make_gauss_rule(const orthonormal_family& family, std::size_t n) {
  if (n < 1 || n > 1000)
    throw parameter_error("points", fmt::format("gauss rule: {} points; must be in [1, 1000]", n));
  const auto m = static_cast<Eigen::Index>(n);
  Eigen::MatrixXd jacobi = Eigen::MatrixXd::Zero(m, m);
  for (Eigen::Index k = 0; k < m; ++k) {
    jacobi(k, k) = family.a(static_cast<std::size_t>(k));
    if (k > 0)
      jacobi(k, k - 1) = jacobi(k - 1, k) = std::sqrt(family.b(static_cast<std::size_t>(k)));
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(jacobi);
  return {eig.eigenvalues(), eig.eigenvectors().row(0).transpose().array().square().matrix()};
}

chaos_input::chaos_input(distribution marginal) : marginal_(std::move(marginal)) {
  if (marginal_.is_discrete())
    throw parameter_error(
        "distribution",
        fmt::format("pce: {} is discrete; a chaos input must be continuous", marginal_.describe()));
  const auto params = to_map(marginal_.parameters());
  switch (marginal_.kind()) {
    case distribution_kind::normal:
      shift_ = marginal_.mean();
      scale_ = marginal_.stddev();
      return;
    case distribution_kind::uniform:
      family_.family = polynomial_family::legendre;
      shift_ = 0.5 * (marginal_.lower() + marginal_.upper());
      scale_ = 0.5 * (marginal_.upper() - marginal_.lower());
      return;
    case distribution_kind::beta:
      family_ = {polynomial_family::jacobi, params.at("beta") - 1.0, params.at("alpha") - 1.0};
      shift_ = 0.5 * (marginal_.lower() + marginal_.upper());
      scale_ = 0.5 * (marginal_.upper() - marginal_.lower());
      return;
    case distribution_kind::weibull:
      if (params.at("shape") == 1.0) {  // the exponential
        family_.family = polynomial_family::laguerre;
        scale_ = params.at("scale");
        return;
      }
      break;
    default:
      break;
  }
  transformed_ = true;  // hermite in Phi^-1(F(x))
}

double chaos_input::to_standard(double x) const {
  if (!transformed_) return (x - shift_) / scale_;
  // Phi^-1(F(x)), with F clamped so that the ends of the support map to finite values.
  const double u = std::clamp(marginal_.cdf(x), 1e-300, 1.0 - 1e-16);
  return boost::math::quantile(boost::math::normal(), u);
}

double chaos_input::from_standard(double xi) const {
  return transformed_ ? marginal_.from_standard_normal(xi) : shift_ + scale_ * xi;
}

multi_index_set hyperbolic_indices(std::size_t d, unsigned p, double q) {
  if (d < 1 || d > 1000)
    throw parameter_error("inputs", fmt::format("pce: {} inputs; must be in [1, 1000]", d));
  if (!(q > 0.0 && q <= 1.0))
    throw parameter_error("q_norm", fmt::format("pce: q_norm = {}; must be in (0, 1]", q));
  std::vector<std::vector<int>> all;
  std::vector<int> alpha;
  // The small slack keeps alpha on the boundary (e.g. (p, 0) at any q) despite rounding.
  const double budget = std::pow(static_cast<double>(p), q) * (1.0 + 1e-12);
  collect_indices(d, p, q, budget, alpha, all);
  std::stable_sort(all.begin(), all.end(), [](const auto& l, const auto& r) {
    const int sl = std::accumulate(l.begin(), l.end(), 0),
              sr = std::accumulate(r.begin(), r.end(), 0);
    if (sl != sr) return sl < sr;
    return l > r;
  });
  multi_index_set out(static_cast<Eigen::Index>(all.size()), static_cast<Eigen::Index>(d));
  for (std::size_t t = 0; t < all.size(); ++t)
    for (std::size_t i = 0; i < d; ++i)
      out(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>(i)) = all[t][i];
  return out;
}

Eigen::MatrixXd chaos_design_matrix(const std::vector<chaos_input>& inputs,
                                    const Eigen::MatrixXd& xi, const multi_index_set& indices) {
  const auto n = xi.rows(), terms = indices.rows();
  Eigen::MatrixXd psi = Eigen::MatrixXd::Ones(n, terms);
  std::vector<double> row;
  for (Eigen::Index i = 0; i < indices.cols(); ++i) {
    const int top = indices.col(i).maxCoeff();
    if (top == 0) continue;
    // Univariate values psi_0..psi_top of input i at every point, then the products.
    Eigen::MatrixXd table(n, top + 1);
    row.resize(static_cast<std::size_t>(top) + 1);
    for (Eigen::Index r = 0; r < n; ++r) {
      inputs[static_cast<std::size_t>(i)].family().values(xi(r, i), row);
      for (int k = 0; k <= top; ++k) table(r, k) = row[static_cast<std::size_t>(k)];
    }
    for (Eigen::Index t = 0; t < terms; ++t)
      if (indices(t, i) > 0) psi.col(t).array() *= table.col(indices(t, i)).array();
  }
  return psi;
}

least_squares_fit fit_least_squares(const Eigen::MatrixXd& psi, const Eigen::VectorXd& y) {
  const auto n = psi.rows(), p = psi.cols();
  if (p < 1 || n <= p)
    throw parameter_error(
        "samples",
        fmt::format("least squares: {} points for {} terms; at least {} are needed", n, p, p + 1));
  const double var = sample_variance(y);
  if (!(var > 0.0))
    throw parameter_error("y", "least squares: y is constant; its relative error is undefined");
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(psi);
  if (qr.rank() < p)
    throw parameter_error(
        "samples", fmt::format("least squares: the {} x {} design matrix has rank {}; the points "
                               "do not determine every term",
                               n, p, qr.rank()));
  least_squares_fit out;
  out.coefficients = qr.solve(y);
  const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(n, p);
  const Eigen::VectorXd h = q.rowwise().squaredNorm();
  out.loo_residuals = (y - psi * out.coefficients).array() / (1.0 - h.array());
  out.loo_error = out.loo_residuals.squaredNorm() / static_cast<double>(n) / var;
  // tr((Psi^T Psi)^-1) = ||R^-1||_F^2: the column permutation leaves the trace unchanged.
  const Eigen::MatrixXd r_inv =
      qr.matrixR().topLeftCorner(p, p).triangularView<Eigen::Upper>().solve(
          Eigen::MatrixXd::Identity(p, p));
  const double correction =
      static_cast<double>(n) / static_cast<double>(n - p) * (1.0 + r_inv.squaredNorm());
  out.corrected_loo_error = out.loo_error * correction;
  return out;
}

void pce_options::validate() const {
  if (max_degree < 1 || max_degree > 40)
    throw parameter_error("max_degree",
                          fmt::format("pce: max_degree = {}; must be in [1, 40]", max_degree));
  if (!(q_norm > 0.0 && q_norm <= 1.0))
    throw parameter_error("q_norm", fmt::format("pce: q_norm = {}; must be in (0, 1]", q_norm));
}

polynomial_chaos::polynomial_chaos(std::vector<chaos_input> inputs, multi_index_set indices,
                                   Eigen::VectorXd coefficients)
    : inputs_(std::move(inputs)),
      indices_(std::move(indices)),
      coefficients_(std::move(coefficients)) {
  if (static_cast<std::size_t>(indices_.cols()) != inputs_.size() ||
      indices_.rows() != coefficients_.size())
    throw parameter_error(
        "coefficients",
        fmt::format("pce: {} x {} multi-indices for {} inputs and {} coefficients", indices_.rows(),
                    indices_.cols(), inputs_.size(), coefficients_.size()));
  if (indices_.size() > 0 && indices_.minCoeff() < 0)
    throw parameter_error("indices", "pce: negative multi-index");
}

Eigen::MatrixXd polynomial_chaos::to_standard(const Eigen::MatrixXd& x) const {
  if (static_cast<std::size_t>(x.cols()) != inputs_.size())
    throw parameter_error(
        "x", fmt::format("pce: x has {} columns, the inputs are {}", x.cols(), inputs_.size()));
  Eigen::MatrixXd xi(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.cols(); ++i)
    for (Eigen::Index r = 0; r < x.rows(); ++r)
      xi(r, i) = inputs_[static_cast<std::size_t>(i)].to_standard(x(r, i));
  return xi;
}

Eigen::VectorXd polynomial_chaos::evaluate(const Eigen::MatrixXd& x) const {
  const Eigen::MatrixXd xi = to_standard(x);
  constexpr Eigen::Index block = 512;  // bounds the n x P design matrix held at once
  Eigen::VectorXd out(x.rows());
  for (Eigen::Index first = 0; first < x.rows(); first += block) {
    const Eigen::Index count = std::min(block, x.rows() - first);
    out.segment(first, count) =
        chaos_design_matrix(inputs_, xi.middleRows(first, count), indices_) * coefficients_;
  }
  return out;
}

double polynomial_chaos::mean() const {
  for (Eigen::Index t = 0; t < indices_.rows(); ++t)
    if (indices_.row(t).maxCoeff() == 0) return coefficients_(t);
  return 0.0;
}

double polynomial_chaos::variance() const {
  double v = 0.0;
  for (Eigen::Index t = 0; t < indices_.rows(); ++t)
    if (indices_.row(t).maxCoeff() > 0) v += coefficients_(t) * coefficients_(t);
  return v;
}

Eigen::VectorXd polynomial_chaos::first_order_indices() const {
  Eigen::VectorXd s(static_cast<Eigen::Index>(inputs_.size()));
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    const std::size_t group[] = {static_cast<std::size_t>(i)};
    s(i) = grouped_first_order_index(group);
  }
  return s;
}

Eigen::VectorXd polynomial_chaos::total_order_indices() const {
  Eigen::VectorXd s(static_cast<Eigen::Index>(inputs_.size()));
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    const std::size_t group[] = {static_cast<std::size_t>(i)};
    s(i) = grouped_total_index(group);
  }
  return s;
}

namespace {

// Sum of c^2 over non-constant terms whose support lies in the group (closed) or meets it (total).
double grouped_share(const multi_index_set& indices, const Eigen::VectorXd& c,
                     std::span<const std::size_t> group, bool total) {
  std::vector<char> in(static_cast<std::size_t>(indices.cols()), 0);
  for (const std::size_t i : group) {
    if (i >= in.size() || in[i])
      throw parameter_error(
          "group", fmt::format("pce: input {} is out of range or repeated in the group", i));
    in[i] = 1;
  }
  double share = 0.0;
  for (Eigen::Index t = 0; t < indices.rows(); ++t) {
    bool meets = false, inside = true, constant = true;
    for (Eigen::Index i = 0; i < indices.cols(); ++i) {
      if (indices(t, i) == 0) continue;
      constant = false;
      if (in[static_cast<std::size_t>(i)])
        meets = true;
      else
        inside = false;
    }
    if (!constant && (total ? meets : inside)) share += c(t) * c(t);
  }
  return share;
}

}  // namespace

double polynomial_chaos::grouped_first_order_index(std::span<const std::size_t> group) const {
  return grouped_share(indices_, coefficients_, group, false) / variance();
}

double polynomial_chaos::grouped_total_index(std::span<const std::size_t> group) const {
  return grouped_share(indices_, coefficients_, group, true) / variance();
}

pce_fit fit_pce(const std::vector<distribution>& marginals, const Eigen::MatrixXd& x,
                const Eigen::VectorXd& y, const pce_options& options) {
  options.validate();
  check_data(marginals.size(), x, y);
  std::vector<chaos_input> inputs(marginals.begin(), marginals.end());
  const polynomial_chaos shell(inputs,
                               multi_index_set::Zero(1, static_cast<Eigen::Index>(inputs.size())),
                               Eigen::VectorXd::Zero(1));
  const Eigen::MatrixXd xi = shell.to_standard(x);

  const unsigned first = options.adaptive_degree ? 1u : options.max_degree;
  std::vector<double> by_degree(options.max_degree, infinity);
  degree_fit best;
  multi_index_set best_indices;
  unsigned best_degree = 0;
  for (unsigned p = first; p <= options.max_degree; ++p) {
    const multi_index_set indices = hyperbolic_indices(inputs.size(), p, options.q_norm);
    if (options.selection == pce_selection::full && indices.rows() >= x.rows()) break;
    degree_fit fit = fit_one_degree(chaos_design_matrix(inputs, xi, indices), y, options.selection);
    by_degree[p - 1] = fit.corrected;
    if (fit.corrected < best.corrected) {
      best = std::move(fit);
      best_indices = indices;
      best_degree = p;
    }
  }
  if (best_degree == 0)
    throw parameter_error(
        "samples",
        fmt::format("pce: {} points fit no degree from {}; the degree-{} basis has {} "
                    "terms and needs at least {} points",
                    x.rows(), first, first,
                    hyperbolic_indices(inputs.size(), first, options.q_norm).rows(),
                    hyperbolic_indices(inputs.size(), first, options.q_norm).rows() + 1));
  multi_index_set kept(static_cast<Eigen::Index>(best.columns.size()), best_indices.cols());
  for (std::size_t j = 0; j < best.columns.size(); ++j)
    kept.row(static_cast<Eigen::Index>(j)) = best_indices.row(best.columns[j]);
  return pce_fit{polynomial_chaos(std::move(inputs), std::move(kept), best.fit.coefficients),
                 best_degree,
                 best.fit.loo_error,
                 best.fit.corrected_loo_error,
                 static_cast<std::size_t>(best_indices.rows()),
                 std::move(by_degree)};
}

}  // namespace contactuq::uq
