#include "contactuq/multibody/system.hpp"

#include <fmt/format.h>

#include "contactuq/error.hpp"

namespace contactuq::multibody {

void planar_system::check_body(std::size_t index, const char* field) const {
  if (index >= bodies_.size())
    throw parameter_error(field, fmt::format("{} = {}: no such body (the system has {})", field,
                                             index, bodies_.size()));
}

std::size_t planar_system::add_body(const body& b) {
  b.validate();
  bodies_.push_back(b);
  return bodies_.size() - 1;
}

void planar_system::add_constraint(const constraint& c) {
  if (const auto* f = std::get_if<fixed_body>(&c)) {
    check_body(f->body, "body");
  } else {
    const auto& r = std::get<revolute_joint>(c);
    check_body(r.body_i, "body_i");
    check_body(r.body_j, "body_j");
    if (r.body_i == r.body_j)
      throw parameter_error("body_j", fmt::format("{}: a revolute joint needs two bodies", r.name));
  }
  constraints_.push_back(c);
}

void planar_system::add_force(const point_force& f) {
  check_body(f.body, "body");
  if (!f.magnitude) throw parameter_error("force", "point force without a magnitude function");
  forces_.push_back(f);
}

void planar_system::add_spring(const ground_spring& s) {
  check_body(s.body, "body");
  s.validate();
  springs_.push_back(s);
}

void planar_system::add_clearance_joint(const clearance_joint& j) {
  check_body(j.body_i, "body_i");
  check_body(j.body_j, "body_j");
  j.validate();
  clearance_joints_.push_back(j);
}

std::size_t planar_system::constraint_count() const {
  std::size_t n = 0;
  for (const auto& c : constraints_) n += constraint_rows(c);
  return n;
}

std::vector<std::string> planar_system::reported_joints() const {
  std::vector<std::string> names;
  for (const auto& c : constraints_)
    if (const auto* r = std::get_if<revolute_joint>(&c)) names.push_back(r->name);
  for (const auto& j : clearance_joints_) names.push_back(j.name);
  return names;
}

Eigen::VectorXd planar_system::initial_positions() const {
  Eigen::VectorXd q(coordinates());
  for (std::size_t k = 0; k < bodies_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(3 * k);
    q.segment<2>(i) = bodies_[k].position;
    q[i + 2] = bodies_[k].angle;
  }
  return q;
}

Eigen::VectorXd planar_system::initial_velocities() const {
  Eigen::VectorXd v(coordinates());
  for (std::size_t k = 0; k < bodies_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(3 * k);
    v.segment<2>(i) = bodies_[k].velocity;
    v[i + 2] = bodies_[k].angular_velocity;
  }
  return v;
}

Eigen::VectorXd planar_system::constraint_values(const Eigen::VectorXd& q) const {
  Eigen::VectorXd c(static_cast<Eigen::Index>(constraint_count()));
  Eigen::Index row = 0;
  for (const auto& con : constraints_) {
    if (const auto* f = std::get_if<fixed_body>(&con)) {
      const auto i = static_cast<Eigen::Index>(3 * f->body);
      c.segment<2>(row) = q.segment<2>(i) - f->position;
      c[row + 2] = q[i + 2] - f->angle;
      row += 3;
    } else {
      const auto& r = std::get<revolute_joint>(con);
      const auto i = static_cast<Eigen::Index>(3 * r.body_i);
      const auto j = static_cast<Eigen::Index>(3 * r.body_j);
      c.segment<2>(row) = point_position(q.segment<2>(i), q[i + 2], r.point_i) -
                          point_position(q.segment<2>(j), q[j + 2], r.point_j);
      row += 2;
    }
  }
  return c;
}

double planar_system::mechanical_energy(const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& qdot) const {
  double e = 0.0;
  for (std::size_t k = 0; k < bodies_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(3 * k);
    const auto& b = bodies_[k];
    e += 0.5 * b.mass * qdot.segment<2>(i).squaredNorm() + 0.5 * b.inertia * qdot[i + 2] * qdot[i + 2];
    e -= b.mass * gravity_.dot(q.segment<2>(i));
  }
  for (const auto& s : springs_) {
    const auto i = static_cast<Eigen::Index>(3 * s.body);
    const double l = (point_position(q.segment<2>(i), q[i + 2], s.point) - s.anchor).norm();
    e += 0.5 * s.stiffness * (l - s.free_length) * (l - s.free_length);
  }
  return e;
}

}  // namespace contactuq::multibody
