// `contactuq summarize` and `contactuq plot` on an ensemble with failed samples.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "contactuq/io/ensemble_store.hpp"
#include "run_cli.hpp"

#include <unistd.h>

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The quickstart study, smaller, with friction near 3 so that some samples lock and fail.
struct failing_ensemble {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("contactuq-summarize-" + std::to_string(::getpid()));
  std::string file = (dir / "e.h5").string();

  failing_ensemble() {
    std::filesystem::create_directories(dir);
    std::string text = read_text(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
    const auto replace = [&](const std::string& from, const std::string& to) {
      const auto at = text.find(from);
      REQUIRE(at != std::string::npos);
      text.replace(at, from.size(), to);
    };
    replace("samples = 1000", "samples = 200");
    replace("points = 200 ", "points = 40 ");
    replace("low = 0.02\nhigh = 0.21", "low = 2.7\nhigh = 3.1");
    std::ofstream((dir / "study.toml").string()) << text;
    const cli_result r = run_cli("run " + (dir / "study.toml").string() + " -o " + file + " -q");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  ~failing_ensemble() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

}  // namespace

TEST_CASE("summarize prints every output with intervals and the failures", "[cli][summarize]") {
  failing_ensemble e;
  const io::ensemble read = io::read_ensemble(e.file, {.curves = false});
  const auto failed = std::count(read.status.begin(), read.status.end(), 1);
  REQUIRE(failed > 0);  // the study is built to have some
  REQUIRE(failed < 200);

  const cli_result text = run_cli("summarize " + e.file);
  INFO(text.output);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.output, Contains(fmt::format("{} ok, {} failed, 0 not run", 200 - failed, failed)));
  CHECK_THAT(text.output, Contains("friction"));  // the most frequent failure message
  for (const char* name : {"peak_insertion", "peak_withdrawal", "peak_theta", "hysteresis_energy", "x_c"})
    CHECK_THAT(text.output, Contains(name));
  CHECK_THAT(text.output, Contains("95% CI low") && Contains("5%") && Contains("50%") && Contains("95%"));

  // The JSON numbers agree with NumPy reading the same file.
  const std::string json = (e.dir / "summary.json").string();
  const cli_result j = run_cli("summarize " + e.file + " --json --bootstrap 400 > " + json);
  REQUIRE(j.exit_code == 0);
  const std::string source = CONTACTUQ_SOURCE_DIR;
  const cli_result check = [&] {
    const std::string command = "/usr/bin/python3 '" + source + "/tests/cli/check_summary.py' '" + e.file + "' '" +
                                json + "' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    std::string out;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    const int status = pclose(pipe);
    return cli_result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
  }();
  INFO(check.output);
  CHECK(check.exit_code == 0);
}

TEST_CASE("summarize and plot refuse what they cannot read", "[cli][summarize]") {
  const std::string missing = "/nonexistent/e.h5";
  CHECK(run_cli("summarize " + missing).exit_code != 0);
  const std::string study = std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml";
  const cli_result r = run_cli("summarize " + study);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("quickstart.toml"));
  CHECK(run_cli("summarize " + study + " --confidence 2").exit_code != 0);
}

TEST_CASE("plot writes a histogram and a CDF per output and a band per curve", "[cli][plot]") {
  failing_ensemble e;
  const std::string outdir = (e.dir / "plots").string();
  const cli_result r = run_cli("plot " + e.file + " -o " + outdir + " --output peak_insertion");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* name : {"peak_insertion_histogram.png", "peak_insertion_cdf.png", "Fx_total_band.png"}) {
    const auto path = std::filesystem::path(outdir) / name;
    INFO(path);
    REQUIRE(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) > 10000);
  }
  CHECK(!std::filesystem::exists(std::filesystem::path(outdir) / "x_c_cdf.png"));

  const cli_result bad = run_cli("plot " + e.file + " -o " + outdir + " --output no_such_output");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("no output 'no_such_output'") && Contains("peak_insertion"));
}

