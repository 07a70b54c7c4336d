// The kernels of the elastic contacts (codegen/contacts.hpp), traced from the runtime's own
// kinematics pass, contact law (engine/contact_law.hpp) and ABA passes.
#include "codegen/contacts.hpp"

#include <cmath>
#include <stdexcept>

#include "codegen/recursions.hpp"
#include "engine/contact_law.hpp"

namespace articula::codegen {

std::string body_states_kernel(const Model& model, const std::vector<std::string>& frames, int max_statements,
                               std::vector<KernelText>& kernels) {
  if (frames.empty()) return "";
  Emitter& e = Emitter::active();
  std::string list;
  for (const std::string& f : frames) {
    if (!model.has_frame(f)) model.frame_id(f);  // throws, naming the frame and listing the valid ones
    if (model.frames[model.frame_id(f)].parent == kWorld)
      throw std::invalid_argument("codegen: frame '" + f + "' is on the world: it has no body state");
    list += (list.empty() ? "" : ", ") + f;
  }
  const SymVector q = inputs("q", model.nq), v = inputs("v", model.nv);
  const BodyMotion bm = body_motion(model, q, &v);
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const Index b = model.frames[model.frame_id(frames[f])].parent;
    const int o = 18 * static_cast<int>(f);
    for (int k = 0; k < 9; ++k) e.assign(at("out", o + k), bm.oMi[b].R(k % 3, k / 3));  // column-major
    for (int k = 0; k < 3; ++k) {
      e.assign(at("out", o + 9 + k), bm.oMi[b].p[k]);
      e.assign(at("out", o + 12 + k), bm.v[b].v[k]);
      e.assign(at("out", o + 15 + k), bm.v[b].w[k]);
    }
  }
  kernels.push_back(
      kernel_text(e,
                  "/// The kinematics of the bodies that carry these frames (the elastic contacts'): for each\n"
                  "/// frame, 18 numbers: its body's world placement oMi (rotation column-major, then position)\n"
                  "/// and velocity in the body's frame (linear, then angular), as forward_kinematics() gives\n"
                  "/// data.oMi and data.v. Only the bodies' chains to the root are computed.\n"
                  "void body_states(const double* q, const double* v, double* out);\n",
                  "Forward kinematics of the bodies of: " + list + " (RBDA §4.4, §5.3).", "void", "body_states",
                  {"const double* q", "const double* v", "double* out"}, "", max_statements));
  return "\n/// Frames whose bodies body_states reports (18 numbers each, in this order): " + list +
         ".\ninline constexpr int state_frames = " + std::to_string(frames.size()) + ";\n";
}

std::string aba_contacts_kernel(const Model& model, const std::vector<DeclaredContact>& contacts, int max_statements,
                                std::vector<KernelText>& kernels) {
  if (contacts.empty()) return "";
  Emitter& e = Emitter::active();
  std::string list;
  for (const DeclaredContact& c : contacts) {
    model.frame_id(c.frame);  // throws, naming the frame and listing the valid ones
    if (!c.offset.allFinite() || !c.point.allFinite())
      throw std::invalid_argument("codegen: contact on '" + c.frame + "': offset and plane point must be finite");
    if (!c.normal.allFinite() || c.normal.norm() == 0.0)
      throw std::invalid_argument("codegen: contact on '" + c.frame +
                                  "': the plane's normal must be finite and nonzero");
    list += (list.empty() ? "" : ", ") + c.frame;
  }
  const SymVector q = inputs("q", model.nq), v = inputs("v", model.nv), tau = inputs("tau", model.nv);
  const BodyMotion bm = body_motion(model, q, &v);
  std::vector<SForce> f_ext(static_cast<std::size_t>(model.njoints));
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const DeclaredContact& c = contacts[k];
    const Frame& frame = model.frames[model.frame_id(c.frame)];
    const int o = 3 * static_cast<int>(k);
    if (frame.parent == kWorld) {  // a point fixed in the world pushes nothing
      for (int i = 0; i < 3; ++i) e.assign(at("f_contact", o + i), Sym(0.0));
      continue;
    }
    const int l = 4 * static_cast<int>(k);
    const Sym stiffness = e.input(at("law", l)), damping = e.input(at("law", l + 1)),
              friction = e.input(at("law", l + 2)), slip = e.input(at("law", l + 3));
    const SVector3 r = frame.placement.act_point(c.offset).cast<Sym>();
    const SVector3 n = c.normal.normalized().cast<Sym>();
    const auto p = contact_law::point(bm.oMi[frame.parent], bm.v[frame.parent], r);
    const Sym dist = contact_law::plane_distance(SVector3(c.point.cast<Sym>()), n, p.p);
    const auto law = contact_law::force(stiffness, damping, friction, slip, p.pdot, n, dist);
    SVector3 F;
    for (int i = 0; i < 3; ++i) {
      F[i] = if_positive(law.pushing, law.F[i]);
      e.assign(at("f_contact", o + i), F[i]);
    }
    f_ext[static_cast<std::size_t>(frame.parent)] += contact_law::body_force(bm.oMi[frame.parent], r, F);
  }
  const SymVector qdd = aba(model, q, v, tau, f_ext);
  for (int k = 0; k < model.nv; ++k) e.assign(at("qdd", k), qdd[k]);
  kernels.push_back(kernel_text(
      e,
      "/// ABA with the elastic contacts' forces (engine/contact_law.hpp) on planes folded in: `law` holds 4\n"
      "/// numbers per contact (stiffness, damping, friction, slip velocity), f_contact receives 3 per\n"
      "/// contact (the force on the body, world axes; 0 out of contact).\n"
      "void aba_contacts(const double* q, const double* v, const double* tau, const double* law, double* qdd,\n"
      "                  double* f_contact);\n",
      "Elastic contacts (Brogliato §2.1) and ABA with their forces, RBDA §7.3 Table 7.1, body coordinates.", "void",
      "aba_contacts",
      {"const double* q", "const double* v", "const double* tau", "const double* law", "double* qdd",
       "double* f_contact"},
      "", max_statements));
  return "\n/// The elastic contacts of aba_contacts (3 numbers of f_contact each, in this order): " + list +
         ".\ninline constexpr int contacts = " + std::to_string(contacts.size()) + ";\n";
}

}  // namespace articula::codegen
