// MuJoCo 2.2.2 peer of bench_dynamics: see peer_mujoco.hpp.
#include "peer_mujoco.hpp"

#include <mujoco/mujoco.h>

#include <array>
#include <cstring>
#include <stdexcept>

#include "mujoco_common.hpp"

namespace articula::bench {
namespace {

using mjutil::add_floating_root;
using mjutil::cross;
using mjutil::Mat3;
using mjutil::mul;
using mjutil::mul_t;
using mjutil::read_file;
using mjutil::rotation_from_quat;

class MujocoPeer final : public Peer {
 public:
  explicit MujocoPeer(const PeerProblem& p) : p_(p) {
    load();
    map_joints();
    convert_states();
    rne_out_.resize(static_cast<std::size_t>(m_->nv));
    ops_ = {
        {"rne_pieces", Quantity::InverseDynamics, true,
         "copy qpos,qvel,qacc; mj_kinematics + mj_comPos + mj_comVel + mj_rne(flg_acc=1)"},
        {"mj_inverse", Quantity::InverseDynamics, false,
         "copy qpos,qvel,qacc; mj_inverse (also CRB + factorM, tendons, transmission, sensors)"},
        {"crb_pieces", Quantity::MassMatrix, true,
         "copy qpos; mj_kinematics + mj_comPos + mj_crb (sparse qM, no factorization)"},
        {"crb_factorM", Quantity::MassMatrix, false,
         "copy qpos; mj_kinematics + mj_comPos + mj_crb + mj_factorM (sparse LDL')"},
        {"mj_forward", Quantity::ForwardDynamics, true,
         "copy qpos,qvel,qfrc_applied; mj_forward (CRB + sparse LDL' solve, constraints off)"},
        {"fwd_pieces", Quantity::ForwardDynamics, false,
         "copy qpos,qvel,qfrc_applied; mj_fwdPosition + mj_fwdVelocity + mj_fwdAcceleration (qacc_smooth)"},
    };
  }

  const char* engine() const override { return "MuJoCo 2.2.2"; }
  const char* key() const override { return "mujoco"; }
  const std::vector<PeerOp>& ops() const override { return ops_; }

  void run(std::size_t op, std::size_t i) override {
    switch (op) {
      case 0:
        set(i, true, true, false);
        mj_kinematics(m_, d_);
        mj_comPos(m_, d_);
        mj_comVel(m_, d_);
        mj_rne(m_, d_, 1, rne_out_.data());
        break;
      case 1:
        set(i, true, true, false);
        mj_inverse(m_, d_);
        break;
      case 2:
        set(i, false, false, false);
        mj_kinematics(m_, d_);
        mj_comPos(m_, d_);
        mj_crb(m_, d_);
        break;
      case 3:
        set(i, false, false, false);
        mj_kinematics(m_, d_);
        mj_comPos(m_, d_);
        mj_crb(m_, d_);
        mj_factorM(m_, d_);
        break;
      case 4:
        set(i, true, false, true);
        mj_forward(m_, d_);
        break;
      case 5:
        set(i, true, false, true);
        mj_fwdPosition(m_, d_);
        mj_fwdVelocity(m_, d_);
        mj_fwdAcceleration(m_, d_);
        break;
      default:
        throw std::out_of_range("MuJoCo peer: no such operation");
    }
  }

  void forward_dynamics(std::size_t i, double* qdd) override {
    run(4, i);
    // a_mj = T a + Ṫ v: for a free joint, linear p̈ = R (a_lin + ω × v_lin).
    const double* v = &p_.v[i * nv()];
    for (const auto& j : map_) {
      if (j.kind == PeerJoint::Kind::Scalar) {
        qdd[j.art_v] = d_->qacc[j.mj_v];
        continue;
      }
      const Mat3 R = rotation_from_quat(&p_.q[i * nq() + j.art_q + 3]);
      double lin[3], wxv[3];
      mul_t(R, &d_->qacc[j.mj_v], lin);
      cross(v + j.art_v + 3, v + j.art_v, wxv);
      for (int k = 0; k < 3; ++k) {
        qdd[j.art_v + k] = lin[k] - wxv[k];
        qdd[j.art_v + 3 + k] = d_->qacc[j.mj_v + 3 + k];
      }
    }
  }

