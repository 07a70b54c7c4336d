#include "articula/model/model_builder.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace articula {

std::string inertia_problem(const Inertia& I) {
  if (!std::isfinite(I.m) || !I.h.allFinite() || !I.Io.allFinite()) return "non-finite mass or inertia";
  if (I.m < 0.0) return "negative mass " + std::to_string(I.m);
  if (!I.Io.isApprox(I.Io.transpose(), 1e-12) && (I.Io - I.Io.transpose()).norm() > 1e-12)
    return "rotational inertia is not symmetric";
  if (I.m == 0.0) {
    if (I.h.norm() > 0.0 || I.Io.norm() > 0.0) return "zero mass with non-zero inertia";
    return {};
  }
  const Eigen::SelfAdjointEigenSolver<Matrix3> es(I.inertia_about_com());
  const Vector3 l = es.eigenvalues();  // ascending
  const double tol = 1e-12 * std::max(1.0, l.cwiseAbs().maxCoeff());
  if (l[0] < -tol)
    return "rotational inertia about the centre of mass is not positive semi-definite (smallest eigenvalue " +
           std::to_string(l[0]) + ")";
  if (l[0] + l[1] < l[2] - tol)
    return "principal moments violate the triangle inequality (" + std::to_string(l[0]) + " + " + std::to_string(l[1]) +
           " < " + std::to_string(l[2]) + ")";
  return {};
}

ModelBuilder::ModelBuilder(std::string model_name) : name_(std::move(model_name)) {}

bool ModelBuilder::name_taken(const std::string& n) const {
  for (const auto& b : bodies_)
    if (b.name == n) return true;
  for (const auto& f : frames_)
    if (f.name == n) return true;
  return false;
}

ModelBuilder& ModelBuilder::add_body(const std::string& body_name, const std::string& parent,
                                     const std::string& joint_name, JointType type, const Transform& joint_placement,
                                     const Vector3& axis, const Inertia& inertia, const JointLimits& limits) {
  if (body_name.empty()) throw std::invalid_argument("ModelBuilder::add_body: empty body name");
  if (name_taken(body_name)) throw std::invalid_argument("ModelBuilder::add_body: duplicate name '" + body_name + "'");
  // Joint names are unique across moving joints and the fixed joints of fixed links.
  for (const auto& b : bodies_)
    if (b.joint == joint_name)
      throw std::invalid_argument("ModelBuilder::add_body: duplicate joint name '" + joint_name + "'");
  for (const auto& f : frames_)
    if (f.type == FrameType::FixedLink && !f.joint.empty() && f.joint == joint_name)
      throw std::invalid_argument("ModelBuilder::add_body: duplicate joint name '" + joint_name + "'");
  if (!parent.empty() && !name_taken(parent))
    throw std::invalid_argument("ModelBuilder::add_body: body '" + body_name + "' has unknown parent '" + parent + "'");
  if (!joint_placement.R.allFinite() || !joint_placement.p.allFinite())
    throw std::invalid_argument("ModelBuilder::add_body: non-finite placement of joint '" + joint_name + "'");
  Vector3 a = axis;
  if (type == JointType::Revolute || type == JointType::Continuous || type == JointType::Prismatic) {
    if (!(a.norm() > 1e-12) || !a.allFinite())
      throw std::invalid_argument("ModelBuilder::add_body: joint '" + joint_name + "' has a zero or non-finite axis");
    a.normalize();
  }
  const std::string problem = inertia_problem(inertia);
  if (!problem.empty()) throw std::invalid_argument("ModelBuilder::add_body: body '" + body_name + "': " + problem);
  if (limits.lower > limits.upper)
    throw std::invalid_argument("ModelBuilder::add_body: joint '" + joint_name + "' has lower limit above upper limit");
  if (limits.armature < 0.0 || limits.damping < 0.0 || limits.friction < 0.0)
    throw std::invalid_argument("ModelBuilder::add_body: joint '" + joint_name +
                                "' has negative armature, damping or friction");
  bodies_.push_back({body_name, parent, joint_name, type, joint_placement, a, inertia, limits});
  return *this;
}

