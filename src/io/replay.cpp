// The replay viewer's data (format: viewer/README.md). The robot is drawn from the model: a
// capsule from each joint to its children's joints (or its frames) and the box of the body's
// equivalent inertia (a uniform box with the same mass and principal moments). The browser
// composes the bodies' poses from the logged q through the same joint placements (a scene
// graph); the points it does not compose (frame path, arrow origins, contact points) come from
// forward_kinematics here.
#include "articula/io/replay.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <sstream>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "articula/model/data.hpp"

namespace articula {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string num(double x) {
  if (!std::isfinite(x)) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

std::string vec(const double* x, int n) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    if (i) out += ',';
    out += num(x[i]);
  }
  return out + "]";
}
std::string vec3(const Vector3& x) { return vec(x.data(), 3); }
std::string quat(const Matrix3& R) {
  const Eigen::Quaterniond q(R);
  const double c[4] = {q.x(), q.y(), q.z(), q.w()};
  return vec(c, 4);
}

// RFC 4648 base64 of raw little-endian bytes.
std::string base64(const void* data, std::size_t n) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* b = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((n + 2) / 3 * 4 + 2);
  out += '"';
  for (std::size_t i = 0; i < n; i += 3) {
    const std::uint32_t v = (b[i] << 16) | ((i + 1 < n ? b[i + 1] : 0) << 8) | (i + 2 < n ? b[i + 2] : 0);
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += i + 1 < n ? k[(v >> 6) & 63] : '=';
    out += i + 2 < n ? k[v & 63] : '=';
  }
  return out + '"';
}
std::string f32(const std::vector<float>& x) { return base64(x.data(), x.size() * sizeof(float)); }

std::vector<std::string> q_suffixes(JointType type) {
  if (type == JointType::FreeFlyer) return {".x", ".y", ".z", ".qx", ".qy", ".qz", ".qw"};
  if (type == JointType::Spherical) return {".qx", ".qy", ".qz", ".qw"};
  return {""};
}

std::string joint_type(JointType t) {
  switch (t) {
    case JointType::Revolute:
      return "revolute";
    case JointType::Continuous:
      return "continuous";
    case JointType::Prismatic:
      return "prismatic";
    case JointType::Spherical:
      return "spherical";
    case JointType::FreeFlyer:
      return "freeflyer";
  }
  return "revolute";
}

// The log's column of each q coordinate; a missing one, or a q.<name> of no joint, is an error.
std::vector<std::size_t> q_columns(const Model& m, const LogTable& log, const std::string& label) {
  std::vector<std::size_t> cols(static_cast<std::size_t>(m.nq));
  std::set<std::string> expected;
  for (Index j = 0; j < m.njoints; ++j) {
    const auto suffixes = q_suffixes(m.joint_types[j]);
    for (std::size_t k = 0; k < suffixes.size(); ++k) {
      const std::string name = "q." + m.joint_names[j] + suffixes[k];
      expected.insert(name);
      const long c = log.column(name);
      if (c < 0)
        throw ReplayError("log '" + log.path + "' (" + label + ") does not match model '" + m.name +
                          "': it has no column '" + name + "' (a log of another robot, or not a run log?)");
      cols[static_cast<std::size_t>(m.idx_q[j]) + k] = static_cast<std::size_t>(c);
    }
  }
  for (const std::string& c : log.columns)
    if (c.rfind("q.", 0) == 0 && !expected.count(c))
      throw ReplayError("log '" + log.path + "' (" + label + ") does not match model '" + m.name + "': its column '" +
                        c + "' is no joint coordinate of the model (a log of another robot?)");
  if (log.column("t") < 0) throw ReplayError("log '" + log.path + "' has no column 't'");
  if (log.rows == 0) throw ReplayError("log '" + log.path + "' has no rows");
  return cols;
}

