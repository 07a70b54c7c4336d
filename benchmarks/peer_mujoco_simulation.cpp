// MuJoCo 2.2.2 whole simulations, peer of bench_simulation: see peer_mujoco_simulation.hpp.
#include "peer_mujoco_simulation.hpp"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>

#include "articula/engine/telemetry.hpp"
#include "mujoco_loading.hpp"

namespace articula::bench {
namespace {

using mjutil::Mat3;

using mjutil::DataPtr;
using mjutil::fmt;
using mjutil::last_model_as_mjcf;
using mjutil::load_text;
using mjutil::ModelPtr;

// The log: articula's own CSV sink (make_csv_log, src/engine/csv_log.cpp) — the same writer,
// files and writer thread as articula's runs — fed one row of numbers per mj_step.
class CsvWriter {
 public:
  void open(const std::string& path, const std::vector<std::string>& header) {
    sink_ = make_csv_log(path);
    sink_->begin(header);
    row_.clear();
    row_.reserve(header.size());
    rows_ = 0;
  }
  bool is_open() const { return sink_ != nullptr; }
  void number(double x, bool first) {
    if (first) row_.clear();
    row_.push_back(x);
  }
  void end_row() {
    sink_->append(row_);
    ++rows_;
  }
  void close(double t_end) {
    if (!sink_) return;
    sink_->finish({.status = "completed", .message = "", .t_end = t_end, .steps = rows_});
    sink_.reset();
  }
  long rows() const { return rows_; }

 private:
  std::unique_ptr<LogSink> sink_;
  std::vector<double> row_;
  long rows_ = 0;
};

class MujocoSimulationPeer final : public SimulationPeer {
 public:
  explicit MujocoSimulationPeer(const MjSimulationSpec& s) : s_(s) {
    build();
    map_joints();
    initial_state();
  }

  const char* engine() const override { return "MuJoCo 2.2.2"; }
  int log_columns() const override { return static_cast<int>(header_.size()); }

  std::string notes() const override {
    std::string n = "URDF via mj_loadXML, saved as MJCF (mj_saveLastXML)";
    if (!s_.feet.empty()) n += " + foot spheres (r = " + fmt(s_.foot_radius) + " m) + ground plane";
    if (!s_.locks.empty() || !s_.welds.empty()) n += " + <equality>";
    n += ", reloaded, exact URDF parameters copied back + mj_setConst; opt.integrator = RK4, timestep " + fmt(s_.dt) +
         " s; joint limits off (jnt_limited = 0, as articula); energy (mjENBL_ENERGY) on when logging";
    n += s_.feet.empty() ? "; contacts off" : "; only the foot spheres and the plane collide, default solref/solimp";
    if (!s_.locks.empty()) n += "; locks: <joint> equalities switched on with m->eq_active, target = q at that time";
    if (!s_.welds.empty()) n += "; welds to the world (default solref/solimp), target = the initial pose";
    if (!s_.drives.empty()) n += "; PD via qfrc_applied every " + fmt(s_.control_period) + " s, dof_armature set";
    return n;
  }

  void run(const std::string& csv_path, MjSimulationStats* stats) override {
    mjModel* m = m_;
    mjData* d = d_;
    mj_resetData(m, d);
    std::memcpy(d->qpos, qpos0_.data(), qpos0_.size() * sizeof(mjtNum));
    std::memcpy(d->qvel, qvel0_.data(), qvel0_.size() * sizeof(mjtNum));
    for (const auto& l : locks_) m->eq_active[l.eq] = 0;
    std::vector<char> lock_done(locks_.size(), 0);
    std::fill(u_.begin(), u_.end(), 0.0);
    double next_control = 0.0;
    CsvWriter log;
    if (!csv_path.empty()) log.open(csv_path, header_);
    // Energy only when it is logged (or checked): mj_energyPos / mj_energyVel inside each mj_forward.
    if (!csv_path.empty() || stats)
      m->opt.enableflags |= mjENBL_ENERGY;
    else
      m->opt.enableflags &= ~mjENBL_ENERGY;
    const long nsteps = std::lround(s_.duration / s_.dt);
    const double eps = 1e-9 * s_.dt;
    if (stats) begin_stats(*stats);
    for (long k = 0; k < nsteps; ++k) {
      const double t = static_cast<double>(k) * s_.dt;
      for (std::size_t i = 0; i < locks_.size(); ++i)
        if (!lock_done[i] && t >= locks_[i].time - eps) {  // brake on: hold the current position
          m->eq_data[mjNEQDATA * locks_[i].eq] = d->qpos[locks_[i].qadr] - m->qpos0[locks_[i].qadr];
          m->eq_active[locks_[i].eq] = 1;
          lock_done[i] = 1;
        }
      if (!drives_.empty() && t >= next_control - eps) {  // PD, zero-order hold
        for (std::size_t i = 0; i < drives_.size(); ++i) {
          const Drive& dr = drives_[i];
          u_[i] = s_.kp * (dr.target - d->qpos[dr.qadr]) - s_.kd * d->qvel[dr.dof];
          d->qfrc_applied[dr.dof] = u_[i];
        }
        next_control += s_.control_period;
      }
      mj_step(m, d);
      if (log.is_open()) write_row(log);
      if (stats) step_stats(*stats);
    }
    if (stats) {
      stats->steps = nsteps;
      stats->evaluations = 4 * nsteps;  // RK4: mj_forward + 3 mj_forwardSkip per mj_step
      stats->rows = log.rows();
      stats->columns = static_cast<int>(header_.size());
      end_stats(*stats);
    }
    log.close(d->time);
  }

