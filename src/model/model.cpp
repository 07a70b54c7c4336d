#include "articula/model/model.hpp"

#include <numeric>
#include <stdexcept>

namespace articula {
namespace {

template <typename Names>
std::string list_names(const Names& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

template <typename Names>
Index find_name(const Names& names, const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<Index>(i);
  return -2;
}

std::vector<std::string> frame_names(const Model& model) {
  std::vector<std::string> names;
  for (const auto& f : model.frames) names.push_back(f.name);
  return names;
}

}  // namespace

Index Model::joint_id(const std::string& joint_name) const {
  const Index i = find_name(joint_names, joint_name);
  if (i < 0)
    throw std::invalid_argument("Model::joint_id: unknown joint '" + joint_name + "' in model '" + name +
                                "'; valid joints: " + list_names(joint_names));
  return i;
}

Index Model::body_id(const std::string& body_name) const {
  const Index i = find_name(body_names, body_name);
  if (i < 0)
    throw std::invalid_argument("Model::body_id: unknown body '" + body_name + "' in model '" + name +
                                "'; valid bodies: " + list_names(body_names));
  return i;
}

Index Model::frame_id(const std::string& frame_name) const {
  const auto names = frame_names(*this);
  const Index i = find_name(names, frame_name);
  if (i < 0)
    throw std::invalid_argument("Model::frame_id: unknown frame '" + frame_name + "' in model '" + name +
                                "'; valid frames: " + list_names(names));
  return i;
}

bool Model::has_joint(const std::string& joint_name) const { return find_name(joint_names, joint_name) >= 0; }
bool Model::has_frame(const std::string& frame_name) const { return find_name(frame_names(*this), frame_name) >= 0; }

double Model::total_mass() const {
  return std::accumulate(inertias.begin(), inertias.end(), 0.0, [](double s, const Inertia& I) { return s + I.m; });
}

void Model::set_armature(const std::string& joint_name, double value) {
  if (!(value >= 0.0) || !std::isfinite(value))
    throw std::invalid_argument("Model::set_armature: armature of joint '" + joint_name +
                                "' must be finite and ≥ 0, got " + std::to_string(value));
  const Index j = joint_id(joint_name);
  armature.segment(idx_v[j], nv_joint[j]).setConstant(value);
}

Index Model::add_frame(const std::string& frame_name, Index parent_body, const Transform& placement) {
  if (has_frame(frame_name)) throw std::invalid_argument("Model::add_frame: a frame named '" + frame_name + "' exists");
  if (parent_body < kWorld || parent_body >= njoints)
    throw std::invalid_argument("Model::add_frame: parent body index " + std::to_string(parent_body) + " out of range");
  frames.push_back({frame_name, parent_body, placement, FrameType::User});
  return static_cast<Index>(frames.size() - 1);
}

}  // namespace articula
