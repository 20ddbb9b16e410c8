#include "contactuq/uq/rank_correlation.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <boost/math/distributions/normal.hpp>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <vector>

#include <tbb/parallel_for.h>

#include "contactuq/error.hpp"
#include "contactuq/uq/radix_sort.hpp"
#include "contactuq/uq/random.hpp"

namespace contactuq::uq {

namespace {

// Indices 0..n-1 ordered by the values of column j (ties by index, so the order is defined).
std::vector<std::size_t> order_of(const Eigen::MatrixXd& x, Eigen::Index j) {
  return stable_order(std::span<const double>(x.col(j).data(), static_cast<std::size_t>(x.rows())));
}

// The values of column j in ascending order. A Latin hypercube column of uniforms has one value
// in each interval [k/n, (k+1)/n): then floor(n x) places each value in order in linear time.
std::vector<double> sorted_column(const Eigen::MatrixXd& x, Eigen::Index j) {
  const auto n = static_cast<std::size_t>(x.rows());
  std::vector<double> sorted(n);
  std::vector<char> taken(n, 0);
  bool strata = true;
  for (std::size_t i = 0; i < n && strata; ++i) {
    const double v = x(static_cast<Eigen::Index>(i), j);
    const double k = std::floor(v * static_cast<double>(n));
    strata = k >= 0 && k < static_cast<double>(n) && !taken[static_cast<std::size_t>(k)];
    if (strata) {
      taken[static_cast<std::size_t>(k)] = 1;
      sorted[static_cast<std::size_t>(k)] = v;
    }
  }
  if (strata) return sorted;  // n values in n distinct cells, in the cells' (the values') order
  sorted.assign(x.col(j).data(), x.col(j).data() + n);
  sort_values(sorted);
  return sorted;
}

// Ranks 1..N of column j, ties given the average of the ranks they span.
Eigen::VectorXd average_ranks(const Eigen::MatrixXd& x, Eigen::Index j) {
  const auto order = order_of(x, j);
  Eigen::VectorXd ranks(x.rows());
  std::size_t start = 0;
  while (start < order.size()) {
    std::size_t end = start + 1;
    while (end < order.size() && x(static_cast<Eigen::Index>(order[end]), j) == x(static_cast<Eigen::Index>(order[start]), j))
      ++end;
    const double rank = 0.5 * static_cast<double>(start + 1 + end);  // mean of start+1 .. end
    for (std::size_t k = start; k < end; ++k) ranks(static_cast<Eigen::Index>(order[k])) = rank;
    start = end;
  }
  return ranks;
}

// Pearson correlation matrix of the columns of m.
Eigen::MatrixXd pearson_matrix(const Eigen::MatrixXd& m) {
  const Eigen::MatrixXd centred = m.rowwise() - m.colwise().mean();
  const Eigen::MatrixXd cov = centred.transpose() * centred;
  const Eigen::VectorXd inv_sd = cov.diagonal().cwiseSqrt().cwiseInverse();
  Eigen::MatrixXd corr = inv_sd.asDiagonal() * cov * inv_sd.asDiagonal();
  for (Eigen::Index j = 0; j < corr.rows(); ++j) corr(j, j) = 1.0;
  return corr;
}

void require_finite(const Eigen::MatrixXd& x, const char* what) {
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      if (!std::isfinite(x(i, j))) {
        throw parameter_error(what, fmt::format("{}: entry ({}, {}) = {}: must be finite", what, i,
                                                j, format_value(x(i, j))));
      }
    }
  }
}

}  // namespace

Eigen::MatrixXd spearman_matrix(const Eigen::MatrixXd& x) {
  require(x.rows() >= 2, "samples", static_cast<double>(x.rows()), "", ">= 2");
  require_finite(x, "sample");
  Eigen::MatrixXd ranks(x.rows(), x.cols());
  for (Eigen::Index j = 0; j < x.cols(); ++j) ranks.col(j) = average_ranks(x, j);
  Eigen::MatrixXd corr = pearson_matrix(ranks);
  // A constant column has zero rank variance; its correlations are undefined, not 0.
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    if (x.col(j).maxCoeff() == x.col(j).minCoeff()) {
      corr.row(j).setConstant(std::numeric_limits<double>::quiet_NaN());
      corr.col(j).setConstant(std::numeric_limits<double>::quiet_NaN());
      corr(j, j) = 1.0;
    }
  }
  return corr;
}