 private:
  struct JointMap {
    PeerJoint::Kind kind;
    int art_q, art_v, mj_q, mj_v;
  };
  struct Drive {
    int qadr, dof;
    double target;
  };
  struct LockMap {
    int eq, qadr, dof;
    double time;
  };

  void build() {
    std::string urdf = mjutil::read_file(s_.urdf_path);
    if (s_.floating) urdf = mjutil::add_floating_root(std::move(urdf), s_.root_link);
    ref_m_ = load_text(urdf, "articula_bench_sim.urdf", s_.urdf_path);
    std::string mjcf = last_model_as_mjcf(ref_m_.get());

    // Foot spheres in their bodies, the ground plane in the world.
    const std::string r = fmt(s_.foot_radius), mu = fmt(s_.friction);
    for (const auto& f : s_.feet) {
      const std::string tag = "<body name=\"" + f.body + "\"";
      const auto at = mjcf.find(tag);
      if (at == std::string::npos) throw std::runtime_error("MuJoCo peer: no body '" + f.body + "' in the MJCF");
      const auto close = mjcf.find('>', at);
      mjcf.insert(close + 1, "\n<geom name=\"" + f.name + "\" type=\"sphere\" size=\"" + r + "\" pos=\"" +
                                 fmt(f.pos[0]) + " " + fmt(f.pos[1]) + " " + fmt(f.pos[2]) +
                                 "\" contype=\"1\" conaffinity=\"0\" friction=\"" + mu +
                                 " 0.005 0.0001\" group=\"3\"/>\n");
    }
    if (!s_.feet.empty()) {
      const auto at = mjcf.find("<worldbody>");
      if (at == std::string::npos) throw std::runtime_error("MuJoCo peer: no <worldbody> in the MJCF");
      mjcf.insert(at + std::strlen("<worldbody>"), "\n<geom name=\"ground\" type=\"plane\" size=\"0 0 1\" pos=\"0 0 -" +
                                                       r + "\" contype=\"0\" conaffinity=\"1\" friction=\"" + mu +
                                                       " 0.005 0.0001\"/>\n");
    }
    if (!s_.locks.empty() || !s_.welds.empty()) {
      std::string eq = "  <equality>\n";
      for (const auto& l : s_.locks)
        eq += "    <joint name=\"" + l.name + "\" joint1=\"" + l.joint + "\" active=\"false\"/>\n";
      for (const auto& w : s_.welds) eq += "    <weld name=\"" + w.name + "\" body1=\"" + w.body + "\"/>\n";
      eq += "  </equality>\n";
      const auto end = mjcf.rfind("</mujoco>");
      if (end == std::string::npos) throw std::runtime_error("MuJoCo peer: no </mujoco> in the saved MJCF");
      mjcf.insert(end, eq);
    }
    model_ = load_text(mjcf, "articula_bench_sim.xml", s_.key + " (MJCF)");
    m_ = model_.get();

    // Same structure as the URDF model: copy its exact parameters back (the writer prints 6 digits).
    mjModel* ref = ref_m_.get();
    if (m_->nbody != ref->nbody || m_->njnt != ref->njnt || m_->nq != ref->nq || m_->nv != ref->nv)
      throw std::runtime_error("MuJoCo peer: the MJCF round trip changed the model structure of " + s_.key);
    auto copy = [](mjtNum* dst, const mjtNum* src, int n) {
      std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(mjtNum));
    };
    copy(m_->body_pos, ref->body_pos, 3 * m_->nbody);
    copy(m_->body_quat, ref->body_quat, 4 * m_->nbody);
    copy(m_->body_ipos, ref->body_ipos, 3 * m_->nbody);
    copy(m_->body_iquat, ref->body_iquat, 4 * m_->nbody);
    copy(m_->body_mass, ref->body_mass, m_->nbody);
    copy(m_->body_inertia, ref->body_inertia, 3 * m_->nbody);
    copy(m_->jnt_pos, ref->jnt_pos, 3 * m_->njnt);
    copy(m_->jnt_axis, ref->jnt_axis, 3 * m_->njnt);
    copy(m_->qpos0, ref->qpos0, m_->nq);
    copy(m_->qpos_spring, ref->qpos_spring, m_->nq);
    copy(m_->dof_damping, ref->dof_damping, m_->nv);
    for (int j = 0; j < m_->njnt; ++j) m_->jnt_limited[j] = 0;  // articula does not enforce limits
    m_->opt.timestep = s_.dt;
    m_->opt.integrator = mjINT_RK4;
    m_->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    if (s_.feet.empty())
      m_->opt.disableflags |= mjDSBL_CONTACT;
    else
      m_->opt.disableflags &= ~mjDSBL_CONTACT;
    for (const auto& dr : s_.drives) {
      const int j = joint(dr.joint);
      m_->dof_armature[m_->jnt_dofadr[j]] = dr.armature;
    }
    data_.reset(mj_makeData(m_));
    d_ = data_.get();
    mj_setConst(m_, d_);
  }

