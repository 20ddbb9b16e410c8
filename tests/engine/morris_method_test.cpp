// The morris method: a registered method run through the engine like any other, its
// trajectories stored as an ensemble, its effects in /morris, recomputable from the file.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "contactuq/engine/run_study.hpp"
#include "contactuq/io/hdf5.hpp"

namespace eng = contactuq::engine;
namespace io = contactuq::io;
using Catch::Matchers::Contains;

namespace {

const std::filesystem::path shipped = std::filesystem::path(CONTACTUQ_SOURCE_DIR) / "studies" / "receptacle_morris.toml";

std::string shipped_text() {
  std::ifstream in(shipped);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct scratch {
  std::filesystem::path dir;
  explicit scratch(const std::string& name) : dir(std::filesystem::temp_directory_path() / ("contactuq_morris_" + name)) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~scratch() { std::filesystem::remove_all(dir); }
};

// The shipped study with fewer trajectories, and `extra` appended.
io::study_document small_study(const std::string& extra = "") {
  std::string text = shipped_text();
  text.replace(text.find("trajectories = 20"), 17, "trajectories = 6");
  return io::study_document::parse(text + extra, "morris.toml");
}

eng::run_result run(const io::study_document& doc, const std::filesystem::path& out, std::size_t threads = 2) {
  eng::run_options o;
  o.output = out;
  o.threads = threads;
  o.errors = nullptr;
  return eng::run_study(doc, o);
}

}  // namespace

TEST_CASE("morris runs any registered model through the engine and stores the trajectories as an ensemble",
          "[engine][morris]") {
  scratch s("file");
  const auto out = s.dir / "m.h5";
  const eng::run_result r = run(small_study(), out);
  CHECK(r.exit_code == 0);
  CHECK(r.method_name == "morris");
  CHECK(r.planned == 6 * 5);
  const io::hdf5::file f(out, io::hdf5::file_mode::read_only);
  CHECK(f.string_attribute("format") == "contactuq-ensemble");
  CHECK(f.string_attribute("method") == "morris");
  CHECK(f.string_attribute("model") == "receptacle_pin");
  CHECK(f.open_group("metadata").string_attribute("design") == "morris");
  const auto g = f.open_group("morris");
  const auto inputs = g.strings_attribute("inputs");
  const auto outputs = g.strings_attribute("outputs");
  auto screened = inputs;  // in the model's order of its inputs
  std::sort(screened.begin(), screened.end());
  CHECK(screened == std::vector<std::string>{"K", "g1_d0", "mu", "theta0"});
  const auto mu = g.open_dataset("mu").read_doubles();
  const auto mu_star = g.open_dataset("mu_star").read_doubles();
  REQUIRE(mu.size() == outputs.size() * inputs.size());

  // The effects again from the stored rows: each move changes one input by half its
  // probability range, up when the input grew (every quantile function is increasing).
  const auto x = f.open_dataset("inputs").read_doubles();
  const auto y = f.open_dataset("outputs").read_doubles();
  const auto moved = g.open_dataset("moved").read_doubles();
  const auto names = f.open_dataset("inputs").strings_attribute("names");
  const std::size_t n_in = names.size(), n_out = outputs.size(), rows = moved.size();
  REQUIRE(rows == 30);
  for (std::size_t j = 0; j < n_out; ++j) {
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const std::size_t column = static_cast<std::size_t>(std::find(names.begin(), names.end(), inputs[k]) - names.begin());
      double sum = 0, abs_sum = 0;
      std::size_t used = 0;
      for (std::size_t row = 0; row < rows; ++row) {
        if (moved[row] != static_cast<double>(k)) continue;
        const double dy = y[row * n_out + j] - y[(row - 1) * n_out + j];
        const double dx = x[row * n_in + column] - x[(row - 1) * n_in + column];
        REQUIRE(dx != 0);
        if (!std::isfinite(dy)) continue;
        const double ee = dy / (dx > 0 ? 0.5 : -0.5);
        sum += ee, abs_sum += std::abs(ee), ++used;
      }
      INFO(outputs[j] << " / " << inputs[k]);
      REQUIRE(used > 0);
      CHECK(mu[j * inputs.size() + k] == Approx(sum / static_cast<double>(used)).margin(1e-12));
      CHECK(mu_star[j * inputs.size() + k] == Approx(abs_sum / static_cast<double>(used)).margin(1e-12));
    }
  }
}

TEST_CASE("morris gives the same bits on 1 and 2 threads", "[engine][morris]") {
  scratch s("threads");
  REQUIRE(run(small_study(), s.dir / "a.h5", 1).exit_code == 0);
  REQUIRE(run(small_study(), s.dir / "b.h5", 2).exit_code == 0);
  const io::hdf5::file a(s.dir / "a.h5", io::hdf5::file_mode::read_only), b(s.dir / "b.h5", io::hdf5::file_mode::read_only);
  CHECK(a.open_dataset("outputs").read_doubles() == b.open_dataset("outputs").read_doubles());
  CHECK(a.open_group("morris").open_dataset("mu_star_low").read_doubles() ==
        b.open_group("morris").open_dataset("mu_star_low").read_doubles());
}

TEST_CASE("morris refuses what it cannot screen, at the key", "[engine][morris]") {
  scratch s("refusals");
  eng::run_options check;
  check.check_only = true;
  CHECK(eng::run_study(small_study(), check).planned == 30);
  CHECK_THROWS_WITH(eng::run_study(small_study("\n[sampling]\nsamples = 10\n"), check),
                    Contains("morris.toml") && Contains("unknown key 'sampling'"));
  std::string text = shipped_text();
  text.replace(text.find("levels = 4"), 10, "levels = 5");
  CHECK_THROWS_WITH(eng::run_study(io::study_document::parse(text, "odd.toml"), check),
                    Contains("odd.toml") && Contains("morris.levels") && Contains("even"));
  CHECK_THROWS_WITH(eng::run_study(small_study("\n[parameters.Rr]\nrole = \"epistemic\"\nchoices = [\"0.06 in\", "
                                                "\"0.07 in\"]\n"),
                                   check),
                    Contains("epistemic"));
}
