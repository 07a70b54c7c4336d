// MuJoCo 2.2.2 with weld / connect equalities, peer of bench_constrained: see
// peer_mujoco_constrained.hpp.
#include "peer_mujoco_constrained.hpp"

#include <mujoco/mujoco.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "mujoco_loading.hpp"

namespace articula::bench {
namespace {

using mjutil::Mat3;

using mjutil::DataPtr;
using mjutil::fmt;
using mjutil::last_model_as_mjcf;
using mjutil::load_text;
using mjutil::ModelPtr;

class MujocoConstrainedPeer final : public ConstrainedPeer {
 public:
  MujocoConstrainedPeer(const PeerProblem& p, const std::vector<EqualitySpec>& eqs) : p_(p), eqs_(eqs) {
    build();
    map_joints();
    convert_states();
    set_targets();
    includes_ =
        "copy qpos, qvel, qfrc_applied and the equality targets (eq_data, 11 doubles per equality); "
        "mj_forward with contacts disabled: CRB + sparse LDL', equality rows (dense J), "
        "soft-constraint solver (default Newton, tolerance 1e-8)";
  }

  const char* engine() const override { return "MuJoCo 2.2.2"; }
  const char* key() const override { return "mujoco"; }
  const std::string& includes() const override { return includes_; }
  int rows() const override { return rows_; }

  void run(std::size_t i) override {
    const std::size_t nq = static_cast<std::size_t>(p_.nq), nv = static_cast<std::size_t>(p_.nv);
    const std::size_t ne = static_cast<std::size_t>(m_->neq) * mjNEQDATA;
    std::memcpy(d_->qpos, &qpos_[i * nq], nq * sizeof(double));
    std::memcpy(d_->qvel, &qvel_[i * nv], nv * sizeof(double));
    std::memcpy(d_->qfrc_applied, &qfrc_[i * nv], nv * sizeof(double));
    std::memcpy(m_->eq_data, &eq_data_[i * ne], ne * sizeof(double));
    mj_forward(m_, d_);
  }

  ConstrainedPeerCheck check() override {
    ConstrainedPeerCheck c;
    c.nefc_min = 1 << 30;
    std::vector<mjtNum> jq(static_cast<std::size_t>(m_->njmax));
    for (std::size_t i = 0; i < p_.nstates; ++i) {
      run(i);
      c.nefc_min = std::min(c.nefc_min, d_->nefc);
      c.nefc_max = std::max(c.nefc_max, d_->nefc);
      c.iter_max = std::max(c.iter_max, d_->solver_iter);
      mj_mulJacVec(m_, d_, jq.data(), d_->qacc);
      for (int r = 0; r < d_->nefc; ++r) {
        if (d_->efc_type[r] != mjCNSTR_EQUALITY) continue;
        c.pos_violation = std::max(c.pos_violation, std::abs(d_->efc_pos[r]));
        c.acc_gap = std::max(c.acc_gap, std::abs(jq[static_cast<std::size_t>(r)] - d_->efc_aref[r]));
        c.acc_gap_free = std::max(c.acc_gap_free, std::abs(d_->efc_b[r]));  // J q̈_smooth − a_ref
      }
    }
    // The rebuilt model against the URDF one, equalities off (same q̈ expected to round-off).
    const std::size_t nq = static_cast<std::size_t>(p_.nq), nv = static_cast<std::size_t>(p_.nv);
    for (int k = 0; k < m_->neq; ++k) m_->eq_active[k] = 0;
    for (std::size_t i = 0; i < std::min<std::size_t>(p_.nstates, 16); ++i) {
      run(i);
      std::memcpy(ref_d_->qpos, &qpos_[i * nq], nq * sizeof(double));
      std::memcpy(ref_d_->qvel, &qvel_[i * nv], nv * sizeof(double));
      std::memcpy(ref_d_->qfrc_applied, &qfrc_[i * nv], nv * sizeof(double));
      mj_forward(ref_m_.get(), ref_d_.get());
      for (std::size_t k = 0; k < nv; ++k)
        c.model_diff = std::max(c.model_diff, std::abs(d_->qacc[k] - ref_d_->qacc[k]));
    }
    for (int k = 0; k < m_->neq; ++k) m_->eq_active[k] = 1;
    return c;
  }

  std::string notes() const override {
    std::string s =
        "URDF via mj_loadXML, saved as MJCF (mj_saveLastXML) + <equality>, reloaded; exact "
        "URDF parameters copied back + mj_setConst; disableflags |= mjDSBL_CONTACT only; "
        "default solref/solimp; equalities:";
    for (const auto& e : eqs_) s += " " + e.name + (e.weld ? "=weld(" : "=connect(") + e.body + ")";
    return s;
  }

