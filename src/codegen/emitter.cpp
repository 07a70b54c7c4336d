#include "codegen/emitter.hpp"

#include <algorithm>
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
  // Compiler builtins (g++, clang) rather than <cmath> and <limits>: a unit that needs no
  // header compiles in a sixth of the time (kernels.cpp, the units' prologue).
  if (std::isnan(a.value)) return "__builtin_nan(\"\")";
  if (std::isinf(a.value)) return a.value > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
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

Sym Emitter::emit(const std::string& expr, std::vector<int> uses, bool glue) {
  const Sym out = Sym::temporary(next_++);
  body_.push_back({"  const double " + ref(out) + " = " + expr + ";\n", {out.id}, std::move(uses), false, glue});
  return out;
}

Sym Emitter::input(const std::string& expr, bool local) {
  auto it = inputs_.find(expr);
  if (it != inputs_.end()) return it->second;
  const Sym s = inputs_[expr] = emit(expr, {}, true);
  body_.back().reread = !local;
  return s;
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

Sym Emitter::sqrt(Sym a) {
  if (a.is_number()) return number(std::sqrt(a.value));
  return binary('r', a, number(0.0), "__builtin_sqrt(" + ref(a) + ")");
}

Sym Emitter::fmin(Sym a, Sym b) {
  if (a.is_number() && b.is_number()) return number(std::fmin(a.value, b.value));
  if (a.id > b.id) std::swap(a, b);
  return binary('m', a, b, "__builtin_fmin(" + ref(a) + ", " + ref(b) + ")");
}

Sym Emitter::if_positive(Sym c, Sym a) {
  if (c.is_number()) return c.value > 0 ? a : number(0.0);
  if (a.is(0.0)) return a;
  return binary('?', c, a, ref(c) + " > 0.0 ? " + ref(a) + " : 0.0");
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
  body_.push_back({"  " + line + "\n", {}, std::move(uses), true, true});
}

std::string Emitter::take() { return take_parts(0).bodies.front(); }

Emitter::Parts Emitter::take_parts(int max_statements) {
  // Liveness, last statement first: a statement is kept when it is a root or defines a
  // temporary a kept statement reads.
  std::vector<char> live(static_cast<std::size_t>(next_), 0);
  std::vector<std::size_t> kept;
  for (std::size_t n = body_.size(); n-- > 0;) {
    const Statement& st = body_[n];
    bool k = st.root;
    for (int d : st.defs) k = k || live[static_cast<std::size_t>(d)];
    if (!k) continue;
    kept.push_back(n);
    for (int u : st.uses)
      if (u >= 0) live[static_cast<std::size_t>(u)] = 1;
  }
  std::reverse(kept.begin(), kept.end());
  const std::size_t n = kept.size();
  count_ += static_cast<int>(n);
  // The parts: each cut within a quarter share of an equal share, where the fewest
  // temporaries are live across it (each costs a store and a load), and not next to a raw
  // line or an input.
  const std::size_t parts = max_statements > 0
                                ? std::max<std::size_t>(1, (n + static_cast<std::size_t>(max_statements) - 1) /
                                                               static_cast<std::size_t>(max_statements))
                                : 1;
  std::vector<std::size_t> part_of(n, 0);
  if (parts > 1) {
    // crossing[c]: temporaries defined before statement c and read at or after it.
    std::vector<std::size_t> def_at(static_cast<std::size_t>(next_), n), last_use(static_cast<std::size_t>(next_), 0);
    for (std::size_t k = 0; k < n; ++k) {
      for (int d : body_[kept[k]].defs) def_at[static_cast<std::size_t>(d)] = k;
      for (int u : body_[kept[k]].uses)
        if (u >= 0) last_use[static_cast<std::size_t>(u)] = k;
    }
    std::vector<long> crossing(n + 1, 0);
    for (std::size_t t = 0; t < def_at.size(); ++t)
      if (def_at[t] < n && last_use[t] > def_at[t]) {
        ++crossing[def_at[t] + 1];
        --crossing[last_use[t] + 1];
      }
    for (std::size_t c = 1; c <= n; ++c) crossing[c] += crossing[c - 1];
    std::size_t cut = 0;
    const std::size_t slack = n / (2 * parts);
    for (std::size_t p = 1; p < parts; ++p) {
      const std::size_t target = p * n / parts;
      std::size_t best = n;
      for (std::size_t c = std::max(cut + 1, target - std::min(target, slack)); c < n && c <= target + slack; ++c)
        if (!body_[kept[c - 1]].glue && !body_[kept[c]].glue && (best == n || crossing[c] < crossing[best])) best = c;
      if (best == n) continue;
      for (std::size_t k = best; k < n; ++k) part_of[k] = p;
      cut = best;
    }
  }
  const std::size_t used = n == 0 ? 1 : part_of.back() + 1;
  // Temporaries read in a later part than their own: a slot of w each.
  std::vector<int> def_part(static_cast<std::size_t>(next_), -1), slot(static_cast<std::size_t>(next_), -1);
  std::vector<const Statement*> reread(static_cast<std::size_t>(next_), nullptr);  // inputs read again
  for (std::size_t k = 0; k < n; ++k)
    if (body_[kept[k]].reread)
      for (int d : body_[kept[k]].defs) reread[static_cast<std::size_t>(d)] = &body_[kept[k]];
  Parts out;
  for (std::size_t k = 0; k < n; ++k) {
    const Statement& st = body_[kept[k]];
    for (int u : st.uses) {
      if (u < 0) continue;
      const int d = def_part[static_cast<std::size_t>(u)];
      if (d < 0 || d == static_cast<int>(part_of[k]) || reread[static_cast<std::size_t>(u)]) continue;
      int& s = slot[static_cast<std::size_t>(u)];
      if (s < 0) s = out.spills++;
    }
    for (int d : st.defs) def_part[static_cast<std::size_t>(d)] = static_cast<int>(part_of[k]);
  }
  // Each load just before the first statement of its part that reads it, each store just after
  // the statement that defines it: no value is held across a whole part for the array's sake.
  out.bodies.assign(used, "");
  std::vector<char> loaded(static_cast<std::size_t>(next_), 0);
  for (std::size_t k = 0; k < n; ++k) {
    const Statement& st = body_[kept[k]];
    std::string& body = out.bodies[part_of[k]];
    for (int u : st.uses) {
      if (u < 0 || def_part[static_cast<std::size_t>(u)] == static_cast<int>(part_of[k]) ||
          loaded[static_cast<std::size_t>(u)])
        continue;
      const std::size_t i = static_cast<std::size_t>(u);
      loaded[i] = 1;
      if (reread[i])
        body += reread[i]->text;
      else if (slot[i] >= 0)
        body += "  const double " + ref(Sym::temporary(u)) + " = w[" + std::to_string(slot[i]) + "];\n";
    }
    body += st.text;
    for (int d : st.defs)
      if (slot[static_cast<std::size_t>(d)] >= 0)
        body += "  w[" + std::to_string(slot[static_cast<std::size_t>(d)]) + "] = " + ref(Sym::temporary(d)) + ";\n";
    if (k + 1 < n && part_of[k + 1] != part_of[k]) std::fill(loaded.begin(), loaded.end(), 0);
  }
  body_.clear();
  next_ = 0;
  seen_.clear();
  inputs_.clear();
  sincos_.clear();
  return out;
}

}  // namespace articula::codegen
