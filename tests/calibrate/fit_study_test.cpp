#include "contactuq/calibrate/fit_study.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "cli/run_cli.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/units/quantity.hpp"
#include "io/scratch_dir.hpp"

namespace cal = contactuq::calibrate;
namespace io = contactuq::io;
namespace u = contactuq::units;
using Catch::Matchers::Contains;

namespace {

const std::string source = CONTACTUQ_SOURCE_DIR;

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// studies/fit_williams.toml with one line replaced, read as if it were in studies/.
cal::fit_study with_line(const std::string& from, const std::string& to) {
  std::string text = slurp(source + "/studies/fit_williams.toml");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return cal::read_fit_study(io::study_document::parse(text, source + "/studies/fit.toml"));
}

}  // namespace

TEST_CASE(
    "fit_williams.toml: model, data files relative to the study, free parameters in model order") {
  auto s = with_line("seed = 1", "seed = 1");
  CHECK(s.model.params.K == Approx(u::to_si("0.008 lbf*in/deg", u::torsional_stiffness)));
  REQUIRE(s.files.size() == 1);
  CHECK(std::filesystem::equivalent(s.files[0], source + "/data/insertion/williams_synthetic.csv"));
  REQUIRE(s.options.parameters.size() == 3);
  CHECK(s.options.parameters[0].name == "K");
  CHECK(s.options.parameters[1].name == "mu");
  CHECK(s.options.parameters[2].name == "g1_d0");
  CHECK(s.options.parameters[2].low == Approx(0.34 * 0.0254));
  CHECK(s.options.loss == cal::loss_kind::squared);
  CHECK(s.options.bootstrap == 200);
  CHECK(s.units.force == "grf");
  const auto data = cal::load_fit_data(s);
  CHECK(data.insertions().size() == 5);
  CHECK(data.points() == 2500);
}

TEST_CASE("fit study errors name the file, line and key") {
  CHECK_THROWS_WITH(with_line("[fit.parameters.mu]", "[fit.parameters.nu]"),
                    Contains("fit.toml:") && Contains("fit.parameters.nu") &&
                        Contains("not an input of the receptacle_pin model"));
  CHECK_THROWS_WITH(with_line("low = \"0.004 lbf*in/deg\"", "low = \"0 lbf*in/deg\""),
                    Contains("fit.parameters.K.low") && Contains("must be > 0"));
  CHECK_THROWS_WITH(with_line("high = 0.45", "high = 0.0"),
                    Contains("fit.parameters.mu.high") && Contains("greater than low"));
  CHECK_THROWS_WITH(with_line("loss = \"squared\"", "loss = \"tukey\""),
                    Contains("fit.loss") && Contains("squared, huber, cauchy"));
  CHECK_THROWS_WITH(with_line("loss = \"squared\"", "loss = \"huber\""),
                    Contains("fit") && Contains("loss_scale"));
  CHECK_THROWS_WITH(with_line("starts = 8", "startz = 8"), Contains("startz"));
  CHECK_THROWS_WITH(with_line("loss = \"squared\"", "loss = \"huber\"\nloss_scale = \"0.2 in\""),
                    Contains("fit.loss_scale") && Contains("a force"));
  CHECK_THROWS_WITH(with_line("bootstrap = 200", "bootstrap = 3"),
                    Contains("fit.bootstrap") && Contains("[10, 10000]"));
  // 2^16 refits, each a multi-start fit: refused at the key, with what is allowed.
  CHECK_THROWS_WITH(with_line("bootstrap = 200", "bootstrap = 65536"),
                    Contains("fit.toml:") && Contains("fit.bootstrap") && Contains("[10, 10000]"));
  auto s = with_line("williams_synthetic.csv", "missing.csv");
  CHECK_THROWS_WITH(cal::load_fit_data(s), Contains("missing.csv: cannot open the file"));
}

TEST_CASE(
    "the shipped synthetic data set: K, mu, d0 within the 95 % intervals of the generating "
    "values") {
  // Generating values, from data/insertion/williams_synthetic.toml: Williams' fitted K = 0.0116
  // lbf*in/deg, mu = 0.21, d0 = 0.369 in. Insertion-to-insertion scatter makes the residuals
  // dependent, so the intervals to trust are the insertion-clustered ones (docs/calibration.md).
  auto s = with_line("bootstrap = 200", "bootstrap = 0");
  const auto data = cal::load_fit_data(s);
  const auto r = cal::fit(s.model, data, s.options);
  const double truth[3] = {u::to_si("0.0116 lbf*in/deg", u::torsional_stiffness), 0.21,
                           0.369 * 0.0254};
  for (std::size_t k = 0; k < 3; ++k) {
    const auto& e = r.parameters[k];
    INFO(e.name << " = " << e.value << ", clustered [" << *e.clustered_low << ", "
                << *e.clustered_high << "]");
    CHECK(*e.clustered_low <= truth[k]);
    CHECK(truth[k] <= *e.clustered_high);
  }
  CHECK(r.starts_at_best >= 2);  // several starts agree on the optimum
}

