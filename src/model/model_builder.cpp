#include "articula/model/model_builder.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

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

bool ModelBuilder::name_taken(const std::string& n) const { return names_.count(n) > 0; }

bool ModelBuilder::joint_taken(const std::string& j) const {
  return body_joints_.count(j) > 0 || fixed_joints_.count(j) > 0;
}

ModelBuilder& ModelBuilder::add_body(const std::string& body_name, const std::string& parent,
                                     const std::string& joint_name, JointType type, const Transform& joint_placement,
                                     const Vector3& axis, const Inertia& inertia, const JointLimits& limits) {
  if (body_name.empty()) throw std::invalid_argument("ModelBuilder::add_body: empty body name");
  if (name_taken(body_name)) throw std::invalid_argument("ModelBuilder::add_body: duplicate name '" + body_name + "'");
  // Joint names are unique across moving joints and the fixed joints of fixed links.
  if (joint_taken(joint_name))
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
  names_.emplace(body_name, NameRef{true, static_cast<int>(bodies_.size())});
  body_joints_.insert(joint_name);
  bodies_.push_back({body_name, parent, joint_name, type, joint_placement, a, inertia, limits});
  return *this;
}

ModelBuilder& ModelBuilder::add_fixed_link(const std::string& link_name, const std::string& parent,
                                           const std::string& joint_name, const Transform& placement,
                                           const Inertia& inertia) {
  if (link_name.empty()) throw std::invalid_argument("ModelBuilder::add_fixed_link: empty link name");
  if (name_taken(link_name))
    throw std::invalid_argument("ModelBuilder::add_fixed_link: duplicate name '" + link_name + "'");
  // A named fixed joint must not reuse a joint name (an unnamed one, e.g. a welded root, may repeat).
  if (!joint_name.empty() && joint_taken(joint_name))
    throw std::invalid_argument("ModelBuilder::add_fixed_link: duplicate joint name '" + joint_name + "'");
  if (!parent.empty() && !name_taken(parent))
    throw std::invalid_argument("ModelBuilder::add_fixed_link: link '" + link_name + "' has unknown parent '" + parent +
                                "'");
  const std::string problem = inertia_problem(inertia);
  if (!problem.empty())
    throw std::invalid_argument("ModelBuilder::add_fixed_link: link '" + link_name + "': " + problem);
  names_.emplace(link_name, NameRef{false, static_cast<int>(frames_.size())});
  if (!joint_name.empty()) fixed_joints_.insert(joint_name);
  frames_.push_back({link_name, parent, joint_name, placement, inertia, FrameType::FixedLink});
  return *this;
}

