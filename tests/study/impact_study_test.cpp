#include "contactuq/study/impact_study.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace contactuq;
using namespace contactuq::study;
using Catch::Matchers::Contains;

namespace {

const std::string source_dir = CONTACTUQ_SOURCE_DIR;
const std::string data_dir = source_dir + "/data";

std::string shipped_study() {
  std::ifstream in(source_dir + "/studies/impact_models.toml");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

impact_study_options with_line(const std::string& from, const std::string& to) {
  std::string text = shipped_study();
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return read_impact_study(io::study_document::parse(text, "impact.toml"), data_dir);
}

}  // namespace

TEST_CASE("the shipped impact study compares every sphere law over 0.01-10 m/s", "[impact_study]") {
  const auto options = read_impact_study(io::study_document::parse(shipped_study(), "impact.toml"), data_dir);
  REQUIRE(options.velocities.size() == 31);
  CHECK(options.velocities.front() == Approx(0.01));
  CHECK(options.velocities.back() == Approx(10.0));
  CHECK(options.velocities[15] == Approx(std::sqrt(0.01 * 10.0)));  // log spacing
  CHECK(options.pair.radius_1 == Approx(0.010));
  CHECK(std::isinf(options.pair.radius_2));
  CHECK(std::isinf(options.solver.mass_2));
  CHECK(options.solver.mass_1 == Approx(0.03296));
  CHECK(options.laws.size() == 14);

  const auto cases = run_impact_study(options);
  REQUIRE(cases.size() == 14 * 31);
  for (const auto& c : cases) {
    INFO(c.law << " at " << c.velocity << " m/s: " << c.result.message);
    CHECK(c.result.ok());
    // Every law either conserves (elastic) or dissipates: 0 < e <= 1 up to the integrator's
    // error at rtol 1e-10 (elastic laws return 1 within 1e-6), and no negative dissipation.
    CHECK(c.result.restitution > 0.0);
    CHECK(c.result.restitution <= 1.0 + 1e-6);
    const double kinetic = 0.5 * options.solver.mass_1 * c.velocity * c.velocity;
    CHECK(c.result.energy_dissipated >= -1e-6 * kinetic);
    if (c.law == "hertz") CHECK(c.result.restitution == Approx(1.0).margin(1e-6));
    if (c.law == "cor") CHECK(c.result.restitution == Approx(0.8).margin(1e-12));
  }
}

TEST_CASE("bad impact studies give file, line, key and what is allowed", "[impact_study]") {
  CHECK_THROWS_WITH(with_line("name = \"brake\"", "name = \"brak\""),
                    Contains("impact.toml:") && Contains("laws[3].name = \"brak\"") && Contains("known laws") &&
                        Contains("thornton"));
  CHECK_THROWS_WITH(with_line("material = \"steel_aisi_1045\"   # data", "material = \"unobtainium\"   # data"),
                    Contains("impact.body_1.material") && Contains("steel_aisi_4140"));
  CHECK_THROWS_WITH(with_line("radius = \"10 mm\"", "radius = \"10 deg\""),
                    Contains("impact.body_1.radius") && Contains("expected a length"));
  CHECK_THROWS_WITH(with_line("restitution = 0.8\n\n[[laws]]\nname = \"kelvin_voigt\"",
                              "restitution = 1.8\n\n[[laws]]\nname = \"kelvin_voigt\""),
                    Contains("laws[1].restitution") && Contains("1.8"));
  CHECK_THROWS_WITH(with_line("points = 31", "points = 0"), Contains("approach_velocity.points = 0"));
  CHECK_THROWS_WITH(with_line("integrator = \"dopri5\"", "integrator = \"euler\""),
                    Contains("impact.integrator = \"euler\": must be one of: dopri5, cvode_adams"));
  CHECK_THROWS_WITH(with_line("name = \"thornton\"", "name = \"brake\""),
                    Contains("appears twice") && Contains("label"));
}

TEST_CASE("an impact study is a sweep of the impact model that gives the simulator's bits", "[impact_study]") {
  // Each [[laws]] entry is the registry's impact model swept over approach_velocity; every
  // input reaches the law as the study gave it (no unit round trip), so each case equals the
  // law built by hand from the pair and simulated, bit for bit.
  auto options = read_impact_study(io::study_document::parse(shipped_study(), "impact.toml"), data_dir);
  options.velocities = {options.velocities.front(), options.velocities[15], options.velocities.back()};
  const auto cases = run_impact_study(options);
  REQUIRE(cases.size() == options.laws.size() * 3);
  for (std::size_t l = 0; l < options.laws.size(); ++l) {
    CHECK(impact_law_model(options, l).name() == "impact");
    contact::law_inputs in{options.pair, {}};
    for (const auto& [key, value] : options.law_parameters[l]) in.values[key] = value.si;
    const contact::contact_law law = contact::make_law(options.laws[l], in);
    for (std::size_t v = 0; v < 3; ++v) {
      const impact_case& c = cases[l * 3 + v];
      INFO(c.law << " at " << c.velocity << " m/s");
      CHECK(c.law == options.labels[l]);
      CHECK(c.velocity == options.velocities[v]);
      dynamics::impact_options o = options.solver;
      o.approach_velocity = options.velocities[v];
      const auto r = dynamics::simulate_impact(law, o);
      REQUIRE(c.result.ok() == r.ok());
      const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
      CHECK(same(c.result.restitution, r.restitution));
      CHECK(same(c.result.peak_force, r.peak_force));
      CHECK(same(c.result.peak_overlap, r.peak_overlap));
      CHECK(same(c.result.contact_duration, r.contact_duration));
      CHECK(same(c.result.residual_overlap, r.residual_overlap));
      CHECK(same(c.result.energy_dissipated, r.energy_dissipated));
    }
  }
}