ModelBuilder& ModelBuilder::add_fixed_link(const std::string& link_name, const std::string& parent,
                                           const std::string& joint_name, const Transform& placement,
                                           const Inertia& inertia) {
  if (name_taken(link_name))
    throw std::invalid_argument("ModelBuilder::add_fixed_link: duplicate name '" + link_name + "'");
  // A named fixed joint must not reuse a joint name (an unnamed one, e.g. a welded root, may repeat).
  if (!joint_name.empty()) {
    for (const auto& b : bodies_)
      if (b.joint == joint_name)
        throw std::invalid_argument("ModelBuilder::add_fixed_link: duplicate joint name '" + joint_name + "'");
    for (const auto& f : frames_)
      if (f.type == FrameType::FixedLink && f.joint == joint_name)
        throw std::invalid_argument("ModelBuilder::add_fixed_link: duplicate joint name '" + joint_name + "'");
  }
  if (!parent.empty() && !name_taken(parent))
    throw std::invalid_argument("ModelBuilder::add_fixed_link: link '" + link_name + "' has unknown parent '" + parent +
                                "'");
  const std::string problem = inertia_problem(inertia);
  if (!problem.empty())
    throw std::invalid_argument("ModelBuilder::add_fixed_link: link '" + link_name + "': " + problem);
  frames_.push_back({link_name, parent, joint_name, placement, inertia, FrameType::FixedLink});
  return *this;
}

ModelBuilder& ModelBuilder::add_frame(const std::string& frame_name, const std::string& parent,
                                      const Transform& placement) {
  if (name_taken(frame_name))
    throw std::invalid_argument("ModelBuilder::add_frame: duplicate name '" + frame_name + "'");
  if (!parent.empty() && !name_taken(parent))
    throw std::invalid_argument("ModelBuilder::add_frame: frame '" + frame_name + "' has unknown parent '" + parent +
                                "'");
  frames_.push_back({frame_name, parent, "", placement, Inertia::Zero(), FrameType::User});
  return *this;
}

ModelBuilder& ModelBuilder::set_gravity(const Vector3& g) {
  gravity_ = g;
  return *this;
}

