#include "contactuq/study/ensemble_study.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "contactuq/model/registry.hpp"
#include "contactuq/uq/rank_correlation.hpp"

using namespace contactuq;
using namespace contactuq::study;
using Catch::Matchers::Contains;

namespace {

const std::string source_dir = CONTACTUQ_SOURCE_DIR;
constexpr double inch = 0.0254;
constexpr double lbf = 4.4482216152605;
constexpr double deg = std::numbers::pi / 180;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The quickstart study with pieces of text replaced, parsed under the same file name.
ensemble_study quickstart(std::vector<std::pair<std::string, std::string>> edits = {}) {
  model::register_builtin_models();
  std::string text = read_text(source_dir + "/studies/quickstart.toml");
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return read_ensemble_study(io::study_document::parse(text, "quickstart.toml"));
}

// 1-based line of the first occurrence of `text` in the quickstart study.
int line_of(const std::string& text) {
  const std::string all = read_text(source_dir + "/studies/quickstart.toml");
  const auto at = all.find(text);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<int>(std::count(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

void check_error(const std::vector<std::pair<std::string, std::string>>& edits, int line, const std::string& key,
                 const std::string& fragment) {
  try {
    quickstart(edits);
    FAIL("no error for " << edits.front().second);
  } catch (const io::study_error& e) {
    CHECK(e.file() == "quickstart.toml");
    CHECK(e.line() == line);
    CHECK(e.key() == key);
    CHECK_THAT(e.what(), Contains(fragment));
  }
}

}  // namespace

TEST_CASE("the quickstart study reads into roles, SI distributions and a design", "[ensemble_study]") {
  const ensemble_study s = quickstart();
  REQUIRE(s.inputs.size() == 13);
  CHECK(s.model.name() == "receptacle_pin");
  CHECK(s.aleatoric() == std::vector<std::size_t>{8, 9, 10, 11});  // K, mu, theta0, g1_d0
  const input_spec& K = s.inputs[8];
  CHECK(K.name == "K");
  CHECK(K.unit == "N*m/rad");
  REQUIRE(K.distribution);
  CHECK(K.distribution->mean() == Approx(0.004 * lbf * inch / deg));
  CHECK(K.distribution->stddev() == Approx(0.0002 * lbf * inch / deg));
  CHECK(s.inputs[10].distribution->stddev() == Approx(0.5 * deg));
  CHECK(s.inputs[11].distribution->name() == "triangular");
  CHECK(s.inputs[11].distribution->upper() == Approx(0.434 * inch));
  CHECK(s.inputs[0].role == io::input_role::fixed);
  CHECK(s.inputs[0].value == Approx(0.060 * inch));
  CHECK(s.inputs[12].value == Approx(0.222 * inch));  // g2_d0 keeps its [model] value
  CHECK(s.sampling.samples == 1000);
  CHECK(s.sampling.design.kind == uq::design_kind::latin_hypercube);
  CHECK(s.sampling.design.seed == 2026);
  CHECK(s.sampling.failures == failure_policy::record);
  REQUIRE(s.sampling.rank_correlation.rows() == 4);
  CHECK(s.sampling.rank_correlation(0, 2) == 0.3);
  CHECK(s.sampling.rank_correlation(2, 0) == 0.3);
  CHECK(s.sampling.rank_correlation(0, 1) == 0.0);
}

TEST_CASE("sample inputs: a Latin hypercube in every aleatoric input, fixed values elsewhere", "[ensemble_study]") {
  const ensemble_study s = quickstart();
  const io::sample_matrix x = sample_inputs(s);
  const std::size_t n = s.sampling.samples;
  REQUIRE(static_cast<std::size_t>(x.rows()) == n);
  for (std::size_t j = 0; j < s.inputs.size(); ++j) {
    const auto col = x.col(static_cast<Eigen::Index>(j));
    if (!s.inputs[j].distribution) {
      CHECK((col.array() == s.inputs[j].value).all());
      continue;
    }
    // F_j(x_ij) in stratum k for exactly one i, for every k (McKay et al. 1979).
    std::vector<int> hits(n, 0);
    for (Eigen::Index i = 0; i < col.size(); ++i) {
      const double u = s.inputs[j].distribution->cdf(col(i));
      ++hits[std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)))];
    }
    CHECK(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
  }
  // Spearman(K, theta0) reaches the requested 0.3 within sampling error, O(N^-1/2).
  Eigen::MatrixXd pair(x.rows(), 2);
  pair.col(0) = x.col(8);
  pair.col(1) = x.col(10);
  CHECK(uq::spearman_matrix(pair)(0, 1) == Approx(0.3).margin(0.05));
  // A pure function of the study.
  CHECK(sample_inputs(s) == x);
}

TEST_CASE("ensemble study errors name file, line and key", "[ensemble_study]") {
  SECTION("an unknown parameter lists the model's inputs") {
    check_error({{"[parameters.mu]", "[parameters.muu]"}}, line_of("[parameters.mu]"), "parameters.muu",
                "not an input of model receptacle_pin; its inputs: Rr, Rp");
  }
  SECTION("a bad distribution parameter points at its key") {
    check_error({{"sd = \"0.5 deg\"", "sd = \"-0.5 deg\""}}, line_of("sd = \"0.5 deg\""), "parameters.theta0.sd",
                "sd");
  }
  SECTION("a distribution parameter without units") {
    check_error({{"sd = \"0.0002 lbf*in/deg\"", "sd = 0.0002"}}, line_of("sd = \"0.0002 lbf*in/deg\""),
                "parameters.K.sd", "torsional stiffness");
  }
  SECTION("an unknown distribution") {
    check_error({{"\"uniform\"", "\"uniformm\""}}, line_of("distribution = \"uniform\""),
                "parameters.mu.distribution", "normal, lognormal");
  }
  SECTION("an epistemic input with a distribution") {
    check_error({{"role = \"aleatoric\"\ndistribution = \"uniform\"", "role = \"epistemic\"\ndistribution = \"uniform\""}},
                line_of("role = \"aleatoric\"\ndistribution = \"uniform\"") + 1, "parameters.mu.distribution",
                "allowed keys: role, low, high, points");
  }
  SECTION("an epistemic input with a choice twice") {
    check_error({{"role = \"aleatoric\"\ndistribution = \"uniform\"\nlow = 0.02\nhigh = 0.21",
                  "role = \"epistemic\"\nchoices = [0.1, 0.2, 0.1]"}},
                line_of("role = \"aleatoric\"\ndistribution = \"uniform\"") + 1, "parameters.mu.choices",
                "has a choice twice");
  }
  SECTION("a design value outside its bounds") {
    check_error({{"role = \"aleatoric\"\ndistribution = \"uniform\"\nlow = 0.02\nhigh = 0.21",
                  "role = \"design\"\nlow = 0.05\nhigh = 0.21\nvalue = 0.3"}},
                line_of("role = \"aleatoric\"\ndistribution = \"uniform\"") + 3, "parameters.mu.value",
                "within [low, high]");
  }
  SECTION("a parameter that is neither an input nor an epistemic [model] key") {
    check_error({{"[parameters.mu]", "[parameters.muu]"}}, line_of("[parameters.mu]"), "parameters.muu",
                "not an input of model receptacle_pin");
  }
  SECTION("an unknown design") {
    check_error({{"\"latin_hypercube\"", "\"lhs\""}}, line_of("design = \"latin_hypercube\""), "sampling.design",
                "maximin_latin_hypercube");
  }
  SECTION("a correlation with a fixed input") {
    check_error({{"between = [\"K\", \"theta0\"]", "between = [\"K\", \"Rr\"]"}}, line_of("between = "),
                "sampling.correlation[1].between", "\"Rr\" is not an aleatoric parameter");
  }
  SECTION("a correlation outside [-1, 1]") {
    check_error({{"rho = 0.3", "rho = 1.3"}}, line_of("[[sampling.correlation]]"), "sampling.correlation",
                "rank_correlation(K, theta0) = 1.3");
  }
  SECTION("a fixed value with the wrong dimension") {
    check_error({{"role = \"aleatoric\"\ndistribution = \"uniform\"\nlow = 0.02\nhigh = 0.21",
                  "role = \"fixed\"\nvalue = \"2 in\""}},
                line_of("role = \"aleatoric\"\ndistribution = \"uniform\"") + 1, "parameters.mu.value",
                "expected");
  }
  SECTION("a misspelt sampling key") {
    check_error({{"samples = 1000", "sample = 1000"}}, line_of("samples = 1000"), "sampling.sample", "allowed");
  }
}

TEST_CASE("RQMC designs: every marginal, rank correlation per replicate, reproducible", "[ensemble_study][qmc]") {
  const std::string method = GENERATE("sobol", "halton");
  const ensemble_study s = quickstart({{"design = \"latin_hypercube\"", "method = \"" + method + "\""},
                                       {"samples = 1000", "samples = 1024\nreplicates = 4"}});
  CHECK(s.sampling.design.kind == uq::parse_design_kind(method));
  CHECK(s.sampling.design.replicates == 4);
  const io::sample_matrix x = sample_inputs(s);
  CHECK(sample_inputs(s) == x);
  // Each replicate of 256 puts one sample in each 1/256 stratum of every marginal (Sobol') or
  // of the first (Halton, base 2): the stratification survives the mapping and the reordering
  // by Iman-Conover, which only permutes rows within a column.
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::size_t j = 0; j < s.inputs.size(); ++j) {
      if (!s.inputs[j].distribution) continue;
      if (method == "halton" && j != s.aleatoric().front()) continue;
      std::vector<int> hits(256, 0);
      for (Eigen::Index i = 0; i < 256; ++i) {
        const double u = s.inputs[j].distribution->cdf(x(static_cast<Eigen::Index>(r * 256) + i, static_cast<Eigen::Index>(j)));
        ++hits[std::min<std::size_t>(255, static_cast<std::size_t>(u * 256.0))];
      }
      CHECK(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
    }
  }
  // Spearman(K, theta0) near the requested 0.3 in every replicate.
  for (Eigen::Index r = 0; r < 4; ++r) {
    Eigen::MatrixXd pair(256, 2);
    pair.col(0) = x.col(8).segment(r * 256, 256);
    pair.col(1) = x.col(10).segment(r * 256, 256);
    CHECK(uq::spearman_matrix(pair)(0, 1) == Approx(0.3).margin(0.08));
  }
}

