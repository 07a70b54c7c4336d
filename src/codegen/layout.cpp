// The layout of the constrained kernels' declared constraints (codegen/kernels.hpp).
#include <cmath>
#include <stdexcept>

#include "articula/codegen/kernels.hpp"

namespace articula {

AxisMask HeldFrame::mask() const {
  if (!axes.empty()) return AxisMask::parse(axes);
  return weld ? AxisMask::weld() : AxisMask::point();
}

std::string HeldFrame::kind() const {
  if (axes.empty()) return weld ? "weld" : "point";
  return mask().to_string();
}

HeldFrame held_frame(const std::string& frame, const std::string& kind, const std::string& relative_to) {
  if (kind == "weld" || kind == "point") return {frame, kind == "weld", relative_to};
  try {
    AxisMask::parse(kind);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("held frame '" + frame +
                                "': the kind must be 'weld' or 'point' or an axis list of x y z " +
                                "rx ry rz (e.g. 'rxrz'), got '" + kind + "'");
  }
  return {frame, true, relative_to, kind};
}

ConstrainedLayout constrained_layout(const Model& model, const std::vector<HeldFrame>& held,
                                     const std::vector<std::string>& locked, const std::vector<HeldDistance>& distances,
                                     const std::vector<HeldWheel>& wheels) {
  ConstrainedLayout out;
  using Kind = ConstrainedLayout::Kind;
  auto declare = [&out](int nq, int rows, Kind kind) {
    out.declared.push_back({out.ref_size, out.m, nq, rows, kind});
    out.ref_size += nq;
    out.m += rows;
  };
  for (const HeldFrame& h : held) {
    const Index f = model.frame_id(h.frame);  // throws, naming the frame and listing the valid ones
    if (model.frames[f].parent == kWorld)
      throw std::invalid_argument("codegen: frame '" + h.frame + "' is on the world: holding it constrains nothing");
    if (!h.relative_to.empty()) {
      model.frame_id(h.relative_to);  // throws, naming the frame and listing the valid ones
      if (h.relative_to == h.frame) throw std::invalid_argument("codegen: frame '" + h.frame + "' is held to itself");
    }
    declare(12, h.mask().count(), Kind::Frame);
  }
  out.frame_rows = out.m;
  for (std::size_t l = 0; l < locked.size(); ++l) {
    const Index j = model.joint_id(locked[l]);  // throws, naming the joint and listing the valid ones
    for (std::size_t o = 0; o < l; ++o)
      if (locked[o] == locked[l]) throw std::invalid_argument("codegen: joint '" + locked[l] + "' is locked twice");
    declare(model.nq_joint[j], model.nv_joint[j], Kind::Lock);
  }
  out.lock_rows = out.m - out.frame_rows;
  for (const HeldDistance& d : distances) {
    const Index a = model.frame_id(d.frame_a), b = model.frame_id(d.frame_b);  // throw, listing the valid ones
    if (a == b) throw std::invalid_argument("codegen: distance from frame '" + d.frame_a + "' to itself");
    if (model.frames[a].parent == kWorld && model.frames[b].parent == kWorld)
      throw std::invalid_argument("codegen: frames '" + d.frame_a + "' and '" + d.frame_b +
                                  "' are both on the world: holding their distance constrains nothing");
    declare(1, 1, Kind::Distance);
  }
  for (const HeldWheel& w : wheels) {
    const Index f = model.frame_id(w.frame);  // throws, listing the valid ones
    if (model.frames[f].parent == kWorld)
      throw std::invalid_argument("codegen: wheel frame '" + w.frame + "' is on the world: it cannot roll");
    if (!(w.radius > 0.0) || !std::isfinite(w.radius) || !(w.axis.norm() > 1e-12) || !(w.normal.norm() > 1e-12) ||
        !w.axis.allFinite() || !w.normal.allFinite() || !std::isfinite(w.height))
      throw std::invalid_argument("codegen: wheel '" + w.frame +
                                  "': the radius must be positive and the axis and normal finite and not zero");
    declare(0, 3, Kind::Wheel);
  }
  return out;
}

}  // namespace articula
