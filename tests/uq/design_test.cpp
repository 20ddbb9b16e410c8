#include "contactuq/uq/design.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"

using namespace contactuq::uq;
using Catch::Matchers::Contains;

namespace {

bool identical(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

// Analytic model for the convergence tests: f(u) = sum_j u_j^2 over d uniforms on (0, 1),
// E[f] = d/3, Var[f] = d (E[u^4] - E[u^2]^2) = d (1/5 - 1/9) = 4d/45.
double design_mean_error(const Eigen::MatrixXd& u) {
  return u.array().square().rowwise().sum().mean() - static_cast<double>(u.cols()) / 3.0;
}

// Root-mean-square error of the design mean of f over `reps` seeds.
double rms_error(std::size_t n, std::size_t d, design_options options, int reps) {
  double sum_sq = 0.0;
  for (int r = 0; r < reps; ++r) {
    options.seed = 1000 + static_cast<std::uint64_t>(r);
    const double e = design_mean_error(unit_design(n, d, options));
    sum_sq += e * e;
  }
  return std::sqrt(sum_sq / reps);
}

// Exact variance of the random-LHS mean of f: each column holds one independent uniform per
// stratum [k/N, (k+1)/N), so Var = d/N^2 sum_k Var(u^2 | stratum k), with
// E[u^m | [a, a+h]] = ((a+h)^(m+1) - a^(m+1)) / ((m+1) h).
double lhs_variance(std::size_t n, std::size_t d) {
  const double h = 1.0 / static_cast<double>(n);
  double sum = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double a = static_cast<double>(k) * h, b = a + h;
    const double m2 = (std::pow(b, 3) - std::pow(a, 3)) / (3 * h);
    const double m4 = (std::pow(b, 5) - std::pow(a, 5)) / (5 * h);
    sum += m4 - m2 * m2;
  }
  return static_cast<double>(d) * sum * h * h;
}

}  // namespace

TEST_CASE("the random streams are the published generators", "[uq][design]") {
  // SplitMix64 with state 0: first output 0xe220a8397b1dcdaf (Vigna, splitmix64.c).
  CHECK(mix64(0) == 0xe220a8397b1dcdafULL);
  // C++ [rand.predef]: the 10000th output of a default-constructed mt19937_64.
  engine e;
  for (int i = 1; i < 10000; ++i) e();
  CHECK(e() == 9981545732273789042ULL);
}

TEST_CASE("Monte Carlo uniforms lie in (0, 1) with the moments of U(0, 1)", "[uq][design]") {
  const std::size_t n = 100000;
  const Eigen::MatrixXd u = unit_design(n, 2, {.kind = design_kind::monte_carlo, .seed = 11});
  CHECK((u.array() > 0.0).all());
  CHECK((u.array() < 1.0).all());
  // Mean 1/2 with standard error sqrt(1/12/n) = 9e-4; variance 1/12; the two columns
  // uncorrelated (standard error of the correlation 1/sqrt(n) = 3e-3).
  for (Eigen::Index j = 0; j < 2; ++j) {
    const double mean = u.col(j).mean();
    CHECK(mean == Approx(0.5).margin(5 * std::sqrt(1.0 / 12 / n)));
    CHECK((u.col(j).array() - mean).square().mean() == Approx(1.0 / 12).epsilon(0.02));
  }
  const Eigen::ArrayXd a = u.col(0).array() - 0.5, b = u.col(1).array() - 0.5;
  CHECK((a * b).mean() * 12 == Approx(0.0).margin(5 / std::sqrt(double(n))));
}

