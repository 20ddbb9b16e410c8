#include "contactuq/model/external_model.hpp"

#include <catch2/catch.hpp>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "contactuq/error.hpp"
#include "contactuq/model/evaluation_context.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/external_process.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A study file beside the drivers, so that relative paths resolve from tests/model.
const std::string study_file = std::string(CONTACTUQ_SOURCE_DIR) + "/tests/model/external.toml";

std::string study(const std::string& command, const std::string& more = "") {
  return "[model]\ntype = \"external\"\ncommand = " + command + "\n" + more +
         "[model.inputs]\nx = \"0.5 mm\"\n[model.outputs]\ny = \"kN\"\n";
}

model::model build(const std::string& text) {
  const auto doc = io::study_document::parse(text, study_file);
  return model::make_model(doc.root().table("model"));
}

// The model of line.py with fault `mode`, its work directories under `root`.
model::model faulty(const std::string& mode, const fs::path& root, const std::string& more = "") {
  return build(study("[\"/usr/bin/python3\", \"external_drivers/line.py\", \"" + mode + "\"]",
                     "workdirs = \"" + root.string() + "\"\n" + more));
}

std::string failure(const model::model& m, double x_mm) {
  const std::vector<double> x{x_mm * 1e-3};
  try {
    (void)m.evaluate(x);
  } catch (const model_error& e) {
    return e.what();
  }
  FAIL("no failure at x = " << x_mm << " mm");
  return {};
}

struct scratch {
  fs::path path = fs::temp_directory_path() / ("contactuq-external-test-" + std::to_string(::getpid()));
  scratch() { fs::create_directories(path); }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

bool process_alive(long pid) {
  // A killed process may stay a zombie for a moment until init reaps it.
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("State:", 0) == 0) return line.find('Z') == std::string::npos;
  return false;
}

}  // namespace

TEST_CASE("external model: registered; inputs in declared units, outputs converted to SI", "[model][external]") {
  CHECK(model::is_registered("external"));
  const model::model m = build(study("[\"/usr/bin/python3\", \"external_drivers/line.py\"]"));
  CHECK(m.name() == "external");
  CHECK(m.thread_safe());
  CHECK(m.input_names() == std::vector<std::string>{"x"});
  CHECK(m.inputs()[0].nominal == Approx(0.5e-3));
  // x = 0.5 mm reaches the program as 0.5; y = 3 * 0.5 + 2 = 3.5 kN.
  const std::vector<double> x{0.5e-3};
  CHECK(m.evaluate(x).outputs[0] == Approx(3500.0));
  const model::model sh = build(study("[\"sh\", \"external_drivers/line.sh\"]"));
  const std::vector<double> x2{0.25e-3};
  CHECK(sh.evaluate(x2).outputs[0] == Approx(2750.0));
}

TEST_CASE("external model: curves are interpolated onto the declared abscissa", "[model][external]") {
  const std::string text =
      "[model]\ntype = \"external\"\ncommand = [\"/usr/bin/python3\", \"external_drivers/line.py\"]\n"
      "[model.inputs]\nx = 0.5\n[model.outputs]\ny = \"1\"\n"
      "c = { curve = true, units = \"N\", x_name = \"s\", x_units = \"mm\", x = { from = 0, to = 4, points = 5 } }\n";
  const model::model m = build(text);
  REQUIRE(m.curves().size() == 1);
  CHECK(m.curves()[0].abscissa.back() == Approx(4e-3));
  const std::vector<double> x{0.5};
  const model::evaluation e = m.evaluate(x);
  REQUIRE(e.curves[0].size() == 5);
  for (std::size_t k = 0; k < 5; ++k) CHECK(e.curves[0][k] == Approx(0.5 * static_cast<double>(k)));
}

