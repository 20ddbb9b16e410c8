#include "contactuq/uq/design.hpp"

#include <boost/random/sobol.hpp>
#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <bit>
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
              kind == design_kind::maximin_latin_hypercube || is_quasi_monte_carlo(kind),
          "kind", static_cast<double>(kind), "", "a design_kind");
  require(replicates >= 1 && replicates <= 1'000'000, "replicates", static_cast<double>(replicates), "",
          "in [1, 1e6]");
  if (replicates > 1 && !is_quasi_monte_carlo(kind))
    throw parameter_error("replicates", fmt::format("replicates = {}: only the sobol and halton designs take "
                                                    "replicates (design {})",
                                                    replicates, to_string(kind)));
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
    case design_kind::sobol:
      return "sobol";
    case design_kind::halton:
      return "halton";
  }
  return "unknown";
}

design_kind parse_design_kind(std::string_view name) {
  for (const auto kind : {design_kind::monte_carlo, design_kind::latin_hypercube,
                          design_kind::maximin_latin_hypercube, design_kind::sobol, design_kind::halton}) {
    if (name == to_string(kind)) return kind;
  }
  throw parameter_error("design", fmt::format("unknown design '{}'; known designs: monte_carlo, "
                                              "latin_hypercube, maximin_latin_hypercube, sobol, halton",
                                              name));
}

bool is_quasi_monte_carlo(design_kind kind) noexcept {
  return kind == design_kind::sobol || kind == design_kind::halton;
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

// The 32 direction numbers v_jk of Sobol' column j, as left-aligned 32-bit words, from the
// Joe-Kuo primitive polynomials and initial m values that Boost.Random ships (Bratley & Fox
// 1988 recurrence, m_k = 2 a_1 m_{k-1} ^ ... ^ 2^s m_{k-s} ^ m_{k-s}).
std::array<std::uint32_t, 32> sobol_direction_numbers(std::size_t j) {
  using table = boost::random::detail::qrng_tables::sobol;
  // A copy: the header declares max_dimension without a definition, so binding it to a
  // reference (fmt's arguments) fails to link in unoptimised builds.
  constexpr std::size_t max_dimension = table::max_dimension;
  if (j + 1 >= max_dimension)
    throw parameter_error("inputs", fmt::format("the sobol design has at most {} columns, asked for column {}",
                                                max_dimension, j + 1));
  std::array<std::uint32_t, 32> m{};
  if (j == 0) {
    m.fill(1);
  } else {
    const auto poly = static_cast<std::uint64_t>(table::polynomial(j - 1));
    const unsigned degree = static_cast<unsigned>(std::bit_width(poly) - 1);
    for (unsigned k = 0; k < degree; ++k) m[k] = static_cast<std::uint32_t>(table::minit(j - 1, k));
    for (unsigned k = degree; k < 32; ++k) {
      std::uint32_t v = m[k - degree] ^ (m[k - degree] << degree);
      for (unsigned q = 1; q < degree; ++q)
        if ((poly >> (degree - q)) & 1U) v ^= m[k - q] << q;
      m[k] = v;
    }
  }
  std::array<std::uint32_t, 32> v{};
  for (unsigned k = 0; k < 32; ++k) v[k] = m[k] << (31 - k);
  return v;
}

// The uniform in (0, 1) whose top 32 bits are x and whose 21 bits below are `tail`: the 53-bit
// integer k = x 2^21 + tail gives u = (k + 1/2) 2^-53, exact and never 0 or 1.
double from_bits(std::uint32_t x, std::uint64_t tail) {
  const std::uint64_t k = (static_cast<std::uint64_t>(x) << 21) | (tail >> 43);
  return (static_cast<double>(k) + 0.5) * 0x1.0p-53;
}

// Nested uniform scramble of a 32-bit Sobol' coordinate: bit 31 - l is flipped by one random bit
// of the hash of (key, level l, the l bits above it), so points that share their first l bits
// share the flips of those bits (Owen 1995).
std::uint32_t owen_scramble(std::uint32_t x, std::uint64_t key) {
  std::uint32_t out = 0;
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned bit = 31 - l;
    const std::uint64_t prefix = l == 0 ? 0 : static_cast<std::uint64_t>(x >> (bit + 1));
    const std::uint64_t flip = mix64(key ^ ((prefix << 6) | l)) >> 63;
    out |= static_cast<std::uint32_t>((((x >> bit) & 1U) ^ flip) << bit);
  }
  return out;
}

