// The reliability method end to end: studies on the expression model whose failure
// probabilities are known in closed form, run through the engine, checked from the result file.
// Sampling estimates are checked against the truth with their own reported uncertainty widened
// (a failure rate of the check far below 1e-4 by design), never against a seed's value.
#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include "contactuq/engine/run_study.hpp"
#include "contactuq/io/hdf5.hpp"

namespace eng = contactuq::engine;
namespace io = contactuq::io;
using Catch::Matchers::Contains;

namespace {

double Phi(double z) { return boost::math::cdf(boost::math::normal(), z); }

struct scratch {
  std::filesystem::path dir;
  explicit scratch(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("contactuq_reliability_" + name)) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~scratch() { std::filesystem::remove_all(dir); }
};

const std::string r_minus_s = R"(
title = "R - S"
method = "reliability"
[model]
type = "expression"
[model.inputs]
R = "200 N"
S = "150 N"
[model.outputs]
g = "R - S"
[parameters.R]
role = "aleatoric"
distribution = "normal"
mean = "200 N"
sd = "20 N"
[parameters.S]
role = "aleatoric"
distribution = "normal"
mean = "150 N"
sd = "10 N"
[output.limits]
g = { low = "0 N" }
)";

// n independent standard normals u1..un and g = beta sqrt(n) - sum u_i (Pf = Phi(-beta)).
std::string linear(int n, double beta) {
  std::string inputs, sum, params;
  for (int i = 1; i <= n; ++i) {
    std::string name(1, 'u');
    name += std::to_string(i);
    inputs.append(name).append(" = 0\n");
    sum.append(" - ").append(name);
    params.append("[parameters.").append(name).append("]\nrole = \"aleatoric\"\ndistribution = \"normal\"\nmean = 0\nsd = 1\n");
  }
  return "method = \"reliability\"\n[model]\ntype = \"expression\"\n[model.inputs]\n" + inputs +
         "[model.outputs]\ng = \"" + std::to_string(beta * std::sqrt(n)) + sum + "\"\n" + params +
         "[output.limits]\ng = { low = 0 }\n";
}

struct outcome {
  eng::run_result run;
  double probability = 0, low = 0, high = 0, cov = 0, beta = 0;
  std::int64_t calls = 0, resolved = 0;
  std::string note;
};

outcome run(const std::string& text, const std::filesystem::path& out, std::size_t threads = 2) {
  eng::run_options o;
  o.output = out;
  o.threads = threads;
  o.report = nullptr;
  o.errors = nullptr;
  outcome r{eng::run_study(io::study_document::parse(text, "reliability.toml"), o), 0, 0, 0, 0, 0, 0, 0, ""};
  const io::hdf5::file f(out, io::hdf5::file_mode::read_only);
  CHECK(f.string_attribute("format") == "contactuq-reliability");
  CHECK(f.string_attribute("method") == "reliability");
  const auto g = f.open_group("reliability");
  r.probability = g.numeric_attribute<double>("probability");
  r.low = g.numeric_attribute<double>("ci95_low");
  r.high = g.numeric_attribute<double>("ci95_high");
  r.cov = g.numeric_attribute<double>("cov");
  r.beta = g.numeric_attribute<double>("beta");
  r.calls = g.numeric_attribute<std::int64_t>("model_calls");
  r.resolved = g.numeric_attribute<std::int64_t>("resolved");
  r.note = g.string_attribute("note");
  return r;
}

}  // namespace

TEST_CASE("reliability by FORM: R - S has beta = sqrt(5) and the design point (160 N, 160 N)", "[engine][reliability]") {
  scratch s("form");
  const outcome r = run(r_minus_s + "[reliability]\nalgorithm = \"form\"\n", s.dir / "r.h5");
  CHECK(r.run.exit_code == 0);
  CHECK(r.run.method_name == "reliability");
  CHECK(r.beta == Approx(std::sqrt(5.0)).epsilon(1e-7));
  CHECK(r.probability == Approx(Phi(-std::sqrt(5.0))).epsilon(1e-6));
  CHECK(r.calls < 100);
  const io::hdf5::file f(s.dir / "r.h5", io::hdf5::file_mode::read_only);
  const auto form = f.open_group("reliability").open_group("form");
  CHECK(form.numeric_attribute<std::int64_t>("converged") == 1);
  const auto x = form.open_dataset("x_star").read_doubles();
  REQUIRE(x.size() == 2);
  CHECK(x[0] == Approx(160).epsilon(1e-6));
  CHECK(x[1] == Approx(160).epsilon(1e-6));
  const auto factors = form.open_dataset("importance_factors").read_doubles();
  CHECK(factors[0] == Approx(0.8).epsilon(1e-6));  // 20^2 / (20^2 + 10^2)
}

