#pragma once
// Rank correlation between sampled inputs.
//
// Spearman's rank correlation of two columns is the Pearson correlation of their ranks
// (ties get the average of the ranks they span).
//
// Iman & Conover (1982), "A distribution-free approach to inducing rank correlation among
// input variables", Commun. Statist. Simul. Comput. 11(3): to give the N x d sample X the rank
// correlation matrix C,
//   1. build a score matrix R whose columns are independent random permutations of the van der
//      Waerden scores a_i = Phi^-1(i/(N+1)), i = 1..N;
//   2. with T = corr(R) = Q Q^T and C' = P P^T (Cholesky factors), set R* = R (P Q^-1)^T,
//      whose Pearson correlation is exactly C';
//   3. reorder each column of X so that its ranks are those of the same column of R*.
// Every column of the result is a permutation of the same column of X: the marginals, and the
// strata of a Latin hypercube, are untouched. Because R* is close to normal, C' is the Pearson
// correlation that a bivariate normal needs for Spearman correlation C (Kruskal 1958):
//   rho_S = (6/pi) asin(r/2)   <=>   r = 2 sin(pi rho_S / 6),
// applied entrywise when the result is positive definite (otherwise C' = C). The Spearman
// matrix reached differs from C by sampling error, O(N^-1/2).
//
// Apply it to the design of uniforms, before map_to_inputs: quantile functions preserve ranks,
// and a discrete input would otherwise bring ties.

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <string>

namespace contactuq::uq {

// Spearman rank correlation matrix (d x d) of the columns of x (N x d, N >= 2, finite values).
// A constant column has no rank correlation: its row and column are NaN except the 1 on the
// diagonal.
Eigen::MatrixXd spearman_matrix(const Eigen::MatrixXd& x);

// Throws contactuq::parameter_error (field "rank_correlation") unless target is a d x d
// symmetric matrix with unit diagonal, entries in [-1, 1] and positive definite. Messages name
// the entry by the inputs' names (or "input i" when names is empty), e.g.
//   "rank_correlation(mu, K) = 1.2: must be in [-1, 1]".
void validate_rank_correlation(const Eigen::MatrixXd& target, Eigen::Index d,
                               std::span<const std::string> names = {});

// Iman-Conover (above): x with its columns reordered so that its Spearman matrix approximates
// target. The score permutations come from streams (seed, iman_conover_scores, j). Validates
// target against x.cols(); needs finite x and more rows than columns.
Eigen::MatrixXd impose_rank_correlation(const Eigen::MatrixXd& x, const Eigen::MatrixXd& target,
                                        std::uint64_t seed,
                                        std::span<const std::string> names = {});

}  // namespace contactuq::uq
