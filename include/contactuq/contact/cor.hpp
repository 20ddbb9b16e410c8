#pragma once
// Constant coefficient of restitution, Brake 2014 (001_...) eq. (11): an instantaneous impact map,
// not a force law. For bodies of mass m1, m2 with velocities v1i, v2i just before impact,
//   v1o = (m1 v1i + m2 v2i + m2 e (v2i - v1i)) / (m1 + m2)
//   v2o = (m1 v1i + m2 v2i + m1 e (v1i - v2i)) / (m1 + m2)
// so that v1o - v2o = -e (v1i - v2i) and momentum is conserved. Masses [kg], velocities [m/s].
// A body of infinite mass (a fixed flat) keeps its velocity.

namespace contactuq::contact {

struct cor_params {
  double restitution = 1.0;  ///< e [-], in (0, 1]

  void validate() const;
};

struct cor_velocities {
  double velocity_1 = 0.0;  ///< v1o [m/s]
  double velocity_2 = 0.0;  ///< v2o [m/s]
};

// Velocities just after impact, eq. (11). Throws parameter_error for non-positive masses.
cor_velocities cor_impact(const cor_params& params, double mass_1, double mass_2, double velocity_1,
                          double velocity_2);

}  // namespace contactuq::contact