TEST_CASE("external model: templates get {name} replaced in the format asked for", "[model][external]") {
  const scratch s;
  { std::ofstream(s.path / "deck.inp") << "x = {x} {unknown} {{\n"; }
  const std::string text = "[model]\ntype = \"external\"\ncommand = [\"sh\", \"-c\", \"cp deck.inp out.txt; echo "
                           "'{\\\"outputs\\\": {\\\"y\\\": 1}}' > results.json\"]\nkeep_workdirs = \"all\"\n"
                           "workdirs = \"" + s.path.string() + "\"\ntemplates = [\"" + (s.path / "deck.inp").string() +
                           "\"]\nformat = \"{:.3e}\"\n[model.inputs]\nx = 0.5\n[model.outputs]\ny = \"1\"\n";
  const model::model m = build(text);
  const std::vector<double> x{0.25};
  CHECK(m.evaluate(x).outputs[0] == 1.0);
  std::string deck;
  for (const auto& p : fs::recursive_directory_iterator(s.path))
    if (p.path().filename() == "out.txt") std::getline(std::ifstream(p.path()), deck);
  CHECK(deck == "x = 2.500e-01 {unknown} {{");
}

TEST_CASE("external model: shell = true runs one string by /bin/sh -c in the work directory", "[model][external]") {
  const model::model m = build(R"toml([model]
type = "external"
shell = true
command = '''x=$(sed -n 's/.*"x": *\([0-9.]*\).*/\1/p' params.json); printf '{"outputs": {"y": %s}}' "$x" > results.json'''
[model.inputs]
x = 0.5
[model.outputs]
y = "1"
)toml");
  const std::vector<double> x{0.75};
  CHECK(m.evaluate(x).outputs[0] == 0.75);
}

