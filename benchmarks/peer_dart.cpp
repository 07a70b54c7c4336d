// DART 6.12 peer of bench_dynamics: see peer_dart.hpp.
// Only specific headers: dart/dart.hpp needs an ikfast header that Debian does not ship.
#include "peer_dart.hpp"

#include <Eigen/Geometry>
#include <dart/common/Uri.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/Inertia.hpp>
#include <dart/dynamics/Joint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/utils/urdf/DartLoader.hpp>
#include <stdexcept>

namespace articula::bench {
namespace {

class DartPeer final : public Peer {
 public:
  explicit DartPeer(const PeerProblem& p) : p_(p) {
    load();
    map_joints();
    convert_states();
    ops_ = {
        {"computeInverseDynamics", Quantity::InverseDynamics, true,
         "setPositions + setVelocities + setAccelerations + computeInverseDynamics(false, false, false)"},
        {"getMassMatrix", Quantity::MassMatrix, true,
         "setPositions (invalidates DART's cache) + getMassMatrix (DART builds M column by column, one "
         "unit-acceleration recursion per dof)"},
        {"computeForwardDynamics", Quantity::ForwardDynamics, true,
         "setPositions + setVelocities + setForces + computeForwardDynamics (articulated-body algorithm)"},
    };
  }

  const char* engine() const override { return "DART 6.12"; }
  const char* key() const override { return "dart"; }
  const std::vector<PeerOp>& ops() const override { return ops_; }

  void run(std::size_t op, std::size_t i) override {
    switch (op) {
      case 0:
        skel_->setPositions(q_[i]);
        skel_->setVelocities(v_[i]);
        skel_->setAccelerations(a_[i]);
        skel_->computeInverseDynamics(false, false, false);
        break;
      case 1:
        skel_->setPositions(q_[i]);
        sink_ = skel_->getMassMatrix()(0, 0);
        break;
      case 2:
        skel_->setPositions(q_[i]);
        skel_->setVelocities(v_[i]);
        skel_->setForces(tau_[i]);
        skel_->computeForwardDynamics();
        break;
      default:
        throw std::out_of_range("DART peer: no such operation");
    }
  }

  void forward_dynamics(std::size_t i, double* qdd) override {
    run(2, i);
    const Eigen::VectorXd& acc = skel_->getAccelerations();
    for (std::size_t k = 0; k < perm_.size(); ++k) qdd[k] = acc[perm_[k]];
  }
  void inverse_dynamics(std::size_t i, double* tau) override {
    run(0, i);
    const Eigen::VectorXd& f = skel_->getForces();
    for (std::size_t k = 0; k < perm_.size(); ++k) tau[k] = f[perm_[k]];
  }
  void mass_matrix(std::size_t i, double* M) override {
    run(1, i);
    const Eigen::MatrixXd& Md = skel_->getMassMatrix();
    const std::size_t n = perm_.size();
    for (std::size_t c = 0; c < n; ++c)
      for (std::size_t r = 0; r < n; ++r) M[c * n + r] = Md(perm_[r], perm_[c]);
  }

  std::string notes() const override {
    return "URDF via dart::utils::DartLoader (fixed links stay bodies, massless ones get mass 0), root " +
           std::string(p_.floating ? "FreeJoint" : "WeldJoint") + "; " + std::to_string(skel_->getNumBodyNodes()) +
           " bodies, " + std::to_string(massless_) + " of them massless";
  }

