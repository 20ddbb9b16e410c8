// contactuq pinslot and the pinslot plots, run as a user would.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.hpp"

using Catch::Matchers::Contains;

TEST_CASE("pinslot runs the cases, writes HDF5 and the plots draw it", "[cli]") {
  const auto dir = std::filesystem::temp_directory_path() / "contactuq_pinslot_cli";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto study = (dir / "short.toml").string();
  std::ofstream(study) << "title = \"short\"\n[model]\ntype = \"pinslot\"\nend_time = \"10 ms\"\n"
                          "window = 31\n[[cases]]\nlabel = \"PSCJ\"\n[[cases]]\nlabel = \"IRJ\"\n"
                          "joint = \"irj\"\n";
  const auto h5 = (dir / "short.h5").string();
  const auto r = run_cli("pinslot " + study + " -o " + h5);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("PSCJ") && Contains("irj") && Contains("2 cases, 0 failed") &&
                           Contains("wrote " + h5));
  REQUIRE(std::filesystem::exists(h5));

  const std::string python = "PYTHONPATH=" + std::string(CONTACTUQ_SOURCE_DIR) +
                             "/python /usr/bin/python3 -m contactuq.plots.pinslot " + h5 +
                             " --outdir " + (dir / "plots").string() + " > /dev/null";
  REQUIRE(std::system(python.c_str()) == 0);
  for (const char* name : {"fx", "fy", "raw", "trajectory"}) {
    const auto png = dir / "plots" / (std::string("short_") + name + ".png");
    INFO(png);
    REQUIRE(std::filesystem::exists(png));
    CHECK(std::filesystem::file_size(png) > 1000);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("pinslot reports a bad key with file and line", "[cli]") {
  const auto dir = std::filesystem::temp_directory_path() / "contactuq_pinslot_bad";
  std::filesystem::create_directories(dir);
  const auto study = (dir / "bad.toml").string();
  std::ofstream(study) << "[model]\ntype = \"pinslot\"\nclearence = \"0.05 mm\"\n";
  auto r = run_cli("pinslot " + study);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains(study + ":3") && Contains("clearence") && Contains("unknown key"));
  std::ofstream(study) << "[model]\ntype = \"pinslot\"\nlaw = \"brake\"\n";
  r = run_cli("pinslot " + study);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("unknown contact law") && Contains("lankarani_nikravesh"));
  std::ofstream(study) << "[model]\ntype = \"pinslot\"\nclearance = \"-1 mm\"\n";
  r = run_cli("pinslot " + study);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains(study + ":3") && Contains("clearance"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("pinslot: a case label that cannot name a group is refused before anything runs", "[cli]") {
  const auto dir = std::filesystem::temp_directory_path() / "contactuq_pinslot_labels";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const std::string label : {"", "a/b"}) {
    const auto study = (dir / "labels.toml").string();
    std::ofstream(study) << "[model]\ntype = \"pinslot\"\nend_time = \"10 ms\"\n[[cases]]\nlabel = \"" << label
                         << "\"\n";
    const auto h5 = (dir / "labels.h5").string();
    const auto r = run_cli("pinslot " + study + " -o " + h5);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("labels.toml:5") && Contains("cases[1].label") && Contains("without '/'"));
    CHECK_FALSE(std::filesystem::exists(h5));
  }
  std::filesystem::remove_all(dir);
}
