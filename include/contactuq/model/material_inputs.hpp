#pragma once
// The material inputs of a body as model inputs (modulus, poisson, yield_strength, hardness),
// shared by the models that take bodies (impact, switch): names, dimensions, valid ranges, and
// the check of a whole body. The hardness input is in Pa; the material table's Brinell number HB
// is HB g 1e6 Pa (Brake 2014, below eq. 19).

#include <array>
#include <string>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/contact/material.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

struct material_input {
  const char* name;
  units::dimension dim;
  double (*get)(const contact::material&);
  void (*set)(contact::material&, double);
  valid_range valid;  ///< as validate_body() requires
};

// In input order after the body's prefix ("body_1_", "sphere_").
const std::array<material_input, 4>& material_inputs();

// Throws parameter_error naming the input ("body_1_poisson = 0.6: ...") for a body whose
// material is out of range.
void validate_body(const contact::material& m, const std::string& prefix);

}  // namespace contactuq::model