 private:
  void load() {
    using dart::utils::DartLoader;
    // Links without <inertial> get this inertia; DART's default would be 1 kg with unit moments.
    const dart::dynamics::Inertia massless(0.0, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Zero());
    DartLoader::Options options(
        nullptr, p_.floating ? DartLoader::RootJointType::FLOATING : DartLoader::RootJointType::FIXED, massless);
    DartLoader loader(options);
    skel_ = loader.parseSkeleton(dart::common::Uri::createFromPath(p_.urdf_path));
    if (!skel_) throw std::runtime_error("DART peer: DartLoader could not read " + p_.urdf_path);
    skel_->setGravity(Eigen::Vector3d(0, 0, -9.81));
    for (std::size_t b = 0; b < skel_->getNumBodyNodes(); ++b)
      if (skel_->getBodyNode(b)->getMass() == 0.0) ++massless_;
    if (static_cast<int>(skel_->getNumDofs()) != p_.nv)
      throw std::runtime_error("DART peer: " + p_.key + " has " + std::to_string(skel_->getNumDofs()) +
                               " dofs in DART, articula has nv " + std::to_string(p_.nv));
  }

  // perm_[k]: DART dof of articula dof k. A FreeJoint's dofs are [angular; linear].
  void map_joints() {
    perm_.assign(static_cast<std::size_t>(p_.nv), 0);
    for (const auto& j : p_.joints) {
      const dart::dynamics::Joint* joint = nullptr;
      if (j.kind == PeerJoint::Kind::FreeFlyer) {
        joint = skel_->getRootJoint();
        if (joint == nullptr || joint->getType() != dart::dynamics::FreeJoint::getStaticType())
          throw std::runtime_error("DART peer: the root joint of " + p_.key + " is not a FreeJoint");
        const std::size_t base = joint->getIndexInSkeleton(0);
        for (std::size_t k = 0; k < 3; ++k) {
          perm_[static_cast<std::size_t>(j.idx_v) + k] = base + 3 + k;  // linear
          perm_[static_cast<std::size_t>(j.idx_v) + 3 + k] = base + k;  // angular
        }
        continue;
      }
      joint = skel_->getJoint(j.name);
      if (joint == nullptr || joint->getNumDofs() != 1)
        throw std::runtime_error("DART peer: no one-dof joint '" + j.name + "' in " + p_.key);
      perm_[static_cast<std::size_t>(j.idx_v)] = joint->getIndexInSkeleton(0);
    }
  }

  // DART-coordinate copies of every state, made once (not timed).
  void convert_states() {
    const std::size_t nq = static_cast<std::size_t>(p_.nq), nv = static_cast<std::size_t>(p_.nv);
    for (std::size_t i = 0; i < p_.nstates; ++i) {
      Eigen::VectorXd q(nv), v(nv), a(nv), tau(nv);
      for (std::size_t k = 0; k < nv; ++k) {
        v[perm_[k]] = p_.v[i * nv + k];
        a[perm_[k]] = p_.a[i * nv + k];
        tau[perm_[k]] = p_.tau[i * nv + k];
      }
      for (const auto& j : p_.joints) {
        if (j.kind == PeerJoint::Kind::Scalar) {
          q[perm_[static_cast<std::size_t>(j.idx_v)]] = p_.q[i * nq + static_cast<std::size_t>(j.idx_q)];
          continue;
        }
        const double* x = &p_.q[i * nq + static_cast<std::size_t>(j.idx_q)];
        Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
        T.linear() = Eigen::Quaterniond(x[6], x[3], x[4], x[5]).toRotationMatrix();
        T.translation() = Eigen::Vector3d(x[0], x[1], x[2]);
        // [log(R); p]: the FreeJoint's positions.
        q.segment<6>(static_cast<Eigen::Index>(perm_[static_cast<std::size_t>(j.idx_v) + 3])) =
            dart::dynamics::FreeJoint::convertToPositions(T);
      }
      q_.push_back(q);
      v_.push_back(v);
      a_.push_back(a);
      tau_.push_back(tau);
    }
  }

  PeerProblem p_;
  dart::dynamics::SkeletonPtr skel_;
  std::vector<std::size_t> perm_;
  std::vector<Eigen::VectorXd> q_, v_, a_, tau_;
  std::vector<PeerOp> ops_;
  std::size_t massless_ = 0;
  volatile double sink_ = 0.0;
};

}  // namespace

std::unique_ptr<Peer> make_dart_peer(const PeerProblem& problem) { return std::make_unique<DartPeer>(problem); }

}  // namespace articula::bench