ModelBuilder& ModelBuilder::add_frame(const std::string& frame_name, const std::string& parent,
                                      const Transform& placement) {
  if (frame_name.empty()) throw std::invalid_argument("ModelBuilder::add_frame: empty frame name");
  if (name_taken(frame_name))
    throw std::invalid_argument("ModelBuilder::add_frame: duplicate name '" + frame_name + "'");
  if (!parent.empty() && !name_taken(parent))
    throw std::invalid_argument("ModelBuilder::add_frame: frame '" + frame_name + "' has unknown parent '" + parent +
                                "'");
  names_.emplace(frame_name, NameRef{false, static_cast<int>(frames_.size())});
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

  // Depth-first order from the roots, children in insertion order: below each parent its
  // bodies (each with its subtree) first, then the subtrees hanging below its fixed links.
  // An explicit stack and hash maps keep this linear in the number of names (no recursion, so
  // a 10 000-link chain does not exhaust the call stack).
  std::unordered_map<std::string, std::vector<int>> child_bodies, child_links;
  for (int b = 0; b < static_cast<int>(bodies_.size()); ++b) child_bodies[bodies_[b].parent].push_back(b);
  for (int f = 0; f < static_cast<int>(frames_.size()); ++f)
    if (frames_[f].type == FrameType::FixedLink) child_links[frames_[f].parent].push_back(f);
  static const std::vector<int> none;
  const auto children = [](const auto& map, const std::string& parent) -> const std::vector<int>& {
    const auto it = map.find(parent);
    return it == map.end() ? none : it->second;
  };
  struct Visit {
    const std::vector<int>* bodies;
    const std::vector<int>* links;
    std::size_t next_body = 0, next_link = 0;
  };
  std::vector<int> order;
  std::vector<Visit> stack{{&children(child_bodies, ""), &children(child_links, "")}};
  while (!stack.empty()) {
    Visit& top = stack.back();
    if (top.next_body < top.bodies->size()) {
      const int b = (*top.bodies)[top.next_body++];
      order.push_back(b);
      stack.push_back({&children(child_bodies, bodies_[b].name), &children(child_links, bodies_[b].name)});
    } else if (top.next_link < top.links->size()) {
      const std::string& f = frames_[(*top.links)[top.next_link++]].name;
      stack.push_back({&children(child_bodies, f), &children(child_links, f)});
    } else {
      stack.pop_back();
    }
  }

  // Each name (body, fixed link or frame) as (body index, placement in that body). A frame's
  // parent was added before it, so one pass in insertion order resolves them all.
  std::vector<Index> position(bodies_.size(), kWorld);  // body insertion index -> model index
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<Index>(i);
  std::vector<std::pair<Index, Transform>> frame_at(frames_.size());
  const auto resolve = [&](const std::string& n) -> std::pair<Index, Transform> {
    if (n.empty()) return {kWorld, Transform::Identity()};
    const NameRef& r = names_.at(n);
    if (!r.body) return frame_at[r.index];
    if (position[r.index] == kWorld) throw std::logic_error("ModelBuilder::build: unresolved name " + n);
    return {position[r.index], Transform::Identity()};
  };
  for (std::size_t f = 0; f < frames_.size(); ++f) {
    auto [body, X] = resolve(frames_[f].parent);
    frame_at[f] = {body, X * frames_[f].placement};
  }

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
  for (std::size_t f = 0; f < frames_.size(); ++f) {
    if (frames_[f].type != FrameType::FixedLink || frames_[f].inertia.m == 0.0) continue;
    const auto& [body, X] = frame_at[f];
    if (body != kWorld) m.inertias[body] += frames_[f].inertia.transformed(X);
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

  // Ancestor lists (model.hpp). Row offsets: the prefix sums of the depths. Storage: k's list
  // is λ(k) followed by λ(k)'s list, so a path k_0 → k_1 → … → k_m that always goes to the
  // first child is stored once, deepest end first ([k_{m−1}, …, k_0, then k_0's list]); each
  // k_i's list starts at k_{i−1}. A chain takes nv entries, a tree Σ (path length + depth of
  // the path's start), instead of Σ depth (nv²/2 for a chain).
  std::vector<int> depth(m.nv, 0), first_child(m.nv, -1);
  m.ancestor_offset.assign(m.nv + 1, 0);
  for (int k = 0; k < m.nv; ++k) {
    const int p = m.dof_parent[k];
    depth[k] = p < 0 ? 0 : depth[p] + 1;
    if (p >= 0 && first_child[p] < 0) first_child[p] = k;
    m.ancestor_offset[k + 1] = m.ancestor_offset[k] + depth[k];
  }
  m.ancestor_begin.assign(m.nv, 0);
  for (int s = 0; s < m.nv; ++s) {
    const int p = m.dof_parent[s];
    if (p >= 0 && first_child[p] == s) continue;  // not a path start: stored with its parent's path
    std::vector<int> path{s};
    while (first_child[path.back()] >= 0) path.push_back(first_child[path.back()]);
    const int start = static_cast<int>(m.ancestors.size());
    for (std::size_t i = path.size() - 1; i-- > 0;) m.ancestors.push_back(path[i]);
    for (int j = p; j >= 0; j = m.dof_parent[j]) m.ancestors.push_back(j);  // s's own list
    const int last = static_cast<int>(path.size()) - 1;
    for (int i = 0; i <= last; ++i) m.ancestor_begin[path[i]] = start + last - i;
  }

  // Frames: one per body, then fixed links and user frames in insertion order.
  for (int i = 0; i < nb; ++i) m.frames.push_back({m.body_names[i], i, Transform::Identity(), FrameType::Body});
  for (std::size_t f = 0; f < frames_.size(); ++f)
    m.frames.push_back({frames_[f].name, frame_at[f].first, frame_at[f].second, frames_[f].type});
  return m;
}

}  // namespace articula