std::string model_json(const Model& m, const std::vector<UrdfVisual>& visuals) {
  std::ostringstream o;
  o << "{\"name\":" << quote(m.name) << ",\"joints\":[";
  for (Index j = 0; j < m.njoints; ++j) {
    const Transform& X = m.joint_placements[j];
    o << (j ? "," : "") << "{\"name\":" << quote(m.joint_names[j])
      << ",\"parent\":" << (m.parents[j] == kWorld ? -1 : m.parents[j])
      << ",\"type\":" << quote(joint_type(m.joint_types[j])) << ",\"axis\":" << vec3(m.axes[j])
      << ",\"placement\":{\"p\":" << vec3(X.p) << ",\"q\":" << quat(X.R) << "},\"iq\":" << m.idx_q[j] << "}";
  }
  o << "],\"bodies\":[";
  for (Index i = 0; i < m.njoints; ++i) {
    std::vector<Vector3> ends;
    for (Index c = 0; c < m.njoints; ++c)
      if (m.parents[c] == i) ends.push_back(m.joint_placements[c].p);
    if (ends.empty())
      for (const Frame& f : m.frames)
        if (f.parent == i && f.placement.p.norm() > 1e-6) ends.push_back(f.placement.p);
    const Inertia& I = m.inertias[i];
    const double r = std::clamp(0.015 + 0.02 * std::cbrt(std::max(I.m, 0.0)), 0.015, 0.08);
    o << (i ? "," : "") << "{\"name\":" << quote(m.body_names[i]) << ",\"joint\":" << i << ",\"mass\":" << num(I.m)
      << ",\"capsules\":[";
    for (std::size_t k = 0; k < ends.size(); ++k)
      o << (k ? "," : "") << "{\"a\":[0,0,0],\"b\":" << vec3(ends[k]) << ",\"r\":" << num(r) << "}";
    o << "],\"box\":";
    if (I.m > 0.0) {
      // The uniform box with this mass and these principal moments: a_x² = 6 (I_y + I_z − I_x) / m.
      const Eigen::SelfAdjointEigenSolver<Matrix3> eig(I.inertia_about_com());
      Matrix3 R = eig.eigenvectors();
      if (R.determinant() < 0) R.col(2) = -R.col(2);
      const Vector3 d = eig.eigenvalues();
      Vector3 size;
      for (int k = 0; k < 3; ++k) size[k] = std::sqrt(std::max(0.0, 6.0 * (d.sum() - 2.0 * d[k]) / I.m));
      o << "{\"p\":" << vec3(I.com()) << ",\"q\":" << quat(R) << ",\"size\":" << vec3(size) << "}";
    } else {
      o << "null";
    }
    o << "}";
  }
  // URDF primitives (meshes are not carried: their bodies keep the capsules).
  o << "],\"visuals\":[";
  bool first_visual = true;
  for (const UrdfVisual& v : visuals) {
    if (v.shape == UrdfVisual::Shape::Mesh) continue;
    const char* shape = v.shape == UrdfVisual::Shape::Box        ? "box"
                        : v.shape == UrdfVisual::Shape::Cylinder ? "cylinder"
                                                                 : "sphere";
    o << (first_visual ? "" : ",") << "{\"link\":" << quote(v.link)
      << ",\"joint\":" << (v.joint == kWorld ? -1 : v.joint) << ",\"shape\":\"" << shape
      << "\",\"size\":" << vec3(v.size) << ",\"p\":" << vec3(v.placement.p) << ",\"q\":" << quat(v.placement.R)
      << ",\"rgba\":" << (v.rgba[0] < 0 ? std::string("null") : vec(v.rgba.data(), 4)) << "}";
    first_visual = false;
  }
  o << "],\"frames\":[";
  bool first = true;
  for (const Frame& f : m.frames) {
    if (f.type == FrameType::Body || f.type == FrameType::Joint) continue;
    o << (first ? "" : ",") << "{\"name\":" << quote(f.name) << ",\"joint\":" << (f.parent == kWorld ? -1 : f.parent)
      << ",\"p\":" << vec3(f.placement.p) << ",\"q\":" << quat(f.placement.R) << "}";
    first = false;
  }
  o << "]}";
  return o.str();
}

