#include "contactuq/io/study_file.hpp"

#include <catch2/catch.hpp>

using namespace contactuq;
using namespace contactuq::io;
using Catch::Matchers::Contains;

namespace {
study_document doc(const char* text) { return study_document::parse(text, "s.toml"); }
}  // namespace

TEST_CASE("quantities are read with units into SI", "[study_file]") {
  const auto d = doc("[model]\nL = \"0.300 in\"\nmu = 0.2\nn = 3\nK = \"0.004 lbf*in/deg\"\n");
  const auto model = d.root().table("model");
  CHECK(model.quantity("L", units::length) == Approx(0.00762));
  CHECK(model.quantity("mu", units::dimensionless) == 0.2);
  CHECK(model.quantity("n", units::dimensionless) == 3.0);
  CHECK(model.quantity_or("absent", units::length, 1.5) == 1.5);
  CHECK(model.path() == "model");
  CHECK(model.line("K") == 5);
}

TEST_CASE("study errors name file, line, key, value and what is allowed", "[study_file]") {
  const auto d = doc("title = \"t\"\n[model]\nL = \"0.3\"\nphi = \"15 in\"\nmu = \"abc\"\nkind = 3\n[[model.arms]]\nd0 = 1\n");
  const auto model = d.root().table("model");
  CHECK_THROWS_WITH(model.quantity("L", units::length),
                    Contains("s.toml:3: model.L = \"0.3\"") && Contains("has no unit") && Contains("in"));
  CHECK_THROWS_WITH(model.quantity("phi", units::angle),
                    Contains("s.toml:4: model.phi = \"15 in\"") && Contains("expected an angle"));
  CHECK_THROWS_WITH(model.quantity("mu", units::dimensionless), Contains("s.toml:5:") && Contains("not a number"));
  CHECK_THROWS_WITH(model.string("kind"), Contains("s.toml:6: model.kind = 3: expected a string, got an integer"));
  CHECK_THROWS_WITH(model.quantity("missing", units::length), Contains("s.toml:2: [model]: missing required key 'missing'"));
  CHECK_THROWS_WITH(model.tables("arms")[0].quantity("d0", units::length),
                    Contains("s.toml:8: model.arms[1].d0 = 1: a length needs a unit"));
  CHECK_THROWS_WITH(model.choice("kind", {"a", "b"}), Contains("expected a string"));
  CHECK_THROWS_WITH(d.root().allow_only({"model"}),
                    Contains("s.toml:1:") && Contains("unknown key 'title'") && Contains("allowed keys: model"));
  try {
    model.quantity("phi", units::angle);
    FAIL();
  } catch (const study_error& e) {
    CHECK(e.file() == "s.toml");
    CHECK(e.line() == 4);
    CHECK(e.key() == "model.phi");
  }
}

TEST_CASE("parameter errors from validation point at the key that set the parameter", "[study_file]") {
  const auto d = doc("[model]\n\nK = \"-1 N*m/rad\"\n");
  const auto model = d.root().table("model");
  CHECK_THROWS_WITH(model.fail(parameter_error("K", "K = -1 N*m/rad: must be > 0")),
                    Contains("s.toml:3: model.K = \"-1 N*m/rad\": K = -1 N*m/rad: must be > 0"));
  CHECK_THROWS_WITH(model.fail(parameter_error("geometry", "bad geometry")), Contains("s.toml:1: [model]: bad geometry"));
}

TEST_CASE("arrays of strings are read whole or rejected with the key", "[study_file]") {
  const auto t = doc("names = [\"hertz\", \"brake\"]\nmixed = [\"a\", 1]\nempty = []\n").root();
  CHECK(t.strings("names") == std::vector<std::string>{"hertz", "brake"});
  CHECK_THROWS_WITH(t.strings("mixed"), Contains("s.toml:2: mixed") && Contains("array of strings"));
  CHECK_THROWS_WITH(t.strings("empty"), Contains("s.toml:3: empty"));
}

TEST_CASE("TOML syntax errors and missing files are located", "[study_file]") {
  CHECK_THROWS_WITH(doc("[model]\nL = \"0.3 in\n"), Contains("s.toml:2: TOML syntax error"));
  CHECK_THROWS_WITH(study_document::load("/nonexistent/study.toml"),
                    Contains("/nonexistent/study.toml: cannot open the study file"));
}

TEST_CASE("the document keeps the study text verbatim", "[study_file]") {
  const char* text = "# comment\n[model]\nL = \"0.3 in\"  # trailing\n";
  CHECK(doc(text).text() == text);
}