Model ModelBuilder::build() const {
  Model m;
  m.name = name_;
  m.gravity = Motion{gravity_, Vector3::Zero()};

  // Depth-first order from the roots, children in insertion order.
  std::vector<int> order;
  std::function<void(const std::string&)> visit = [&](const std::string& parent) {
    for (int b = 0; b < static_cast<int>(bodies_.size()); ++b)
      if (bodies_[b].parent == parent) {
        order.push_back(b);
        visit(bodies_[b].name);
      }
    // Moving bodies hanging below fixed links of this parent.
    for (const auto& f : frames_)
      if (f.parent == parent && f.type == FrameType::FixedLink) visit(f.name);
  };
  visit("");

  // Resolve each name (body or fixed link or frame) to (body index, placement in that body).
  std::function<std::pair<Index, Transform>(const std::string&)> resolve;
  std::vector<std::string> names_in_order;
  for (int b : order) names_in_order.push_back(bodies_[b].name);
  resolve = [&](const std::string& n) -> std::pair<Index, Transform> {
    if (n.empty()) return {kWorld, Transform::Identity()};
    for (std::size_t i = 0; i < names_in_order.size(); ++i)
      if (names_in_order[i] == n) return {static_cast<Index>(i), Transform::Identity()};
    for (const auto& f : frames_)
      if (f.name == n) {
        auto [body, X] = resolve(f.parent);
        return {body, X * f.placement};
      }
    throw std::logic_error("ModelBuilder::build: unresolved name " + n);
  };

  const int nb = static_cast<int>(order.size());
  m.njoints = nb;
  for (int i = 0; i < nb; ++i) {
    const PendingBody& b = bodies_[order[i]];
    auto [parent, X_parent] = resolve(b.parent);
    m.joint_names.push_back(b.joint);
    m.body_names.push_back(b.name);
    m.joint_types.push_back(b.type);
    m.parents.push_back(parent);
    m.joint_placements.push_back(X_parent * b.placement);
    m.axes.push_back(b.axis);
    int k = -1;
    if (b.type == JointType::Revolute || b.type == JointType::Continuous || b.type == JointType::Prismatic)
      for (int c = 0; c < 3; ++c)
        if (std::abs(b.axis[c]) == 1.0 && b.axis[(c + 1) % 3] == 0.0 && b.axis[(c + 2) % 3] == 0.0) k = c;
    m.axis_index.push_back(k);
    m.inertias.push_back(b.inertia);
    m.idx_q.push_back(m.nq);
    m.idx_v.push_back(m.nv);
    m.nq_joint.push_back(joint_nq(b.type));
    m.nv_joint.push_back(joint_nv(b.type));
    m.nq += joint_nq(b.type);
    m.nv += joint_nv(b.type);
  }
  // Merge fixed links' inertias into their moving ancestor (world-attached ones are dropped).
  for (const auto& f : frames_) {
    if (f.type != FrameType::FixedLink || f.inertia.m == 0.0) continue;
    auto [body, X] = resolve(f.name);
    if (body != kWorld) m.inertias[body] += f.inertia.transformed(X);
  }
  m.subtree_end.assign(nb, 0);
  for (int i = nb - 1; i >= 0; --i) {
    m.subtree_end[i] = std::max(m.subtree_end[i], i + 1);
    if (m.parents[i] != kWorld) m.subtree_end[m.parents[i]] = std::max(m.subtree_end[m.parents[i]], m.subtree_end[i]);
  }

  m.S = MatrixX::Zero(6, m.nv);
  m.lower.resize(m.nq);
  m.upper.resize(m.nq);
  m.velocity_limit.resize(m.nv);
  m.effort_limit.resize(m.nv);
  m.damping.resize(m.nv);
  m.friction.resize(m.nv);
  m.armature.resize(m.nv);
  m.dof_parent.assign(m.nv, -1);
  m.dof_joint.assign(m.nv, 0);
  const double inf = std::numeric_limits<double>::infinity();
  for (int i = 0; i < nb; ++i) {
    const PendingBody& b = bodies_[order[i]];
    const int iv = m.idx_v[i], nvj = m.nv_joint[i], iq = m.idx_q[i], nqj = m.nq_joint[i];
    m.S.middleCols(iv, nvj) = joint_subspace(b.type, b.axis);
    const bool scalar = nqj == 1;
    m.lower.segment(iq, nqj).setConstant(scalar ? b.limits.lower : -inf);
    m.upper.segment(iq, nqj).setConstant(scalar ? b.limits.upper : inf);
    if (b.type == JointType::Continuous) {
      m.lower[iq] = -inf;
      m.upper[iq] = inf;
    }
    m.velocity_limit.segment(iv, nvj).setConstant(b.limits.velocity);
    m.effort_limit.segment(iv, nvj).setConstant(b.limits.effort);
    m.damping.segment(iv, nvj).setConstant(b.limits.damping);
    m.friction.segment(iv, nvj).setConstant(b.limits.friction);
    m.armature.segment(iv, nvj).setConstant(b.limits.armature);
    const Index p = m.parents[i];
    for (int k = 0; k < nvj; ++k) {
      m.dof_joint[iv + k] = i;
      m.dof_parent[iv + k] = k > 0 ? iv + k - 1 : (p == kWorld ? -1 : m.idx_v[p] + m.nv_joint[p] - 1);
    }
  }

  m.ancestor_offset.assign(1, 0);
  for (int k = 0; k < m.nv; ++k) {
    for (int j = m.dof_parent[k]; j >= 0; j = m.dof_parent[j]) m.ancestors.push_back(j);
    m.ancestor_offset.push_back(static_cast<int>(m.ancestors.size()));
  }

  // Frames: one per body, then fixed links and user frames in insertion order.
  for (int i = 0; i < nb; ++i) m.frames.push_back({m.body_names[i], i, Transform::Identity(), FrameType::Body});
  for (const auto& f : frames_) {
    auto [body, X] = resolve(f.name);
    m.frames.push_back({f.name, body, X, f.type});
  }
  return m;
}

}  // namespace articula