void validate_rank_correlation(const Eigen::MatrixXd& target, Eigen::Index d,
                               std::span<const std::string> names) {
  const std::string field = "rank_correlation";
  if (target.rows() != d || target.cols() != d) {
    throw parameter_error(field, fmt::format("rank_correlation is {}x{}: must be {}x{}, one row "
                                             "and column per correlated input",
                                             target.rows(), target.cols(), d, d));
  }
  const auto name = [&](Eigen::Index i) {
    return static_cast<std::size_t>(i) < names.size() ? names[static_cast<std::size_t>(i)]
                                                      : fmt::format("input {}", i);
  };
  const auto entry = [&](Eigen::Index i, Eigen::Index j) {
    return fmt::format("rank_correlation({}, {}) = {}", name(i), name(j),
                       format_value(target(i, j)));
  };
  constexpr double tol = 1e-12;
  for (Eigen::Index i = 0; i < d; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) {
      const double c = target(i, j);
      if (!(c >= -1.0 && c <= 1.0)) {
        throw parameter_error(field, fmt::format("{}: must be in [-1, 1]", entry(i, j)));
      }
      if (i == j && std::abs(c - 1.0) > tol) {
        throw parameter_error(
            field, fmt::format("{}: must be 1 (an input is perfectly correlated with itself)",
                               entry(i, j)));
      }
      if (j > i && std::abs(c - target(j, i)) > tol) {
        throw parameter_error(field, fmt::format("{} but {}: the matrix must be symmetric",
                                                 entry(i, j), entry(j, i)));
      }
    }
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(target, Eigen::EigenvaluesOnly);
  const double smallest = d > 0 ? eig.eigenvalues().minCoeff() : 1.0;
  if (!(smallest > 1e-10)) {
    throw parameter_error(
        field, fmt::format("rank_correlation is not positive definite (smallest eigenvalue {}): "
                           "these correlations cannot all hold at once; correlations of +-1 are "
                           "not supported either",
                           format_value(smallest)));
  }
}

Eigen::MatrixXd impose_rank_correlation(const Eigen::MatrixXd& x, const Eigen::MatrixXd& target,
                                        std::uint64_t seed, std::span<const std::string> names) {
  const Eigen::Index n = x.rows(), d = x.cols();
  validate_rank_correlation(target, d, names);
  require_finite(x, "sample");
  if (n <= d) {
    throw parameter_error("samples", fmt::format("samples = {}: must be more than the {} "
                                                 "correlated inputs for Iman-Conover",
                                                 n, d));
  }

  // Step 1: van der Waerden scores, independently permuted per column.
  const boost::math::normal_distribution<double> standard;
  std::vector<double> scores(static_cast<std::size_t>(n));
  tbb::parallel_for(Eigen::Index{0}, n, [&](Eigen::Index i) {
    scores[static_cast<std::size_t>(i)] =
        boost::math::quantile(standard, static_cast<double>(i + 1) / static_cast<double>(n + 1));
  });
  Eigen::MatrixXd r(n, d);
  tbb::parallel_for(Eigen::Index{0}, d, [&](Eigen::Index j) {
    std::vector<double> col = scores;
    engine e =
        make_engine(seed, stream_purpose::iman_conover_scores, static_cast<std::uint64_t>(j));
    for (std::size_t i = col.size() - 1; i > 0; --i) {  // Fisher-Yates
      std::swap(col[i], col[uniform_index(e, i + 1)]);
    }
    for (Eigen::Index i = 0; i < n; ++i) r(i, j) = col[static_cast<std::size_t>(i)];
  });

  // Step 2: R* = R (P Q^-1)^T with T = Q Q^T, C' = P P^T.
  Eigen::MatrixXd pearson_target = target;
  for (Eigen::Index i = 0; i < d; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) {
      if (i != j) pearson_target(i, j) = 2.0 * std::sin(std::numbers::pi * target(i, j) / 6.0);
    }
  }
  Eigen::LLT<Eigen::MatrixXd> p_factor(pearson_target);
  if (p_factor.info() != Eigen::Success) p_factor.compute(target);
  const Eigen::LLT<Eigen::MatrixXd> q_factor(pearson_matrix(r));
  if (q_factor.info() != Eigen::Success) {
    throw parameter_error("samples", fmt::format("samples = {}: too few for Iman-Conover with {} "
                                                 "correlated inputs (the score matrix is "
                                                 "singular); use more samples",
                                                 n, d));
  }
  const Eigen::MatrixXd q = q_factor.matrixL();
  const Eigen::MatrixXd p = p_factor.matrixL();
  // S = P Q^-1, so R* = R S^T = R Q^-T P^T.
  const Eigen::MatrixXd q_inv_t =
      q.transpose().triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(d, d));
  const Eigen::MatrixXd r_star = r * q_inv_t * p.transpose();

  // Step 3: column j of the result holds the sorted values of x_j in the rank order of R*_j.
  Eigen::MatrixXd out(n, d);
  tbb::parallel_for(Eigen::Index{0}, d, [&](Eigen::Index j) {
    const std::vector<double> sorted = sorted_column(x, j);
    const auto order = order_of(r_star, j);
    for (std::size_t k = 0; k < order.size(); ++k) out(static_cast<Eigen::Index>(order[k]), j) = sorted[k];
  });
  return out;
}

}  // namespace contactuq::uq