TEST_CASE("RQMC options are checked", "[ensemble_study][qmc]") {
  check_error({{"samples = 1000", "samples = 1000\nreplicates = 3"}, {"design = \"latin_hypercube\"", "design = \"sobol\""}},
              line_of("samples = 1000"), "sampling.samples", "no multiple of replicates = 3");
  check_error({{"samples = 1000", "samples = 1000\nreplicates = 4"}}, line_of("samples = 1000") + 1,
              "sampling.replicates", "only the sobol and halton designs take replicates");
  check_error({{"design = \"latin_hypercube\"", "design = \"sobol\"\nmethod = \"sobol\""}},
              line_of("design = \"latin_hypercube\"") + 1, "sampling.method", "not both");
  // The default: 10 replicates; 1 for a pick-freeze (Sobol indices) design.
  CHECK(quickstart({{"design = \"latin_hypercube\"", "design = \"halton\""}}).sampling.design.replicates == 10);
  const ensemble_study pf = quickstart({{"design = \"latin_hypercube\"", "design = \"sobol\"\nsobol = true"},
                                        {"[[sampling.correlation]]\nbetween = [\"K\", \"theta0\"]\nrho = 0.3", ""}});
  CHECK(pf.sampling.design.replicates == 1);
  CHECK(pf.sampling.sobol);
}