std::string scene_json(const Robot& robot) {
  std::ostringstream o;
  o << "{\"planes\":[";
  std::vector<std::pair<Vector3, Vector3>> planes;
  std::string fields;
  for (const ElasticContact& c : robot.contacts()) {
    const Surface& s = c.surface;
    if (s.kind == Surface::Kind::Plane) {
      const bool seen = std::any_of(planes.begin(), planes.end(),
                                    [&](const auto& p) { return p.first == s.point && p.second == s.normal; });
      if (seen) continue;
      const bool ground = s.normal.isApprox(Vector3::UnitZ()) && std::abs(s.point.z()) < 1e-12;
      o << (planes.empty() ? "" : ",") << "{\"name\":" << quote(c.name) << ",\"point\":" << vec3(s.point)
        << ",\"normal\":" << vec3(s.normal) << ",\"ground\":" << (ground ? "true" : "false") << "}";
      planes.emplace_back(s.point, s.normal);
    } else if (s.height) {
      // Sampled on a 4 m square around the origin, 81 × 81 points.
      constexpr int n = 81;
      constexpr double half = 2.0, d = 2 * half / (n - 1);
      std::string z;
      for (int iy = 0; iy < n; ++iy)
        for (int ix = 0; ix < n; ++ix) {
          if (!z.empty()) z += ',';
          z += num(s.height(-half + ix * d, -half + iy * d));
        }
      if (!fields.empty()) fields += ',';
      fields += "{\"name\":" + quote(c.name) + ",\"origin\":[" + num(-half) + "," + num(-half) +
                ",0],\"nx\":" + std::to_string(n) + ",\"ny\":" + std::to_string(n) + ",\"dx\":" + num(d) +
                ",\"dy\":" + num(d) + ",\"z\":[" + z + "]}";
    }
  }
  o << "],\"heightfields\":[" << fields << "]}";
  return o.str();
}

std::string event_text(const EventLogRow& e) {
  std::string text = e.name;
  if (!e.actions.empty()) text += ": " + e.actions;
  if (e.kinetic_before != e.kinetic_after)
    text += " (kinetic energy " + num(e.kinetic_before) + " J → " + num(e.kinetic_after) + " J)";
  return text;
}

