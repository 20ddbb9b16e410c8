#pragma once
// Polynomial chaos expansion (PCE) of one scalar output of independent inputs X_1..X_d:
//   Y ~ sum_{alpha in A} c_alpha Psi_alpha(xi),   Psi_alpha(xi) = prod_i psi_{alpha_i}^(i)(xi_i)
// with psi_n^(i) orthonormal for the law of the standard variable xi_i = T_i(X_i), so that
// E[Psi_alpha Psi_beta] = delta_alpha,beta (Xiu & Karniadakis 2002, Wiener-Askey scheme).
//
// Families, each by its three-term recurrence of orthonormal polynomials (Gautschi 2004, 1.3):
//   sqrt(b_{n+1}) psi_{n+1} = (xi - a_n) psi_n - sqrt(b_n) psi_{n-1},  psi_0 = 1, psi_-1 = 0
//   hermite   normal(m, s):        xi = (x - m)/s ~ N(0, 1);      a_n = 0,      b_n = n
//   legendre  uniform(lo, hi):     xi = (2x - lo - hi)/(hi - lo) ~ U(-1, 1);
//                                                                 a_n = 0,      b_n = n^2/(4n^2 -
//                                                                 1)
//   laguerre  weibull(shape 1, l)  (the exponential): xi = x/l ~ Exp(1);
//                                                                 a_n = 2n + 1, b_n = n^2
//   jacobi    beta(p, q, lo, hi):  xi = (2x - lo - hi)/(hi - lo), density ~ (1-xi)^al (1+xi)^be,
//             al = q - 1, be = p - 1;  a_n = (be^2 - al^2)/((2n+al+be)(2n+al+be+2)),
//             b_n = 4n(n+al)(n+be)(n+al+be)/((2n+al+be)^2 (2n+al+be+1)(2n+al+be-1))
//   any other continuous marginal (lognormal, truncated normal, triangular, Weibull k != 1):
//             hermite in xi = Phi^-1(F(x)), the isoprobabilistic transform (Sudret 2008, sec. 3).
// Discrete marginals are refused.
//
// Multi-index sets: total degree |alpha|_1 <= p, and the hyperbolic set
// (sum alpha_i^q)^(1/q) <= p, 0 < q <= 1 (Blatman & Sudret 2011, eq. 19), which keeps the
// low-order interactions and drops the high ones.
//
// Least squares: c = argmin ||Psi c - y||, Psi_ij = Psi_alpha_j(xi(x_i)), through a
// column-pivoted Householder QR. Its leave-one-out error needs no refit (Chapelle et al. 2002;
// Blatman & Sudret 2010, eq. 30-33): with h_i the diagonal of the hat matrix Psi (Psi^T Psi)^-1
// Psi^T,
//   eps_LOO  = (1/N) sum_i ((y_i - yhat_i)/(1 - h_i))^2 / Var(y)        (Var with N - 1)
//   eps_LOO* = eps_LOO * N/(N - P) * (1 + tr((Psi^T Psi)^-1))             corrected
// The degree p is chosen as the one of smallest eps_LOO* over p = 1..max_degree.
//
// Sparse selection (Blatman & Sudret 2011, "hybrid LARS"): least-angle regression (Efron et al.
// 2004) orders the non-constant candidates; the least-squares fit on the constant plus the first
// k of them is computed for every k, and the k of smallest eps_LOO* is kept. Note that this
// error, read after the selection, is optimistic (the selection saw every point); the honest
// estimate repeats the selection in K folds (not yet here).
//
// Moments and Sobol indices from the coefficients (Sudret 2008, eq. 38-44):
//   E[Y] = c_0,  Var[Y] = sum_{alpha != 0} c_alpha^2,
//   S_i  = sum_{alpha: alpha_i > 0, alpha_j = 0 (j != i)} c_alpha^2 / Var,
//   S_Ti = sum_{alpha: alpha_i > 0} c_alpha^2 / Var,
//   grouped, for a set u of inputs: closed S_u = sum_{alpha != 0, supp alpha in u} c^2 / Var,
//   total S_Tu = sum_{supp alpha meets u} c^2 / Var.

#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "contactuq/uq/distribution.hpp"

namespace contactuq::uq {

enum class polynomial_family { hermite, legendre, laguerre, jacobi };
// "hermite", "legendre", "laguerre", "jacobi".
std::string to_string(polynomial_family family);

// One orthonormal family; jacobi_alpha/beta are used by jacobi only (each > -1).
struct orthonormal_family {
  polynomial_family family = polynomial_family::hermite;
  double jacobi_alpha = 0.0;
  double jacobi_beta = 0.0;

  // Recurrence coefficients a_n (n >= 0) and b_n (n >= 1) above.
  double a(std::size_t n) const;
  double b(std::size_t n) const;
  // psi_0(xi) .. psi_{out.size()-1}(xi).
  void values(double xi, std::span<double> out) const;
};

// n-point Gauss rule for the probability law of the family's standard variable (Golub & Welsch
// 1969): nodes and weights (summing to 1); exact for polynomials of degree <= 2n - 1. n >= 1.
struct gauss_rule {
  Eigen::VectorXd nodes, weights;
};
gauss_rule make_gauss_rule(const orthonormal_family& family, std::size_t n);

// One input of an expansion: its marginal, its family and the map x -> xi.
class chaos_input {
 public:
  // Picks the family as listed above; parameter_error("distribution") for a discrete marginal.
  explicit chaos_input(distribution marginal);

