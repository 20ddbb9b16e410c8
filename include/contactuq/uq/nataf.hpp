#pragma once
// The Nataf isoprobabilistic transform (Liu & Der Kiureghian 1986, "Multivariate distribution
// models with prescribed marginals and covariances", Prob. Eng. Mech. 1(2) 105-112): d continuous
// marginals joined by a Gaussian copula with correlation matrix R0. Standard normals u map to
//   z = L u  (R0 = L L^T, Cholesky),   x_i = F_i^-1(Phi(z_i)),
// so the reliability algorithms (reliability.hpp) work in u-space for every distribution the
// toolkit offers. A correlation between two inputs is given as one of
//   normal    rho0, the copula's own correlation of z_i and z_j (taken as is);
//   spearman  rank correlation rho_S of x_i and x_j: rho0 = 2 sin(pi rho_S / 6), exact for a
//             Gaussian copula whatever the marginals (Kruskal 1958);
//   pearson   linear correlation rho of x_i and x_j (Dakota's convention): rho0 solves
//             rho = E[(x_i - m_i)(x_j - m_j)] / (s_i s_j), the expectation over the bivariate
//             normal (z_i, z_j) with correlation rho0, by 32 x 32-point Gauss-Hermite
//             quadrature and a bracketing root search; a rho the marginals cannot reach
//             (|rho0| would exceed 0.999) is refused with the range they can.
// An R0 that is not positive definite is refused; so is a discrete marginal (no transform).

#include <Eigen/Core>
#include <Eigen/Cholesky>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/uq/distribution.hpp"

namespace contactuq::uq {

enum class correlation_kind { spearman, pearson, normal };
std::string_view to_string(correlation_kind k);

struct correlation_pair {
  std::size_t i = 0, j = 0;  ///< marginals, i != j
  double rho = 0.0;          ///< in (-1, 1)
  correlation_kind kind = correlation_kind::spearman;
};

// rho0 of the Gaussian copula that gives two marginals the Pearson correlation rho; throws
// parameter_error("rho", ...) when no rho0 in [-0.999, 0.999] reaches it.
double normal_correlation_for_pearson(const distribution& a, const distribution& b, double rho);
// The Pearson correlation of x_i, x_j under a Gaussian copula with correlation rho0.
double pearson_of_normal_correlation(const distribution& a, const distribution& b, double rho0);

// The Gaussian copula's correlation R0 of a correlation given as `kind`, and the Spearman rank
// correlation that copula gives: (6 / pi) asin(R0 / 2). A sampling study imposes the latter by
// Iman-Conover, so that every kind means the same in a sampling and a reliability study.
double normal_correlation_of(const distribution& a, const distribution& b, double rho, correlation_kind kind);
double spearman_correlation_of(const distribution& a, const distribution& b, double rho, correlation_kind kind);

class nataf_transform {
 public:
  // `names` name the marginals in errors. Throws parameter_error for a discrete marginal, a
  // pair out of range or repeated, |rho| >= 1, an unreachable Pearson rho, or an R0 that is not
  // positive definite.
  nataf_transform(std::vector<distribution> marginals, const std::vector<correlation_pair>& pairs,
                  const std::vector<std::string>& names = {});

  std::size_t dimension() const { return marginals_.size(); }
  const Eigen::MatrixXd& normal_correlation() const { return r0_; }  ///< R0
  const std::vector<distribution>& marginals() const { return marginals_; }

  // Rows of u (n x d standard normals) to rows of x (n x d).
  Eigen::MatrixXd to_physical(const Eigen::MatrixXd& u) const;

 private:
  std::vector<distribution> marginals_;
  Eigen::MatrixXd r0_, lower_;  ///< R0 and its Cholesky factor L
};

}  // namespace contactuq::uq