  int joint(const std::string& name) const {
    const int id = mj_name2id(m_, mjOBJ_JOINT, name.c_str());
    if (id < 0) throw std::runtime_error("MuJoCo peer: no joint '" + name + "' in " + s_.key);
    return id;
  }

  void map_joints() {
    for (const auto& j : s_.joints) {
      const int id = joint(j.name);
      map_.push_back({j.kind, j.idx_q, j.idx_v, m_->jnt_qposadr[id], m_->jnt_dofadr[id]});
      if (j.kind == PeerJoint::Kind::FreeFlyer) free_qadr_ = m_->jnt_qposadr[id];
    }
    for (const auto& dr : s_.drives) {
      const int id = joint(dr.joint);
      drives_.push_back({m_->jnt_qposadr[id], m_->jnt_dofadr[id], dr.target});
    }
    u_.assign(drives_.size(), 0.0);
    for (const auto& l : s_.locks) {
      const int eq = mj_name2id(m_, mjOBJ_EQUALITY, l.name.c_str());
      const int id = joint(l.joint);
      locks_.push_back({eq, m_->jnt_qposadr[id], m_->jnt_dofadr[id], l.time});
    }
    for (const auto& w : s_.welds) {
      weld_eq_.push_back(mj_name2id(m_, mjOBJ_EQUALITY, w.name.c_str()));
      weld_body_.push_back(mj_name2id(m_, mjOBJ_BODY, w.body.c_str()));
    }
    for (const auto& f : s_.feet) foot_geom_.push_back(mj_name2id(m_, mjOBJ_GEOM, f.name.c_str()));

    header_ = {"t"};
    for (int k = 0; k < m_->nq; ++k) header_.push_back("qpos." + std::to_string(k));
    for (int k = 0; k < m_->nv; ++k) header_.push_back("qvel." + std::to_string(k));
    for (int k = 0; k < m_->nv; ++k) header_.push_back("qacc." + std::to_string(k));
    for (const auto& dr : s_.drives) header_.push_back("u." + dr.joint);
    for (const auto& dr : s_.drives) header_.push_back("tau." + dr.joint);
    for (const auto& l : s_.locks) header_.push_back("lambda." + l.name);
    for (const auto& w : s_.welds)
      for (int k = 0; k < 6; ++k) header_.push_back("lambda." + w.name + "." + std::to_string(k));
    for (const auto& f : s_.feet)
      for (const char* a : {".fx", ".fy", ".fz"}) header_.push_back("contact." + f.name + a);
    for (const char* e : {"energy.kinetic", "energy.potential", "energy.total"}) header_.emplace_back(e);
    eq_row_.assign(static_cast<std::size_t>(std::max(m_->neq, 1)), -1);
    foot_force_.assign(3 * s_.feet.size(), 0.0);
  }

