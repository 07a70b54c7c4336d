#include <cmath>
#include <stdexcept>

#include "articula/engine/robot.hpp"
#include "articula/model/data.hpp"
#include "engine/contact_law.hpp"

namespace articula {

Surface Surface::ground(double height) { return plane(Vector3(0, 0, height), Vector3::UnitZ()); }

Surface Surface::plane(const Vector3& point, const Vector3& normal) {
  Surface s;
  s.kind = Kind::Plane;
  s.point = point;
  s.normal = normal;
  return s;
}

Surface Surface::height_field(std::function<double(double, double)> height) {
  Surface s;
  s.kind = Kind::HeightField;
  s.height = std::move(height);
  return s;
}

double Surface::distance(const Vector3& p, Vector3& n) const {
  if (kind == Kind::Plane) {
    n = normal;
    return contact_law::plane_distance(point, normal, p);
  }
  // Height field z = h(x, y): normal (−h_x, −h_y, 1)/‖·‖ by central differences; the distance
  // is the vertical gap projected on the normal (exact for planes, first order otherwise).
  constexpr double e = 1e-6;
  const double h = height(p.x(), p.y());
  const double hx = (height(p.x() + e, p.y()) - height(p.x() - e, p.y())) / (2 * e);
  const double hy = (height(p.x(), p.y() + e) - height(p.x(), p.y() - e)) / (2 * e);
  n = Vector3(-hx, -hy, 1.0);
  const double norm = n.norm();
  n /= norm;
  return (p.z() - h) / norm;
}

// The law of engine/contact_law.hpp, for every contact; a contact that does not push adds nothing.
void contact_forces(const Model& model, const Data& data, const std::vector<ElasticContact>& contacts,
                    std::vector<Force>& f_ext, Eigen::Ref<VectorX> forces) {
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const ElasticContact& c = contacts[k];
    const Frame& frame = model.frames[c.frame_id];
    auto out = forces.segment<3>(3 * static_cast<Eigen::Index>(k));
    out.setZero();
    if (frame.parent == kWorld) continue;  // a point fixed in the world pushes nothing
    const Transform& oMi = data.oMi[frame.parent];
    const Vector3 r = frame.placement.act_point(c.offset);  // point in body coordinates
    const contact_law::Point<double> at = contact_law::point(oMi, data.v[frame.parent], r);
    Vector3 n;
    const double dist = c.surface.distance(at.p, n);
    if (dist >= 0) continue;
    const contact_law::Law<double> law =
        contact_law::force(c.stiffness, c.damping, c.friction, c.slip_velocity, at.pdot, n, dist);
    if (!(law.pushing > 0)) continue;
    out = law.F;
    f_ext[frame.parent] += contact_law::body_force(oMi, r, law.F);
  }
}

}  // namespace articula
