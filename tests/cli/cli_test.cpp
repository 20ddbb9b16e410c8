// The contactuq executable, run as a user would.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.hpp"

using Catch::Matchers::Contains;

namespace {

cli_result run(const std::string& args) { return run_cli(args); }

const std::string studies = std::string(CONTACTUQ_SOURCE_DIR) + "/studies/";

}  // namespace

TEST_CASE("every subcommand has --help", "[cli]") {
  for (const char* sub : {"", "curve", "impact", "units", "run", "summarize", "plot", "optimize", "fit", "synthesize",
                          "pinslot", "models"}) {
    const auto r = run(std::string(sub) + " --help");
    INFO(sub);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("Usage"));
  }
  CHECK_THAT(run("--version").output, Contains("contactuq 0."));
}

TEST_CASE("--help lists the everyday verbs first and the old verbs last, as aliases of run", "[cli]") {
  const std::string help = run("--help").output;
  const auto line = [&help](const std::string& verb) { return help.find("\n  " + verb + " "); };
  std::size_t previous = 0;
  for (const char* verb : {"run", "check", "summarize", "plot", "models"}) {
    INFO(verb);
    REQUIRE(line(verb) != std::string::npos);
    CHECK(line(verb) > previous);
    previous = line(verb);
  }
  const std::size_t aliases = help.find("Aliases of `run`");
  REQUIRE(aliases != std::string::npos);
  for (const char* verb : {"curve", "impact", "pinslot", "optimize", "fit"}) {
    INFO(verb);
    CHECK(line(verb) > aliases);
    CHECK_THAT(help.substr(line(verb), help.find('\n', line(verb) + 1) - line(verb)), Contains("Alias of `run`"));
  }
  for (const char* verb : {"units", "merge", "synthesize", "serve"}) {
    INFO(verb);
    CHECK(line(verb) > previous);
    CHECK(line(verb) < aliases);
  }
}

TEST_CASE("curve prints the summary a person reads first", "[cli]") {
  const auto csv = (std::filesystem::temp_directory_path() / "contactuq_cli_test.csv").string();
  const auto r = run("curve " + studies + "williams_bifurcated.toml -o " + csv);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("peak insertion force"));
  CHECK_THAT(r.output, Contains("peak withdrawal force"));
  CHECK_THAT(r.output, Contains("1.3374"));  // peak rotation [deg], Williams Fig. 11
  CHECK_THAT(r.output, Contains("(cone)"));
  CHECK_THAT(r.output, Contains("wrote " + csv + " (1000 rows)"));
  CHECK(std::filesystem::file_size(csv) > 10000);
  std::filesystem::remove(csv);
}

TEST_CASE("bad input is one clear line and exit code 2", "[cli]") {
  const auto dir = std::filesystem::temp_directory_path() / "contactuq_cli_bad";
  std::filesystem::create_directories(dir);
  const auto bad = (dir / "bad.toml").string();
  std::ofstream(bad) << "[model]\ntype = \"receptacle_pin\"\nL = \"-1 in\"\n";
  auto r = run("curve " + bad);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("contactuq: error: " + bad + ":1: [model]: missing required key 'Rr'"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);

  r = run("curve " + studies + "williams_bifurcated.toml -o out.txt");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains(".csv"));

  r = run("curve /nonexistent.toml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("/nonexistent.toml"));

  r = run("frobnicate");
  CHECK(r.exit_code == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("models lists every registered model and describes one", "[cli]") {
  const auto all = run("models");
  REQUIRE(all.exit_code == 0);
  for (const char* name : {"expression", "impact", "pinslot", "receptacle_pin", "switch", "threaded_insertion"})
    CHECK_THAT(all.output, Contains(name));
  const auto rp = run("models receptacle_pin");
  REQUIRE(rp.exit_code == 0);
  CHECK_THAT(rp.output, Contains("K                        N*m/rad"));  // unit beside the name
  CHECK_THAT(rp.output, Contains("peak_insertion"));
  CHECK_THAT(rp.output, Contains("curves (1)"));
  const auto expr = run("models --study " + studies + "expression_r_minus_s.toml");
  REQUIRE(expr.exit_code == 0);
  CHECK_THAT(expr.output, Contains("safety_factor"));
  const auto unknown = run("models nope");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Contains("registered: expression"));
}

TEST_CASE("units converts a value to SI", "[cli]") {
  const auto r = run("units \"0.004 lbf*in/deg\"");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("N*m/rad") && Contains("torsional stiffness"));
  CHECK(run("units \"3 furlong\"").exit_code == 2);
}

TEST_CASE("impact prints the law comparison and writes the CSV", "[cli]") {
  // A bare file name (no directory part) is written to the working directory.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::temp_directory_path());
  const std::string csv = "contactuq_impact_test.csv";
  const auto r = run("impact " + studies + "impact_models.toml -o " + csv);
  std::filesystem::current_path(cwd);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("coefficient of restitution") && Contains("thornton") &&
                           Contains("434 impacts, 0 failed") && Contains("wrote " + csv + " (434 rows)"));
  std::ifstream in(std::filesystem::temp_directory_path() / csv);
  std::string header;
  std::getline(in, header);
  CHECK(header.rfind("law,approach_velocity [m/s],status,restitution", 0) == 0);
  std::filesystem::remove(std::filesystem::temp_directory_path() / csv);
  // A wrong extension is refused before any impact runs.
  const auto bad = run("impact " + studies + "impact_models.toml -o out.txt");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("must end in .csv") && !Contains("impacts"));
}