 private:
  void build() {
    std::string urdf = mjutil::read_file(p_.urdf_path);
    if (p_.floating) urdf = mjutil::add_floating_root(std::move(urdf), p_.root_link);
    ref_m_ = load_text(urdf, "articula_bench_model.urdf", p_.urdf_path);
    // Saved before any option is changed: mj_saveLastXML writes m's options too.
    std::string mjcf = last_model_as_mjcf(ref_m_.get());
    ref_m_->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
    ref_d_.reset(mj_makeData(ref_m_.get()));

    std::string eq = "  <equality>\n";
    for (const auto& e : eqs_) {
      if (mj_name2id(ref_m_.get(), mjOBJ_BODY, e.body.c_str()) < 0)
        throw std::runtime_error("MuJoCo peer: no body '" + e.body + "' (for constraint '" + e.name + "') in " +
                                 p_.key + " as MuJoCo compiled it");
      const std::string anchor = fmt(e.anchor[0]) + " " + fmt(e.anchor[1]) + " " + fmt(e.anchor[2]);
      if (e.weld)
        eq += "    <weld name=\"" + e.name + "\" body1=\"" + e.body + "\"/>\n";
      else
        eq += "    <connect name=\"" + e.name + "\" body1=\"" + e.body + "\" anchor=\"" + anchor + "\"/>\n";
      rows_ += e.weld ? 6 : 3;
    }
    eq += "  </equality>\n";
    const auto end = mjcf.rfind("</mujoco>");
    if (end == std::string::npos) throw std::runtime_error("MuJoCo peer: no </mujoco> in the saved MJCF");
    mjcf.insert(end, eq);
    model_ = load_text(mjcf, "articula_bench_model.xml", p_.key + " (MJCF with equalities)");
    m_ = model_.get();

    // Same structure as the URDF model? Then copy its exact parameters back.
    mjModel* r = ref_m_.get();
    if (m_->nbody != r->nbody || m_->njnt != r->njnt || m_->nq != r->nq || m_->nv != r->nv)
      throw std::runtime_error("MuJoCo peer: the MJCF round trip changed the model structure of " + p_.key);
    for (int b = 0; b < m_->nbody; ++b)
      if (std::strcmp(mj_id2name(m_, mjOBJ_BODY, b) ? mj_id2name(m_, mjOBJ_BODY, b) : "",
                      mj_id2name(r, mjOBJ_BODY, b) ? mj_id2name(r, mjOBJ_BODY, b) : "") != 0)
        throw std::runtime_error("MuJoCo peer: the MJCF round trip reordered the bodies of " + p_.key);
    auto copy = [](mjtNum* dst, const mjtNum* src, int n) {
      std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(mjtNum));
    };
    copy(m_->body_pos, r->body_pos, 3 * m_->nbody);
    copy(m_->body_quat, r->body_quat, 4 * m_->nbody);
    copy(m_->body_ipos, r->body_ipos, 3 * m_->nbody);
    copy(m_->body_iquat, r->body_iquat, 4 * m_->nbody);
    copy(m_->body_mass, r->body_mass, m_->nbody);
    copy(m_->body_inertia, r->body_inertia, 3 * m_->nbody);
    copy(m_->jnt_pos, r->jnt_pos, 3 * m_->njnt);
    copy(m_->jnt_axis, r->jnt_axis, 3 * m_->njnt);
    copy(m_->jnt_range, r->jnt_range, 2 * m_->njnt);
    copy(m_->qpos0, r->qpos0, m_->nq);
    copy(m_->qpos_spring, r->qpos_spring, m_->nq);
    m_->opt.disableflags |= mjDSBL_CONTACT;  // contacts off; equality (and limit) rows on
    m_->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    data_.reset(mj_makeData(m_));
    d_ = data_.get();
    mj_setConst(m_, d_);
    for (std::size_t k = 0; k < eqs_.size(); ++k) body_ids_.push_back(mj_name2id(m_, mjOBJ_BODY, eqs_[k].body.c_str()));
  }

  void map_joints() {
    for (const auto& j : p_.joints) {
      const int id = mj_name2id(m_, mjOBJ_JOINT, j.name.c_str());
      if (id < 0) throw std::runtime_error("MuJoCo peer: no joint '" + j.name + "' in " + p_.key);
      map_.push_back({j.kind, j.idx_q, j.idx_v, m_->jnt_qposadr[id], m_->jnt_dofadr[id]});
    }
  }

