// `contactuq run` runs the shipped studies of every method, and `summarize` and `plot` read each
// result file: the slow studies (robust designs, nested switch studies, threaded insertion)
// are run by hand before a release (scripts/run_every_study.sh).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "run_cli.hpp"

using Catch::Matchers::Contains;

TEST_CASE("every method's shipped study runs, summarizes and plots", "[cli][engine]") {
  const auto dir = std::filesystem::temp_directory_path() / ("contactuq-every-study-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string studies = std::string(CONTACTUQ_SOURCE_DIR) + "/studies/";
  for (const char* name : {"williams_bifurcated", "williams_sweep_mu", "impact_models", "pinslot_validation",
                           "switch_evaluate", "fit_williams", "calibrate_switch", "impact_uq", "quickstart",
                           "receptacle_morris", "receptacle_force_reliability", "surrogate_ishigami"}) {
    INFO(name);
    // In a folder that does not exist yet: every method makes it.
    const std::string out = (dir / name / "result.h5").string();
    const cli_result run = run_cli("run " + studies + name + ".toml -o " + out + " -j 2");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const cli_result summary = run_cli("summarize " + out + " --bootstrap 100");
    INFO(summary.output);
    CHECK(summary.exit_code == 0);
    CHECK_THAT(summary.output, Contains(out));
    const auto figures = dir / (std::string(name) + "_plots");
    const cli_result plot = run_cli("plot " + out + " -o " + figures.string());
    INFO(plot.output);
    CHECK(plot.exit_code == 0);
    std::size_t written = 0;
    if (std::filesystem::exists(figures))
      for (const auto& f : std::filesystem::directory_iterator(figures)) written += f.path().extension() == ".png";
    CHECK(written >= 1);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("check reads every shipped study as run would, evaluates and writes nothing", "[cli][engine]") {
  const auto dir = std::filesystem::temp_directory_path() / ("contactuq-check-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string all;
  std::size_t count = 0;
  // hidden files are scratch studies the docs check writes and deletes meanwhile
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CONTACTUQ_SOURCE_DIR) + "/studies"))
    if (entry.path().extension() == ".toml" && !entry.path().filename().string().starts_with('.')) {
      all += ' ';
      all += entry.path().string();
      ++count;
    }
  // From an empty folder: a check never creates the result files the studies name.
  const cli_result ok = run_cli_command("cd " + dir.string() + " && " + CONTACTUQ_CLI + " check" + all);
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  std::size_t lines = 0;
  for (std::size_t at = ok.output.find(": ok: "); at != std::string::npos; at = ok.output.find(": ok: ", at + 1)) ++lines;
  CHECK(lines == count);
  CHECK_THAT(ok.output, Contains("quickstart.toml: ok: sample study of model receptacle_pin, 1000 samples"));
  CHECK_THAT(ok.output, Contains("switch_epistemic.toml: ok: nested study of model switch, 60000 samples"));
  CHECK(std::filesystem::is_empty(dir));

  // Every study is checked; each bad one is one error line naming its key, and the exit code is 2.
  const auto bad = dir / "bad.toml";
  {
    std::ofstream out(bad);
    out << "[model]\ntype = \"receptacle_pin\"\nL = \"-0.3 in\"\n";
  }
  const cli_result mixed =
      run_cli("check " + bad.string() + " " + std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  INFO(mixed.output);
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.output, Contains("bad.toml:"));
  CHECK_THAT(mixed.output, Contains("quickstart.toml: ok"));
  std::filesystem::remove_all(dir);
}
