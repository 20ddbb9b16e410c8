// studies/switch_nominal.toml through `contactuq run`, with fewer samples.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_cli.hpp"

using Catch::Matchers::Contains;

TEST_CASE("run: the switch study samples the switch model", "[cli][switch]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("contactuq-switch-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/switch_nominal.toml");
  std::ostringstream text;
  text << in.rdbuf();
  std::string study = text.str();
  const auto at = study.find("samples = 200");
  REQUIRE(at != std::string::npos);
  study.replace(at, 13, "samples = 8");
  const std::string path = (dir / "switch.toml").string();
  std::ofstream(path) << study;

  const cli_result r = run_cli("run " + path + " -o " + (dir / "switch.h5").string() + " -j 2");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("model switch, 8 samples") && Contains("closure_time") &&
                           Contains("failed samples: 0 of 8"));
  CHECK(std::filesystem::file_size(dir / "switch.h5") > 0);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}