  const distribution& marginal() const { return marginal_; }
  const orthonormal_family& family() const { return family_; }
  // True when xi = Phi^-1(F(x)) (the isoprobabilistic transform), false for an affine map.
  bool transformed() const { return transformed_; }
  double to_standard(double x) const;
  double from_standard(double xi) const;

 private:
  distribution marginal_;
  orthonormal_family family_;
  bool transformed_ = false;
  double shift_ = 0.0, scale_ = 1.0;  ///< xi = (x - shift_)/scale_ when not transformed
};

// Multi-indices, one row per term (P x d), the constant term first, ordered by total degree.
using multi_index_set = Eigen::MatrixXi;
// Every alpha with (sum_i alpha_i^q)^(1/q) <= p; q = 1 is the total-degree set with
// C(d + p, p) terms. d >= 1, 0 < q <= 1 (parameter_error otherwise).
multi_index_set hyperbolic_indices(std::size_t d, unsigned p, double q = 1.0);
inline multi_index_set total_degree_indices(std::size_t d, unsigned p) {
  return hyperbolic_indices(d, p, 1.0);
}

// Psi_ij = Psi_alpha_j(xi_i) for rows xi_i of standard variables (n x d); n x P.
Eigen::MatrixXd chaos_design_matrix(const std::vector<chaos_input>& inputs,
                                    const Eigen::MatrixXd& xi, const multi_index_set& indices);

// A least-squares fit on a given design matrix with its leave-one-out errors.
struct least_squares_fit {
  Eigen::VectorXd coefficients;      ///< c, one per column
  Eigen::VectorXd loo_residuals;     ///< (y_i - yhat_i)/(1 - h_i)
  double loo_error = 0.0;            ///< eps_LOO, relative to Var(y)
  double corrected_loo_error = 0.0;  ///< eps_LOO*
};
// Column-pivoted QR least squares. Throws parameter_error("samples") unless N > P and Psi has
// full column rank, and for a constant y (the relative error is undefined).
least_squares_fit fit_least_squares(const Eigen::MatrixXd& psi, const Eigen::VectorXd& y);

enum class pce_selection {
  full,  ///< least squares on the whole truncated basis
  lars,  ///< hybrid LARS: the LARS path step of smallest corrected LOO
};

struct pce_options {
  unsigned max_degree = 10;  ///< largest total degree p tried, >= 1 and <= 40
  double q_norm = 1.0;       ///< hyperbolic truncation, in (0, 1]
  pce_selection selection = pce_selection::lars;
  bool adaptive_degree = true;  ///< choose p in 1..max_degree by eps_LOO*; else p = max_degree
  void validate() const;        ///< parameter_error naming the field
};

// A fitted expansion: the inputs, the multi-indices kept and their coefficients.
class polynomial_chaos {
 public:
  polynomial_chaos(std::vector<chaos_input> inputs, multi_index_set indices,
                   Eigen::VectorXd coefficients);

  std::size_t dimension() const { return inputs_.size(); }
  const std::vector<chaos_input>& inputs() const { return inputs_; }
  const multi_index_set& indices() const { return indices_; }
  const Eigen::VectorXd& coefficients() const { return coefficients_; }

  // Rows of physical inputs (n x d) to rows of standard variables.
  Eigen::MatrixXd to_standard(const Eigen::MatrixXd& x) const;
  // The expansion at rows of physical inputs (n x d), in blocks of rows.
  Eigen::VectorXd evaluate(const Eigen::MatrixXd& x) const;

  double mean() const;
  double variance() const;
  Eigen::VectorXd first_order_indices() const;
  Eigen::VectorXd total_order_indices() const;
  // Closed (first-order) and total index of a group of inputs (each < d, no repeats).
  double grouped_first_order_index(std::span<const std::size_t> group) const;
  double grouped_total_index(std::span<const std::size_t> group) const;

 private:
  std::vector<chaos_input> inputs_;
  multi_index_set indices_;
  Eigen::VectorXd coefficients_;
};

struct pce_fit {
  polynomial_chaos chaos;
  unsigned degree = 0;               ///< the truncation degree chosen
  double loo_error = 0.0;            ///< eps_LOO of the kept fit (post-selection: optimistic)
  double corrected_loo_error = 0.0;  ///< eps_LOO* of the kept fit (post-selection: optimistic)
  std::size_t candidates = 0;        ///< terms of the truncated basis at the chosen degree
  std::vector<double> corrected_loo_by_degree;  ///< eps_LOO* at p = 1.., infinity where not fitted
};

// Fits a PCE of y over rows x (N x d, physical values) of independent inputs with these
// marginals. Throws parameter_error for mismatched sizes, non-finite data, a constant y, or
// (field "samples") too few points for any degree, saying how many are needed.
pce_fit fit_pce(const std::vector<distribution>& marginals, const Eigen::MatrixXd& x,
                const Eigen::VectorXd& y, const pce_options& options = {});

}  // namespace contactuq::uq