TEST_CASE("reliability by FORM through the Nataf transform: correlated lognormals X1 / X2 < 0.4", "[engine][reliability]") {
  // Mean 1, sd 0.5: median 1/sqrt(1.25), sigma_log sqrt(ln 1.25); Pearson 0.3 between them.
  // ln X1 - ln X2 is normal with sd s = 0.549223, so P(X1/X2 < r) = Phi(ln r / s) and
  // beta = 1.6683404 at r = 0.4, which FORM reaches exactly (the limit state is linear in u).
  const std::string text = R"(
method = "reliability"
[model]
type = "expression"
[model.inputs]
X1 = 1
X2 = 1
[model.outputs]
g = "X1 / X2 - 0.4"
[parameters.X1]
role = "aleatoric"
distribution = "lognormal"
median = 0.894427191
sigma_log = 0.472380727
[parameters.X2]
role = "aleatoric"
distribution = "lognormal"
median = 0.894427191
sigma_log = 0.472380727
[output.limits]
g = { low = 0 }
[reliability]
algorithm = "form"
[[reliability.correlation]]
between = ["X1", "X2"]
rho = 0.3
kind = "pearson"
)";
  scratch s("nataf");
  const outcome r = run(text, s.dir / "r.h5");
  CHECK(r.run.exit_code == 0);
  CHECK(r.beta == Approx(1.6683404).epsilon(2e-6));
  CHECK(r.probability == Approx(Phi(std::log(0.4) / 0.549223)).epsilon(2e-5));
}

TEST_CASE("reliability by SORM: a paraboloid's Breitung probability", "[engine][reliability]") {
  // g = 3 - u3 + 0.1 (u1^2 + u2^2): beta = 3, both main curvatures 0.2, Breitung
  // Pf = Phi(-3) (1 + 3 * 0.2)^-1.
  std::string text = linear(3, 1.0);
  text.replace(text.find("g = \""), text.find("\"\n[parameters") - text.find("g = \"") + 1,
               "g = \"3 - u3 + 0.1 * (u1^2 + u2^2)\"");
  scratch s("sorm");
  const outcome r = run(text + "[reliability]\nalgorithm = \"sorm\"\n", s.dir / "r.h5");
  CHECK(r.run.exit_code == 0);
  const io::hdf5::file f(s.dir / "r.h5", io::hdf5::file_mode::read_only);
  const auto sorm = f.open_group("reliability").open_group("sorm");
  CHECK(sorm.numeric_attribute<double>("breitung") == Approx(Phi(-3) / 1.6).epsilon(1e-3));
  for (double k : sorm.open_dataset("curvatures").read_doubles()) CHECK(std::abs(k) == Approx(0.2).epsilon(2e-3));
}

TEST_CASE("reliability by subset simulation reaches Phi(-5) in 10 dimensions within its interval",
          "[engine][reliability]") {
  scratch s("subset");
  const double truth = Phi(-5);
  const outcome r = run(linear(10, 5) + "[reliability]\nalgorithm = \"subset\"\nsamples = 1000\n", s.dir / "r.h5");
  CHECK(r.run.exit_code == 0);
  CHECK(r.calls < 12000);
  // The lognormal interval widened to about 4.5 sigma.
  const double s_ln = std::sqrt(std::log(1 + r.cov * r.cov));
  CHECK(std::abs(std::log(r.probability / truth)) < 4.5 * s_ln);
  // The same bits on one thread.
  const outcome one = run(linear(10, 5) + "[reliability]\nalgorithm = \"subset\"\nsamples = 1000\n", s.dir / "1.h5", 1);
  CHECK(one.probability == r.probability);
}

