#include "contactuq/uq/sensitivity.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "bootstrap_detail.hpp"
#include "contactuq/error.hpp"

namespace contactuq::uq {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The outputs of the rows that are finite throughout, f_A and f_B centred on the full-sample
// y_bar and the differences f_ABi - f_A, which the estimators need.
struct kept_rows {
  std::size_t n = 0;
  std::size_t d = 0;
  double offset = 0.0;       // y_bar of the kept rows, subtracted from f_A and f_B
  std::vector<double> a, b;  // centred f_A, f_B
  std::vector<double> diff;  // column-major n x d: diff[i n + j] = f_ABi,j - f_A,j
};

// V, S_1..S_d, S_T1..S_Td with row j counted w[j] times (header formulas).
void estimate_indices(const kept_rows& rows, std::span<const double> w, std::span<double> out) {
  const std::size_t n = rows.n, d = rows.d;
  double total = 0.0, sum = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    total += w[j];
    sum += w[j] * (rows.a[j] + rows.b[j]);
  }
  const double shift = sum / (2.0 * total);  // y_bar of this resample, relative to the offset
  double ss = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double ya = rows.a[j] - shift, yb = rows.b[j] - shift;
    ss += w[j] * (ya * ya + yb * yb);
  }
  const double v = ss / (2.0 * total);
  out[0] = v;
  const bool defined = n >= 2 && v > 0.0;
  for (std::size_t i = 0; i < d; ++i) {
    double first = 0.0, second = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      const double delta = rows.diff[i * n + j];
      first += w[j] * (rows.b[j] - shift) * delta;  // Saltelli 2010, Table 2 (b)
      second += w[j] * delta * delta;               // Jansen 1999; Saltelli 2010, Table 2 (f)
    }
    out[1 + i] = defined ? first / total / v : nan;
    out[1 + d + i] = defined ? second / (2.0 * total) / v : nan;
  }
}

}  // namespace

void pick_freeze_layout::validate() const {
  require(rows >= 1, "rows", static_cast<double>(rows), "", ">= 1");
  require(inputs >= 1, "inputs", static_cast<double>(inputs), "", ">= 1");
}

pick_freeze_design::pick_freeze_design(Eigen::MatrixXd a, Eigen::MatrixXd b)
    : a_(std::move(a)), b_(std::move(b)) {
  if (a_.rows() != b_.rows() || a_.cols() != b_.cols()) {
    throw parameter_error(
        "b", fmt::format("pick-freeze design: B is {} x {}: must have the shape of A, {} x {}",
                         b_.rows(), b_.cols(), a_.rows(), a_.cols()));
  }
  layout().validate();
}

Eigen::MatrixXd pick_freeze_design::ab(std::size_t input) const {
  const auto i = static_cast<Eigen::Index>(input);
  require(i < a_.cols(), "input", static_cast<double>(input), "",
          fmt::format("< {} (the number of inputs)", a_.cols()).c_str());
  Eigen::MatrixXd m = a_;
  m.col(i) = b_.col(i);
  return m;
}

pick_freeze_layout pick_freeze_design::layout() const {
  return {static_cast<std::size_t>(a_.rows()), static_cast<std::size_t>(a_.cols())};
}

Eigen::MatrixXd pick_freeze_design::points() const {
  const pick_freeze_layout l = layout();
  Eigen::MatrixXd p(static_cast<Eigen::Index>(l.size()), a_.cols());
  for (std::size_t j = 0; j < l.rows; ++j) {
    const auto r = static_cast<Eigen::Index>(j);
    p.row(static_cast<Eigen::Index>(l.a(j))) = a_.row(r);
    p.row(static_cast<Eigen::Index>(l.b(j))) = b_.row(r);
    for (std::size_t i = 0; i < l.inputs; ++i) {
      const auto k = static_cast<Eigen::Index>(l.ab(i, j));
      p.row(k) = a_.row(r);
      p(k, static_cast<Eigen::Index>(i)) = b_(r, static_cast<Eigen::Index>(i));
    }
  }
  return p;
}

pick_freeze_design make_pick_freeze_design(std::size_t n, std::size_t d,
                                           const design_options& options) {
  pick_freeze_layout{n, d}.validate();
  const Eigen::MatrixXd u = unit_design(n, 2 * d, options);
  const auto cols = static_cast<Eigen::Index>(d);
  return pick_freeze_design(u.leftCols(cols), u.rightCols(cols));
}

