#include "contactuq/uq/rankings.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "contactuq/uq/random.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::uq {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The rows of one column in increasing order, cut into groups of equal values (ties).
struct column_order {
  std::vector<Eigen::Index> rows;
  std::vector<std::size_t> group_end;  ///< one past each tie group, in `rows`
};

column_order order_of(const Eigen::VectorXd& column) {
  column_order o;
  o.rows.resize(static_cast<std::size_t>(column.size()));
  std::iota(o.rows.begin(), o.rows.end(), Eigen::Index{0});
  std::stable_sort(o.rows.begin(), o.rows.end(), [&](Eigen::Index a, Eigen::Index b) { return column(a) < column(b); });
  for (std::size_t k = 1; k <= o.rows.size(); ++k)
    if (k == o.rows.size() || column(o.rows[k]) != column(o.rows[k - 1])) o.group_end.push_back(k);
  return o;
}

// Average ranks of every row in the sample that holds row i w(i) times (a bootstrap resample;
// w = 1 is the data itself): no sorting per resample, a pass over the precomputed order.
void weighted_ranks(const column_order& o, const Eigen::VectorXd& w, Eigen::Ref<Eigen::VectorXd> out) {
  double before = 0.0;
  std::size_t start = 0;
  for (const std::size_t end : o.group_end) {
    double group = 0.0;
    for (std::size_t k = start; k < end; ++k) group += w(o.rows[k]);
    const double average = before + 0.5 * (group + 1.0);  // of ranks before+1 .. before+group
    for (std::size_t k = start; k < end; ++k) out(o.rows[k]) = average;
    before += group;
    start = end;
  }
}

// Correlation matrix of the columns of m over rows weighted by w; NaN where a column is constant.
Eigen::MatrixXd weighted_correlation(const Eigen::MatrixXd& m, const Eigen::VectorXd& w) {
  const Eigen::RowVectorXd mean = (w.transpose() * m) / w.sum();
  const Eigen::MatrixXd centred = m.rowwise() - mean;
  const Eigen::MatrixXd cov = centred.transpose() * (centred.array().colwise() * w.array()).matrix();
  const Eigen::VectorXd sd = cov.diagonal().cwiseSqrt();
  return cov.array() / (sd * sd.transpose()).array();
}

// Coefficients of the data set that holds row i of data w(i) times: spearman (d), prcc (d),
// src (d), r2, in one row.
std::vector<double> coefficients(const Eigen::MatrixXd& data /* n x (d + 1), y last */,
                                 const std::vector<column_order>& orders, const Eigen::VectorXd& w) {
  const Eigen::Index n = data.rows(), d = data.cols() - 1;
  std::vector<double> out(static_cast<std::size_t>(3 * d + 1), nan);
  if (n < d + 2) return out;
  Eigen::MatrixXd ranked(n, d + 1);
  for (Eigen::Index c = 0; c <= d; ++c) weighted_ranks(orders[static_cast<std::size_t>(c)], w, ranked.col(c));
  const Eigen::MatrixXd rc = weighted_correlation(ranked, w);
  for (Eigen::Index j = 0; j < d; ++j) out[static_cast<std::size_t>(j)] = rc(j, d);
  const auto invertible = [](const Eigen::MatrixXd& m) {
    return m.allFinite() && Eigen::FullPivLU<Eigen::MatrixXd>(m).isInvertible();
  };
  if (invertible(rc)) {
    const Eigen::MatrixXd p = rc.inverse();
    for (Eigen::Index j = 0; j < d; ++j)
      out[static_cast<std::size_t>(d + j)] = -p(j, d) / std::sqrt(p(j, j) * p(d, d));
  }
  const Eigen::MatrixXd vc = weighted_correlation(data, w);
  const Eigen::MatrixXd cxx = vc.topLeftCorner(d, d);
  if (invertible(cxx) && std::isfinite(vc(d, d))) {
    const Eigen::VectorXd cxy = vc.col(d).head(d);
    const Eigen::VectorXd beta = cxx.fullPivLu().solve(cxy);
    for (Eigen::Index j = 0; j < d; ++j) out[static_cast<std::size_t>(2 * d + j)] = beta(j);
    out[static_cast<std::size_t>(3 * d)] = cxy.dot(beta);
  }
  return out;
}

}  // namespace

std::vector<double> ranks(std::span<const double> values) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && values[order[j]] == values[order[i]]) ++j;
    const double average = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k) r[order[k]] = average;
    i = j;
  }
  return r;
}

input_ranking rank_inputs(const Eigen::MatrixXd& x, std::span<const double> y, const ranking_options& options) {
  const Eigen::Index d = x.cols();
  std::vector<Eigen::Index> rows;
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    if (std::isfinite(y[static_cast<std::size_t>(i)]) && x.row(i).allFinite()) rows.push_back(i);
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd data(n, d + 1);
  for (Eigen::Index k = 0; k < n; ++k) {
    data.row(k).head(d) = x.row(rows[static_cast<std::size_t>(k)]);
    data(k, d) = y[static_cast<std::size_t>(rows[static_cast<std::size_t>(k)])];
  }
  std::vector<column_order> orders;
  for (Eigen::Index c = 0; c <= d; ++c) orders.push_back(order_of(data.col(c)));
  const std::vector<double> point = coefficients(data, orders, Eigen::VectorXd::Ones(n));
  const std::size_t m = point.size(), b_count = n > 0 ? options.bootstrap_resamples : 0;

  // A resample is the data with row i drawn w(i) times: ranks and correlations are weighted
  // sums, so each resample costs O(n d^2) and no sorting.
  std::vector<double> replicates(b_count * m);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, b_count, 4), [&](const tbb::blocked_range<std::size_t>& range) {
    Eigen::VectorXd w(n);
    for (std::size_t b = range.begin(); b != range.end(); ++b) {
      engine e = make_engine(options.seed, stream_purpose::ranking_bootstrap, b);
      w.setZero();
      for (Eigen::Index k = 0; k < n; ++k) w(static_cast<Eigen::Index>(uniform_index(e, static_cast<std::uint64_t>(n)))) += 1.0;
      const auto c = coefficients(data, orders, w);
      std::copy(c.begin(), c.end(), replicates.begin() + static_cast<std::ptrdiff_t>(b * m));
    }
  });
  // Percentile interval of coefficient c; NaN when any replicate left it undefined.
  const auto with_interval = [&](std::size_t c) {
    estimate out{point[c], {nan, nan}};
    if (b_count == 0) return out;
    std::vector<double> column(b_count);
    for (std::size_t b = 0; b < b_count; ++b) column[b] = replicates[b * m + c];
    if (std::any_of(column.begin(), column.end(), [](double v) { return std::isnan(v); })) return out;
    std::sort(column.begin(), column.end());
    out.ci = {sorted_quantile(column, 0.5 * (1.0 - options.confidence)),
              sorted_quantile(column, 0.5 * (1.0 + options.confidence))};
    return out;
  };
  input_ranking r;
  r.used = static_cast<std::size_t>(n);
  const auto dd = static_cast<std::size_t>(d);
  for (std::size_t j = 0; j < dd; ++j) {
    r.spearman.push_back(with_interval(j));
    r.prcc.push_back(with_interval(dd + j));
    r.src.push_back(with_interval(2 * dd + j));
  }
  r.r2 = with_interval(3 * dd);
  return r;
}

}  // namespace contactuq::uq
