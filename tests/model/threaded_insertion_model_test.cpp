#include "contactuq/model/threaded_insertion_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

model::model build(const std::string& body) {
  model::register_builtin_models();
  const auto doc = io::study_document::parse("[model]\ntype = \"threaded_insertion\"\n" + body, "t.toml");
  return model::make_model(doc.root().table("model"));
}

std::size_t index_of(const std::vector<std::string>& names, const std::string& n) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
}

}  // namespace

TEST_CASE("threaded_insertion model: registered, inputs named as the issue, nominal from the thread") {
  const model::model m = build("thread = \"M8x1.25\"\nk_t = \"2 N/mm\"\n");
  CHECK(m.name() == "threaded_insertion");
  CHECK(m.thread_safe());
  const auto in = m.input_names();
  for (const char* n : {"d", "p", "flank_angle", "root_radius", "allowance", "runup_angle", "chamfer", "mass",
                        "mu", "k_t", "k_z", "k_theta_t", "k_theta_z", "k_z_theta_z", "z_c", "damping_ratio",
                        "feed", "lateral_offset", "offset_azimuth", "tilt", "tilt_azimuth", "phase", "z0",
                        "turns", "engage_depth", "axial_force", "gravity"})
    CHECK(index_of(in, n) < in.size());
  const auto out = m.output_names();
  for (const char* n : {"success", "outcome", "cross_threaded", "engagement_margin", "time_to_engage",
                        "axial_advance", "max_tilt", "final_tilt", "phase_error", "max_contact_force",
                        "max_axial_force", "max_torque_z", "energy_dissipated", "max_contacts",
                        "drive_slip"})
    CHECK(index_of(out, n) < out.size());
  // a torque is named as one, though it has an energy's dimension
  CHECK(m.output_units()[index_of(out, "max_torque_z")] == "N*m");
  CHECK(m.output_units()[index_of(out, "energy_dissipated")] == "J");
  CHECK(m.output_units()[index_of(out, "max_contact_force")] == "N");
  const model::model with_histories = build("curve_points = 11\n");
  for (const auto& c : with_histories.curves())
    CHECK(c.unit == (c.name == "torque_z" ? "N*m" : units::si_unit(c.dim)));
  std::vector<double> x;
  for (const auto& v : m.inputs()) x.push_back(v.nominal);
  CHECK(x[index_of(in, "d")] == Approx(8e-3));
  CHECK(x[index_of(in, "p")] == Approx(1.25e-3));
  CHECK(x[index_of(in, "allowance")] == Approx(28e-6));
  CHECK(x[index_of(in, "k_t")] == Approx(2000));
  CHECK(x[index_of(in, "mass")] > 0);
  // the nominal start: in phase, coaxial: engaged without contact
  const auto e = m.evaluate(x);
  CHECK(e.outputs[index_of(out, "success")] == 1.0);
  CHECK(e.outputs[index_of(out, "outcome")] == 0.0);
  CHECK(e.outputs[index_of(out, "max_contacts")] == 0.0);
  CHECK(e.note.empty());
}

TEST_CASE("threaded_insertion model: an undecided start says why in its note") {
  // a misaligned start cut off after 100 steps: valid outputs, outcome 5, and the reason
  const model::model m = build("thread = \"M8x1.25\"\ntilt = \"2 deg\"\nphase = \"150 deg\"\nmax_steps = 100\n");
  std::vector<double> x;
  for (const auto& v : m.inputs()) x.push_back(v.nominal);
  const auto out = m.output_names();
  const auto e = m.evaluate(x);
  CHECK(e.outputs[index_of(out, "outcome")] == 5.0);
  CHECK(e.outputs[index_of(out, "success")] == 0.0);
  CHECK_THAT(e.note, Contains("inconclusive: more than max_steps = 100"));
}

TEST_CASE("threaded_insertion model: study errors name the key") {
  model::register_builtin_models();
  CHECK_THROWS_WITH(build("thread = \"M7x1\"\n"), Contains("thread") && Contains("M8x1.25"));
  CHECK_THROWS_WITH(build("thread = \"M8x1.25\"\nd = \"8 mm\"\n"), Contains("custom"));
  CHECK_THROWS_WITH(build("spring = 3\n"), Contains("spring"));
  CHECK_THROWS_WITH(build("law = \"nonsense\"\n"), Contains("law"));
  CHECK_THROWS_WITH(build("feed_mode = \"push\"\n"), Contains("feed_mode") && Contains("force") && Contains("guarded"));
  CHECK_THROWS_WITH(build("feed_mode = \"guarded\"\naxial_force = \"0 N\"\n"), Contains("axial_force"));
  CHECK_THROWS_WITH(build("feed_mode = \"force\"\nk_z = \"0 N/mm\"\n"), Contains("k_z"));
  CHECK_THROWS_WITH(build("gravity = \"-9.81 m/s^2\"\n"), Contains("gravity"));
  CHECK_THROWS_WITH(build("k_z = \"1 N/mm\"\nk_theta_z = \"0.001 N*m/rad\"\nk_z_theta_z = \"10 N/rad\"\n"),
                    Contains("k_z_theta_z"));
  const model::model custom = build("thread = \"custom\"\nd = \"6 mm\"\np = \"1 mm\"\nallowance = \"0.3 mm\"\n");
  CHECK(custom.inputs()[custom.find_input("d")].nominal == Approx(6e-3));
  // A plain bore (Whitney's peg-in-hole): the bore diameter and the diametral clearance.
  CHECK_THROWS_WITH(build("thread = \"plain\"\nd = \"8 mm\"\n"), Contains("allowance") && Contains("clearance"));
  CHECK_THROWS_WITH(build("thread = \"plain\"\nd = \"8 mm\"\nallowance = \"0 mm\"\n"),
                    Contains("allowance") && Contains("(0, d)"));
  const model::model plain = build("thread = \"plain\"\nd = \"8 mm\"\nallowance = \"0.04 mm\"\n");
  CHECK(plain.inputs()[plain.find_input("allowance")].nominal == Approx(4e-5));
  CHECK(plain.inputs()[plain.find_input("p")].nominal == Approx(1e-3));
  // A coaxial peg, centred, goes in without touching the bore.
  std::vector<double> x;
  for (const auto& in : plain.inputs()) x.push_back(in.nominal);
  const auto out = plain.output_names();
  const auto e = plain.evaluate(x);
  CHECK(e.outputs[index_of(out, "success")] == 1.0);
  CHECK(e.outputs[index_of(out, "max_contacts")] == 0.0);
  CHECK(std::isnan(e.outputs[index_of(out, "phase_error")]));
}

TEST_CASE("threaded_insertion model: a constant-force feed (feed_mode = \"force\") starts the nominal bolt") {
  const model::model m = build("feed_mode = \"force\"\naxial_force = \"0.5 N\"\nz0 = \"0 mm\"\ngravity = \"9.81 m/s^2\"\n");
  std::vector<double> x;
  for (const auto& v : m.inputs()) x.push_back(v.nominal);
  CHECK(x[m.find_input("axial_force")] == Approx(0.5));
  const auto out = m.output_names();
  const auto e = m.evaluate(x);
  CHECK(e.outputs[index_of(out, "success")] == 1.0);
  // the grasp's axial force is the controller's; the contacts carry it and the weight
  CHECK(e.outputs[index_of(out, "max_axial_force")] == Approx(0.5).epsilon(1e-6));
}
