// Bayesian calibration studies: priors (log densities against closed forms), the hierarchical
// log posterior against a hand computation, model calls counted, the same bits on 1 and 2
// threads, and the refusals at their keys.
#include "contactuq/calibrate/bayesian_study.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "contactuq/calibrate/insertion_data.hpp"
#include "contactuq/error.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
namespace cal = contactuq::calibrate;
using Catch::Matchers::Contains;

namespace {

struct scratch {
  std::filesystem::path dir;
  explicit scratch(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("contactuq_bayes_" + name)) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~scratch() { std::filesystem::remove_all(dir); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
};

// y = theta (expression model); data by part.
const std::string data_csv = "part,y\nA,1.0\nA,1.2\nB,2.0\nB,2.4\nC,0.5\n";

std::string make_study(const std::string& parameters, const std::string& bayesian = "[bayesian]\n[bayesian.noise]\ny = 0.5\n") {
  return "method = \"bayesian\"\n[model]\ntype = \"expression\"\n[model.inputs]\ntheta = 1.0\nc = 0.0\n"
         "[model.outputs]\ny = \"theta + c\"\n" +
         parameters + "[data]\ntables = [\"data.csv\"]\n" + bayesian;
}

cal::bayesian_study read(const scratch& s, const std::string& text) {
  s.write("data.csv", data_csv);
  const auto doc = io::study_document::parse(text, (s.dir / "study.toml").string());
  return cal::read_bayesian_study(doc);
}

}  // namespace

TEST_CASE("priors: log densities match the closed forms up to one constant", "[bayesian]") {
  model::register_builtin_models();
  scratch s("priors");
  const auto doc = io::study_document::parse(
      "a = { distribution = \"normal\", mean = 1.0, sd = 2.0 }\n"
      "b = { distribution = \"half_normal\", scale = 3.0 }\n"
      "c = { distribution = \"half_cauchy\", scale = 0.5 }\n"
      "d = { distribution = \"lognormal\", median = 2.0, sigma_log = 0.3 }\n"
      "e = { distribution = \"uniform\", low = -1.0, high = 4.0 }\n",
      (s.dir / "p.toml").string());
  const auto root = doc.root();
  const auto diff = [](const cal::prior& p, double x, double y) { return p.log_density(x) - p.log_density(y); };
  const cal::prior a = cal::read_prior(root, "a", units::dimensionless);
  CHECK(diff(a, 3.0, 1.0) == Approx(-0.5));
  const cal::prior b = cal::read_prior(root, "b", units::dimensionless);
  CHECK(diff(b, 3.0, 0.0) == Approx(-0.5));
  CHECK(b.log_density(-0.1) == -std::numeric_limits<double>::infinity());
  const cal::prior c = cal::read_prior(root, "c", units::dimensionless);
  CHECK(diff(c, 0.5, 0.0) == Approx(-std::log(2.0)));
  const cal::prior d = cal::read_prior(root, "d", units::dimensionless);
  const double z = std::log(3.0 / 2.0) / 0.3;
  CHECK(diff(d, 3.0, 2.0) == Approx(-0.5 * z * z - std::log(3.0 / 2.0)));
  CHECK(d.median() == Approx(2.0));
  const cal::prior e = cal::read_prior(root, "e", units::dimensionless);
  CHECK(diff(e, 3.9, -0.9) == Approx(0.0));
  CHECK(e.log_density(4.5) == -std::numeric_limits<double>::infinity());
  CHECK(a.text == "{ distribution = \"normal\", mean = 1.0, sd = 2.0 }");
}

TEST_CASE("the hierarchical log posterior is the hand-computed sum, on 1 and 2 threads", "[bayesian]") {
  model::register_builtin_models();
  scratch s("logpost");
  const auto st = read(s, make_study("[parameters.theta]\nrole = \"calibrated\"\npopulation = \"normal\"\n"
                                "location_prior = { distribution = \"normal\", mean = 0.0, sd = 10.0 }\n"
                                "scale_prior = { distribution = \"half_normal\", scale = 2.0 }\n"));
  REQUIRE(st.parts == std::vector<std::string>{"A", "B", "C"});
  const cal::bayesian_posterior p1(st, 1), p2(st, 2);
  REQUIRE(p1.dimension() == 5);
  CHECK(p1.parameters()[0].name == "theta_loc");
  CHECK(p1.parameters()[1].name == "theta_scale");
  CHECK(p1.parameters()[2].name == "theta[A]");
  // z: loc = 1.5 (identity), log scale = log 0.8, parts z = 0.5, 1.0, -1.0 (non-centred).
  Eigen::MatrixXd Z(2, 5);
  Z.row(0) << 1.5, std::log(0.8), 0.5, 1.0, -1.0;
  Z.row(1) << 0.0, 0.0, 0.0, 0.0, 0.0;
  Eigen::VectorXd lp1, lp2, ll;
  p1.log_density(Z, lp1, &ll);
  p2.log_density(Z, lp2);
  CHECK(lp1[0] == lp2[0]);  // the same bits
  CHECK(lp1[1] == lp2[1]);
  CHECK(p1.model_calls() == 10);  // 2 rows x 5 cases
  const double loc = 1.5, scale = 0.8, sd = 0.5;
  const double xA = loc + scale * 0.5, xB = loc + scale, xC = loc - scale;
  const auto g = [&](double y, double x) {
    return -0.5 * std::log(2 * std::numbers::pi) - std::log(sd) - 0.5 * (y - x) * (y - x) / (sd * sd);
  };
  const double lik = g(1.0, xA) + g(1.2, xA) + g(2.0, xB) + g(2.4, xB) + g(0.5, xC);
  CHECK(ll[0] == Approx(lik).epsilon(1e-12));
  const double prior = -0.5 * (loc / 10) * (loc / 10) - 0.5 * (scale / 2) * (scale / 2) + std::log(scale) -
                       0.5 * (0.25 + 1.0 + 1.0);
  CHECK(lp1[0] == Approx(lik + prior).epsilon(1e-12));
  const Eigen::VectorXd x = p1.physical(Z.row(0).transpose());
  CHECK(x[2] == Approx(xA));
  CHECK(x[4] == Approx(xC));
}

TEST_CASE("inferred noise and the centred parameterisation", "[bayesian]") {
  model::register_builtin_models();
  scratch s("noise");
  const auto st = read(s, make_study("[parameters.theta]\nrole = \"calibrated\"\npopulation = \"lognormal\"\n"
                                "parameterisation = \"centred\"\n"
                                "location_prior = { distribution = \"lognormal\", median = 1.0, sigma_log = 1.0 }\n"
                                "scale_prior = { distribution = \"half_cauchy\", scale = 0.5 }\n",
                                "[bayesian]\nlikelihood = \"student_t\"\ndof = 5\n[bayesian.noise]\n"
                                "y = { prior = { distribution = \"half_normal\", scale = 1.0 } }\n"));
  const cal::bayesian_posterior p(st, 2);
  REQUIRE(p.dimension() == 6);
  CHECK(p.parameters()[5].name == "sigma_y");
  // Centred lognormal: the part coordinates are log values.
  Eigen::VectorXd z(6);
  z << std::log(1.2), std::log(0.3), std::log(1.1), std::log(2.2), std::log(0.5), std::log(0.4);
  const Eigen::VectorXd x = p.physical(z);
  CHECK(x[0] == Approx(1.2));
  CHECK(x[3] == Approx(2.2));
  CHECK(x[5] == Approx(0.4));
  Eigen::MatrixXd Z = z.transpose();
  Eigen::VectorXd lp;
  p.log_density(Z, lp);
  CHECK(std::isfinite(lp[0]));
  const Eigen::MatrixXd starts = p.starts(4, 7);
  Eigen::VectorXd ls;
  p.log_density(starts, ls);
  CHECK(ls.allFinite());
  CHECK(starts.row(1) != starts.row(2));
}

TEST_CASE("refusals name the file, line and key", "[bayesian]") {
  model::register_builtin_models();
  scratch s("errors");
  const std::string pop = "[parameters.theta]\nrole = \"calibrated\"\npopulation = \"normal\"\n"
                          "location_prior = { distribution = \"normal\", mean = 0.0, sd = 10.0 }\n"
                          "scale_prior = { distribution = \"half_normal\", scale = 2.0 }\n";
  // A start outside the prior's support.
  CHECK_THROWS_WITH(read(s, make_study("[parameters.theta]\nrole = \"calibrated\"\nstart = -1.0\n"
                                  "prior = { distribution = \"uniform\", low = 0.0, high = 2.0 }\n")),
                    Contains("start") && Contains("outside the support"));
  // Bounds outside the prior's support.
  CHECK_THROWS_WITH(read(s, make_study("[parameters.theta]\nrole = \"calibrated\"\nlow = -1.0\n"
                                  "prior = { distribution = \"uniform\", low = 0.0, high = 2.0 }\n")),
                    Contains("low = -1") && Contains("outside the support"));
  // Unknown prior and sampler.
  CHECK_THROWS_WITH(read(s, make_study("[parameters.theta]\nrole = \"calibrated\"\n"
                                  "prior = { distribution = \"gamma\", shape = 2.0 }\n")),
                    Contains("half_cauchy"));
  CHECK_THROWS_WITH(read(s, make_study(pop, "[bayesian]\nsampler = \"nuts\"\n[bayesian.noise]\ny = 0.5\n")),
                    Contains("sampler") && Contains("dram") && Contains("stretch"));
  // A scale prior with negative support.
  CHECK_THROWS_WITH(read(s, make_study("[parameters.theta]\nrole = \"calibrated\"\npopulation = \"normal\"\n"
                                  "location_prior = { distribution = \"normal\", mean = 0.0, sd = 10.0 }\n"
                                  "scale_prior = { distribution = \"normal\", mean = 0.0, sd = 2.0 }\n")),
                    Contains("scale_prior") && Contains("[0, inf)"));
  // Noise not given.
  CHECK_THROWS_WITH(read(s, make_study(pop, "[bayesian]\n")), Contains("give the noise of y"));
  // Rows without part when a population is asked.
  s.write("data.csv", "y\n1.0\n2.0\n");
  try {
    const auto doc = io::study_document::parse(make_study(pop), (s.dir / "study.toml").string());
    cal::read_bayesian_study(doc);
    FAIL("no error");
  } catch (const cal::data_error& e) {
    CHECK_THAT(std::string(e.what()), Contains("data.csv") && Contains("no part label") && Contains("theta"));
  }
  // Fewer than 3 parts: a warning naming the count.
  s.write("data2.csv", "part,y\nA,1.0\nB,2.0\n");
  std::string two = make_study(pop);
  two.replace(two.find("data.csv"), 8, "data2.csv");
  const auto doc = io::study_document::parse(two, (s.dir / "study.toml").string());
  const auto st = cal::read_bayesian_study(doc);
  REQUIRE(st.warnings.size() == 1);
  CHECK_THAT(st.warnings[0], Contains("2 parts measured"));
}