TEST_CASE("every Latin hypercube stratum is hit exactly once per dimension", "[uq][design]") {
  const auto kind = GENERATE(design_kind::latin_hypercube, design_kind::maximin_latin_hypercube);
  const auto position = GENERATE(stratum_position::random, stratum_position::centred);
  const std::size_t n = GENERATE(1, 2, 7, 100, 997);
  const std::size_t d = 5;
  design_options options{.kind = kind, .seed = 42, .position = position, .maximin_iterations = 200};
  const Eigen::MatrixXd u = unit_design(n, d, options);
  INFO(to_string(kind) << ", " << to_string(position) << ", N = " << n);
  REQUIRE(u.rows() == static_cast<Eigen::Index>(n));
  REQUIRE(u.cols() == static_cast<Eigen::Index>(d));
  CHECK((u.array() > 0.0).all());
  CHECK((u.array() < 1.0).all());
  const double nd = static_cast<double>(n);
  std::vector<std::size_t> expected(n);
  std::iota(expected.begin(), expected.end(), std::size_t{0});
  for (Eigen::Index j = 0; j < u.cols(); ++j) {
    std::vector<std::size_t> strata;
    for (Eigen::Index i = 0; i < u.rows(); ++i) {
      strata.push_back(static_cast<std::size_t>(std::floor(u(i, j) * nd)));
    }
    std::sort(strata.begin(), strata.end());
    CHECK(strata == expected);
    if (position == stratum_position::centred) {
      for (Eigen::Index i = 0; i < u.rows(); ++i) {
        CHECK(u(i, j) * nd - std::floor(u(i, j) * nd) == Approx(0.5).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("maximin optimisation increases the smallest distance between samples", "[uq][design]") {
  const std::uint64_t seed = GENERATE(1, 2, 3, 4, 5);
  const auto position = GENERATE(stratum_position::random, stratum_position::centred);
  const std::size_t n = 40, d = 3;
  design_options options{.seed = seed, .position = position, .maximin_iterations = 4000};
  const Eigen::MatrixXd plain = unit_design(n, d, options);
  options.kind = design_kind::maximin_latin_hypercube;
  const Eigen::MatrixXd improved = unit_design(n, d, options);
  const double before = min_pairwise_distance(plain);
  const double after = min_pairwise_distance(improved);
  INFO("seed " << seed << ", " << to_string(position) << ": " << before << " -> " << after);
  CHECK(after > before);
  // For scale: N points in the unit cube cannot all be further apart than the spacing of a
  // cubic lattice with the same number of points, about N^(-1/d); a space-filling design
  // should come within a factor of two of it, a plain Latin hypercube typically does not.
  CHECK(after > 0.5 * std::pow(static_cast<double>(n), -1.0 / d));
}

TEST_CASE("Monte Carlo mean converges as N^-1/2 with the analytic variance", "[uq][design]") {
  // RMS error over 400 seeds; its sampling error is about 1/sqrt(2 * 400) = 3.5 %.
  const std::size_t d = 4;
  const int reps = 400;
  const design_options mc{.kind = design_kind::monte_carlo};
  const std::vector<std::size_t> sizes = {25, 100, 400};
  std::vector<double> rms;
  for (const std::size_t n : sizes) {
    rms.push_back(rms_error(n, d, mc, reps));
    const double theory = std::sqrt(4.0 * d / 45.0 / static_cast<double>(n));
    INFO("N = " << n << ": rms " << rms.back() << ", theory " << theory);
    CHECK(rms.back() == Approx(theory).epsilon(0.15));
  }
  const double slope = std::log(rms.back() / rms.front()) / std::log(400.0 / 25.0);
  CHECK(slope == Approx(-0.5).margin(0.08));
}

TEST_CASE("Latin hypercube mean of an additive model converges as N^-3/2", "[uq][design]") {
  const std::size_t d = 4;
  const int reps = 400;
  SECTION("random positions: RMS error matches the stratified variance") {
    const design_options lhs{.kind = design_kind::latin_hypercube};
    const std::vector<std::size_t> sizes = {25, 100, 400};
    std::vector<double> rms;
    for (const std::size_t n : sizes) {
      rms.push_back(rms_error(n, d, lhs, reps));
      const double theory = std::sqrt(lhs_variance(n, d));
      INFO("N = " << n << ": rms " << rms.back() << ", theory " << theory);
      CHECK(rms.back() == Approx(theory).epsilon(0.15));
      // Much better than Monte Carlo at the same N: the ratio grows like N.
      CHECK(rms.back() <
            std::sqrt(4.0 * d / 45.0 / static_cast<double>(n)) / (0.3 * static_cast<double>(n)));
    }
    const double slope = std::log(rms.back() / rms.front()) / std::log(400.0 / 25.0);
    CHECK(slope == Approx(-1.5).margin(0.1));
  }
  SECTION("centred positions: the midpoint rule, error exactly -d/(12 N^2)") {
    // (1/N) sum_k ((k + 1/2)/N)^2 = 1/3 - 1/(12 N^2), whatever the permutations.
    for (const std::size_t n : {10, 100, 1000}) {
      for (const auto kind : {design_kind::latin_hypercube, design_kind::maximin_latin_hypercube}) {
        const design_options centred{.kind = kind,
                                     .seed = 5,
                                     .position = stratum_position::centred,
                                     .maximin_iterations = 100};
        const double nd = static_cast<double>(n);
        CHECK(design_mean_error(unit_design(n, d, centred)) ==
              Approx(-static_cast<double>(d) / (12 * nd * nd)).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("designs are reproducible by construction", "[uq][design]") {
  const auto kind = GENERATE(design_kind::monte_carlo, design_kind::latin_hypercube,
                             design_kind::maximin_latin_hypercube);
  INFO(to_string(kind));
  design_options options{.kind = kind, .seed = 2024, .maximin_iterations = 500};
  const Eigen::MatrixXd a = unit_design(60, 4, options);
  CHECK(identical(a, unit_design(60, 4, options)));
  options.seed = 2025;
  const Eigen::MatrixXd b = unit_design(60, 4, options);
  // Different seeds: no entry in common (random positions are continuous).
  CHECK((a.array() == b.array()).count() == 0);
}

TEST_CASE("a Monte Carlo row can be regenerated on its own", "[uq][design]") {
  const design_options mc{.kind = design_kind::monte_carlo, .seed = 77};
  const Eigen::MatrixXd batch = unit_design(500, 6, mc);
  for (const std::size_t i : {0, 1, 250, 499}) {
    CHECK(identical(monte_carlo_row(77, i, 6), batch.row(static_cast<Eigen::Index>(i))));
  }
  // A shorter run is a prefix of a longer one, so extending a study keeps its samples.
  CHECK(identical(unit_design(100, 6, mc), batch.topRows(100)));
  // Rows are not shifted copies of one stream: row i+1 does not start where row i ended.
  CHECK(batch(1, 0) != batch(0, 5));
}

TEST_CASE("Latin hypercube columns do not depend on the number of columns", "[uq][design]") {
  const design_options lhs{.seed = 8};
  CHECK(identical(unit_design(50, 3, lhs), unit_design(50, 5, lhs).leftCols(3)));
}

TEST_CASE("designs map through the quantile functions of their inputs", "[uq][design]") {
  const std::vector<distribution> inputs = {make_normal(0.21, 0.02), make_uniform(1.0, 3.0)};
  const Eigen::MatrixXd u = unit_design(100, 2, {.seed = 3});
  const Eigen::MatrixXd x = map_to_inputs(u, inputs);
  for (Eigen::Index i = 0; i < u.rows(); ++i) {
    CHECK(x(i, 1) == Approx(1.0 + 2.0 * u(i, 1)).epsilon(1e-15));
    CHECK(x(i, 0) == inputs[0].quantile(u(i, 0)));
  }
  CHECK_THROWS_WITH(map_to_inputs(u, std::vector<distribution>{inputs[0]}),
                    Contains("design has 2 columns but 1 distributions were given"));
}

TEST_CASE("bad design options say which field, its value and what is allowed", "[uq][design]") {
  CHECK_THROWS_WITH(unit_design(0, 2, {}), Contains("samples = 0: must be >= 1"));
  CHECK_THROWS_WITH(unit_design(5, 0, {}), Contains("inputs = 0: must be >= 1"));
  design_options options;
  options.maximin_exponent = 0.5;
  CHECK_THROWS_WITH(options.validate(), Contains("maximin_exponent = 0.5: must be in [1, 500]"));
  options = {};
  options.maximin_iterations = 2'000'000'000;
  CHECK_THROWS_WITH(options.validate(),
                    Contains("maximin_iterations = 2000000000: must be <= 1e9"));
  try {
    parse_design_kind("faure");
    FAIL("no exception");
  } catch (const contactuq::parameter_error& e) {
    CHECK(e.field() == "design");
    CHECK_THAT(e.what(), Contains("unknown design 'faure'") && Contains("latin_hypercube"));
  }
  CHECK(parse_design_kind("maximin_latin_hypercube") == design_kind::maximin_latin_hypercube);
  CHECK(parse_stratum_position("centered") == stratum_position::centred);
  CHECK_THROWS_WITH(parse_stratum_position("middle"),
                    Contains("unknown stratum position 'middle'"));
}

namespace {

// A smooth, non-additive integrand on (0, 1)^d with known mean:
//   g(u) = prod_j (1 + (u_j^2 - 1/3)),  E[g] = 1.
double product_mean_error(const Eigen::MatrixXd& u) {
  const Eigen::ArrayXd g = (1.0 + (u.array().square() - 1.0 / 3.0)).rowwise().prod();
  return g.mean() - 1.0;
}

double product_rms_error(std::size_t n, std::size_t d, design_options options, int reps) {
  double sum_sq = 0.0;
  for (int r = 0; r < reps; ++r) {
    options.seed = 500 + static_cast<std::uint64_t>(r);
    const double e = product_mean_error(unit_design(n, d, options));
    sum_sq += e * e;
  }
  return std::sqrt(sum_sq / reps);
}

// Points in the elementary interval of box index (a, b) of sizes (2^-p, 2^-q), for each box.
std::vector<int> box_counts(const Eigen::MatrixXd& u, Eigen::Index j, Eigen::Index k, int p, int q) {
  std::vector<int> counts(std::size_t{1} << (p + q), 0);
  for (Eigen::Index i = 0; i < u.rows(); ++i) {
    const auto a = static_cast<std::size_t>(std::floor(std::ldexp(u(i, j), p)));
    const auto b = static_cast<std::size_t>(std::floor(std::ldexp(u(i, k), q)));
    ++counts[(a << q) | b];
  }
  return counts;
}

}  // namespace

TEST_CASE("scrambled Sobol' points keep the (0, m, 2)-net property of the first two columns", "[uq][design][qmc]") {
  // Sobol' columns 0 and 1 form a (0, m, 2)-net in base 2: every box of area 2^-m with sides
  // 2^-p x 2^-(m - p) holds exactly one of 2^m points; nested scrambling keeps it (Owen 1995).
  const int m = 8;
  design_options o{.kind = design_kind::sobol, .seed = GENERATE(1u, 7u, 12345u)};
  const Eigen::MatrixXd u = unit_design(std::size_t{1} << m, 3, o);
  CHECK((u.array() > 0.0).all());
  CHECK((u.array() < 1.0).all());
  for (int p = 0; p <= m; ++p) {
    const auto counts = box_counts(u, 0, 1, p, m - p);
    CHECK(std::all_of(counts.begin(), counts.end(), [](int c) { return c == 1; }));
  }
  // Every column alone: one point per interval [k/2^m, (k+1)/2^m).
  for (Eigen::Index j = 0; j < u.cols(); ++j) {
    const auto counts = box_counts(u, j, j, m, 0);
    CHECK(std::all_of(counts.begin(), counts.end(), [](int c) { return c == 1; }));
  }
}

TEST_CASE("scrambled Halton columns are stratified in their own base", "[uq][design][qmc]") {
  // Column j runs the van der Corput sequence in base prime(j); b^k points put one point in each
  // interval [i/b^k, (i+1)/b^k), and nested digit scrambling keeps that.
  design_options o{.kind = design_kind::halton, .seed = GENERATE(3u, 99u)};
  const Eigen::MatrixXd u = unit_design(3 * 3 * 3 * 3 * 3, 3, o);
  CHECK((u.array() > 0.0).all());
  CHECK((u.array() < 1.0).all());
  std::vector<int> counts(243, 0);
  for (Eigen::Index i = 0; i < u.rows(); ++i) ++counts[static_cast<std::size_t>(std::floor(u(i, 1) * 243.0))];
  CHECK(std::all_of(counts.begin(), counts.end(), [](int c) { return c == 1; }));
  std::vector<int> counts5(125, 0);
  const Eigen::MatrixXd v = unit_design(125, 3, o);
  for (Eigen::Index i = 0; i < v.rows(); ++i) ++counts5[static_cast<std::size_t>(std::floor(v(i, 2) * 125.0))];
  CHECK(std::all_of(counts5.begin(), counts5.end(), [](int c) { return c == 1; }));
}

TEST_CASE("the centred L2 discrepancy of QMC designs is below that of Monte Carlo", "[uq][design][qmc]") {
  // One point at the centre of [0, 1]: CD^2 = 13/12 - 2 + 1 = 1/12.
  CHECK(centred_l2_discrepancy(Eigen::MatrixXd::Constant(1, 1, 0.5)) == Approx(std::sqrt(1.0 / 12.0)));
  const std::size_t n = 256, d = 4;
  double mc = 0.0, sobol = 0.0, halton = 0.0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    mc += centred_l2_discrepancy(unit_design(n, d, {.kind = design_kind::monte_carlo, .seed = seed}));
    sobol += centred_l2_discrepancy(unit_design(n, d, {.kind = design_kind::sobol, .seed = seed}));
    halton += centred_l2_discrepancy(unit_design(n, d, {.kind = design_kind::halton, .seed = seed}));
  }
  CHECK(sobol < 0.5 * mc);
  CHECK(halton < 0.5 * mc);
}

TEST_CASE("RQMC beats Monte Carlo on a smooth integrand", "[uq][design][qmc]") {
  // MC: RMS error sqrt(Var g / N), Var g = (1 + 4/45)^d - 1.
  const std::size_t n = 1024, d = 3;
  const double mc = std::sqrt((std::pow(1.0 + 4.0 / 45.0, 3.0) - 1.0) / static_cast<double>(n));
  const double sobol = product_rms_error(n, d, {.kind = design_kind::sobol}, 20);
  const double halton = product_rms_error(n, d, {.kind = design_kind::halton}, 20);
  // Scrambled nets: variance o(1/N), about N^-3 (log N)^(d-1) for smooth g; ask for a tenfold
  // smaller RMS error than MC at N = 1024.
  CHECK(sobol < 0.1 * mc);
  CHECK(halton < 0.2 * mc);
  // And unbiased: the mean over seeds of the error is inside its own noise.
  CHECK(std::abs(product_mean_error(unit_design(n, d, {.kind = design_kind::sobol, .seed = 42}))) < 5 * sobol);
}

TEST_CASE("QMC designs are reproducible and replicates are independent scrambles", "[uq][design][qmc]") {
  const auto kind = GENERATE(design_kind::sobol, design_kind::halton);
  design_options o{.kind = kind, .seed = 77, .replicates = 4};
  const Eigen::MatrixXd a = unit_design(64, 5, o);
  CHECK(identical(a, unit_design(64, 5, o)));
  // Replicate 0 is the one-replicate design of m = N / R points.
  const Eigen::MatrixXd one = unit_design(16, 5, {.kind = kind, .seed = 77});
  CHECK(identical(a.topRows(16), one));
  // Other replicates scramble the same points otherwise.
  CHECK_FALSE(identical(a.middleRows(16, 16), one));
  // Columns do not depend on the number of columns.
  CHECK(identical(unit_design(64, 2, o), a.leftCols(2)));
  // Another seed, another design.
  o.seed = 78;
  CHECK_FALSE(identical(unit_design(64, 5, o), a));
}

TEST_CASE("QMC replicates that do not divide N, and replicates of other designs, are refused", "[uq][design][qmc]") {
  CHECK_THROWS_WITH(unit_design(10, 2, {.kind = design_kind::sobol, .replicates = 4}), Contains("no multiple"));
  CHECK_THROWS_WITH(unit_design(8, 2, {.kind = design_kind::latin_hypercube, .replicates = 2}),
                    Contains("only the sobol and halton designs"));
  CHECK(parse_design_kind("sobol") == design_kind::sobol);
  CHECK(parse_design_kind("halton") == design_kind::halton);
  CHECK_THROWS_WITH(parse_design_kind("niederreiter"), Contains("sobol, halton"));
}

TEST_CASE("rows of Monte Carlo and RQMC designs are made alone, bit for bit", "[uq][design]") {
  const auto kind = GENERATE(design_kind::monte_carlo, design_kind::sobol, design_kind::halton);
  INFO(to_string(kind));
  const std::size_t replicates = kind == design_kind::monte_carlo ? 1 : 4;
  const design_options options{.kind = kind, .seed = 31, .replicates = replicates};
  CHECK(has_row_access(kind));
  const Eigen::MatrixXd whole = unit_design(400, 5, options);
  // Ranges inside one replicate, across replicate boundaries (every 100 rows), and all of it.
  for (const auto& [first, count] : std::vector<std::pair<std::size_t, std::size_t>>{
           {0, 1}, {7, 50}, {99, 2}, {95, 210}, {300, 100}, {399, 1}, {0, 400}, {123, 0}}) {
    INFO(first << " + " << count);
    CHECK(identical(rows_of_unit_design(400, 5, options, first, count),
                    whole.middleRows(static_cast<Eigen::Index>(first), static_cast<Eigen::Index>(count))));
  }
  CHECK_THROWS_AS(rows_of_unit_design(400, 5, options, 350, 51), contactuq::parameter_error);
}

TEST_CASE("rows of a Latin hypercube cannot be made alone", "[uq][design]") {
  const auto kind = GENERATE(design_kind::latin_hypercube, design_kind::maximin_latin_hypercube);
  CHECK_FALSE(has_row_access(kind));
  CHECK_THROWS_WITH(rows_of_unit_design(10, 2, {.kind = kind}, 0, 5), Contains("cannot be made alone"));
}
