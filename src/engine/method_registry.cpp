// The registry of methods: the built-in ones (builtin_methods.cpp) on first use, then any a
// program adds with register_method.
#include <fmt/format.h>

#include <deque>
#include <mutex>
#include <stdexcept>

#include "contactuq/engine/method.hpp"
#include "methods.hpp"

namespace contactuq::engine {
namespace {

struct registry {
  std::mutex mutex;
  std::deque<method> methods;  // a deque: references stay valid while methods are added

  static registry& instance() {
    static registry r = [] {
      registry built;
      for (method& m : detail::builtin_methods()) built.add(std::move(m));
      return built;
    }();
    return r;
  }
  registry() = default;
  registry(registry&& other) noexcept : methods(std::move(other.methods)) {}

  void add(method m) {
    if (m.name.empty() || !m.run) throw std::invalid_argument("register_method: a method needs a name and a run function");
    for (const method& known : methods)
      if (known.name == m.name)
        throw std::invalid_argument(fmt::format("register_method: a method named \"{}\" is registered", m.name));
    methods.push_back(std::move(m));
  }
};

}  // namespace

void register_method(method m) {
  registry& r = registry::instance();
  const std::lock_guard lock(r.mutex);
  r.add(std::move(m));
}

std::vector<const method*> methods() {
  registry& r = registry::instance();
  const std::lock_guard lock(r.mutex);
  std::vector<const method*> all;
  for (const method& m : r.methods) all.push_back(&m);
  return all;
}

const method& find_method(std::string_view name) {
  for (const method* m : methods())
    if (m->name == name) return *m;
  throw std::invalid_argument(fmt::format("unknown method \"{}\"; the methods are {}", name, method_names()));
}

std::string method_names() {
  std::string names;
  for (const method* m : methods()) names += (names.empty() ? "" : ", ") + m->name;
  return names;
}

}  // namespace contactuq::engine
