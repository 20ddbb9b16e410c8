// The study engine: which method each shipped study runs, the root attributes of every result
// file, refusals, and the evaluate method's full-resolution time history.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "contactuq/engine/run_study.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/result_description.hpp"

namespace eng = contactuq::engine;
namespace io = contactuq::io;
using Catch::Matchers::Contains;

namespace {

const std::filesystem::path studies = std::filesystem::path(CONTACTUQ_SOURCE_DIR) / "studies";

// One folder per test case: ctest runs the cases of this file in parallel.
struct scratch {
  std::filesystem::path dir;
  explicit scratch(const std::string& name) : dir(std::filesystem::temp_directory_path() / ("contactuq_engine_" + name)) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~scratch() { std::filesystem::remove_all(dir); }
};

eng::run_result run(const std::string& study, const std::filesystem::path& out, bool force = false) {
  eng::run_options o;
  o.output = out;
  o.force = force;
  o.threads = 2;
  o.errors = nullptr;
  return eng::run_study(io::study_document::load((studies / study).string()), o);
}

}  // namespace

TEST_CASE("every shipped study names or implies its method", "[engine]") {
  const std::map<std::string, std::string> expected = {
      {"bayesian_receptacle_parts.toml", "bayesian"},
      {"calibrate_switch.toml", "calibrate"},
      {"expression_r_minus_s.toml", "sample"},
      {"external_r_minus_s.toml", "sample"},
      {"fit_williams.toml", "calibrate"},
      {"impact_models.toml", "impact"},
      {"impact_uq.toml", "sample"},
      {"nicolson_tables.toml", "sample"},
      {"pinslot_contact_laws.toml", "pinslot"},
      {"pinslot_uq.toml", "sample"},
      {"pinslot_validation.toml", "pinslot"},
      {"quickstart.toml", "sample"},
      {"receptacle_morris.toml", "morris"},
      {"receptacle_force_reliability.toml", "reliability"},
      {"reliability_four_branch.toml", "reliability"},
      {"reliability_linear_subset.toml", "reliability"},
      {"reliability_lognormal_ratio.toml", "reliability"},
      {"receptacle_robust_design.toml", "optimize"},
      {"surrogate_ishigami.toml", "surrogate"},
      {"surrogate_threaded_insertion.toml", "surrogate"},
      {"switch_epistemic.toml", "sample"},
      {"switch_evaluate.toml", "evaluate"},
      {"switch_nominal.toml", "sample"},
      {"switch_robust_design.toml", "optimize"},
      {"threaded_insertion_grasp_trends.toml", "sample"},
      {"threaded_insertion_histories.toml", "sample"},
      {"threaded_insertion_robust_design.toml", "optimize"},
      {"threaded_insertion_sensitivity.toml", "sample"},
      {"threaded_insertion_success.toml", "sample"},
      {"umbridge_r_minus_s.toml", "sample"},
      {"williams_bifurcated.toml", "curve"},
      {"williams_experiment.toml", "curve"},
      {"williams_flexure.toml", "curve"},
      {"williams_sweep_mu.toml", "sweep"},
      {"williams_sweep_phi.toml", "sweep"},
      {"williams_sweep_theta0.toml", "sweep"},
  };
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(studies)) {
    const std::string name = entry.path().filename().string();
    // hidden files are scratch studies the docs check writes and deletes meanwhile
    if (entry.path().extension() != ".toml" || name.starts_with('.')) continue;
    INFO(name);
    REQUIRE(expected.count(name) == 1);  // a new study: add its method here
    CHECK(eng::method_of(io::study_document::load(entry.path().string())).name == expected.at(name));
    ++seen;
  }
  CHECK(seen == expected.size());
}

