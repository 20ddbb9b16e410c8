#pragma once
// K-fold cross-validation of a regression that is refitted, model selection included, in every
// fold: the honest error of a surrogate whose basis, degree or hyperparameters were chosen from
// the same points (a leave-one-out error read after the selection saw every point is optimistic;
// Blatman & Sudret 2011, sec. 5; docs/surrogates.md).
//
// The N points are dealt into K folds of sizes floor(N/K) or ceil(N/K) by a seeded random
// permutation. For each fold k the fit-and-predict function is given the other K - 1 folds and
// predicts the points of fold k, so every point gets one prediction yhat_i made without it:
//   Q2 = 1 - sum_i (y_i - yhat_i)^2 / sum_i (y_i - ybar)^2,   ybar the mean of all N values,
// and error = 1 - Q2 (the relative mean squared error, like eps_LOO).

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace contactuq::uq {

// Fits a surrogate to (x_train, y_train), the whole selection included, and returns its
// predictions at the rows of x_test. Called for the K folds at once from several threads: it
// must not share mutable state between calls. May throw (the fold's failure is reported).
using fit_and_predict = std::function<Eigen::VectorXd(
    const Eigen::MatrixXd& x_train, const Eigen::VectorXd& y_train, const Eigen::MatrixXd& x_test)>;

struct cross_validation_options {
  std::size_t folds = 5;   ///< K, in [2, N]
  std::uint64_t seed = 1;  ///< of the fold assignment
  void validate() const;   ///< parameter_error("folds")
};

struct cross_validation_result {
  Eigen::VectorXd predictions;    ///< yhat_i, predicted by the fit without point i's fold
  std::vector<std::size_t> fold;  ///< fold of each point, in [0, K)
  std::size_t folds = 0;          ///< K
  double q2 = 0.0;                ///< 1 - sum (y - yhat)^2 / sum (y - ybar)^2
  double error = 0.0;             ///< 1 - q2
};

// The fold of each of n points: a seeded random permutation dealt round-robin into `folds`
// folds, so fold sizes differ by at most one. A pure function of (n, folds, seed).
// parameter_error("folds") unless 2 <= folds <= n.
std::vector<std::size_t> fold_assignment(std::size_t n, std::size_t folds, std::uint64_t seed);

// K-fold cross-validation of `fit` on rows x (N x d) and values y (N). Throws parameter_error
// for mismatched sizes, non-finite values, a constant y, or bad options; a fold whose fit
// throws rethrows its message prefixed with the fold ("fold 3 of 5 (120 training points): ...")
// as std::runtime_error, or parameter_error with the same field.
cross_validation_result k_fold_cross_validation(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                                const fit_and_predict& fit,
                                                const cross_validation_options& options = {});

}  // namespace contactuq::uq