  void inverse_dynamics(std::size_t i, double* tau) override {
    run(0, i);
    // τ_art = Tᵀ f_mj.
    for (const auto& j : map_) {
      if (j.kind == PeerJoint::Kind::Scalar) {
        tau[j.art_v] = rne_out_[static_cast<std::size_t>(j.mj_v)];
        continue;
      }
      const Mat3 R = rotation_from_quat(&p_.q[i * nq() + j.art_q + 3]);
      mul_t(R, &rne_out_[static_cast<std::size_t>(j.mj_v)], tau + j.art_v);
      for (int k = 3; k < 6; ++k) tau[j.art_v + k] = rne_out_[static_cast<std::size_t>(j.mj_v + k)];
    }
  }

  void mass_matrix(std::size_t i, double* M) override {
    run(2, i);
    const int n = nv();
    std::vector<double> full(static_cast<std::size_t>(n * n)), T = tangent_map(i);
    mj_fullM(m_, full.data(), d_->qM);  // row-major, symmetric
    // M_art = Tᵀ M_mj T.
    std::vector<double> MT(static_cast<std::size_t>(n * n), 0.0);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        double s = 0;
        for (int k = 0; k < n; ++k)
          s += full[static_cast<std::size_t>(r * n + k)] * T[static_cast<std::size_t>(k * n + c)];
        MT[static_cast<std::size_t>(r * n + c)] = s;
      }
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        double s = 0;
        for (int k = 0; k < n; ++k)
          s += T[static_cast<std::size_t>(k * n + r)] * MT[static_cast<std::size_t>(k * n + c)];
        M[static_cast<std::size_t>(c * n + r)] = s;
      }
  }

  std::string notes() const override {
    return "URDF via mj_loadXML (fixed links fused), free joint from a URDF 'floating' joint; "
           "disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT; armature/damping 0 from the URDF";
  }

 private:
  struct JointMap {
    PeerJoint::Kind kind;
    int art_q, art_v, mj_q, mj_v;
  };

  int nq() const { return p_.nq; }
  int nv() const { return p_.nv; }