std::string run_json(const Robot& robot, const ReplayRun& run, const ReplayOptions& options,
                     const std::vector<std::string>& channels, const std::string& path_frame) {
  const Model& m = robot.model();
  const LogTable& log = *run.log;
  const std::vector<std::size_t> qcols = q_columns(m, log, run.label);
  const auto tcol = static_cast<std::size_t>(log.column("t"));
  std::vector<double> times(log.rows), event_times;
  for (std::size_t i = 0; i < log.rows; ++i) times[i] = log.at(i, tcol);
  for (const EventLogRow& e : log.events) event_times.push_back(e.time);
  const std::vector<std::size_t> rows = replay_rows(times, event_times, options.max_rows);
  const std::size_t n = rows.size();

  struct Arrow {
    std::string name, kind;
    Index frame;
    Vector3 offset;
    std::vector<long> cols;
    const FramePairConstraint* constraint;
    std::vector<float> origin, force;
  };
  std::vector<Arrow> arrows;
  const ConstraintSet& set = robot.constraints();
  for (const std::string& name : set.names()) {
    const auto* fc = dynamic_cast<const FramePairConstraint*>(&set.get(name));
    if (fc == nullptr) continue;
    Arrow a{name, "constraint", m.frame_id(fc->frame_a()), Vector3::Zero(), {}, fc, {}, {}};
    for (int k = 0; k < fc->dim(); ++k) a.cols.push_back(log.column("lambda." + name + "." + std::to_string(k)));
    if (std::find(a.cols.begin(), a.cols.end(), -1L) == a.cols.end()) arrows.push_back(std::move(a));
  }
  for (const ElasticContact& c : robot.contacts()) {
    Arrow a{c.name, "contact", c.frame_id, c.offset, {}, nullptr, {}, {}};
    for (const char* axis : {".fx", ".fy", ".fz"}) a.cols.push_back(log.column("contact." + c.name + axis));
    if (std::find(a.cols.begin(), a.cols.end(), -1L) == a.cols.end()) arrows.push_back(std::move(a));
  }
  const Index path_id = path_frame.empty() ? -1 : m.frame_id(path_frame);

  std::vector<double> t(n);
  std::vector<float> q(n * static_cast<std::size_t>(m.nq)), path;
  Data data(m);
  VectorX qi(m.nq);
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t i = rows[r];
    t[r] = times[i];
    for (int k = 0; k < m.nq; ++k) qi[k] = log.at(i, qcols[static_cast<std::size_t>(k)]);
    for (int k = 0; k < m.nq; ++k)
      q[r * static_cast<std::size_t>(m.nq) + static_cast<std::size_t>(k)] = static_cast<float>(qi[k]);
    if (!qi.allFinite()) {  // the kinematic points of a non-finite row stay at zero
      if (path_id >= 0) path.resize(3 * (r + 1), 0.0f);
      for (Arrow& a : arrows) a.origin.resize(3 * (r + 1), 0.0f), a.force.resize(3 * (r + 1), 0.0f);
      continue;
    }
    forward_kinematics(m, data, qi);
    if (path_id >= 0) {
      const Vector3 p = frame_placement(m, data, path_id).p;
      for (int k = 0; k < 3; ++k) path.push_back(static_cast<float>(p[k]));
    }
    for (Arrow& a : arrows) {
      const Transform X = frame_placement(m, data, a.frame);
      const Vector3 origin = X.act_point(a.offset);
      Vector3 f;
      if (a.constraint) {
        VectorX lambda(static_cast<Eigen::Index>(a.cols.size()));
        for (std::size_t k = 0; k < a.cols.size(); ++k)
          lambda[static_cast<Eigen::Index>(k)] = log.at(i, static_cast<std::size_t>(a.cols[k]));
        f = a.constraint->wrench(lambda).head<3>();
      } else {
        for (int k = 0; k < 3; ++k) f[k] = log.at(i, static_cast<std::size_t>(a.cols[static_cast<std::size_t>(k)]));
      }
      for (int k = 0; k < 3; ++k) {
        a.origin.push_back(static_cast<float>(origin[k]));
        a.force.push_back(static_cast<float>(f[k]));
      }
    }
  }

  std::ostringstream o;
  o << "{\"label\":" << quote(run.label) << ",\"ghost\":" << (run.ghost ? "true" : "false") << ",\"rows\":" << n
    << ",\"decimated_from\":" << log.rows << ",\"status\":" << quote(log.status)
    << ",\"t\":" << base64(t.data(), t.size() * sizeof(double)) << ",\"nq\":" << m.nq << ",\"q\":" << f32(q)
    << ",\"events\":[";
  for (std::size_t k = 0; k < log.events.size(); ++k)
    o << (k ? "," : "") << "{\"t\":" << num(log.events[k].time) << ",\"name\":" << quote(log.events[k].name)
      << ",\"text\":" << quote(event_text(log.events[k])) << "}";
  o << "],\"arrows\":[";
  bool first = true;
  for (const Arrow& a : arrows) {
    o << (first ? "" : ",") << "{\"name\":" << quote(a.name) << ",\"kind\":" << quote(a.kind)
      << ",\"origin\":" << f32(a.origin) << ",\"force\":" << f32(a.force) << "}";
    first = false;
  }
  o << "],\"contacts\":[";
  first = true;
  for (const Arrow& a : arrows) {
    if (a.kind != "contact") continue;
    std::vector<float> active(n);
    for (std::size_t r = 0; r < n; ++r)
      active[r] = (a.force[3 * r] != 0.0f || a.force[3 * r + 1] != 0.0f || a.force[3 * r + 2] != 0.0f) ? 1.0f : 0.0f;
    o << (first ? "" : ",") << "{\"name\":" << quote(a.name) << ",\"point\":" << f32(a.origin)
      << ",\"active\":" << f32(active) << "}";
    first = false;
  }
  o << "],\"path\":";
  if (path_id >= 0)
    o << "{\"frame\":" << quote(path_frame) << ",\"points\":" << f32(path) << "}";
  else
    o << "null";
  o << ",\"channels\":{";
  first = true;
  for (const std::string& c : channels) {
    const long col = log.column(c);
    if (col < 0) {
      if (!run.ghost) throw ReplayError("log '" + log.path + "' has no column '" + c + "' to plot");
      continue;
    }
    std::vector<float> x(n);
    for (std::size_t r = 0; r < n; ++r) x[r] = static_cast<float>(log.at(rows[r], static_cast<std::size_t>(col)));
    o << (first ? "" : ",") << quote(c) << ":" << f32(x);
    first = false;
  }
  o << "}}";
  return o.str();
}

}  // namespace