void sensitivity_options::validate() const {
  require(confidence > 0.0 && confidence < 1.0, "confidence", confidence, "", "in (0, 1)");
  require(
      bootstrap_resamples == 0 || (bootstrap_resamples >= 10 && bootstrap_resamples <= 10'000'000),
      "bootstrap_resamples", static_cast<double>(bootstrap_resamples), "",
      "0 (no intervals) or in [10, 1e7]");
}

sobol_result sobol_indices(std::span<const double> outputs, const pick_freeze_layout& layout,
                           const sensitivity_options& options) {
  layout.validate();
  options.validate();
  if (outputs.size() != layout.size()) {
    throw parameter_error(
        "outputs", fmt::format("pick-freeze outputs: {} values: must be N (d + 2) = {} ({} rows, "
                               "{} inputs)",
                               outputs.size(), layout.size(), layout.rows, layout.inputs));
  }
  const std::size_t d = layout.inputs;

  // Rows whose d + 2 outputs are all finite; the others are dropped from every matrix.
  std::vector<std::size_t> kept;
  for (std::size_t j = 0; j < layout.rows; ++j) {
    const auto row = outputs.subspan(layout.a(j), layout.slots());
    if (std::all_of(row.begin(), row.end(), [](double v) { return std::isfinite(v); })) {
      kept.push_back(j);
    }
  }
  kept_rows rows;
  rows.d = d;
  rows.n = kept.size();
  rows.a.resize(rows.n);
  rows.b.resize(rows.n);
  rows.diff.resize(rows.n * d);
  for (std::size_t k = 0; k < rows.n; ++k) {
    const std::size_t j = kept[k];
    rows.a[k] = outputs[layout.a(j)];
    rows.b[k] = outputs[layout.b(j)];
    for (std::size_t i = 0; i < d; ++i)
      rows.diff[i * rows.n + k] = outputs[layout.ab(i, j)] - rows.a[k];
  }
  double sum = 0.0;
  for (std::size_t j = 0; j < rows.n; ++j) sum += rows.a[j] + rows.b[j];
  rows.offset = rows.n > 0 ? sum / (2.0 * static_cast<double>(rows.n)) : 0.0;
  for (std::size_t j = 0; j < rows.n; ++j) {
    rows.a[j] -= rows.offset;
    rows.b[j] -= rows.offset;
  }

  sobol_result out;
  out.rows = layout.rows;
  out.used = rows.n;
  out.dropped = layout.rows - rows.n;
  out.confidence = options.confidence;
  out.bootstrap_resamples = options.bootstrap_resamples;
  out.first_order.resize(d);
  out.total_order.resize(d);
  const std::size_t m = 1 + 2 * d;
  const auto assign = [&](std::span<const double> values, const std::vector<interval>& cis) {
    out.variance = {values[0], cis[0]};
    for (std::size_t i = 0; i < d; ++i) {
      out.first_order[i] = {values[1 + i], cis[1 + i]};
      out.total_order[i] = {values[1 + d + i], cis[1 + d + i]};
    }
  };
  std::vector<interval> cis(m, interval{nan, nan});
  if (rows.n == 0) {
    out.mean = nan;
    assign(std::vector<double>(m, nan), cis);
    return out;
  }
  out.mean = rows.offset;
  std::vector<double> point(m);
  estimate_indices(rows, std::vector<double>(rows.n, 1.0), point);

  const std::size_t b_count = options.bootstrap_resamples;
  if (b_count > 0) {
    std::vector<double> replicates(b_count * m);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, b_count, 8),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        std::vector<double> counts(rows.n);
                        for (std::size_t b = range.begin(); b != range.end(); ++b) {
                          detail::resample_counts(options.seed, b, counts);
                          estimate_indices(rows, counts, {&replicates[b * m], m});
                        }
                      });
    std::vector<double> column(b_count);
    for (std::size_t c = 0; c < m; ++c) {
      for (std::size_t b = 0; b < b_count; ++b) column[b] = replicates[b * m + c];
      cis[c] = detail::percentile_interval(column, options.confidence);
    }
  }
  assign(point, cis);
  return out;
}

}  // namespace contactuq::uq