  // The initial state in MuJoCo's coordinates; the weld targets at that state.
  void initial_state() {
    qpos0_.assign(static_cast<std::size_t>(m_->nq), 0.0);
    qvel0_.assign(static_cast<std::size_t>(m_->nv), 0.0);
    const double* q = s_.q0.data();
    const double* v = s_.v0.data();
    for (const auto& j : map_) {
      if (j.kind == PeerJoint::Kind::Scalar) {
        qpos0_[static_cast<std::size_t>(j.mj_q)] = q[j.art_q];
        qvel0_[static_cast<std::size_t>(j.mj_v)] = v[j.art_v];
        continue;
      }
      const double* quat = q + j.art_q + 3;
      double* mq = &qpos0_[static_cast<std::size_t>(j.mj_q)];
      double* mv = &qvel0_[static_cast<std::size_t>(j.mj_v)];
      for (int k = 0; k < 3; ++k) mq[k] = q[j.art_q + k];
      mq[3] = quat[3];
      for (int k = 0; k < 3; ++k) mq[4 + k] = quat[k];
      const Mat3 R = mjutil::rotation_from_quat(quat);
      mjutil::mul(R, v + j.art_v, mv);
      for (int k = 3; k < 6; ++k) mv[k] = v[j.art_v + k];
    }
    // Weld targets: data[0..2] the anchor's world position, data[3..5] the anchor on body1,
    // data[6..9] the relpose quaternion with q_body1 · relpose = identity (see peer_mujoco_constrained.cpp).
    std::memcpy(d_->qpos, qpos0_.data(), qpos0_.size() * sizeof(mjtNum));
    mj_kinematics(m_, d_);
    for (std::size_t k = 0; k < s_.welds.size(); ++k) {
      double* data = m_->eq_data + mjNEQDATA * weld_eq_[k];
      const int b = weld_body_[k];
      double world[3];
      mju_rotVecMat(world, s_.welds[k].anchor, d_->xmat + 9 * b);
      for (int a = 0; a < 3; ++a) {
        data[a] = world[a] + d_->xpos[3 * b + a];
        data[3 + a] = s_.welds[k].anchor[a];
      }
      mju_negQuat(data + 6, d_->xquat + 4 * b);
    }
  }

  void write_row(CsvWriter& log) {
    const mjModel* m = m_;
    const mjData* d = d_;
    log.number(d->time, true);
    for (int k = 0; k < m->nq; ++k) log.number(d->qpos[k], false);
    for (int k = 0; k < m->nv; ++k) log.number(d->qvel[k], false);
    for (int k = 0; k < m->nv; ++k) log.number(d->qacc[k], false);
    for (double u : u_) log.number(u, false);
    for (const auto& dr : drives_) log.number(d->qfrc_applied[dr.dof], false);
    if (!locks_.empty() || !weld_eq_.empty()) {
      std::fill(eq_row_.begin(), eq_row_.end(), -1);
      for (int r = d->nefc - 1; r >= 0; --r)
        if (d->efc_type[r] == mjCNSTR_EQUALITY) eq_row_[static_cast<std::size_t>(d->efc_id[r])] = r;
      const double nan = std::numeric_limits<double>::quiet_NaN();
      for (const auto& l : locks_) {
        const int r = eq_row_[static_cast<std::size_t>(l.eq)];
        log.number(r >= 0 ? d->efc_force[r] : nan, false);
      }
      for (const int eq : weld_eq_) {
        const int r = eq_row_[static_cast<std::size_t>(eq)];
        for (int k = 0; k < 6; ++k) log.number(r >= 0 ? d->efc_force[r + k] : nan, false);
      }
    }
    if (!foot_geom_.empty()) {
      contact_forces();
      for (double f : foot_force_) log.number(f, false);
    }
    log.number(d->energy[1], false);
    log.number(d->energy[0], false);
    log.number(d->energy[0] + d->energy[1], false);
    log.end_row();
  }