  // MuJoCo-coordinate copies of every state (see peer_mujoco.cpp for the conventions).
  void convert_states() {
    const std::size_t N = p_.nstates, nq = static_cast<std::size_t>(p_.nq), nv = static_cast<std::size_t>(p_.nv);
    qpos_.assign(N * nq, 0.0);
    qvel_.assign(N * nv, 0.0);
    qfrc_.assign(N * nv, 0.0);
    for (std::size_t i = 0; i < N; ++i) {
      const double* q = &p_.q[i * nq];
      const double* v = &p_.v[i * nv];
      const double* tau = &p_.tau[i * nv];
      double* mq = &qpos_[i * nq];
      double* mv = &qvel_[i * nv];
      double* mf = &qfrc_[i * nv];
      for (const auto& j : map_) {
        if (j.kind == PeerJoint::Kind::Scalar) {
          mq[j.mj_q] = q[j.art_q];
          mv[j.mj_v] = v[j.art_v];
          mf[j.mj_v] = tau[j.art_v];
          continue;
        }
        const double* quat = q + j.art_q + 3;
        for (int k = 0; k < 3; ++k) mq[j.mj_q + k] = q[j.art_q + k];
        mq[j.mj_q + 3] = quat[3];
        for (int k = 0; k < 3; ++k) mq[j.mj_q + 4 + k] = quat[k];
        const Mat3 R = mjutil::rotation_from_quat(quat);
        mjutil::mul(R, v + j.art_v, mv + j.mj_v);
        mjutil::mul(R, tau + j.art_v, mf + j.mj_v);
        for (int k = 3; k < 6; ++k) {
          mv[j.mj_v + k] = v[j.art_v + k];
          mf[j.mj_v + k] = tau[j.art_v + k];
        }
      }
    }
  }

  // Per state, the equality targets = the current poses (mj_kinematics at that qpos):
  //   connect: data[0..2] anchor on body1, data[3..5] the same point in the world (body2);
  //   weld:    data[3..5] anchor on body1, data[0..2] its world position, data[6..9] relpose
  //            quaternion with q_body1 * relpose = identity (the world's orientation),
  //            data[10] torquescale as compiled.
  void set_targets() {
    const std::size_t ne = static_cast<std::size_t>(m_->neq) * mjNEQDATA, nq = static_cast<std::size_t>(p_.nq);
    eq_data_.assign(p_.nstates * ne, 0.0);
    for (std::size_t i = 0; i < p_.nstates; ++i) {
      std::memcpy(d_->qpos, &qpos_[i * nq], nq * sizeof(double));
      mj_kinematics(m_, d_);
      double* out = &eq_data_[i * ne];
      std::memcpy(out, m_->eq_data, ne * sizeof(double));
      for (std::size_t k = 0; k < eqs_.size(); ++k) {
        double* data = out + k * mjNEQDATA;
        const int b = body_ids_[k];
        double world[3];
        mju_rotVecMat(world, eqs_[k].anchor, d_->xmat + 9 * b);
        for (int a = 0; a < 3; ++a) world[a] += d_->xpos[3 * b + a];
        if (eqs_[k].weld) {
          for (int a = 0; a < 3; ++a) {
            data[a] = world[a];
            data[3 + a] = eqs_[k].anchor[a];
          }
          mju_negQuat(data + 6, d_->xquat + 4 * b);
        } else {
          for (int a = 0; a < 3; ++a) {
            data[a] = eqs_[k].anchor[a];
            data[3 + a] = world[a];
          }
        }
      }
    }
  }

  struct JointMap {
    PeerJoint::Kind kind;
    int art_q, art_v, mj_q, mj_v;
  };

  PeerProblem p_;
  std::vector<EqualitySpec> eqs_;
  ModelPtr ref_m_;  // the URDF as loaded (exact parameters), constraints off
  DataPtr ref_d_;
  ModelPtr model_;  // the MJCF with the equalities
  DataPtr data_;
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  int rows_ = 0;
  std::vector<int> body_ids_;
  std::vector<JointMap> map_;
  std::vector<double> qpos_, qvel_, qfrc_, eq_data_;
  std::string includes_;
};

}  // namespace

std::unique_ptr<ConstrainedPeer> make_mujoco_constrained_peer(const PeerProblem& problem,
                                                              const std::vector<EqualitySpec>& equalities) {
  return std::make_unique<MujocoConstrainedPeer>(problem, equalities);
}

}  // namespace articula::bench