  void load() {
    std::string urdf = read_file(p_.urdf_path);
    if (p_.floating) urdf = add_floating_root(std::move(urdf), p_.root_link);
    // Hand the (possibly modified) text to MuJoCo through its virtual file system.
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    const char* name = "articula_bench_model.urdf";
    if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(urdf.size())) != 0)
      throw std::runtime_error("MuJoCo peer: cannot create a VFS file");
    const int idx = mj_findFileVFS(vfs.get(), name);
    std::memcpy(vfs->filedata[idx], urdf.data(), urdf.size());
    char error[1024] = "";
    model_.reset(mj_loadXML(name, vfs.get(), error, sizeof(error)));
    m_ = model_.get();
    mj_deleteVFS(vfs.get());
    if (m_ == nullptr) throw std::runtime_error("MuJoCo peer: mj_loadXML(" + p_.urdf_path + "): " + error);
    m_->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
    data_.reset(mj_makeData(m_));
    d_ = data_.get();
    if (m_->nq != p_.nq || m_->nv != p_.nv)
      throw std::runtime_error("MuJoCo peer: " + p_.key + " has nq " + std::to_string(m_->nq) + ", nv " +
                               std::to_string(m_->nv) + " in MuJoCo, articula has " + std::to_string(p_.nq) + ", " +
                               std::to_string(p_.nv));
  }

  void map_joints() {
    for (const auto& j : p_.joints) {
      const int id = mj_name2id(m_, mjOBJ_JOINT, j.name.c_str());
      if (id < 0) throw std::runtime_error("MuJoCo peer: no joint '" + j.name + "' in " + p_.key);
      const int type = m_->jnt_type[id];
      const bool ok =
          j.kind == PeerJoint::Kind::FreeFlyer ? type == mjJNT_FREE : (type == mjJNT_HINGE || type == mjJNT_SLIDE);
      if (!ok) throw std::runtime_error("MuJoCo peer: joint '" + j.name + "' has another type in MuJoCo");
      map_.push_back({j.kind, j.idx_q, j.idx_v, m_->jnt_qposadr[id], m_->jnt_dofadr[id]});
    }
  }

  // T (row-major, nv × nv) with v_mj = T v_art at state i.
  std::vector<double> tangent_map(std::size_t i) const {
    const int n = nv();
    std::vector<double> T(static_cast<std::size_t>(n * n), 0.0);
    auto at = [&](int r, int c) -> double& { return T[static_cast<std::size_t>(r * n + c)]; };
    for (const auto& j : map_) {
      if (j.kind == PeerJoint::Kind::Scalar) {
        at(j.mj_v, j.art_v) = 1.0;
        continue;
      }
      const Mat3 R =
          rotation_from_quat(&p_.q[i * static_cast<std::size_t>(nq()) + static_cast<std::size_t>(j.art_q) + 3]);
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) at(j.mj_v + r, j.art_v + c) = R[static_cast<std::size_t>(3 * r + c)];
        at(j.mj_v + 3 + r, j.art_v + 3 + r) = 1.0;
      }
    }
    return T;
  }

  // MuJoCo-coordinate copies of every state, made once (not timed).
  void convert_states() {
    const std::size_t N = p_.nstates, nq_ = static_cast<std::size_t>(nq()), nv_ = static_cast<std::size_t>(nv());
    qpos_.assign(N * nq_, 0.0);
    qvel_.assign(N * nv_, 0.0);
    qacc_.assign(N * nv_, 0.0);
    qfrc_.assign(N * nv_, 0.0);
    for (std::size_t i = 0; i < N; ++i) {
      const double* q = &p_.q[i * nq_];
      const double* v = &p_.v[i * nv_];
      const double* a = &p_.a[i * nv_];
      const double* tau = &p_.tau[i * nv_];
      double* mq = &qpos_[i * nq_];
      double* mv = &qvel_[i * nv_];
      double* ma = &qacc_[i * nv_];
      double* mf = &qfrc_[i * nv_];
      for (const auto& j : map_) {
        if (j.kind == PeerJoint::Kind::Scalar) {
          mq[j.mj_q] = q[j.art_q];
          mv[j.mj_v] = v[j.art_v];
          ma[j.mj_v] = a[j.art_v];
          mf[j.mj_v] = tau[j.art_v];
          continue;
        }
        // qpos: [x y z] then [w x y z]; qvel: world linear velocity, body angular velocity.
        const double* quat = q + j.art_q + 3;
        for (int k = 0; k < 3; ++k) mq[j.mj_q + k] = q[j.art_q + k];
        mq[j.mj_q + 3] = quat[3];
        for (int k = 0; k < 3; ++k) mq[j.mj_q + 4 + k] = quat[k];
        const Mat3 R = rotation_from_quat(quat);
        double wxv[3], alin[3];
        mul(R, v + j.art_v, mv + j.mj_v);
        cross(v + j.art_v + 3, v + j.art_v, wxv);
        for (int k = 0; k < 3; ++k) alin[k] = a[j.art_v + k] + wxv[k];
        mul(R, alin, ma + j.mj_v);           // p̈ = R (a_lin + ω × v_lin)
        mul(R, tau + j.art_v, mf + j.mj_v);  // f = T⁻ᵀ τ = R τ_lin (R orthogonal)
        for (int k = 3; k < 6; ++k) {
          mv[j.mj_v + k] = v[j.art_v + k];
          ma[j.mj_v + k] = a[j.art_v + k];
          mf[j.mj_v + k] = tau[j.art_v + k];
        }
      }
    }
  }

  void set(std::size_t i, bool vel, bool acc, bool frc) {
    const std::size_t nq_ = static_cast<std::size_t>(nq()), nv_ = static_cast<std::size_t>(nv());
    std::memcpy(d_->qpos, &qpos_[i * nq_], nq_ * sizeof(double));
    if (vel) std::memcpy(d_->qvel, &qvel_[i * nv_], nv_ * sizeof(double));
    if (acc) std::memcpy(d_->qacc, &qacc_[i * nv_], nv_ * sizeof(double));
    if (frc) std::memcpy(d_->qfrc_applied, &qfrc_[i * nv_], nv_ * sizeof(double));
  }

  struct ModelDeleter {
    void operator()(mjModel* m) const { mj_deleteModel(m); }
  };
  struct DataDeleter {
    void operator()(mjData* d) const { mj_deleteData(d); }
  };

  PeerProblem p_;  // a copy: the peer owns its states
  std::unique_ptr<mjModel, ModelDeleter> model_;
  std::unique_ptr<mjData, DataDeleter> data_;
  mjModel* m_ = nullptr;  // = model_.get()
  mjData* d_ = nullptr;   // = data_.get()
  std::vector<JointMap> map_;
  std::vector<double> qpos_, qvel_, qacc_, qfrc_;
  std::vector<mjtNum> rne_out_;
  std::vector<PeerOp> ops_;
};

}  // namespace

std::unique_ptr<Peer> make_mujoco_peer(const PeerProblem& problem) { return std::make_unique<MujocoPeer>(problem); }

}  // namespace articula::bench
