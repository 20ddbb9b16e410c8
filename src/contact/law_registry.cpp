#include "contactuq/contact/law_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "contactuq/contact/brake.hpp"
#include "contactuq/contact/cor.hpp"
#include "contactuq/contact/elastogap.hpp"
#include "contactuq/contact/etsion.hpp"
#include "contactuq/contact/flores.hpp"
#include "contactuq/contact/gonthier.hpp"
#include "contactuq/contact/hertz.hpp"
#include "contactuq/contact/hunt_crossley.hpp"
#include "contactuq/contact/kelvin_voigt.hpp"
#include "contactuq/contact/kelvin_voigt_cr.hpp"
#include "contactuq/contact/lankarani_nikravesh.hpp"
#include "contactuq/contact/thornton.hpp"
#include "contactuq/error.hpp"
#include "power.hpp"

namespace contactuq::contact {

void contact_pair::validate() const {
  body_1.validate();
  body_2.validate();
  require(radius_1 > 0, "radius_1", radius_1, "m", "positive (inf for a flat)");
  require(radius_2 > 0, "radius_2", radius_2, "m", "positive (inf for a flat)");
  require(length >= 0 && std::isfinite(length), "length", length, "m", "non-negative and finite");
}

namespace {

// ---- adapters: each law behind the law_model interface ----------------------------------

// Laws without history: force and peek are the same pure function.
template <class Force, class Margin>
struct memoryless_law {
  std::string_view label;
  Force f;
  Margin m;
  double force(double d, double v) { return f(d, v); }
  double peek_force(double d, double v) const { return f(d, v); }
  double release_margin(double d, double v) const { return m(d, v); }
  void reset() {}
  std::string_view name() const { return label; }
};
template <class Force, class Margin>
contact_law memoryless(std::string_view label, Force f, Margin m) {
  return contact_law(memoryless_law<Force, Margin>{label, std::move(f), std::move(m)});
}
constexpr auto overlap_margin = [](double d, double) { return d; };

// Elastic-plastic laws: loading curve at or above the largest overlap, unloading below it.
// A peek never advances the history, so ODE trial states cannot move delta_m.
struct brake_law {
  brake_regimes g;
  brake_state s;
  double force(double d, double v) { return brake_force(g, d, v, s); }
  double peek_force(double d, double) const {
    return d >= s.max_overlap ? brake_loading_force(g, d) : brake_unloading_force(g, d, s);
  }
  double release_margin(double d, double) const { return d - s.residual_overlap; }
  void reset() { s = {}; }
  std::string_view name() const { return "brake"; }
};
struct thornton_law {
  thornton_params p;
  thornton_state s;
  double force(double d, double v) { return thornton_force(p, d, v, s); }
  double peek_force(double d, double) const {
    return d >= s.max_overlap ? thornton_loading_force(p, d) : thornton_unloading_force(p, d, s);
  }
  double release_margin(double d, double) const { return d - s.residual_overlap; }
  void reset() { s = {}; }
  std::string_view name() const { return "thornton"; }
};
struct etsion_law {
  etsion_params p;
  etsion_state s;
  double force(double d, double v) { return etsion_force(p, d, v, s); }
  double peek_force(double d, double) const {
    return d >= s.max_overlap ? etsion_loading_force(p, d) : etsion_unloading_force(p, d, s);
  }
  double release_margin(double d, double) const { return d - s.residual_overlap; }
  void reset() { s = {}; }
  std::string_view name() const { return "etsion"; }
};

// The hysteresis-damping family: history is the impact velocity.
struct hysteresis_law {
  std::string_view label;
  hysteresis_damping_params p;
  double (*chi)(double restitution, double impact_velocity);
  hysteresis_damping_state s;
  double evaluate(double d, double v, hysteresis_damping_state& state) const {
    const double v0 = record_impact_velocity(state, d, v);
    if (d <= 0) return 0.0;
    return hysteresis_damping_force(p, chi(p.restitution, v0), d, v);
  }
  double force(double d, double v) { return evaluate(d, v, s); }
  double peek_force(double d, double v) const {
    auto copy = s;
    return evaluate(d, v, copy);
  }
  // delta (1 + chi' delta_dot): crosses zero where the overlap closes or the damper would pull.
  double release_margin(double d, double v) const {
    const double v0 = s.impact_velocity > 0 ? s.impact_velocity : v;
    if (v0 <= 0) return d;
    return d * (1 + chi(p.restitution, v0) * v);
  }
  void reset() { s = {}; }
  std::string_view name() const { return label; }
};

struct cor_law {
  cor_params p;
  double force(double, double) { return 0.0; }
  double peek_force(double, double) const { return 0.0; }
  double release_margin(double d, double) const { return d; }
  void reset() {}
  std::string_view name() const { return "cor"; }
  bool is_impact_map() const { return true; }
  double restitution() const { return p.restitution; }
};

// ---- parameters: explicit values, else derived from the pair, else a default -------------

using derive_fn = double (*)(const contact_pair&);

double pair_modulus(const contact_pair& c) {
  return effective_modulus(c.body_1.modulus, c.body_1.poisson, c.body_2.modulus, c.body_2.poisson);
}
double pair_radius(const contact_pair& c) { return effective_radius(c.radius_1, c.radius_2); }
double pair_stiffness(const contact_pair& c) {
  return hertz_stiffness(pair_modulus(c), pair_radius(c));
}
double pair_yield(const contact_pair& c) {
  return std::min(c.body_1.yield_strength, c.body_2.yield_strength);
}
const material& first_to_yield(const contact_pair& c) {
  return c.body_1.yield_strength <= c.body_2.yield_strength ? c.body_1 : c.body_2;
}
double brake_poisson(const contact_pair& c) { return first_to_yield(c).poisson; }
double brake_hardness(const contact_pair& c) {
  // min over Pa is the Pa of the min over HB, bit for bit: HB -> HB g 1e6 rounds monotonically.
  return combined_hardness(c.body_1.hardness, c.body_2.hardness);
}
double etsion_poisson(const contact_pair& c) { return first_to_yield(c).poisson; }
double etsion_hardness(const contact_pair& c) {  // 2.8 sigma_y (Tabor), see etsion.hpp
  return etsion_tabor_hardness(first_to_yield(c).yield_strength);
}
double pair_radius_difference(const contact_pair& c) {
  return johnson_radius_difference(c.radius_1, c.radius_2, c.cylinders);
}
double pair_length(const contact_pair& c) { return c.length; }

class reader {
 public:
  reader(std::string_view law, const law_inputs& in) : law_(law), in_(in) {
    if (in_.pair) {
      try {
        in_.pair->validate();
      } catch (const parameter_error& e) {
        throw parameter_error(e.field(), fmt::format("{}: contact pair: {}", law_, e.what()));
      }
    }
  }

