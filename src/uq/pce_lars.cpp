#include "pce_lars.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>

namespace contactuq::uq::detail {
namespace {

enum class column_state : char { candidate, active, dropped };

// The LARS state: unit-norm centred candidates x, their correlations c with the residual, the
// active columns and the lower Cholesky factor of their Gram matrix, grown one row at a time.
struct lars_state {
  Eigen::MatrixXd x;
  Eigen::VectorXd c;
  std::vector<column_state> state;
  std::vector<Eigen::Index> active;
  Eigen::MatrixXd chol;

  // Appends column j to the Cholesky factor; drops it when it is (numerically) a combination of
  // the active columns.
  bool add(Eigen::Index j) {
    const auto k = static_cast<Eigen::Index>(active.size());
    Eigen::VectorXd g(k);
    for (Eigen::Index a = 0; a < k; ++a)
      g(a) = x.col(active[static_cast<std::size_t>(a)]).dot(x.col(j));
    const Eigen::VectorXd l = chol.topLeftCorner(k, k).triangularView<Eigen::Lower>().solve(g);
    const double pivot = 1.0 - l.squaredNorm();
    if (pivot < 1e-10) {
      state[static_cast<std::size_t>(j)] = column_state::dropped;
      return false;
    }
    chol.block(k, 0, 1, k) = l.transpose();
    chol(k, k) = std::sqrt(pivot);
    active.push_back(j);
    state[static_cast<std::size_t>(j)] = column_state::active;
    return true;
  }

