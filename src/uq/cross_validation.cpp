#include "contactuq/uq/cross_validation.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <exception>
#include <numeric>
#include <stdexcept>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"

namespace contactuq::uq {
namespace {

// The stream of the fold permutation. Kept apart from the numbered purposes of random.hpp (a
// value none of them will take) so that the fold assignment depends on this file alone.
constexpr auto fold_stream = static_cast<stream_purpose>(0x4b464f4c44ULL);  // "KFOLD"

Eigen::MatrixXd rows_of(const Eigen::MatrixXd& x, const std::vector<Eigen::Index>& rows) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), x.cols());
  for (std::size_t r = 0; r < rows.size(); ++r)
    out.row(static_cast<Eigen::Index>(r)) = x.row(rows[r]);
  return out;
}

}  // namespace

void cross_validation_options::validate() const {
  if (folds < 2) throw parameter_error("folds", fmt::format("folds = {}: must be >= 2", folds));
}

std::vector<std::size_t> fold_assignment(std::size_t n, std::size_t folds, std::uint64_t seed) {
  if (folds < 2 || folds > n)
    throw parameter_error(
        "folds", fmt::format("folds = {}: must be in [2, {}] (the number of points)", folds, n));
  // Fisher-Yates shuffle of 0..n-1, then position p of the permutation goes to fold p mod K.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  engine e = make_engine(seed, fold_stream, 0);
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[uniform_index(e, i)]);
  std::vector<std::size_t> fold(n);
  for (std::size_t p = 0; p < n; ++p) fold[order[p]] = p % folds;
  return fold;
}

cross_validation_result k_fold_cross_validation(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                                const fit_and_predict& fit,
                                                const cross_validation_options& options) {
  options.validate();
  const auto n = static_cast<std::size_t>(y.size());
  if (static_cast<std::size_t>(x.rows()) != n)
    throw parameter_error("samples", fmt::format("{} rows of inputs for {} values", x.rows(), n));
  if (!x.allFinite() || !y.allFinite())
    throw parameter_error("samples", "inputs and values must be finite");
  if (!fit) throw std::invalid_argument("k_fold_cross_validation: no fit function");
  const double mean = y.mean();
  const double total = (y.array() - mean).square().sum();
  if (!(total > 0.0)) throw parameter_error("samples", "the values are constant: Q2 is undefined");

  cross_validation_result r;
  r.folds = options.folds;
  r.fold = fold_assignment(n, options.folds, options.seed);
  r.predictions = Eigen::VectorXd::Constant(y.size(), std::nan(""));
  std::vector<std::exception_ptr> failed(options.folds);
  tbb::parallel_for(std::size_t{0}, options.folds, [&](std::size_t k) {
    std::vector<Eigen::Index> train, test;
    for (std::size_t i = 0; i < n; ++i)
      (r.fold[i] == k ? test : train).push_back(static_cast<Eigen::Index>(i));
    Eigen::VectorXd y_train(static_cast<Eigen::Index>(train.size()));
    for (std::size_t i = 0; i < train.size(); ++i)
      y_train(static_cast<Eigen::Index>(i)) = y(train[i]);
    try {
      const Eigen::VectorXd p = fit(rows_of(x, train), y_train, rows_of(x, test));
      if (static_cast<std::size_t>(p.size()) != test.size())
        throw std::logic_error(fmt::format("{} predictions for {} points", p.size(), test.size()));
      for (std::size_t i = 0; i < test.size(); ++i)
        r.predictions(test[i]) = p(static_cast<Eigen::Index>(i));
    } catch (const parameter_error& e) {
      failed[k] = std::make_exception_ptr(
          parameter_error(e.field(), fmt::format("fold {} of {} ({} training points): {}", k + 1,
                                                 options.folds, train.size(), e.what())));
    } catch (const std::exception& e) {
      failed[k] = std::make_exception_ptr(std::runtime_error(fmt::format(
          "fold {} of {} ({} training points): {}", k + 1, options.folds, train.size(), e.what())));
    }
  });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
  r.error = (y - r.predictions).squaredNorm() / total;
  r.q2 = 1.0 - r.error;
  return r;
}

}  // namespace contactuq::uq
