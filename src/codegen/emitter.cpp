#include "codegen/emitter.hpp"

#include <cmath>
#include <cstdio>

namespace articula::codegen {

std::string Emitter::ref(Sym a) const {
  if (!a.is_number()) {
    std::string name(1, 't');
    name += std::to_string(a.id);
    return name;
  }
  if (std::isnan(a.value)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(a.value))
    return a.value > 0 ? "std::numeric_limits<double>::infinity()" : "(-std::numeric_limits<double>::infinity())";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", a.value);
  std::string s(buf);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // a double literal
  if (a.value < 0) {
    s.insert(s.begin(), '(');
    s.push_back(')');
  }
  return s;
}

Sym Emitter::emit(const std::string& expr) {
  const Sym out{next_++, 0.0};
  body_ += "  const double " + ref(out) + " = " + expr + ";\n";
  ++count_;
  return out;
}

Sym Emitter::input(const std::string& expr) {
  auto it = inputs_.find(expr);
  if (it != inputs_.end()) return it->second;
  return inputs_[expr] = emit(expr);
}

Sym Emitter::binary(char op, Sym a, Sym b, const std::string& expr) {
  const auto key = std::make_tuple(op, a.id, a.is_number() ? a.value : 0.0, b.id, b.is_number() ? b.value : 0.0);
  auto it = seen_.find(key);
  if (it != seen_.end()) return it->second;
  return seen_[key] = emit(expr);
}

Sym Emitter::add(Sym a, Sym b) {
  if (a.is_number() && b.is_number()) return number(a.value + b.value);
  if (a.is(0.0)) return b;
  if (b.is(0.0)) return a;
  if (a.id > b.id) std::swap(a, b);  // one key for a + b and b + a
  return binary('+', a, b, ref(a) + " + " + ref(b));
}

Sym Emitter::sub(Sym a, Sym b) {
  if (a.is_number() && b.is_number()) return number(a.value - b.value);
  if (b.is(0.0)) return a;
  if (a.is(0.0)) return neg(b);
  return binary('-', a, b, ref(a) + " - " + ref(b));
}

Sym Emitter::mul(Sym a, Sym b) {
  if (a.is_number() && b.is_number()) return number(a.value * b.value);
  if (a.is(0.0) || b.is(0.0)) return number(0.0);
  if (a.is(1.0)) return b;
  if (b.is(1.0)) return a;
  if (a.is(-1.0)) return neg(b);
  if (b.is(-1.0)) return neg(a);
  if (a.id > b.id) std::swap(a, b);
  return binary('*', a, b, ref(a) + " * " + ref(b));
}

Sym Emitter::div(Sym a, Sym b) {
  if (a.is_number() && b.is_number()) return number(a.value / b.value);
  if (a.is(0.0)) return number(0.0);
  if (b.is(1.0)) return a;
  return binary('/', a, b, ref(a) + " / " + ref(b));
}

Sym Emitter::neg(Sym a) {
  if (a.is_number()) return number(-a.value);
  std::string expr(1, '-');
  expr += ref(a);
  return binary('n', a, number(0.0), expr);
}

void Emitter::sincos(Sym a, Sym& s, Sym& c) {
  if (a.is_number()) {
    s = number(std::sin(a.value));
    c = number(std::cos(a.value));
    return;
  }
  s = Sym{next_++, 0.0};
  c = Sym{next_++, 0.0};
  body_ += "  double " + ref(s) + ", " + ref(c) + ";\n  ::articula::fast_sincos(" + ref(a) + ", " + ref(s) + ", " +
           ref(c) + ");\n";
  ++count_;
}

void Emitter::assign(const std::string& target, Sym a) {
  body_ += "  " + target + " = " + ref(a) + ";\n";
  ++count_;
}

void Emitter::raw(const std::string& line) {
  body_ += "  " + line + "\n";
  ++count_;
}

std::string Emitter::take() {
  std::string out;
  out.swap(body_);
  next_ = 0;
  seen_.clear();
  inputs_.clear();
  return out;
}

}  // namespace articula::codegen
