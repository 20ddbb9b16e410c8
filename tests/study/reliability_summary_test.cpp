// study::summarize_reliability on a reliability file written here by hand (the layout of
// docs/hdf5-schema.md): the running product of the subset levels, its interval and calls, the
// design point in the study's [output] units (or SI), and what to_json and to_text print.
#include "contactuq/study/reliability_summary.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "../io/scratch_dir.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/result_file.hpp"

using namespace contactuq;
using namespace contactuq::study;

namespace {

namespace h5 = io::hdf5;

// g = R - S in newtons, shown in pound-force.
const char* study_text = R"(method = "reliability"

[model]
type = "expression"

[model.inputs]
R = "200 N"
S = "150 N"

[model.outputs]
g = "R - S"

[output]
units = { force = "lbf" }
)";

constexpr double newton_per_lbf = 4.4482216152605;

std::filesystem::path write_file(const contactuq::testing::scratch_dir& dir) {
  const auto path = dir / "r.h5";
  h5::file f(path, h5::file_mode::create);
  io::write_result_header(f, {.format = "contactuq-reliability",
                              .method = "reliability",
                              .model = "expression",
                              .title = "R - S",
                              .study_text = study_text,
                              .study_path = "r.toml"});
  h5::group g = f.create_group("reliability");
  g.set_attribute("algorithm", "subset");
  g.set_attribute("output", "g");
  g.set_attribute("event", "g < 0 N");
  g.set_attribute("probability", 0.003);
  g.set_attribute("ci95_low", 0.001);
  g.set_attribute("ci95_high", 0.009);
  g.set_attribute("cov", 0.7);
  g.set_attribute("model_calls", std::int64_t{280});
  g.set_attribute("failed_calls", std::int64_t{0});
  g.set_attribute("resolved", std::int64_t{1});
  g.set_attribute("seed", std::int64_t{7});
  g.set_attribute("inputs", std::vector<std::string>{"R", "S"});
  h5::group fg = g.create_group("form");
  fg.set_attribute("converged", std::int64_t{1});
  fg.set_attribute("beta", 2.0);
  fg.write("u_star", std::vector<double>{-1.2, 1.6});
  fg.write("x_star", std::vector<double>{176.0, 166.0});
  fg.write("alpha", std::vector<double>{-0.6, 0.8});
  fg.write("history_beta", std::vector<double>{1.0, 1.9, 2.0});
  h5::group sg = g.create_group("subset");
  sg.set_attribute("samples_per_level", std::int64_t{100});
  sg.set_attribute("p0", 0.1);
  sg.write("run_estimates", std::vector<double>{0.003});
  sg.write("run_cov", std::vector<double>{0.7});
  h5::group run = sg.create_group("run_0");
  run.set_attribute("reached_failure", std::int64_t{1});
  run.write("threshold", std::vector<double>{20.0, 5.0, 0.0});
  run.write("probability", std::vector<double>{0.1, 0.1, 0.3});
  run.write("samples", std::vector<double>{100, 100, 100});
  run.write("acceptance", std::vector<double>{0.0, 0.5, 0.5});
  run.write("gamma", std::vector<double>{0.0, 1.0, 1.5});
  run.write("cov", std::vector<double>{0.3, 0.4, 0.5});
  f.close();
  return path;
}

}  // namespace

TEST_CASE("a reliability summary: running product, design point in display units, JSON and text",
          "[reliability_summary]") {
  contactuq::testing::scratch_dir dir;
  const auto path = write_file(dir);
  const reliability_summary r = summarize_reliability(path);
  CHECK(r.algorithm == "subset");
  CHECK(r.output_unit == "lbf");
  CHECK(r.input_units == std::vector<std::string>{"lbf", "lbf"});

  REQUIRE(r.form);
  CHECK(r.form->iterations == 3);
  CHECK(r.form->complete);
  CHECK(r.form->probability ==
        Approx(0.5 * std::erfc(2.0 / std::sqrt(2.0))).epsilon(1e-14));  // Phi(-2)
  REQUIRE(r.form->design_point.size() == 2);
  CHECK(r.form->design_point[0].x == Approx(176.0 / newton_per_lbf).epsilon(1e-12));
  CHECK(r.form->design_point[1].importance == Approx(0.64).epsilon(1e-14));
  CHECK(r.form->by_importance() == std::vector<std::size_t>{1, 0});  // |alpha| 0.8 before 0.6

  REQUIRE(r.subset);
  REQUIRE(r.subset->runs.size() == 1);
  const auto& levels = r.subset->runs[0].levels;
  REQUIRE(levels.size() == 3);
  CHECK(levels[0].threshold == Approx(20.0 / newton_per_lbf).epsilon(1e-12));
  // P_i = p_0 ... p_i; calls N_0, then N_i less the round(p_{i-1} N_{i-1}) = 10 seeds.
  CHECK(levels[1].running_probability == Approx(0.01).epsilon(1e-14));
  CHECK(levels[2].running_probability == Approx(0.003).epsilon(1e-14));
  CHECK(levels[0].model_calls == 100);
  CHECK(levels[1].model_calls == 190);
  CHECK(levels[2].model_calls == 280);
  // Lognormal interval from sqrt(log(1 + 0.3^2 + 0.4^2)).
  const double s = std::sqrt(std::log1p(0.25));
  CHECK(levels[1].running_low == Approx(0.01 * std::exp(-1.959963984540054 * s)).epsilon(1e-14));
  CHECK(levels[1].running_high == Approx(0.01 * std::exp(1.959963984540054 * s)).epsilon(1e-14));

  const reliability_summary si = summarize_reliability(path, true);
  CHECK(si.output_unit == "N");
  CHECK(si.subset->runs[0].levels[0].threshold == 20.0);
  CHECK(si.form->design_point[0].x == 176.0);

  const std::string json = to_json(r);
  CHECK(json.find("\"format\": \"contactuq-reliability\"") != std::string::npos);
  CHECK(json.find("\"threshold_unit\": \"lbf\"") != std::string::npos);
  CHECK(json.find("\"running_ci95\"") != std::string::npos);
  CHECK(json.find("\"cov\": null") == std::string::npos);
  const std::string text = to_text(r);
  CHECK(text.find("P(failure) = 0.003  95 % interval [0.001, 0.009]  CoV 0.7") !=
        std::string::npos);
  CHECK(text.find("threshold b_i of the margin of g in lbf") != std::string::npos);
}

TEST_CASE("a file without its /reliability group is refused", "[reliability_summary]") {
  contactuq::testing::scratch_dir dir;
  const auto path = dir / "empty.h5";
  {
    h5::file f(path, h5::file_mode::create);
    io::write_result_header(f, {.format = "contactuq-reliability", .method = "reliability"});
    f.close();
  }
  CHECK_THROWS_WITH(summarize_reliability(path), Catch::Contains("without its /reliability group"));
}
