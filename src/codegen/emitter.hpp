#pragma once
/// Straight-line C++ emission for the kernel generator (codegen/kernels.hpp): a scalar `Sym`
/// is either a number known when the code is generated or a named temporary of the emitted
/// function. Every operation folds what it can (x·0 = 0, x·1 = x, x + 0 = x, numbers with
/// numbers) and emits one `const double tN = …;` line otherwise, reusing a line already
/// emitted for the same operation on the same operands (hash-consing). take() drops the lines
/// no output depends on (the traced recursions compute quantities a kernel does not return,
/// e.g. ABA's body-frame accelerations), and the C++ compiler then schedules the rest. This is the constant folding a
/// runtime recursion cannot do: a model's joint placements, axes and inertias are numbers, often with zeros and ones.
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace articula::codegen {

/// A scalar of the generated code. Arithmetic on it (codegen/sym.hpp) emits into the active
/// Emitter, so the spatial algebra and recursions written for `double` run on it unchanged.
struct Sym {
  int id = -1;       // temporary t<id>, or −1 for a number
  double value = 0;  // the number when id < 0
  Sym() = default;
  Sym(double x) : value(x == 0.0 ? 0.0 : x) {}  // NOLINT(google-explicit-constructor): numbers mix in
  static Sym temporary(int id) {
    Sym s;
    s.id = id;
    return s;
  }
  bool is_number() const { return id < 0; }
  bool is(double x) const { return id < 0 && value == x; }
};

class Emitter {
 public:
  static Sym number(double x) { return Sym(x); }
  /// The emitter that arithmetic on Sym writes into (codegen/sym.hpp): set by an Active scope.
  static Emitter& active();
  class Active {  // makes an emitter the active one for its lifetime (per thread)
   public:
    explicit Active(Emitter& e);
    ~Active();
    Active(const Active&) = delete;
    Active& operator=(const Active&) = delete;

   private:
    Emitter* previous_;
  };
  /// A temporary holding an expression in the function's inputs, e.g. "q[3]"; `local` when it
  /// reads a local a raw line declared (take_parts passes those between parts; the others it
  /// reads again where a later part needs them).
  Sym input(const std::string& expr, bool local = false);
  Sym add(Sym a, Sym b);
  Sym sub(Sym a, Sym b);
  Sym mul(Sym a, Sym b);
  Sym div(Sym a, Sym b);
  Sym neg(Sym a);
  /// sin and cos of a, through articula's fast_sincos.
  void sincos(Sym a, Sym& s, Sym& c);
  Sym sqrt(Sym a);
  Sym fmin(Sym a, Sym b);
  /// `c > 0 ? a : 0`: a choice by value made in the generated code (a select), not in the trace.
  Sym if_positive(Sym c, Sym a);
  /// `target = a;` (e.g. "tau[2]").
  void assign(const std::string& target, Sym a);
  /// A line of C++ as it is (e.g. an early return on a failed pivot test).
  void raw(const std::string& line);
  /// A fresh name for a local the caller declares with raw() (e.g. an Eigen matrix).
  std::string fresh_name(const std::string& stem) { return stem + std::to_string(next_++); }
  /// The body of the function emitted so far, without its dead lines; clears it for the next
  /// function.
  std::string take();
  /// The same body cut into parts of at most about `max_statements` kept statements (one part
  /// when it is shorter, or max_statements ≤ 0), to run in order as functions of their own
  /// (codegen/kernel_text.hpp). A temporary one part defines and a later one reads passes
  /// through the array `w`: stored at the end of its part, loaded at the start of the reader's.
  /// No cut falls next to a raw line or an input, so a local a raw line declares stays in the
  /// part that reads it. Clears the function as take() does.
  struct Parts {
    std::vector<std::string> bodies;
    int spills = 0;  // entries of w
  };
  Parts take_parts(int max_statements);
  std::string ref(Sym a) const;
  /// Statements kept by take() so far (over every function).
  int lines() const { return count_; }

 private:
  /// One statement: the temporaries it defines and uses; roots (assignments to outputs, raw
  /// lines) are always kept.
  struct Statement {
    std::string text;
    std::vector<int> defs, uses;
    bool root = false;
    bool glue = false;    // a raw line or an input: no cut next to it (take_parts)
    bool reread = false;  // an input of the function's arguments: read again, not passed
  };
  Sym emit(const std::string& expr, std::vector<int> uses, bool glue = false);
  Sym binary(char op, Sym a, Sym b, const std::string& expr);
  std::vector<Statement> body_;
  int next_ = 0, count_ = 0;
  std::map<std::tuple<char, int, double, int, double>, Sym> seen_;
  std::map<std::string, Sym> inputs_;
  std::map<int, std::pair<Sym, Sym>> sincos_;
};

}  // namespace articula::codegen
