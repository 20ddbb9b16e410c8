// The pin-slot set-up as a registry model: inputs, outputs, epistemic keys.
#include "contactuq/model/pinslot_model.hpp"

#include <catch2/catch.hpp>

#include "contactuq/model/registry.hpp"

using namespace contactuq;

namespace {
model::model build(const std::string& extra) {
  model::register_builtin_models();
  const auto doc = io::study_document::parse(
      "[model]\ntype = \"pinslot\"\nend_time = \"10 ms\"\n" + extra, "pinslot.toml");
  return model::make_model(doc.root().table("model"));
}
}  // namespace

TEST_CASE("pinslot model: the aleatoric inputs and the outputs", "[model]") {
  const auto m = build("clearance = \"0.04 mm\"\n");
  CHECK(m.name() == "pinslot");
  CHECK(m.input_names() == std::vector<std::string>{"clearance", "friction", "restitution", "force_amplitude"});
  CHECK(m.inputs()[0].nominal == Approx(0.04e-3));
  CHECK(m.inputs()[1].nominal == 0.51);  // Table 3
  CHECK(m.thread_safe());
  std::vector<double> x;
  for (const auto& v : m.inputs()) x.push_back(v.nominal);
  const auto e = m.evaluate(x);
  REQUIRE(e.outputs.size() == m.outputs().size());
  CHECK(e.outputs[0] >= e.outputs[1]);  // the raw peak bounds the filtered one
  CHECK(e.outputs[0] > 0.9);            // at least the 1 N preload
  REQUIRE(e.curves.size() == 2);
  CHECK(e.curves[0].size() == m.curves()[0].abscissa.size());
  // Same inputs, same outputs: a deterministic simulation.
  CHECK(m.evaluate(x).outputs == e.outputs);
}

TEST_CASE("pinslot model: the joint and the law are keys of the model table", "[model]") {
  const auto irj = build("joint = \"irj\"\n");
  std::vector<double> x;
  for (const auto& v : irj.inputs()) x.push_back(v.nominal);
  const auto e = irj.evaluate(x);
  CHECK(e.outputs[5] == 0.0);  // no impacts in an ideal joint
  CHECK_THROWS_WITH(build("joint = \"slider\"\n"), Catch::Contains("joint"));
  CHECK_THROWS_WITH(build("law = \"cor\"\n"), Catch::Contains("unknown contact law"));
}