  // The candidate that next reaches the active columns' correlation along the equiangular
  // direction, and the step gamma to it (Efron et al. 2004, eq. 2.13); -1 when none is left.
  Eigen::Index step(double big, double aa, const Eigen::VectorXd& av, double& gamma) const {
    Eigen::Index next = -1;
    const double tiny = 1e-14 * gamma;
    for (Eigen::Index j = 0; j < c.size(); ++j) {
      if (state[static_cast<std::size_t>(j)] != column_state::candidate) continue;
      for (const double t : {(big - c(j)) / (aa - av(j)), (big + c(j)) / (aa + av(j))})
        if (t > tiny && t < gamma) {
          gamma = t;
          next = j;
        }
    }
    return next;
  }
};

}  // namespace

std::vector<Eigen::Index> lars_order(const Eigen::MatrixXd& psi, const Eigen::VectorXd& y,
                                     std::size_t max_steps) {
  const Eigen::Index m = psi.cols() - 1;
  std::vector<Eigen::Index> order;
  if (m <= 0 || max_steps == 0) return order;
  lars_state s;
  s.x = psi.rightCols(m);
  s.x.rowwise() -= s.x.colwise().mean();
  const Eigen::RowVectorXd norms = s.x.colwise().norm();
  s.state.assign(static_cast<std::size_t>(m), column_state::candidate);
  for (Eigen::Index j = 0; j < m; ++j) {
    if (norms(j) <= 1e-10 * norms.maxCoeff())
      s.state[static_cast<std::size_t>(j)] = column_state::dropped;  // constant on these points
    else
      s.x.col(j) /= norms(j);
  }
  s.c = s.x.transpose() * (y.array() - y.mean()).matrix();
  const auto cap =
      static_cast<Eigen::Index>(std::min<std::size_t>(max_steps, static_cast<std::size_t>(m)));
  s.chol = Eigen::MatrixXd::Zero(cap, cap);

  Eigen::Index first = -1;
  for (Eigen::Index j = 0; j < m; ++j)
    if (s.state[static_cast<std::size_t>(j)] == column_state::candidate &&
        (first < 0 || std::abs(s.c(j)) > std::abs(s.c(first))))
      first = j;
  if (first < 0) return order;
  s.add(first);
  const double c0 = std::abs(s.c(first));
  while (static_cast<Eigen::Index>(s.active.size()) < cap) {
    const auto k = static_cast<Eigen::Index>(s.active.size());
    double big = 0.0;
    Eigen::VectorXd sign(k);
    for (Eigen::Index a = 0; a < k; ++a) {
      const double ca = s.c(s.active[static_cast<std::size_t>(a)]);
      big = std::max(big, std::abs(ca));
      sign(a) = ca < 0.0 ? -1.0 : 1.0;
    }
    if (big <= 1e-13 * c0) break;  // y is fitted exactly
    // Equiangular direction u = X_A w, w = A G^-1 s, A = (s^T G^-1 s)^-1/2 (eq. 2.4-2.6).
    const auto l = s.chol.topLeftCorner(k, k);
    Eigen::VectorXd z = l.triangularView<Eigen::Lower>().solve(sign);
    z = l.transpose().triangularView<Eigen::Upper>().solve(z);
    const double aa = 1.0 / std::sqrt(sign.dot(z));
    Eigen::VectorXd u = Eigen::VectorXd::Zero(psi.rows());
    for (Eigen::Index a = 0; a < k; ++a)
      u += aa * z(a) * s.x.col(s.active[static_cast<std::size_t>(a)]);
    const Eigen::VectorXd av = s.x.transpose() * u;
    double gamma = big / aa;  // the full least-squares step when no candidate is left
    const Eigen::Index next = s.step(big, aa, av, gamma);
    s.c -= gamma * av;
    if (next < 0) break;
    s.add(next);
  }
  order.reserve(s.active.size());
  for (const Eigen::Index j : s.active) order.push_back(j + 1);
  return order;
}

std::size_t best_lars_prefix(const Eigen::MatrixXd& psi, const Eigen::VectorXd& y,
                             const std::vector<Eigen::Index>& order) {
  const Eigen::Index n = psi.rows();
  const double nd = static_cast<double>(n);
  const double var = (y.array() - y.mean()).square().sum() / (nd - 1.0);
  const auto cap = static_cast<Eigen::Index>(order.size()) + 1;
  Eigen::MatrixXd q(n, cap), r_inv = Eigen::MatrixXd::Zero(cap, cap);
  Eigen::VectorXd h = Eigen::VectorXd::Zero(n), fitted = Eigen::VectorXd::Zero(n);
  double trace = 0.0;  // tr((Psi^T Psi)^-1) = ||R^-1||_F^2
  Eigen::Index k = 0;
  // Gram-Schmidt twice ("twice is enough", Giraud et al. 2005), then the hat diagonal, the
  // fitted values and R^-1 = [[R^-1, -R^-1 r / rho], [0, 1/rho]] grow by one column.
  const auto add = [&](const Eigen::VectorXd& col) {
    const auto qk = q.leftCols(k);
    Eigen::VectorXd r = qk.transpose() * col;
    Eigen::VectorXd v = col - qk * r;
    const Eigen::VectorXd again = qk.transpose() * v;
    v -= qk * again;
    r += again;
    const double rho = v.norm();
    if (!(rho > 1e-10 * col.norm())) return false;
    q.col(k) = v / rho;
    const Eigen::VectorXd top =
        -(r_inv.topLeftCorner(k, k).triangularView<Eigen::Upper>() * r) / rho;
    r_inv.block(0, k, k, 1) = top;
    r_inv(k, k) = 1.0 / rho;
    trace += top.squaredNorm() + 1.0 / (rho * rho);
    h += q.col(k).cwiseAbs2();
    fitted += q.col(k) * q.col(k).dot(y);
    ++k;
    return true;
  };
  double best = std::numeric_limits<double>::infinity();
  std::size_t best_k = 0;
  add(psi.col(0));
  for (std::size_t step = 0; step <= order.size(); ++step) {
    if (step > 0 && !add(psi.col(order[step - 1]))) break;  // every longer prefix is rank-deficient
    if (k >= n) break;
    const double loo = ((y - fitted).array() / (1.0 - h.array())).square().sum() / nd / var;
    const double corrected = loo * nd / (nd - static_cast<double>(k)) * (1.0 + trace);
    if (corrected < best) {
      best = corrected;
      best_k = step;
    }
  }
  return best_k;
}

}  // namespace contactuq::uq::detail
