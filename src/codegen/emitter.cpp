#include "codegen/emitter.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace articula::codegen {

namespace {
thread_local Emitter* active_emitter = nullptr;
}  // namespace

Emitter& Emitter::active() {
  if (!active_emitter) throw std::logic_error("codegen: arithmetic on a symbol with no active Emitter");
  return *active_emitter;
}

Emitter::Active::Active(Emitter& e) : previous_(active_emitter) { active_emitter = &e; }
Emitter::Active::~Active() { active_emitter = previous_; }

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

Sym Emitter::emit(const std::string& expr, std::vector<int> uses) {
  const Sym out = Sym::temporary(next_++);
  body_.push_back({"  const double " + ref(out) + " = " + expr + ";\n", {out.id}, std::move(uses), false});
  return out;
}

Sym Emitter::input(const std::string& expr) {
  auto it = inputs_.find(expr);
  if (it != inputs_.end()) return it->second;
  return inputs_[expr] = emit(expr, {});
}

Sym Emitter::binary(char op, Sym a, Sym b, const std::string& expr) {
  const auto key = std::make_tuple(op, a.id, a.is_number() ? a.value : 0.0, b.id, b.is_number() ? b.value : 0.0);
  auto it = seen_.find(key);
  if (it != seen_.end()) return it->second;
  return seen_[key] = emit(expr, {a.id, b.id});
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
  auto it = sincos_.find(a.id);  // one call per angle, however often a recursion asks
  if (it != sincos_.end()) {
    s = it->second.first;
    c = it->second.second;
    return;
  }
  s = Sym::temporary(next_++);
  c = Sym::temporary(next_++);
  sincos_[a.id] = {s, c};
  body_.push_back({"  double " + ref(s) + ", " + ref(c) + ";\n  ::articula::fast_sincos(" + ref(a) + ", " + ref(s) +
                       ", " + ref(c) + ");\n",
                   {s.id, c.id},
                   {a.id},
                   false});
}

void Emitter::assign(const std::string& target, Sym a) {
  body_.push_back({"  " + target + " = " + ref(a) + ";\n", {}, {a.id}, true});
}

void Emitter::raw(const std::string& line) {
  // The temporaries a raw line reads: every word t<digits> in it.
  std::vector<int> uses;
  for (std::size_t k = 0; k < line.size(); ++k) {
    const bool start =
        line[k] == 't' && (k == 0 || !(std::isalnum(static_cast<unsigned char>(line[k - 1])) || line[k - 1] == '_'));
    if (!start) continue;
    std::size_t e = k + 1;
    while (e < line.size() && std::isdigit(static_cast<unsigned char>(line[e]))) ++e;
    const bool end = e == line.size() || !(std::isalnum(static_cast<unsigned char>(line[e])) || line[e] == '_');
    if (e > k + 1 && end) uses.push_back(std::stoi(line.substr(k + 1, e - k - 1)));
  }
  body_.push_back({"  " + line + "\n", {}, std::move(uses), true});
}

std::string Emitter::take() {
  // Liveness, last statement first: a statement is kept when it is a root or defines a
  // temporary a kept statement reads.
  std::vector<char> live(static_cast<std::size_t>(next_), 0);
  std::vector<char> keep(body_.size(), 0);
  for (std::size_t n = body_.size(); n-- > 0;) {
    const Statement& st = body_[n];
    bool k = st.root;
    for (int d : st.defs) k = k || live[static_cast<std::size_t>(d)];
    if (!k) continue;
    keep[n] = 1;
    for (int u : st.uses)
      if (u >= 0) live[static_cast<std::size_t>(u)] = 1;
  }
  std::string out;
  for (std::size_t n = 0; n < body_.size(); ++n)
    if (keep[n]) {
      out += body_[n].text;
      ++count_;
    }
  body_.clear();
  next_ = 0;
  seen_.clear();
  inputs_.clear();
  sincos_.clear();
  return out;
}

}  // namespace articula::codegen