TEST_CASE("rank correlation and pick-freeze designs are sampled whole", "[ensemble_study][plan]") {
  // The quickstart correlates K and theta0: Iman-Conover reorders whole replicates.
  const ensemble_study correlated = quickstart({{"design = \"latin_hypercube\"", "design = \"monte_carlo\""}});
  CHECK_FALSE(sample_plan::streams(correlated));
  CHECK(sample_plan(correlated).rows(990, 10) == sample_inputs(correlated).bottomRows(10));
  const ensemble_study independent = quickstart(
      {{"design = \"latin_hypercube\"", "design = \"monte_carlo\""}, {"[[sampling.correlation]]\nbetween = [\"K\", \"theta0\"]\nrho = 0.3\n", ""}});
  CHECK(sample_plan::streams(independent));
}

TEST_CASE("sampling correlations of every kind become their Gaussian copula's rank correlation", "[ensemble_study]") {
  // K and theta0 are normal: a Pearson rho gives the copula rho itself, whose Spearman
  // correlation is (6 / pi) asin(rho / 2); "normal" gives the same.
  const double expected = 6 / std::numbers::pi * std::asin(0.15);
  for (const char* kind : {"pearson", "normal"}) {
    const ensemble_study s = quickstart({{"rho = 0.3", std::string("rho = 0.3\nkind = \"") + kind + "\""}});
    CHECK(s.sampling.rank_correlation(0, 2) == Approx(expected).epsilon(1e-9));
  }
  CHECK(quickstart({{"rho = 0.3", "rho = 0.3\nkind = \"spearman\""}}).sampling.rank_correlation(0, 2) == 0.3);
  // mu is uniform and theta0 normal: a Pearson rho maps through the quadrature, and the
  // samples then have about that linear correlation.
  const ensemble_study s = quickstart({{"between = [\"K\", \"theta0\"]", "between = [\"mu\", \"theta0\"]"},
                                       {"rho = 0.3", "rho = 0.6\nkind = \"pearson\""},
                                       {"samples = 1000", "samples = 20000"}});
  const io::sample_matrix x = sample_inputs(s);
  const auto column = [&](const std::string& name) {
    const auto at = std::find_if(s.inputs.begin(), s.inputs.end(), [&](const auto& in) { return in.name == name; });
    return x.col(at - s.inputs.begin());
  };
  const Eigen::VectorXd a = column("mu").array() - column("mu").mean();
  const Eigen::VectorXd b = column("theta0").array() - column("theta0").mean();
  CHECK(a.dot(b) / std::sqrt(a.squaredNorm() * b.squaredNorm()) == Approx(0.6).margin(0.02));
  check_error({{"rho = 0.3", "rho = 1.0\nkind = \"pearson\""}}, line_of("rho = 0.3"), "sampling.correlation[1].rho",
              "(-1, 1)");
  check_error({{"rho = 0.3", "rho = 0.3\nkind = \"kendall\""}}, line_of("rho = 0.3") + 1,
              "sampling.correlation[1].kind", "kendall");
}