TEST_CASE("external model: each fault is a failed evaluation with its reason; others unaffected",
          "[model][external][faults]") {
  const scratch s;
  const auto ok = [](const model::model& m) {
    const std::vector<double> x{0.5e-3};
    CHECK(m.evaluate(x).outputs[0] == Approx(3500.0));
  };
  SECTION("exit 1") {
    const auto m = faulty("exit1", s.path);
    CHECK_THAT(failure(m, 2), Contains("exited with status 1") && Contains("x = 2 is out of range") &&
                                  Contains("work directory kept"));
    ok(m);
  }
  SECTION("timeout") {
    const auto m = faulty("sleep", s.path, "timeout = \"3 s\"\n");
    const auto start = std::chrono::steady_clock::now();
    CHECK_THAT(failure(m, 2), Contains("ran past its timeout of 3 s") && Contains("driver: sleeping"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    ok(m);
  }
  SECTION("garbage") {
    const auto m = faulty("garbage", s.path);
    CHECK_THAT(failure(m, 2), Contains("results.json is not valid JSON"));
    ok(m);
  }
  SECTION("NaN") {
    const auto m = faulty("nan", s.path);
    CHECK_THAT(failure(m, 2), Contains("NaN"));
    ok(m);
  }
  SECTION("an output under another name") {
    const auto m = faulty("rename", s.path);
    CHECK_THAT(failure(m, 2), Contains("gave no output \"y\"") && Contains("it gave: why"));
    ok(m);
  }
  SECTION("10 MB of stderr: quoted from its end, the kept file cut") {
    const auto m = faulty("stderr10mb", s.path);
    const std::string what = failure(m, 2);
    CHECK_THAT(what, Contains("exited with status 3") && Contains("driver: the last line"));
    CHECK(what.size() < 4000);
    for (const auto& p : fs::recursive_directory_iterator(s.path))
      if (p.path().filename() == "stderr.txt") CHECK(fs::file_size(p.path()) < 100000);
    ok(m);
  }
  SECTION("a child left running is killed") {
    const auto m = faulty("child", s.path);
    CHECK_THAT(failure(m, 2), Contains("left processes running"));
    long pid = 0;
    for (const auto& p : fs::recursive_directory_iterator(s.path))
      if (p.path().filename() == "child.pid") std::ifstream(p.path()) >> pid;
    REQUIRE(pid > 0);
    for (int k = 0; k < 100 && process_alive(pid); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK_FALSE(process_alive(pid));
    ok(m);
  }
  SECTION("a program that cannot start") {
    const auto m = build(study("[\"sh\", \"-c\", \"exec /nonexistent/program\"]", "workdirs = \"" + s.path.string() + "\"\n"));
    CHECK_THAT(failure(m, 2), Contains("exited with status 127") && Contains("/nonexistent/program"));
  }
  CHECK(model::running_programs() == 0);
}

TEST_CASE("external model: params.json names the sample and case the evaluation context gives", "[model][external]") {
  const scratch s;
  const auto m = faulty("exit1", s.path, "keep_workdirs = \"all\"\n");
  const std::vector<double> x{0.5e-3};
  (void)m.evaluate(x);  // outside an ensemble
  {
    const model::evaluation_scope context({17, "k=2"});
    (void)m.evaluate(x);
    CHECK_THAT(failure(m, 2), Contains("(sample 17 of case k=2, evaluation 2;"));
  }
  (void)m.evaluate(x);  // the scope has ended
  CHECK(model::current_evaluation().sample == -1);
  std::map<long long, nlohmann::json> params;
  for (const auto& p : fs::recursive_directory_iterator(s.path))
    if (p.path().filename() == "params.json") {
      const nlohmann::json j = nlohmann::json::parse(std::ifstream(p.path()));
      params[j.at("evaluation").get<long long>()] = j;
    }
  REQUIRE(params.size() == 4);
  CHECK(params[0]["sample"].is_null());
  CHECK(params[0]["case"] == "");
  CHECK(params[1]["sample"] == 17);
  CHECK(params[1]["case"] == "k=2");
  CHECK(params[2]["sample"] == 17);
  CHECK(params[3]["sample"].is_null());
  CHECK(params[3]["case"] == "");
}

TEST_CASE("external model: keep_workdirs none leaves nothing; a cancel kills the running program",
          "[model][external]") {
  const scratch s;
  const auto m = faulty("exit1", s.path, "keep_workdirs = \"none\"\n");
  CHECK_THAT(failure(m, 2), !Contains("work directory kept"));
  std::size_t files = 0;
  for (const auto& p : fs::recursive_directory_iterator(s.path)) files += p.is_regular_file() ? 1 : 0;
  CHECK(files == 0);

  const auto slow = faulty("sleep", s.path);
  std::thread canceller([] {
    while (model::running_programs() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    model::terminate_running_programs();
  });
  CHECK_THAT(failure(slow, 2), Contains("the run was cancelled"));
  canceller.join();
}

TEST_CASE("external model: study errors at file, line and key", "[model][external]") {
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      (void)build(text);
    } catch (const io::study_error& e) {
      return e.what();
    }
    FAIL("no error");
    return {};
  };
  CHECK_THAT(error_of(study("[\"no-such-program-anywhere\"]")), Contains("external.toml:3") && Contains("not found in PATH"));
  CHECK_THAT(error_of(study("\"python3 x.py\"")), Contains("argv list"));
  CHECK_THAT(error_of(study("[\"python3\"]", "keep_workdirs = \"some\"\n")), Contains("keep_workdirs"));
  CHECK_THAT(error_of(study("[\"python3\"]", "timeout = \"3 mm\"\n")), Contains("timeout"));
  CHECK_THAT(error_of(study("[\"python3\"]", "format = \"{:q}\"\n")), Contains("format"));
  CHECK_THAT(error_of(study("[\"python3\"]", "colour = 1\n")), Contains("colour"));
  CHECK(model::external_commands(io::study_document::parse(study("[\"/usr/bin/python3\", \"external_drivers/line.py\"]"),
                                                           study_file)
                                     .root()
                                     .table("model"))
            .front()
            .find("tests/model/external_drivers/line.py") != std::string::npos);
}
