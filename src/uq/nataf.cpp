#include "contactuq/uq/nataf.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <boost/math/tools/roots.hpp>

#include <array>
#include <cmath>
#include <numbers>
#include <set>
#include <utility>

#include "contactuq/error.hpp"

namespace contactuq::uq {
namespace {

constexpr std::size_t hermite_points = 32;
constexpr double max_normal_correlation = 0.999;

// Gauss-Hermite nodes and weights for the standard normal density (Golub & Welsch 1969): the
// eigenvalues of the Jacobi matrix of the monic Hermite polynomials He_k, off-diagonal sqrt(k),
// and the squared first components of its eigenvectors (weights summing to 1).
struct hermite_rule {
  Eigen::VectorXd nodes, weights;
};

const hermite_rule& standard_normal_rule() {
  static const hermite_rule rule = [] {
    const auto n = static_cast<Eigen::Index>(hermite_points);
    Eigen::MatrixXd jacobi = Eigen::MatrixXd::Zero(n, n);
    for (Eigen::Index k = 1; k < n; ++k) jacobi(k, k - 1) = jacobi(k - 1, k) = std::sqrt(static_cast<double>(k));
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(jacobi);
    return hermite_rule{eig.eigenvalues(), eig.eigenvectors().row(0).transpose().array().square().matrix()};
  }();
  return rule;
}

// x(z) at every node z.
Eigen::VectorXd at_nodes(const distribution& d, const Eigen::VectorXd& z) {
  Eigen::VectorXd x(z.size());
  for (Eigen::Index k = 0; k < z.size(); ++k) x(k) = d.from_standard_normal(z(k));
  return x;
}

// The quadrature's mean and standard deviation of x over the nodes (consistent with the
// correlation's own quadrature, so that rho0 = 1 gives rho = 1 for equal marginals).
std::pair<double, double> moments(const Eigen::VectorXd& x, const Eigen::VectorXd& w) {
  const double m = w.dot(x);
  return {m, std::sqrt(w.dot((x.array() - m).square().matrix()))};
}

double pearson_with(const distribution& a, const distribution& b, double rho0) {
  const hermite_rule& r = standard_normal_rule();
  const Eigen::VectorXd xa = at_nodes(a, r.nodes);
  const auto [ma, sa] = moments(xa, r.weights);
  const auto [mb, sb] = moments(at_nodes(b, r.nodes), r.weights);
  const double c = std::sqrt(std::max(0.0, 1.0 - rho0 * rho0));
  double sum = 0.0;
  for (Eigen::Index i = 0; i < r.nodes.size(); ++i)
    for (Eigen::Index j = 0; j < r.nodes.size(); ++j) {
      const double xb = b.from_standard_normal(rho0 * r.nodes(i) + c * r.nodes(j));
      sum += r.weights(i) * r.weights(j) * (xa(i) - ma) * (xb - mb);
    }
  return sum / (sa * sb);
}

}  // namespace

std::string_view to_string(correlation_kind k) {
  switch (k) {
    case correlation_kind::spearman: return "spearman";
    case correlation_kind::pearson: return "pearson";
    case correlation_kind::normal: return "normal";
  }
  return "?";
}

double pearson_of_normal_correlation(const distribution& a, const distribution& b, double rho0) {
  if (!(std::abs(rho0) <= 1.0)) throw parameter_error("rho", fmt::format("normal correlation {} is not in [-1, 1]", rho0));
  return pearson_with(a, b, rho0);
}

double normal_correlation_for_pearson(const distribution& a, const distribution& b, double rho) {
  if (!(std::abs(rho) < 1.0)) throw parameter_error("rho", fmt::format("Pearson correlation {} is not in (-1, 1)", rho));
  if (rho == 0.0) return 0.0;
  const double lo = pearson_with(a, b, -max_normal_correlation), hi = pearson_with(a, b, max_normal_correlation);
  if (!(rho > lo && rho < hi))
    throw parameter_error("rho", fmt::format("a Pearson correlation of {:g} between {} and {} cannot be reached with a "
                                             "Gaussian copula: these marginals reach ({:.4g}, {:.4g})",
                                             rho, a.describe(), b.describe(), lo, hi));
  boost::uintmax_t iterations = 100;
  const auto [left, right] = boost::math::tools::toms748_solve(
      [&](double r0) { return pearson_with(a, b, r0) - rho; }, -max_normal_correlation, max_normal_correlation,
      lo - rho, hi - rho, boost::math::tools::eps_tolerance<double>(48), iterations);
  return 0.5 * (left + right);
}

double normal_correlation_of(const distribution& a, const distribution& b, double rho, correlation_kind kind) {
  switch (kind) {
    case correlation_kind::spearman: return 2.0 * std::sin(std::numbers::pi * rho / 6.0);
    case correlation_kind::pearson: return normal_correlation_for_pearson(a, b, rho);
    case correlation_kind::normal: return rho;
  }
  return rho;
}

double spearman_correlation_of(const distribution& a, const distribution& b, double rho, correlation_kind kind) {
  if (kind == correlation_kind::spearman) return rho;
  return 6.0 / std::numbers::pi * std::asin(normal_correlation_of(a, b, rho, kind) / 2.0);
}

nataf_transform::nataf_transform(std::vector<distribution> marginals, const std::vector<correlation_pair>& pairs,
                                 const std::vector<std::string>& names)
    : marginals_(std::move(marginals)) {
  const auto d = static_cast<Eigen::Index>(marginals_.size());
  const auto name = [&](std::size_t i) { return i < names.size() ? names[i] : fmt::format("input {}", i); };
  for (std::size_t i = 0; i < marginals_.size(); ++i)
    if (marginals_[i].is_discrete())
      throw parameter_error("distribution", fmt::format("{}: {} is discrete and has no isoprobabilistic transform; "
                                                        "give it a continuous distribution or a fixed value",
                                                        name(i), marginals_[i].describe()));
  r0_ = Eigen::MatrixXd::Identity(d, d);
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (const correlation_pair& p : pairs) {
    if (p.i >= marginals_.size() || p.j >= marginals_.size() || p.i == p.j)
      throw parameter_error("between", "a correlation must name two different inputs");
    if (!seen.insert(std::minmax(p.i, p.j)).second)
      throw parameter_error("between", fmt::format("{} and {} are given a correlation twice", name(p.i), name(p.j)));
    if (!(std::abs(p.rho) < 1.0))
      throw parameter_error("rho", fmt::format("{} and {}: rho = {} must be in (-1, 1)", name(p.i), name(p.j), p.rho));
    double r0 = p.rho;
    try {
      r0 = normal_correlation_of(marginals_[p.i], marginals_[p.j], p.rho, p.kind);
    } catch (const parameter_error& e) {
      throw parameter_error("rho", fmt::format("{} and {}: {}", name(p.i), name(p.j), e.what()));
    }
    const auto i = static_cast<Eigen::Index>(p.i), j = static_cast<Eigen::Index>(p.j);
    r0_(i, j) = r0_(j, i) = r0;
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(r0_);
  if (llt.info() != Eigen::Success || llt.matrixL().toDenseMatrix().diagonal().minCoeff() < 1e-8)
    throw parameter_error("rho", "the correlations are not consistent: the Gaussian copula's correlation matrix they "
                                 "give is not positive definite");
  lower_ = llt.matrixL();
}

Eigen::MatrixXd nataf_transform::to_physical(const Eigen::MatrixXd& u) const {
  const Eigen::MatrixXd z = u * lower_.transpose();
  Eigen::MatrixXd x(z.rows(), z.cols());
  for (Eigen::Index c = 0; c < z.cols(); ++c)
    for (Eigen::Index r = 0; r < z.rows(); ++r) x(r, c) = marginals_[static_cast<std::size_t>(c)].from_standard_normal(z(r, c));
  return x;
}

}  // namespace contactuq::uq