TEST_CASE("contactuq synthesize regenerates the shipped data sets bit for bit") {
  contactuq::testing::scratch_dir dir;
  for (const auto& [spec, csv] :
       {std::pair{"data/insertion/williams_synthetic.toml",
                  "data/insertion/williams_synthetic.csv"},
        {"tests/calibrate/blind_synthetic.toml", "data/insertion/blind_synthetic.csv"}}) {
    const auto r =
        run_cli(fmt::format("synthesize {}/{} -o {}", source, spec, (dir / "out.csv").string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // The header names the spec as given on the command line; compare what follows it.
    auto body = [](const std::string& t) { return t.substr(t.find("\ninsertion,")); };
    CHECK(body(slurp(dir / "out.csv")) == body(slurp(source + "/" + csv)));
    CHECK_THAT(slurp(dir / "out.csv"), Contains("SYNTHETIC"));
  }
}

TEST_CASE("a synthesize spec with a million arms is refused at the arm group's count") {
  std::string text = slurp(source + "/data/insertion/williams_synthetic.toml");
  const auto at = text.find("count = 2");
  REQUIRE(at != std::string::npos);
  text.replace(at, 9, "count = 1000000");
  CHECK_THROWS_WITH(cal::read_synthetic_study(io::study_document::parse(text, "synthetic.toml")),
                    Contains("synthetic.toml:") && Contains("model.arms[1].count") &&
                        Contains("[1, 1000]"));
}

TEST_CASE(
    "contactuq fit writes HDF5 (format contactuq-fit), CSV and the run-study snippet; plots draw "
    "it") {
  contactuq::testing::scratch_dir dir;
  // A quick variant of fit_williams.toml on the blind data set.
  std::string text = slurp(source + "/studies/fit_williams.toml");
  auto replace = [&](const std::string& a, const std::string& b) {
    text.replace(text.find(a), a.size(), b);
  };
  replace("../data/insertion/williams_synthetic.csv",
          source + "/data/insertion/blind_synthetic.csv");
  replace("bootstrap = 200", "bootstrap = 20");
  replace("starts = 8", "starts = 2");
  { std::ofstream(dir / "fit.toml") << text; }
  const auto r = run_cli(fmt::format(
      "fit {} -o {} --csv {} --export {}", (dir / "fit.toml").string(), (dir / "fit.h5").string(),
      (dir / "fit.csv").string(), (dir / "fit_params.toml").string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("95 % intervals: Jacobian") && Contains("clustered by insertion") &&
                           Contains("bootstrap over insertions (20 refits)") &&
                           Contains("correlation of the estimates") &&
                           Contains("residuals F_model - F [grf]"));

  io::hdf5::file f(dir / "fit.h5", io::hdf5::file_mode::read_only);
  CHECK(f.string_attribute("format") == "contactuq-fit");
  CHECK(f.numeric_attribute<std::int64_t>("format_version") == 1);
  CHECK(f.open_group("parameters").open_dataset("names").read_texts() ==
        std::vector<std::string>{"K", "mu", "g1_d0"});
  CHECK(f.open_group("parameters").open_dataset("bootstrap").shape() ==
        std::vector<std::size_t>{20, 3});
  CHECK(f.open_group("data").open_dataset("fitted").rows() == 1200);
  CHECK(f.open_dataset("study").read_text() == text);

  const std::string csv = slurp(dir / "fit.csv");
  CHECK(csv.starts_with(
      "insertion,direction,x [in],F_measured [grf],F_fitted [grf],residual [grf]\n"));
  CHECK_THAT(slurp(dir / "fit_params.toml"),
             Contains("[parameters.g1_d0]") && Contains("distribution = \"normal\""));

  // Figure 26 style overlay and residuals, with the Python module `contactuq plot` dispatches to.
  const std::string py = fmt::format(
      "cd {}/python && /usr/bin/python3 -c \"import argparse, contactuq.plots.fit as m; "
      "print(m.plot('{}', '{}', 'png', argparse.Namespace(outputs=[], curves=[])))\" 2>&1",
      source, (dir / "fit.h5").string(), dir.path().string());
  FILE* pipe = popen(py.c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  char buf[512];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  INFO(out);
  REQUIRE(status == 0);
  for (const char* name : {"fit_curves.png", "fit_residuals.png"}) {
    REQUIRE(std::filesystem::exists(dir / name));
    CHECK(std::filesystem::file_size(dir / name) > 10000);
  }
}

TEST_CASE(
    "contactuq fit: bad data and bounds that exclude the fit end with one line and exit code 2") {
  contactuq::testing::scratch_dir dir;
  std::string text = slurp(source + "/studies/fit_williams.toml");
  auto replace = [&](const std::string& a, const std::string& b) {
    text.replace(text.find(a), a.size(), b);
  };
  replace("../data/insertion/williams_synthetic.csv", (dir / "bad.csv").string());
  { std::ofstream(dir / "fit.toml") << text; }
  { std::ofstream(dir / "bad.csv") << "x [in],F [grf]\n0,0\n0.1,nan\n"; }
  auto r = run_cli("fit " + (dir / "fit.toml").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("contactuq: error: ") &&
                           Contains("bad.csv:3: F [grf] = nan is not a finite number"));

  text = slurp(source + "/studies/fit_williams.toml");
  replace("../data/insertion/williams_synthetic.csv",
          source + "/data/insertion/blind_synthetic.csv");
  replace("high = \"0.03 lbf*in/deg\"", "high = \"0.0085 lbf*in/deg\"");
  replace("bootstrap = 200", "bootstrap = 0");
  { std::ofstream(dir / "fit.toml") << text; }
  r = run_cli("fit " + (dir / "fit.toml").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output,
             Contains("K = ") && Contains("sits on its upper bound") && Contains("widen them"));
}