TEST_CASE("a study's method key is checked and a command's method is the fallback", "[engine]") {
  scratch s("method");
  const auto file = s.dir / "m.toml";
  std::ofstream(file) << "method = \"bootstrap\"\n[model]\ntype = \"switch\"\n";
  CHECK_THROWS_WITH(eng::method_of(io::study_document::load(file.string())),
                    Contains("m.toml:1") && Contains("unknown method \"bootstrap\"") && Contains("calibrate"));
  std::ofstream(file) << "[model]\ntype = \"receptacle_pin\"\n";
  CHECK_THROWS_WITH(eng::method_of(io::study_document::load(file.string())), Contains("names no method"));
  CHECK(eng::method_of(io::study_document::load(file.string()), "curve").name == "curve");
}

TEST_CASE("every fast method writes a self-describing result file and never overwrites one", "[engine]") {
  scratch s("files");
  struct expectation {
    std::string study, format, method, model;
  };
  const expectation cases[] = {
      {"williams_bifurcated.toml", "contactuq-curve", "curve", "receptacle_pin"},
      {"williams_sweep_mu.toml", "contactuq-curve", "sweep", "receptacle_pin"},
      {"impact_models.toml", "contactuq-impact", "impact", "impact"},
      {"pinslot_validation.toml", "contactuq-pinslot", "pinslot", "pinslot"},
      {"switch_evaluate.toml", "contactuq-evaluate", "evaluate", "switch"},
      {"fit_williams.toml", "contactuq-fit", "calibrate", "receptacle_pin"},
  };
  for (const auto& c : cases) {
    INFO(c.study);
    const auto out = s.dir / (c.study + ".h5");
    const eng::run_result r = run(c.study, out);
    CHECK(r.exit_code == 0);
    CHECK(r.failed == 0);
    CHECK(r.output == out);
    const io::result_description d = io::describe_result(out);
    CHECK(d.format == c.format);
    CHECK(d.method == c.method);
    CHECK(d.model == c.model);
    CHECK(std::any_of(d.attributes.begin(), d.attributes.end(),
                      [](const auto& a) { return a.first == "format_version"; }));
    CHECK(std::any_of(d.datasets.begin(), d.datasets.end(), [](const auto& ds) { return ds.path == "/study"; }));
    // A second run into the same file is refused; --force replaces it.
    CHECK_THROWS_WITH(run(c.study, out), Contains("exists") && Contains("--force"));
    CHECK(run(c.study, out, true).exit_code == 0);
  }
}

TEST_CASE("evaluate stores the switch's contact force at every step: its maximum is the solver's peak", "[engine]") {
  scratch s("evaluate");
  const auto out = s.dir / "switch.h5";
  REQUIRE(run("switch_evaluate.toml", out).exit_code == 0);
  const io::hdf5::file f(out, io::hdf5::file_mode::read_only);
  const auto names = f.open_dataset("outputs").strings_attribute("names");
  const auto outputs = f.open_dataset("outputs").read_doubles();
  const auto at = std::find(names.begin(), names.end(), "peak_contact_force") - names.begin();
  REQUIRE(static_cast<std::size_t>(at) < names.size());
  const double peak = outputs[static_cast<std::size_t>(at)];
  const auto trace = f.open_group("trace");
  const auto force = trace.open_dataset("contact_force").read_doubles();
  const auto t = trace.open_dataset("t").read_doubles();
  REQUIRE(force.size() == t.size());
  CHECK(force.size() > 1000);
  CHECK(std::is_sorted(t.begin(), t.end()));
  CHECK(peak > 10.0);  // N: the stop is hit
  CHECK(*std::max_element(force.begin(), force.end()) == Approx(peak).epsilon(1e-3));
  // Located events: contacts start and end, and the slider closes, at times on the record.
  const auto events = trace.open_dataset("event_names").read_texts();
  const auto event_at = trace.open_dataset("event_at").read_doubles();
  REQUIRE(events.size() == event_at.size());
  CHECK(std::count(events.begin(), events.end(), "contact start") >= 2);
  CHECK(std::count(events.begin(), events.end(), "closure") == 1);
  for (const double e : event_at) CHECK((e >= t.front() && e <= t.back()));
}