// The j-th prime (j = 0: 2).
std::uint64_t prime(std::size_t j) {
  static const std::vector<std::uint64_t> primes = [] {
    std::vector<std::uint64_t> p;
    for (std::uint64_t c = 2; p.size() < 20000; ++c) {
      bool is_prime = true;
      for (std::uint64_t q : p) {
        if (q * q > c) break;
        if (c % q == 0) {
          is_prime = false;
          break;
        }
      }
      if (is_prime) p.push_back(c);
    }
    return p;
  }();
  if (j >= primes.size())
    throw parameter_error("inputs", fmt::format("the halton design has at most {} columns, asked for column {}",
                                                primes.size(), j + 1));
  return primes[j];
}

// Rows [first, first + count) of a QMC design: for each replicate r, rows r m .. r m + m - 1
// are points 0..m-1 of scramble (seed, qmc_scramble, r) of column j (header).
void quasi_monte_carlo_rows(Eigen::Ref<Eigen::MatrixXd> u, std::size_t n, const design_options& options,
                            std::size_t first) {
  if (n % options.replicates != 0)
    throw parameter_error("replicates", fmt::format("samples = {} is no multiple of replicates = {}", n,
                                                    options.replicates));
  const std::size_t m = n / options.replicates, end = first + static_cast<std::size_t>(u.rows());
  std::vector<double> column;
  for (std::size_t r = first / m; r * m < end; ++r) {
    const std::size_t from = std::max(first, r * m), to = std::min(end, (r + 1) * m);  // rows of replicate r
    column.resize(to - from);
    const std::uint64_t replicate_key = derive_seed(options.seed, stream_purpose::qmc_scramble, r);
    for (Eigen::Index j = 0; j < u.cols(); ++j) {
      const std::uint64_t key = mix64(replicate_key ^ mix64(static_cast<std::uint64_t>(j)));
      if (options.kind == design_kind::sobol)
        scrambled_sobol_column(column, from - r * m, static_cast<std::size_t>(j), key);
      else
        scrambled_halton_column(column, from - r * m, static_cast<std::size_t>(j), key);
      for (std::size_t i = from; i < to; ++i) u(static_cast<Eigen::Index>(i - first), j) = column[i - from];
    }
  }
}

}  // namespace

void scrambled_sobol_column(std::span<double> out, std::size_t first, std::size_t j, std::uint64_t key) {
  const auto v = sobol_direction_numbers(j);
  const std::uint64_t tail_key = mix64(key ^ 0x5851f42d4c957f2dULL);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint64_t index = first + i;
    if (index >> 32)
      throw parameter_error("samples", fmt::format("the sobol design has at most 2^32 points, asked for point {}",
                                                   index));
    std::uint32_t x = 0;
    for (unsigned k = 0; k < 32; ++k)
      if ((index >> k) & 1U) x ^= v[k];
    const std::uint32_t s = owen_scramble(x, key);
    out[i] = from_bits(s, mix64(tail_key ^ x));
  }
}