  // World force on each foot sphere, summed over its contacts (mj_contactForce: contact frame,
  // normal first, acting on geom2 along the normal from geom1 to geom2).
  void contact_forces() {
    std::fill(foot_force_.begin(), foot_force_.end(), 0.0);
    for (int c = 0; c < d_->ncon; ++c) {
      const mjContact& con = d_->contact[c];
      double f[6];
      mj_contactForce(m_, d_, c, f);
      for (std::size_t k = 0; k < foot_geom_.size(); ++k) {
        const double sign = con.geom2 == foot_geom_[k] ? 1.0 : con.geom1 == foot_geom_[k] ? -1.0 : 0.0;
        if (sign == 0.0) continue;
        for (int a = 0; a < 3; ++a)
          foot_force_[3 * k + static_cast<std::size_t>(a)] +=
              sign * (f[0] * con.frame[a] + f[1] * con.frame[3 + a] + f[2] * con.frame[6 + a]);
      }
    }
  }

  void begin_stats(MjSimulationStats& st) {
    st = {};
    st.ncon_min = 1 << 30;
    st.foot_fz_min = std::numeric_limits<double>::infinity();
    if (free_qadr_ >= 0) st.base_z_min = st.base_z_max = d_->qpos[free_qadr_ + 2];
  }
  void step_stats(MjSimulationStats& st) {
    st.ncon_min = std::min(st.ncon_min, d_->ncon);
    st.ncon_max = std::max(st.ncon_max, d_->ncon);
    if (free_qadr_ >= 0) {
      st.base_z_min = std::min(st.base_z_min, d_->qpos[free_qadr_ + 2]);
      st.base_z_max = std::max(st.base_z_max, d_->qpos[free_qadr_ + 2]);
    }
    if (!foot_geom_.empty()) {
      contact_forces();
      for (std::size_t k = 0; k < foot_geom_.size(); ++k)
        st.foot_fz_min = std::min(st.foot_fz_min, foot_force_[3 * k + 2]);
    }
    for (std::size_t k = 0; k < weld_eq_.size(); ++k) {
      const double* data = m_->eq_data + mjNEQDATA * weld_eq_[k];
      const int b = weld_body_[k];
      double world[3];
      mju_rotVecMat(world, s_.welds[k].anchor, d_->xmat + 9 * b);
      double e = 0.0;
      for (int a = 0; a < 3; ++a) e += std::pow(world[a] + d_->xpos[3 * b + a] - data[a], 2);
      st.weld_drift = std::max(st.weld_drift, std::sqrt(e));
    }
  }
  void end_stats(MjSimulationStats& st) {
    st.t_end = d_->time;
    if (foot_geom_.empty()) st.foot_fz_min = 0.0;
    for (const auto& l : locks_) st.locked_speed_end = std::max(st.locked_speed_end, std::abs(d_->qvel[l.dof]));
    for (int w = 0; w < mjNWARNING; ++w) st.warnings += d_->warning[w].number;
    // Final state back in articula's coordinates.
    st.q_end.assign(static_cast<std::size_t>(s_.nq), 0.0);
    st.v_end.assign(static_cast<std::size_t>(s_.nv), 0.0);
    for (const auto& j : map_) {
      if (j.kind == PeerJoint::Kind::Scalar) {
        st.q_end[static_cast<std::size_t>(j.art_q)] = d_->qpos[j.mj_q];
        st.v_end[static_cast<std::size_t>(j.art_v)] = d_->qvel[j.mj_v];
        continue;
      }
      const double* mq = d_->qpos + j.mj_q;
      double* q = &st.q_end[static_cast<std::size_t>(j.art_q)];
      double* v = &st.v_end[static_cast<std::size_t>(j.art_v)];
      for (int k = 0; k < 3; ++k) q[k] = mq[k];
      for (int k = 0; k < 3; ++k) q[3 + k] = mq[4 + k];
      q[6] = mq[3];
      const Mat3 R = mjutil::rotation_from_quat(q + 3);
      mjutil::mul_t(R, d_->qvel + j.mj_v, v);
      for (int k = 3; k < 6; ++k) v[k] = d_->qvel[j.mj_v + k];
    }
  }

  MjSimulationSpec s_;
  ModelPtr ref_m_, model_;
  DataPtr data_;
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  std::vector<JointMap> map_;
  std::vector<Drive> drives_;
  std::vector<LockMap> locks_;
  std::vector<int> weld_eq_, weld_body_, foot_geom_, eq_row_;
  std::vector<double> qpos0_, qvel0_, u_, foot_force_;
  std::vector<std::string> header_;
  int free_qadr_ = -1;
};

}  // namespace

std::unique_ptr<SimulationPeer> make_mujoco_simulation_peer(const MjSimulationSpec& spec) {
  return std::make_unique<MujocoSimulationPeer>(spec);
}

}  // namespace articula::bench
