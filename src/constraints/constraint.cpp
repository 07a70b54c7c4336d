#include "articula/constraints/constraint.hpp"

#include <cmath>
#include <stdexcept>

namespace articula {

Constraint::Constraint(std::string name, int dim, bool holonomic)
    : name_(std::move(name)), dim_(dim), holonomic_(holonomic) {
  if (name_.empty()) throw std::invalid_argument("Constraint: empty name");
  if (dim_ <= 0)
    throw std::invalid_argument("Constraint '" + name_ + "': dimension must be positive, got " + std::to_string(dim_));
  if (holonomic_) baumgarte_hz_ = kDefaultBaumgarteHz;
}

void Constraint::set_baumgarte_frequency(double hz) {
  if (!(hz >= 0.0) || !std::isfinite(hz))
    throw std::invalid_argument("Constraint '" + name_ + "': Baumgarte frequency must be finite and ≥ 0 Hz, got " +
                                std::to_string(hz));
  baumgarte_hz_ = hz;
}

double Constraint::kp() const {
  const double w = 2.0 * M_PI * baumgarte_hz_;
  return w * w;
}

double Constraint::kd() const { return 4.0 * M_PI * baumgarte_hz_; }

void Constraint::capture_reference(const Model&, const Data&, VectorRef) { has_reference_ = true; }

AxisMask AxisMask::parse(const std::string& text) {
  if (text == "weld" || text == "6d" || text == "6D") return weld();
  if (text == "point" || text == "3d" || text == "3D") return point();
  AxisMask m;
  for (bool& b : m.axis) b = false;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool rot = text[i] == 'r';
    if (rot) ++i;
    if (i >= text.size() || text[i] < 'x' || text[i] > 'z')
      throw std::invalid_argument("AxisMask::parse: '" + text +
                                  "' is not an axis list (use letters x y z, rx ry rz, or weld / point)");
    bool& slot = m.axis[(rot ? 3 : 0) + (text[i] - 'x')];
    if (slot) throw std::invalid_argument("AxisMask::parse: axis repeated in '" + text + "'");
    slot = true;
    ++i;
  }
  if (m.count() == 0) throw std::invalid_argument("AxisMask::parse: no axis in '" + text + "'");
  return m;
}

int AxisMask::count() const {
  int n = 0;
  for (bool b : axis) n += b;
  return n;
}

std::string AxisMask::to_string() const {
  static const char* names[6] = {"x", "y", "z", "rx", "ry", "rz"};
  std::string s;
  for (int k = 0; k < 6; ++k)
    if (axis[k]) s += names[k];
  return s;
}

void Constraint::drop_roundoff_rows(Eigen::Ref<MatrixX> J, double scale) {
  const double tol = 1e-13 * scale;
  for (Eigen::Index r = 0; r < J.rows(); ++r) {
    bool tiny = true;
    for (Eigen::Index c = 0; c < J.cols() && tiny; ++c) tiny = std::abs(J(r, c)) <= tol;
    if (tiny) J.row(r).setZero();
  }
}

}  // namespace articula
