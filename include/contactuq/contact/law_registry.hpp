#pragma once
// One interface for every normal contact law, and a registry that builds them by name.
//
// contact_law is a value type (copying copies the law's history) that owns the parameters and
// the loading history of one contact:
//   force(delta, delta_dot)        F [N]; advances the history (call it on accepted states)
//   peek_force(delta, delta_dot)   F [N] without touching the history (ODE trial states)
//   release_margin(delta, delta_dot)  > 0 while the contact carries force, crossing 0 where an
//                                  unloading contact lets go (root function for event location)
//   reset()                        back to a virgin contact
//   is_impact_map(), restitution() for `cor`, which is applied as a velocity jump, not a force
// Any copyable type with those members (see law_model) can be wrapped.
//
// Parameters reach a factory as law_inputs: SI values by field name (the names of the law's
// parameter struct, e.g. "stiffness", "restitution", "yield_strength") and, optionally, a
// contact_pair of two bodies from which the law derives what is not given:
//   modulus           E of Brake 2014 appendix (effective_modulus)
//   radius            r (effective_radius)
//   stiffness         Hertz K = 4/3 E sqrt(r) (hertz, elastogap*, the hysteresis family)
//   yield_strength    min(sigma_y1, sigma_y2)
//   poisson, hardness brake: nu of the body that yields first, H of eq. (19) from both Brinell
//                     numbers (the softer one); etsion: nu and H = 2.8 sigma_y (Tabor, not
//                     Brinell) of the body that yields first (lower sigma_y)
//   radius_difference, length   johnson_cylinder: eq. (30) from the radii and the pair's
//                     cylinder kind; length from the pair
// Explicit values win over derived ones. A key the law does not read, a missing value, or a
// value out of range is a parameter_error naming the key.

#include <concepts>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/johnson_cylinder.hpp"
#include "contactuq/contact/material.hpp"

namespace contactuq::contact {

template <class L>
concept law_model = std::copy_constructible<L> && requires(L& law, const L& c, double d) {
  { law.force(d, d) } -> std::convertible_to<double>;
  { c.peek_force(d, d) } -> std::convertible_to<double>;
  { c.release_margin(d, d) } -> std::convertible_to<double>;
  {law.reset()};
  { c.name() } -> std::convertible_to<std::string_view>;
};

class contact_law {
 public:
  template <law_model L>
  explicit contact_law(L law) : self_(std::make_unique<model<L>>(std::move(law))) {}
  contact_law(const contact_law& other) : self_(other.self_->clone()) {}
  contact_law(contact_law&&) noexcept = default;
  contact_law& operator=(const contact_law& other) {
    if (this != &other) self_ = other.self_->clone();
    return *this;
  }
  contact_law& operator=(contact_law&&) noexcept = default;
  ~contact_law() = default;

  double force(double delta, double delta_dot) { return self_->force(delta, delta_dot); }
  double peek_force(double delta, double delta_dot) const {
    return self_->peek_force(delta, delta_dot);
  }
  double release_margin(double delta, double delta_dot) const {
    return self_->release_margin(delta, delta_dot);
  }
  void reset() { self_->reset(); }
  std::string_view name() const { return self_->name(); }
  bool is_impact_map() const { return self_->is_impact_map(); }
  double restitution() const { return self_->restitution(); }  ///< e of an impact map, else 0

 private:
  struct concept_t {
    virtual ~concept_t() = default;
    virtual std::unique_ptr<concept_t> clone() const = 0;
    virtual double force(double, double) = 0;
    virtual double peek_force(double, double) const = 0;
    virtual double release_margin(double, double) const = 0;
    virtual void reset() = 0;
    virtual std::string_view name() const = 0;
    virtual bool is_impact_map() const = 0;
    virtual double restitution() const = 0;
  };
  template <class L>
  struct model final : concept_t {
    explicit model(L l) : law(std::move(l)) {}
    std::unique_ptr<concept_t> clone() const override { return std::make_unique<model>(*this); }
    double force(double d, double v) override { return law.force(d, v); }
    double peek_force(double d, double v) const override { return law.peek_force(d, v); }
    double release_margin(double d, double v) const override { return law.release_margin(d, v); }
    void reset() override { law.reset(); }
    std::string_view name() const override { return law.name(); }
    bool is_impact_map() const override {
      if constexpr (requires { law.is_impact_map(); })
        return law.is_impact_map();
      else
        return false;
    }
    double restitution() const override {
      if constexpr (requires { law.restitution(); })
        return law.restitution();
      else
        return 0.0;
    }
    L law;
  };
  std::unique_ptr<concept_t> self_;
};

// Two bodies in contact: sphere on sphere, sphere on flat (radius flat_radius), or two parallel
// cylinders (johnson_cylinder).
struct contact_pair {
  material body_1;
  material body_2;
  double radius_1 = 0.0;          ///< r1 [m], > 0; flat_radius for a flat
  double radius_2 = flat_radius;  ///< r2 [m], > 0; flat_radius for a flat
  double length = 0.0;            ///< axial length of cylinders [m] (johnson_cylinder only)
  cylinder_contact cylinders = cylinder_contact::external;  ///< internal: body 2 in body 1's hole

  void validate() const;
};

struct law_inputs {
  std::optional<contact_pair> pair;      ///< derive parameters from two bodies
  std::map<std::string, double> values;  ///< SI values by parameter name; override the pair
};

using law_factory = std::function<contact_law(const law_inputs&)>;

// Adds a factory; throws std::logic_error if the name is taken.
void register_law(const std::string& name, law_factory factory);
// Registers cor, kelvin_voigt, brake, etsion, thornton, hertz, kelvin_voigt_cr,
// lankarani_nikravesh, hunt_crossley, flores, gonthier, johnson_cylinder, elastogap,
// elastogap_unbounded, elastogap_clipped. Safe to call more than once.
void register_builtin_laws();
// Registered names, sorted.
std::vector<std::string> registered_laws();
// Builds a law; an unknown name throws parameter_error listing the registered names.
contact_law make_law(std::string_view name, const law_inputs& inputs = {});

}  // namespace contactuq::contact