  double get(const std::string& key, derive_fn derive = nullptr,
             std::optional<double> fallback = std::nullopt) {
    keys_.push_back(key);
    if (const auto it = in_.values.find(key); it != in_.values.end()) return it->second;
    if (derive && in_.pair) {
      try {
        return derive(*in_.pair);
      } catch (const parameter_error& e) {
        throw parameter_error(
            key, fmt::format("{}: deriving '{}' from the contact pair: {}", law_, key, e.what()));
      }
    }
    if (fallback) return *fallback;
    throw parameter_error(
        key, fmt::format("{}: missing parameter '{}' ({})", law_, key,
                         derive ? "give it, or a contact pair to derive it from" : "give it"));
  }

  bool has(const std::string& key) const { return in_.values.count(key) > 0; }
  bool has_pair() const { return in_.pair.has_value(); }

  // Rejects keys the law did not read, then validates the parameter struct, prefixing messages
  // with the law's name.
  template <class Params>
  Params finish(Params p) {
    for (const auto& [key, value] : in_.values) {
      if (std::find(keys_.begin(), keys_.end(), key) == keys_.end())
        throw parameter_error(key, fmt::format("{}: unknown parameter '{}' (known: {})", law_, key,
                                               fmt::join(keys_, ", ")));
    }
    try {
      p.validate();
    } catch (const parameter_error& e) {
      throw parameter_error(e.field(), fmt::format("{}: {}", law_, e.what()));
    }
    return p;
  }

