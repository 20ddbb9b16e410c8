#pragma once
// Hybrid LARS for the polynomial chaos fit (pce.cpp): the order in which least-angle regression
// brings in the candidates, and the length of that order whose least-squares fit has the
// smallest corrected leave-one-out error (Blatman & Sudret 2011, sec. 4).

#include <Eigen/Core>
#include <cstddef>
#include <vector>

namespace contactuq::uq::detail {

// LARS (Efron, Hastie, Johnstone & Tibshirani 2004, sec. 2) on the columns 1.. of psi, centred
// and scaled to unit norm, against the centred y (column 0, the constant, is always in the
// model). Returns at most max_steps column numbers of psi in the order they became active; a
// column that is (numerically) a combination of the active ones is skipped.
std::vector<Eigen::Index> lars_order(const Eigen::MatrixXd& psi, const Eigen::VectorXd& y,
                                     std::size_t max_steps);

// The k in 0..order.size() whose least-squares fit on columns {0, order[0..k)} of psi has the
// smallest corrected leave-one-out error, the fits updated one column at a time by Gram-Schmidt
// with reorthogonalisation (O(N k) per column). y must not be constant.
std::size_t best_lars_prefix(const Eigen::MatrixXd& psi, const Eigen::VectorXd& y,
                             const std::vector<Eigen::Index>& order);

}  // namespace contactuq::uq::detail
