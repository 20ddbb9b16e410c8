#include "contactuq/model/registry.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

#include "contactuq/model/expression_model.hpp"
#include "contactuq/model/external_model.hpp"
#include "contactuq/model/impact_model.hpp"
#include "contactuq/model/pinslot_model.hpp"
#include "contactuq/model/receptacle_pin_model.hpp"
#include "contactuq/model/surrogate_model.hpp"
#include "contactuq/model/switch_model.hpp"
#include "contactuq/model/threaded_insertion_model.hpp"
#include "contactuq/model/umbridge_model.hpp"

namespace contactuq::model {

namespace {

struct registry {
  registry();  // holds the models contactuq ships
  std::mutex mutex;
  std::map<std::string, model_factory, std::less<>> factories;
};

registry::registry() {
  factories.emplace("receptacle_pin", [](const io::study_table& t) {
    return model(receptacle_pin_model::from_study(t));
  });
  factories.emplace("impact", [](const io::study_table& t) { return model(impact_model::from_study(t)); });
  factories.emplace("pinslot", [](const io::study_table& t) { return model(pinslot_model::from_study(t)); });
  factories.emplace("switch", [](const io::study_table& t) { return model(switch_model::from_study(t)); });
  factories.emplace("threaded_insertion", [](const io::study_table& t) { return model(threaded_insertion_model::from_study(t)); });
  factories.emplace("expression", [](const io::study_table& t) { return model(expression_model::from_study(t)); });
  factories.emplace("external", [](const io::study_table& t) { return model(external_model::from_study(t)); });
  factories.emplace("umbridge", [](const io::study_table& t) { return model(umbridge_model::from_study(t)); });
  factories.emplace("surrogate", [](const io::study_table& t) { return model(surrogate_model::from_study(t)); });
}

// Built with the built-in models on first use, once (a function-local static: thread-safe),
// so that no caller has to remember register_builtin_models() first.
registry& instance() {
  static registry r;
  return r;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

void register_model(std::string name, model_factory factory) {
  if (name.empty()) throw std::invalid_argument("register_model: empty model name");
  if (!factory) throw std::invalid_argument(fmt::format("register_model: no factory for \"{}\"", name));
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  if (r.factories.contains(name))
    throw std::invalid_argument(fmt::format("register_model: \"{}\" is already registered", name));
  r.factories.emplace(std::move(name), std::move(factory));
}

void register_builtin_models() { instance(); }

std::vector<std::string> registered_models() {
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.factories) names.push_back(name);
  return names;
}

bool is_registered(std::string_view name) {
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  return r.factories.find(name) != r.factories.end();
}

model make_model(const io::study_table& table) {
  const std::string type = table.string("type");
  model_factory factory;
  {
    registry& r = instance();
    std::lock_guard lock(r.mutex);
    if (auto it = r.factories.find(type); it != r.factories.end()) factory = it->second;
  }
  if (!factory) table.fail("type", fmt::format("unknown model type; known models: {}", joined(registered_models())));
  model m = factory(table);
  m.set_name(type);
  // The values the table gives the inputs (their nominal values) must make physical sense too:
  // reported at the key that set one, or at the table for an input set in a sub-table or
  // derived from other keys (a body's material).
  for (const variable& v : m.inputs())
    if (!std::isnan(v.nominal) && !v.valid.contains(v.nominal)) {
      const std::string message = fmt::format("{} = {:g}{}{} is outside the valid range of {}: {}", v.name, v.nominal,
                                              v.unit.empty() ? "" : " ", v.unit, v.name, v.valid.text(v.dim));
      if (table.has(v.name)) table.fail(v.name, message);
      table.fail(message);
    }
  return m;
}

}  // namespace contactuq::model