std::vector<std::size_t> replay_rows(const std::vector<double>& times, const std::vector<double>& event_times,
                                     std::size_t max_rows) {
  const std::size_t n = times.size();
  std::vector<std::size_t> rows;
  if (n == 0) return rows;
  const std::size_t stride = n <= max_rows || max_rows == 0 ? 1 : (n + max_rows - 1) / max_rows;
  for (std::size_t i = 0; i < n; i += stride) rows.push_back(i);
  rows.push_back(n - 1);
  if (stride > 1)
    for (const double te : event_times) {
      const auto it = std::lower_bound(times.begin(), times.end(), te);
      const auto i = static_cast<std::size_t>(it - times.begin());
      if (i > 0) rows.push_back(i - 1);
      if (i < n) rows.push_back(i);
      if (i + 1 < n) rows.push_back(i + 1);
    }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

std::string replay_json(const Robot& robot, const std::vector<ReplayRun>& runs, const ReplayOptions& options) {
  if (runs.empty()) throw ReplayError("replay: no log to show");
  const Model& m = robot.model();
  std::string path_frame = options.path_frame;
  if (path_frame.empty()) {
    for (const char* f : {"flange", "tip", "tool0"})
      if (m.has_frame(f)) {
        path_frame = f;
        break;
      }
  } else if (!m.has_frame(path_frame)) {
    throw ReplayError("replay: the path frame '" + path_frame + "' is not a frame of model '" + m.name + "'");
  }
  std::vector<std::vector<std::string>> plots = options.plots;
  if (plots.empty()) {
    const LogTable& log = *runs[0].log;
    std::vector<std::string> energy, joints;
    for (const char* c : {"energy.kinetic", "energy.potential", "energy.total"})
      if (log.column(c) >= 0) energy.emplace_back(c);
    for (Index j = 0; j < m.njoints && joints.size() < 3; ++j)
      if (m.joint_types[j] != JointType::FreeFlyer && m.joint_types[j] != JointType::Spherical &&
          log.column("q." + m.joint_names[j]) >= 0)
        joints.push_back("q." + m.joint_names[j]);
    if (!joints.empty()) plots.push_back(joints);
    if (!energy.empty()) plots.push_back(energy);
  }
  std::vector<std::string> channels;
  for (const auto& panel : plots)
    for (const auto& c : panel)
      if (std::find(channels.begin(), channels.end(), c) == channels.end()) channels.push_back(c);
  std::ostringstream o;
  o << "{\"format\":\"articula-replay 1\",\"title\":" << quote(options.title.empty() ? m.name : options.title)
    << ",\"model\":" << model_json(m, options.visuals) << ",\"scene\":" << scene_json(robot) << ",\"runs\":[";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    if (runs[k].log == nullptr) throw ReplayError("replay: run '" + runs[k].label + "' has no log");
    o << (k ? "," : "") << run_json(robot, runs[k], options, channels, path_frame);
  }
  o << "],\"plots\":[";
  for (std::size_t k = 0; k < plots.size(); ++k) {
    o << (k ? "," : "") << "[";
    for (std::size_t c = 0; c < plots[k].size(); ++c) o << (c ? "," : "") << quote(plots[k][c]);
    o << "]";
  }
  o << "]}";
  return o.str();
}

}  // namespace articula