TEST_CASE("reliability by importance sampling around every design point of the four-branch system",
          "[engine][reliability]") {
  const std::string text = R"toml(
method = "reliability"
[model]
type = "expression"
[model.inputs]
x1 = 0
x2 = 0
[model.outputs]
g = "min(3 + 0.1*(x1-x2)^2 - (x1+x2)/sqrt(2), 3 + 0.1*(x1-x2)^2 + (x1+x2)/sqrt(2), (x1-x2) + 7/sqrt(2), (x2-x1) + 7/sqrt(2))"
[parameters.x1]
role = "aleatoric"
distribution = "normal"
mean = 0
sd = 1
[parameters.x2]
role = "aleatoric"
distribution = "normal"
mean = 0
sd = 1
[output.limits]
g = { low = 0 }
[reliability]
algorithm = "importance"
samples = 20000
starts = 16
)toml";
  scratch s("importance");
  const outcome r = run(text, s.dir / "r.h5");
  CHECK(r.run.exit_code == 0);
  // Published 2.2228e-3; 4e7 Monte Carlo: 2.2349e-3 +- 0.34 %.
  CHECK(std::abs(r.probability - 2.2349e-3) < 4.5 * r.cov * r.probability + 1e-5);
}

TEST_CASE("reliability by Monte Carlo: R - S within its Wilson interval, and a budget too small said plainly",
          "[engine][reliability]") {
  scratch s("mc");
  const outcome r = run(r_minus_s + "[reliability]\nalgorithm = \"monte_carlo\"\nsamples = 20000\n", s.dir / "r.h5");
  CHECK(r.run.exit_code == 0);
  const double half = (r.high - r.low) / 2;
  CHECK(std::abs(r.probability - 0.012674) < 2.3 * half);
  const outcome rare = run(linear(2, 6) + "[reliability]\nalgorithm = \"monte_carlo\"\nsamples = 1000\n", s.dir / "rare.h5");
  CHECK(rare.run.exit_code == 1);
  CHECK(rare.resolved == 0);
  CHECK_THAT(rare.note, Contains("no failure in 1000 samples") && Contains("subset simulation"));
}

TEST_CASE("reliability: a FORM search that cannot converge is reported, not a number", "[engine][reliability]") {
  std::string text = linear(2, 1.0);
  text.replace(text.find("g = \""), text.find("\"\n[parameters") - text.find("g = \"") + 1, "g = \"1 + u1^2\"");
  scratch s("noform");
  const outcome r = run(text + "[reliability]\nalgorithm = \"form\"\n", s.dir / "r.h5");
  CHECK(r.run.exit_code == 1);
  CHECK(r.resolved == 0);
  CHECK(std::isnan(r.probability));
  CHECK_THAT(r.note, Contains("FORM found no design point"));
}

TEST_CASE("reliability refuses bad studies at the key", "[engine][reliability]") {
  eng::run_options check;
  check.check_only = true;
  const auto refuse = [&](const std::string& text) {
    return eng::run_study(io::study_document::parse(text, "bad.toml"), check);
  };
  CHECK(refuse(r_minus_s + "[reliability]\nalgorithm = \"subset\"\nsamples = 500\n").planned == 500);
  CHECK_THROWS_WITH(refuse(r_minus_s + "[reliability]\nalgorithm = \"subset\"\noutput = \"h\"\n"),
                    Contains("bad.toml") && Contains("reliability.output") && Contains("no limit"));
  CHECK_THROWS_WITH(refuse(r_minus_s + "[reliability]\nalgorithm = \"line_sampling\"\n"),
                    Contains("reliability.algorithm"));
  CHECK_THROWS_WITH(refuse(r_minus_s + "[reliability]\nalgorithm = \"form\"\nstarts = 0\n"),
                    Contains("reliability.starts"));
  std::string no_limit = r_minus_s;
  no_limit.replace(no_limit.find("[output.limits]"), std::string::npos, "");
  CHECK_THROWS_WITH(refuse(no_limit + "[reliability]\nalgorithm = \"form\"\n"), Contains("[output.limits]"));
  CHECK_THROWS_WITH(refuse(r_minus_s + "[reliability]\nalgorithm = \"form\"\n[[reliability.correlation]]\n"
                                       "between = [\"R\", \"T\"]\nrho = 0.2\n"),
                    Contains("reliability.correlation") && Contains("\"T\""));
  CHECK_THROWS_WITH(refuse(r_minus_s + "[reliability]\nalgorithm = \"form\"\n[sampling]\nsamples = 3\n"),
                    Contains("sampling"));
}
