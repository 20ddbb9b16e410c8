#pragma once
// Hertz contact, Skrinjar et al. (003_...) eq. (21), Brake 2014 (001_...) eq. (13):
//   F = K delta^n,  delta > 0;   F = 0 otherwise
// K: contact stiffness [N/m^n]; for two spheres K = 4/3 E sqrt(r) (Skrinjar eqs. (22)-(23),
// see hertz_stiffness() in contact_geometry.hpp) and n = 3/2. delta: overlap [m].
// Purely elastic and memoryless: loading and unloading follow the same curve.

namespace contactuq::contact {

struct hertz_params {
  double stiffness = 0.0;  ///< K [N/m^n], > 0 and finite
  double exponent = 1.5;   ///< n [-], >= 1 (1.5 for spheres, 1 for flat plates)

  // Throws parameter_error naming the first field out of range.
  void validate() const;
};

// F [N] at overlap delta [m]; zero for delta <= 0.
double hertz_force(const hertz_params& params, double delta);

}  // namespace contactuq::contact