 private:
  std::string_view law_;
  const law_inputs& in_;
  std::vector<std::string> keys_;
};

// ---- factories ----------------------------------------------------------------------------

contact_law make_hertz(const law_inputs& in) {
  reader r("hertz", in);
  hertz_params p;
  p.stiffness = r.get("stiffness", pair_stiffness);
  p.exponent = r.get("exponent", nullptr, 1.5);
  p = r.finish(p);
  return memoryless(
      "hertz", [p](double d, double) { return hertz_force(p, d); }, overlap_margin);
}

contact_law make_kelvin_voigt(const law_inputs& in) {
  reader r("kelvin_voigt", in);
  kelvin_voigt_params p;
  p.stiffness = r.get("stiffness", nullptr, p.stiffness);
  p.damping = r.get("damping", nullptr, p.damping);
  p = r.finish(p);
  return memoryless(
      "kelvin_voigt", [p](double d, double v) { return kelvin_voigt_force(p, d, v); },
      // K delta + C delta_dot: where the clipped force reaches zero.
      [p](double d, double v) { return p.stiffness * d + p.damping * v; });
}

contact_law make_kelvin_voigt_cr(const law_inputs& in) {
  reader r("kelvin_voigt_cr", in);
  kelvin_voigt_cr_params p;
  p.stiffness = r.get("stiffness");
  p.restitution = r.get("restitution");
  p = r.finish(p);
  return memoryless(
      "kelvin_voigt_cr", [p](double d, double v) { return kelvin_voigt_cr_force(p, d, v); },
      overlap_margin);
}

contact_law make_johnson(const law_inputs& in) {
  reader r("johnson_cylinder", in);
  johnson_cylinder_params p;
  p.modulus = r.get("modulus", pair_modulus);
  p.radius_difference = r.get("radius_difference", pair_radius_difference);
  p.length = r.get("length", pair_length);
  p = r.finish(p);
  return memoryless(
      "johnson_cylinder", [p](double d, double) { return johnson_cylinder_force(p, d); },
      overlap_margin);
}

elastogap_params read_elastogap(reader& r) {
  elastogap_params p;
  p.stiffness = r.get("stiffness", pair_stiffness);
  // Hertz stiffness from a pair goes with n = 3/2; otherwise Modelica's default n = 1.
  const bool hertzian = !r.has("stiffness") && r.has_pair();
  p.exponent = r.get("exponent", nullptr, hertzian ? 1.5 : 1.0);
  p.damping = r.get("damping");
  return r.finish(p);
}

// c sgn(delta) |delta|^n + d delta_dot: continuous, and zero where the bounded or clipped
// force lets go.
double elastogap_raw(const elastogap_params& p, double d, double v) {
  const double spring = p.stiffness * detail::power(std::abs(d), p.exponent);
  return (d >= 0 ? spring : -spring) + p.damping * v;
}

contact_law make_elastogap(const law_inputs& in) {
  reader r("elastogap", in);
  const auto p = read_elastogap(r);
  return memoryless(
      "elastogap", [p](double d, double v) { return elastogap_force(p, d, v); },
      [p](double d, double v) { return elastogap_raw(p, d, v); });
}

contact_law make_elastogap_unbounded(const law_inputs& in) {
  reader r("elastogap_unbounded", in);
  const auto p = read_elastogap(r);
  return memoryless(
      "elastogap_unbounded", [p](double d, double v) { return elastogap_unbounded_force(p, d, v); },
      overlap_margin);
}

contact_law make_elastogap_clipped(const law_inputs& in) {
  reader r("elastogap_clipped", in);
  const auto p = read_elastogap(r);
  return memoryless(
      "elastogap_clipped", [p](double d, double v) { return elastogap_clipped_force(p, d, v); },
      [p](double d, double v) { return elastogap_raw(p, d, v); });
}

law_factory hysteresis_factory(std::string_view label, double (*chi)(double, double)) {
  return [label, chi](const law_inputs& in) {
    reader r(label, in);
    hysteresis_damping_params p;
    p.stiffness = r.get("stiffness", pair_stiffness);
    p.exponent = r.get("exponent", nullptr, 1.5);
    p.restitution = r.get("restitution");
    p = r.finish(p);
    return contact_law(hysteresis_law{label, p, chi, {}});
  };
}

contact_law make_brake(const law_inputs& in) {
  reader r("brake", in);
  brake_params p;
  p.modulus = r.get("modulus", pair_modulus);
  p.radius = r.get("radius", pair_radius);
  p.yield_strength = r.get("yield_strength", pair_yield);
  p.poisson = r.get("poisson", brake_poisson);
  p.hardness = r.get("hardness", brake_hardness);
  p = r.finish(p);
  return contact_law(brake_law{make_brake_regimes(p), {}});
}

contact_law make_etsion(const law_inputs& in) {
  reader r("etsion", in);
  etsion_params p;
  p.modulus = r.get("modulus", pair_modulus);
  p.radius = r.get("radius", pair_radius);
  p.poisson = r.get("poisson", etsion_poisson);
  p.hardness = r.get("hardness", etsion_hardness);
  p = r.finish(p);
  return contact_law(etsion_law{p, {}});
}

contact_law make_thornton(const law_inputs& in) {
  reader r("thornton", in);
  thornton_params p;
  p.modulus = r.get("modulus", pair_modulus);
  p.radius = r.get("radius", pair_radius);
  p.yield_strength = r.get("yield_strength", pair_yield);
  p = r.finish(p);
  return contact_law(thornton_law{p, {}});
}

contact_law make_cor(const law_inputs& in) {
  reader r("cor", in);
  cor_params p;
  p.restitution = r.get("restitution");
  p = r.finish(p);
  return contact_law(cor_law{p});
}

// ---- the registry -------------------------------------------------------------------------

struct registry {
  std::mutex mutex;
  std::map<std::string, law_factory, std::less<>> factories;
};

registry& the_registry() {
  static registry r;
  return r;
}

}  // namespace

void register_law(const std::string& name, law_factory factory) {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  if (!r.factories.emplace(name, std::move(factory)).second)
    throw std::logic_error(fmt::format("contact law '{}' is already registered", name));
}

void register_builtin_laws() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_law("cor", make_cor);
    register_law("kelvin_voigt", make_kelvin_voigt);
    register_law("brake", make_brake);
    register_law("etsion", make_etsion);
    register_law("thornton", make_thornton);
    register_law("hertz", make_hertz);
    register_law("kelvin_voigt_cr", make_kelvin_voigt_cr);
    register_law("johnson_cylinder", make_johnson);
    register_law("elastogap", make_elastogap);
    register_law("elastogap_unbounded", make_elastogap_unbounded);
    register_law("elastogap_clipped", make_elastogap_clipped);
    register_law("lankarani_nikravesh",
                 hysteresis_factory("lankarani_nikravesh", lankarani_nikravesh_chi));
    register_law("hunt_crossley", hysteresis_factory("hunt_crossley", hunt_crossley_chi));
    register_law("flores", hysteresis_factory("flores", flores_chi));
    register_law("gonthier", hysteresis_factory("gonthier", gonthier_chi));
  });
}

std::vector<std::string> registered_laws() {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.factories) names.push_back(name);
  return names;
}

contact_law make_law(std::string_view name, const law_inputs& inputs) {
  law_factory factory;
  {
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    const auto it = r.factories.find(name);
    if (it == r.factories.end()) {
      std::vector<std::string> names;
      for (const auto& [known, f] : r.factories) names.push_back(known);
      throw parameter_error(
          "law",
          names.empty()
              ? fmt::format("unknown contact law '{}': no laws are registered (call "
                            "register_builtin_laws() first)",
                            name)
              : fmt::format("unknown contact law '{}' (known: {})", name, fmt::join(names, ", ")));
    }
    factory = it->second;
  }
  return factory(inputs);
}

}  // namespace contactuq::contact