void scrambled_halton_column(std::span<double> out, std::size_t first, std::size_t j, std::uint64_t key) {
  const std::uint64_t b = prime(j);
  // Digits down to b^-levels < 2^-53: below them nothing shows in a double.
  const int levels = static_cast<int>(std::ceil(53.0 / std::log2(static_cast<double>(b))));
  std::vector<std::uint64_t> digit(static_cast<std::size_t>(levels));
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint64_t rest = first + i, below = 0, weight = 1;  // below = i mod b^l
    for (int l = 0; l < levels; ++l) {
      const std::uint64_t a = rest % b;
      rest /= b;
      const std::uint64_t h = mix64(key ^ mix64((below << 7) | static_cast<std::uint64_t>(l)));
      const std::uint64_t alpha = 1 + (h >> 32) % (b - 1 == 0 ? 1 : b - 1);
      const std::uint64_t beta = (h & 0xffffffffULL) % b;
      digit[static_cast<std::size_t>(l)] = (alpha * a + beta) % b;
      if (weight <= (std::uint64_t{1} << 63) / b) {
        below += a * weight;
        weight *= b;
      }
    }
    double u = 0.0;  // Horner from the last digit: u = (d_0 + (d_1 + ...)/b)/b
    for (int l = levels - 1; l >= 0; --l)
      u = (static_cast<double>(digit[static_cast<std::size_t>(l)]) + u) / static_cast<double>(b);
    out[i] = std::clamp(u, 0x1.0p-54, std::nextafter(1.0, 0.0));
  }
}

double centred_l2_discrepancy(const Eigen::MatrixXd& x) {
  const Eigen::Index n = x.rows(), d = x.cols();
  const Eigen::MatrixXd z = (x.array() - 0.5).abs().matrix();
  double term2 = 0.0, term3 = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    double p = 1.0;
    for (Eigen::Index j = 0; j < d; ++j) p *= 1.0 + 0.5 * z(i, j) - 0.5 * z(i, j) * z(i, j);
    term2 += p;
    for (Eigen::Index k = 0; k < n; ++k) {
      double q = 1.0;
      for (Eigen::Index j = 0; j < d; ++j)
        q *= 1.0 + 0.5 * z(i, j) + 0.5 * z(k, j) - 0.5 * std::abs(x(i, j) - x(k, j));
      term3 += q;
    }
  }
  const double nd = static_cast<double>(n);
  return std::sqrt(std::max(0.0, std::pow(13.0 / 12.0, static_cast<double>(d)) - 2.0 / nd * term2 +
                                     term3 / (nd * nd)));
}

Eigen::RowVectorXd monte_carlo_row(std::uint64_t seed, std::size_t i, std::size_t d) {
  engine e = make_engine(seed, stream_purpose::monte_carlo_row, i);
  Eigen::RowVectorXd row(static_cast<Eigen::Index>(d));
  for (Eigen::Index j = 0; j < row.size(); ++j) row(j) = open_uniform(e);
  return row;
}

Eigen::MatrixXd unit_design(std::size_t n, std::size_t d, const design_options& options) {
  if (has_row_access(options.kind)) return rows_of_unit_design(n, d, options, 0, n);
  options.validate();
  check_size(n, d);
  Eigen::MatrixXd u(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  // Columns draw from streams of their own: made in parallel, the same bits.
  tbb::parallel_for(std::size_t{0}, d, [&](std::size_t j) { latin_hypercube_column(u, j, options); });
  if (options.kind == design_kind::maximin_latin_hypercube) maximin_optimise(u, options);
  return u;
}

bool has_row_access(design_kind kind) noexcept {
  return kind == design_kind::monte_carlo || is_quasi_monte_carlo(kind);
}

Eigen::MatrixXd rows_of_unit_design(std::size_t n, std::size_t d, const design_options& options, std::size_t first,
                                    std::size_t count) {
  options.validate();
  check_size(n, d);
  if (!has_row_access(options.kind))
    throw parameter_error("design", fmt::format("rows of a {} design cannot be made alone", to_string(options.kind)));
  if (first > n || count > n - first)
    throw parameter_error("rows", fmt::format("rows [{}, {}) of a design of {} rows", first, first + count, n));
  Eigen::MatrixXd u(static_cast<Eigen::Index>(count), static_cast<Eigen::Index>(d));
  if (options.kind == design_kind::monte_carlo) {
    for (std::size_t i = 0; i < count; ++i) u.row(static_cast<Eigen::Index>(i)) = monte_carlo_row(options.seed, first + i, d);
  } else {
    quasi_monte_carlo_rows(u, n, options, first);
  }
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
