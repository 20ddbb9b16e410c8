#include "contactuq/model/umbridge_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

// Lines 1-4 head the table; a test adds keys (line 5 on), then the inputs and outputs follow.
const std::string head =
    "[model]\ntype = \"umbridge\"\nurl = \"http://127.0.0.1:1\"\nname = \"forward\"\n";
const std::string tables =
    "[model.inputs]\nR = { value = \"200 N\", low = \"0 N\", high = \"1000 N\" }\nS = \"150 "
    "N\"\ntheta = 0.5\n"
    "[model.outputs]\ng = \"N\"\nratio = \"1\"\n";

model::model build(const std::string& text) {
  const auto doc = io::study_document::parse(text, "u.toml");
  return model::make_model(doc.root().table("model"));
}

io::study_error error_of(const std::string& text) {
  try {
    (void)build(text);
  } catch (const io::study_error& e) {
    return e;
  }
  FAIL("no error for:\n" << text);
  throw;
}

}  // namespace

TEST_CASE(
    "umbridge model: inputs and outputs as [model.inputs] and [model.outputs] write them, in SI",
    "[model][umbridge]") {
  const model::model m = build(head + tables);
  CHECK(m.name() == "umbridge");
  CHECK(m.input_names() == std::vector<std::string>{"R", "S", "theta"});
  CHECK(m.output_names() == std::vector<std::string>{"g", "ratio"});
  CHECK(m.inputs()[0].dim == units::force);
  CHECK(m.inputs()[0].nominal == 200.0);
  CHECK(m.inputs()[0].valid.high == 1000.0);
  CHECK(m.inputs()[2].dim == units::dimensionless);
  CHECK(m.outputs()[0].dim == units::force);
  CHECK(m.outputs()[1].dim == units::dimensionless);
  CHECK_FALSE(m.thread_safe());  // one HTTP client per copy
}

TEST_CASE("umbridge model: a table error names the file, line and key",
          "[model][umbridge][valid]") {
  CHECK_THAT(
      error_of("[model]\ntype = \"umbridge\"\nurl = \"ftp://x\"\nname = \"forward\"\n" + tables)
          .what(),
      Contains("u.toml:3") && Contains("http://host:port"));
  CHECK_THAT(
      error_of("[model]\ntype = \"umbridge\"\nurl = \"http://h:1/path\"\nname = \"f\"\n" + tables)
          .what(),
      Contains("u.toml:3"));
  CHECK_THAT(error_of(head + "timeout = \"0 s\"\n" + tables).what(),
             Contains("u.toml:5") && Contains("> 0"));
  CHECK_THAT(error_of(head + "timeout = \"3 m\"\n" + tables).what(), Contains("u.toml:5"));
  CHECK_THAT(error_of(head + "colour = 1\n" + tables).what(),
             Contains("u.toml:5") && Contains("colour"));
  CHECK_THAT(
      error_of(head + "[model.inputs]\nR = \"200 N\"\n[model.outputs]\ng = \"lbf\"\n").what(),
      Contains("u.toml:8") && Contains("not an SI unit") && Contains("\"N\""));
  CHECK_THAT(error_of(head + "[model.inputs]\nR = \"200 N\"\n[model.outputs]\nR = \"N\"\n").what(),
             Contains("u.toml:8") && Contains("input's name"));
  CHECK_THAT(error_of(head + "[model.outputs]\ng = \"N\"\n").what(), Contains("[model.inputs]"));
  CHECK_THAT(
      error_of(head +
               "[model.inputs]\nR = { value = \"2000 N\", high = \"1000 N\" }\n[model.outputs]\n"
               "g = \"N\"\n")
          .what(),
      Contains("u.toml:6"));
}

TEST_CASE(
    "umbridge model: no server is a failed evaluation (model_error) with the address, not a crash",
    "[model][umbridge]") {
  const model::model m = build(head + tables);
  const std::vector<double> x = {200.0, 150.0, 0.5};
  try {
    (void)m.evaluate(x);
    FAIL("no error without a server");
  } catch (const model_error& e) {
    CHECK_THAT(e.what(), Contains("http://127.0.0.1:1") && Contains("forward") &&
                             Contains("POST /Evaluate failed"));
  }
  const std::vector<double> nan = {200.0, std::nan(""), 0.5};
  CHECK_THROWS_AS(m.evaluate(nan), model_error);
}
