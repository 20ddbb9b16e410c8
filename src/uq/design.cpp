#include "contactuq/uq/design.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"

namespace contactuq::uq {

void design_options::validate() const {
  require(maximin_iterations <= 1'000'000'000, "maximin_iterations",
          static_cast<double>(maximin_iterations), "", "<= 1e9");
  require(std::isfinite(maximin_exponent) && maximin_exponent >= 1.0 && maximin_exponent <= 500.0,
          "maximin_exponent", maximin_exponent, "", "in [1, 500]");
  require(kind == design_kind::monte_carlo || kind == design_kind::latin_hypercube ||
              kind == design_kind::maximin_latin_hypercube,
          "kind", static_cast<double>(kind), "", "a design_kind");
  require(position == stratum_position::random || position == stratum_position::centred, "position",
          static_cast<double>(position), "", "a stratum_position");
}

std::string to_string(design_kind kind) {
  switch (kind) {
    case design_kind::monte_carlo:
      return "monte_carlo";
    case design_kind::latin_hypercube:
      return "latin_hypercube";
    case design_kind::maximin_latin_hypercube:
      return "maximin_latin_hypercube";
  }
  return "unknown";
}

design_kind parse_design_kind(std::string_view name) {
  for (const auto kind : {design_kind::monte_carlo, design_kind::latin_hypercube,
                          design_kind::maximin_latin_hypercube}) {
    if (name == to_string(kind)) return kind;
  }
  throw parameter_error("design", fmt::format("unknown design '{}'; known designs: monte_carlo, "
                                              "latin_hypercube, maximin_latin_hypercube",
                                              name));
}

std::string to_string(stratum_position position) {
  return position == stratum_position::centred ? "centred" : "random";
}

stratum_position parse_stratum_position(std::string_view name) {
  if (name == "random") return stratum_position::random;
  if (name == "centred" || name == "centered") return stratum_position::centred;
  throw parameter_error("position", fmt::format("unknown stratum position '{}'; known positions: "
                                                "random, centred",
                                                name));
}

namespace {

void check_size(std::size_t n, std::size_t d) {
  require(n >= 1, "samples", static_cast<double>(n), "", ">= 1");
  require(d >= 1, "inputs", static_cast<double>(d), "", ">= 1");
}

// u = (k + v)/N for stratum k, then moved by whole ulps, if rounding put it outside, until
// floor(u N) == k and 0 < u < 1 hold in floating point, which is how anyone checking the design
// will test stratum membership.
double in_stratum(std::size_t k, double v, std::size_t n) {
  const double nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  double u = (kd + v) / nd;
  for (int step = 0; step < 64; ++step) {
    const double s = std::floor(u * nd);
    if (s > kd || u >= 1.0) {
      u = std::nextafter(u, 0.0);
    } else if (s < kd || u <= 0.0) {
      u = std::nextafter(u, 1.0);
    } else {
      break;
    }
  }
  return u;
}

// Column j of a Latin hypercube: the permutation from stream (seed, lhs_permutation, j), the
// positions within strata from stream (seed, lhs_jitter, j).
void latin_hypercube_column(Eigen::MatrixXd& u, std::size_t j, const design_options& options) {
  const std::size_t n = static_cast<std::size_t>(u.rows());
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  engine perm_engine = make_engine(options.seed, stream_purpose::lhs_permutation, j);
  for (std::size_t i = n - 1; i > 0; --i) {  // Fisher-Yates
    std::swap(perm[i], perm[uniform_index(perm_engine, i + 1)]);
  }
  engine jitter_engine = make_engine(options.seed, stream_purpose::lhs_jitter, j);
  const auto col = static_cast<Eigen::Index>(j);
  for (std::size_t i = 0; i < n; ++i) {
    const double v =
        options.position == stratum_position::centred ? 0.5 : open_uniform(jitter_engine);
    u(static_cast<Eigen::Index>(i), col) = in_stratum(perm[i], v, n);
  }
}

// Morris-Mitchell column-swap optimisation (header). Works on the transpose, one point per
// column, so that the distance loops run over contiguous memory.
void maximin_optimise(Eigen::MatrixXd& u, const design_options& options) {
  const Eigen::Index n = u.rows(), d = u.cols();
  if (n < 3 || d < 2) return;  // no swap can change any distance
  Eigen::MatrixXd pts = u.transpose();
  engine e = make_engine(options.seed, stream_purpose::maximin_swaps, 0);
  const double half_p = 0.5 * options.maximin_exponent;
  std::vector<double> old_a(static_cast<std::size_t>(n)), old_b(old_a.size()), new_a(old_a.size()),
      new_b(old_a.size());
  Eigen::VectorXd swapped_a(d), swapped_b(d);

  for (std::size_t iter = 0; iter < options.maximin_iterations; ++iter) {
    const auto j = static_cast<Eigen::Index>(uniform_index(e, static_cast<std::uint64_t>(d)));
    const auto a = static_cast<Eigen::Index>(uniform_index(e, static_cast<std::uint64_t>(n)));
    auto b = static_cast<Eigen::Index>(uniform_index(e, static_cast<std::uint64_t>(n - 1)));
    if (b >= a) ++b;
    swapped_a = pts.col(a);
    swapped_b = pts.col(b);
    std::swap(swapped_a(j), swapped_b(j));

    // Squared distances of a and b to every other point, before and after the swap.
    double min_old = std::numeric_limits<double>::infinity(), min_new = min_old;
    for (Eigen::Index k = 0; k < n; ++k) {
      if (k == a || k == b) continue;
      const auto s = static_cast<std::size_t>(k);
      old_a[s] = (pts.col(a) - pts.col(k)).squaredNorm();
      old_b[s] = (pts.col(b) - pts.col(k)).squaredNorm();
      new_a[s] = (swapped_a - pts.col(k)).squaredNorm();
      new_b[s] = (swapped_b - pts.col(k)).squaredNorm();
      min_old = std::min({min_old, old_a[s], old_b[s]});
      min_new = std::min({min_new, new_a[s], new_b[s]});
    }
    if (!(min_new >= min_old)) continue;  // the closest changed pair would get closer

    // Change of phi_p over the changed pairs, each term scaled by min_old^(p/2) so that every
    // term is <= 1 (no overflow for large p); the scaling does not change the sign.
    double delta = 0.0;
    for (Eigen::Index k = 0; k < n; ++k) {
      if (k == a || k == b) continue;
      const auto s = static_cast<std::size_t>(k);
      delta += std::pow(min_old / new_a[s], half_p) + std::pow(min_old / new_b[s], half_p) -
               std::pow(min_old / old_a[s], half_p) - std::pow(min_old / old_b[s], half_p);
    }
    if (delta < 0.0) std::swap(pts(j, a), pts(j, b));
  }
  u = pts.transpose();
}

}  // namespace

Eigen::RowVectorXd monte_carlo_row(std::uint64_t seed, std::size_t i, std::size_t d) {
  engine e = make_engine(seed, stream_purpose::monte_carlo_row, i);
  Eigen::RowVectorXd row(static_cast<Eigen::Index>(d));
  for (Eigen::Index j = 0; j < row.size(); ++j) row(j) = open_uniform(e);
  return row;
}

Eigen::MatrixXd unit_design(std::size_t n, std::size_t d, const design_options& options) {
  options.validate();
  check_size(n, d);
  Eigen::MatrixXd u(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  if (options.kind == design_kind::monte_carlo) {
    for (std::size_t i = 0; i < n; ++i) {
      u.row(static_cast<Eigen::Index>(i)) = monte_carlo_row(options.seed, i, d);
    }
    return u;
  }
  for (std::size_t j = 0; j < d; ++j) latin_hypercube_column(u, j, options);
  if (options.kind == design_kind::maximin_latin_hypercube) maximin_optimise(u, options);
  return u;
}

Eigen::MatrixXd map_to_inputs(const Eigen::MatrixXd& u, std::span<const distribution> inputs) {
  if (static_cast<std::size_t>(u.cols()) != inputs.size()) {
    throw parameter_error("inputs", fmt::format("design has {} columns but {} distributions were "
                                                "given: need one distribution per column",
                                                u.cols(), inputs.size()));
  }
  Eigen::MatrixXd x(u.rows(), u.cols());
  for (Eigen::Index j = 0; j < u.cols(); ++j) {
    const distribution& dist = inputs[static_cast<std::size_t>(j)];
    for (Eigen::Index i = 0; i < u.rows(); ++i) x(i, j) = dist.quantile(u(i, j));
  }
  return x;
}

double min_pairwise_distance(const Eigen::MatrixXd& points) {
  const Eigen::MatrixXd pts = points.transpose();
  double best = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < pts.cols(); ++i) {
    for (Eigen::Index k = i + 1; k < pts.cols(); ++k) {
      best = std::min(best, (pts.col(i) - pts.col(k)).squaredNorm());
    }
  }
  return std::sqrt(best);
}

}  // namespace contactuq::uq