TEST_CASE("a nested study with Sobol sampling: summarize per case, horsetail and Sobol figures", "[cli][plot]") {
  const auto dir = std::filesystem::temp_directory_path() / ("contactuq-nested-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string text = read_text(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  text = text.substr(0, text.find("# Stiffer arms"));  // Sobol indices need independent inputs
  const auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("samples = 1000", "samples = 60\nsobol = true");
  replace("points = 200 ", "points = 40 ");
  text += "\n[parameters.phi]\nrole = \"epistemic\"\nchoices = [\"10 deg\", \"30 deg\"]\n";
  std::ofstream((dir / "study.toml").string()) << text;
  const std::string file = (dir / "nested.h5").string();
  REQUIRE(run_cli("run " + (dir / "study.toml").string() + " -o " + file + " -q").exit_code == 0);

  const cli_result s = run_cli("summarize " + file + " --bootstrap 100");
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  CHECK_THAT(s.output, Contains("2 epistemic cases x 60 aleatoric samples") && Contains("phi=10 deg") &&
                           Contains("phi=30 deg") && Contains("epistemic share") &&
                           Contains("Sobol indices, phi=30 deg") && Contains("theta0"));

  const cli_result p = run_cli("plot " + file + " -o " + (dir / "plots").string() + " --output x_c");
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  for (const char* name : {"x_c_horsetail.png", "x_c_sobol.png"})
    CHECK(std::filesystem::file_size(dir / "plots" / name) > 10000);
  std::filesystem::remove_all(dir);
}

TEST_CASE("summarize and plot show the study's [output] units, the file stays SI", "[cli][summarize][units]") {
  const auto dir = std::filesystem::temp_directory_path() / ("contactuq-units-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string text = read_text(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  text.replace(text.find("samples = 1000"), 14, "samples = 40");
  text += "\n[output]\nunits = { length = \"in\", force = \"lbf\", peak_insertion = \"grf\" }\n";
  const std::string study = (dir / "units.toml").string(), file = (dir / "units.h5").string();
  std::ofstream(study) << text;
  REQUIRE(run_cli("run " + study + " -o " + file + " -q").exit_code == 0);

  const io::ensemble e = io::read_ensemble(file, {.curves = false});
  const auto j = e.output_index("peak_insertion");
  CHECK(e.schema.outputs[j].unit == "N");  // stored in SI
  const double max_si = e.outputs.col(static_cast<Eigen::Index>(j)).maxCoeff();

  const cli_result shown = run_cli("summarize " + file + " --json --bootstrap 0");
  REQUIRE(shown.exit_code == 0);
  CHECK_THAT(shown.output, Contains("\"unit\": \"grf\"") && Contains("\"unit\": \"lbf*in\""));
  // The first "max" after the output's name.
  const auto at = shown.output.find("\"max\": ", shown.output.find("\"name\": \"peak_insertion\""));
  REQUIRE(at != std::string::npos);
  CHECK(std::stod(shown.output.substr(at + 7)) == Approx(max_si / 9.80665e-3).epsilon(1e-12));
  const cli_result si = run_cli("summarize " + file + " --si --bootstrap 0");
  CHECK_THAT(si.output, Contains("SI units") && Contains("peak_insertion [N]"));
  const cli_result table = run_cli("summarize " + file + " --bootstrap 0");
  CHECK_THAT(table.output, Contains("the study's [output] units") && Contains("peak_insertion [grf]") &&
                               Contains("x_c [in]"));

  // The figures label their axes in the same units.
  const cli_result plot = run_cli("plot " + file + " -o " + (dir / "plots").string() + " --format svg --output "
                                  "peak_insertion --curve Fx_total");
  INFO(plot.output);
  REQUIRE(plot.exit_code == 0);
  CHECK_THAT(read_text((dir / "plots" / "peak_insertion_cdf.svg").string()), Contains("peak_insertion [grf]"));
  CHECK_THAT(read_text((dir / "plots" / "Fx_total_band.svg").string()), Contains("Fx_total [lbf]"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("summarize answers design questions: limits violated, inputs ranked, 0/1 outputs as proportions",
          "[cli][summarize][rankings]") {
  const auto dir = std::filesystem::temp_directory_path() / ("contactuq-limits-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string text = read_text(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  text.replace(text.find("samples = 1000"), 14, "samples = 300");
  text.erase(text.find("\n# The insertion-force specification"));  // the shipped limits: replaced below
  const std::string study = (dir / "limits.toml").string(), file = (dir / "limits.h5").string();
  std::ofstream(study) << text << "\n[output]\nlimits = { peak_insertion = { high = \"6 grf\" }, x_c = { low = "
                                  "\"0.14 in\", high = \"0.16 in\" } }\n";
  REQUIRE(run_cli("run " + study + " -o " + file + " -q").exit_code == 0);

  const io::ensemble e = io::read_ensemble(file, {.curves = false});
  std::size_t above = 0, outside = 0;
  for (std::size_t i = 0; i < e.rows; ++i) {
    above += e.outputs(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(e.output_index("peak_insertion"))) >
             6 * 9.80665e-3;
    const double x = e.outputs(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(e.output_index("x_c")));
    outside += x < 0.14 * 0.0254 || x > 0.16 * 0.0254;
  }
  const cli_result json = run_cli("summarize " + file + " --json --bootstrap 50");
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.output, Contains(fmt::format("\"events\": {},\n", above)));
  CHECK_THAT(json.output, Contains(fmt::format("\"events\": {},\n", outside)));
  CHECK_THAT(json.output, Contains("\"ranking\"") && Contains("\"prcc\"") && Contains("\"spearman\"") &&
                              Contains("\"src\"") && Contains("\"r2\""));
  const cli_result table = run_cli("summarize " + file + " --bootstrap 50");
  CHECK_THAT(table.output, Contains("Specification limits") && Contains(fmt::format("({} of 300 parts)", above)) &&
                               Contains("Which inputs drive each output") && Contains("PRCC"));

  // A limit on something that is not an output is refused when the study is read.
  std::ofstream(study) << text << "\n[output]\nlimits = { peak_insertoin = { high = \"6 grf\" } }\n";
  const cli_result bad = run_cli("run " + study + " -o " + (dir / "bad.h5").string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("peak_insertoin") && Contains("peak_insertion"));
  std::filesystem::remove_all(dir);
}
