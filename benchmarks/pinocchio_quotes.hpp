#pragma once
// Pinocchio 3.7's figures quoted from shared/PEERS.md (not measured by the benchmarks: Pinocchio
// is not a Debian package), for the summaries of bench_dynamics, bench_constrained and
// bench_activation. A program quotes only the build of Pinocchio made with the same compiler
// (clang vs g++) and the same -march=native setting (ARTICULA_BENCH_NATIVE, set from
// ARTICULA_NATIVE in CMakeLists.txt) as its own build; a quantity PEERS.md has no figure for in
// that build is printed as "—", never as another build's figure.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>

/// The calls PEERS.md quotes Pinocchio for (rows of its tables).
enum class PinocchioCall { Rnea, Crba, Aba, ConstraintDynamics, ImpulseDynamics };

/// PEERS.md's columns, in its order. Constraint cases (constraintDynamics, impulseDynamics):
/// ur5 `tool0` point, panda `panda_hand` weld, solo12 four `*_FOOT` points, talos
/// `left_sole_link` + `right_sole_link` welds (all rows new for impulseDynamics).
inline constexpr const char* kPinocchioModels[] = {"ur5", "panda", "solo12", "talos"};
inline constexpr std::size_t kPinocchioModelCount = std::size(kPinocchioModels);
inline constexpr std::size_t kPinocchioCallCount = 5;

enum class PinocchioCompiler { Clang, Gcc };

/// One build of Pinocchio as PEERS.md quotes it: its figures per call (PinocchioCall order) and
/// model (kPinocchioModels order), in PEERS.md's unit, NaN where PEERS.md has no figure.
struct PinocchioBuild {
  PinocchioCompiler compiler;
  bool native;        // built with -march=native
  const char* label;  // the build, as a column header names it
  bool in_ns;         // PEERS.md's unit for this table: ns (true) or µs (false)
  double figures[kPinocchioCallCount][kPinocchioModelCount];
};

inline constexpr double kPinocchioNone = std::numeric_limits<double>::quiet_NaN();

// Every figure is transcribed from shared/PEERS.md once, here.
inline constexpr PinocchioBuild kPinocchioBuilds[] = {
    // PEERS.md, the table after "Measured once here, from a local build" (Pinocchio 3.7.0,
    // "library (compiler, -O3)", built without -march=native; µs per call). clang 14 rows.
    {PinocchioCompiler::Clang,
     false,
     "clang 14 -O3, no -march=native",
     false,
     {
         {0.52, 0.64, 1.19, 3.25},  // RNEA | Pinocchio (clang 14)
         {0.43, 0.40, 0.84, 2.52},  // CRBA | Pinocchio (clang 14, upper triangle)
         {1.09, 1.52, 3.10, 7.80},  // ABA | Pinocchio (clang 14)
         {1.91, 2.47, 5.34, 12.5},  // FD + welds / points, exact | Pinocchio `constraintDynamics` (clang 14)
         {1.43, 1.71, 4.29, 9.79},  // consistent jump, exact | Pinocchio `impulseDynamics` (clang 14)
     }},
    // The same table, g++ 12: only ABA (PEERS.md has no g++ 12 row for the other calls).
    {PinocchioCompiler::Gcc,
     false,
     "g++ 12 -O3, no -march=native",
     false,
     {
         {kPinocchioNone, kPinocchioNone, kPinocchioNone, kPinocchioNone},  // RNEA: none
         {kPinocchioNone, kPinocchioNone, kPinocchioNone, kPinocchioNone},  // CRBA: none
         {1.93, 2.17, 4.89, 11.9},                                          // ABA | Pinocchio (g++ 12)
         {kPinocchioNone, kPinocchioNone, kPinocchioNone, kPinocchioNone},  // constraintDynamics: none
         {kPinocchioNone, kPinocchioNone, kPinocchioNone, kPinocchioNone},  // impulseDynamics: none
     }},
    // PEERS.md, section "Pinocchio 3.7 with `-O3 -DNDEBUG -march=native`" (re-measured
    // 2026-12-04; ns per call). clang 14 rows.
    {PinocchioCompiler::Clang,
     true,
     "clang 14 -O3 -DNDEBUG -march=native",
     true,
     {
         {390, 449, 867, 2'225},        // RNEA | clang 14
         {260, 307, 593, 1'730},        // CRBA (upper triangle) | clang 14
         {793, 937, 2'190, 5'148},      // ABA | clang 14
         {1'660, 2'307, 4'838, 9'509},  // `constraintDynamics` (cases below) | clang 14
         {912, 1'228, 3'539, 7'184},    // `impulseDynamics` (same cases) | clang 14
     }},
    // The same section, g++ 12 rows ("RNEA / CRBA / ABA" and "`constraintDynamics` /
    // `impulseDynamics`", split here by call).
    {PinocchioCompiler::Gcc,
     true,
     "g++ 12 -O3 -DNDEBUG -march=native",
     true,
     {
         {692, 784, 1'516, 3'840},       // RNEA
         {392, 444, 854, 2'509},         // CRBA
         {1'473, 1'704, 3'658, 9'011},   // ABA
         {2'014, 2'738, 6'186, 11'411},  // constraintDynamics
         {1'158, 1'599, 4'562, 8'081},   // impulseDynamics
     }},
};

/// The build of Pinocchio this program quotes: same compiler family and -march=native setting
/// as the program's own build, or null for a compiler PEERS.md does not quote.
inline const PinocchioBuild* pinocchio_build() {
#if defined(__clang__)
  constexpr PinocchioCompiler compiler = PinocchioCompiler::Clang;
#elif defined(__GNUC__)
  constexpr PinocchioCompiler compiler = PinocchioCompiler::Gcc;
#else
  return nullptr;
#endif
#if defined(__clang__) || defined(__GNUC__)
  for (const PinocchioBuild& b : kPinocchioBuilds)
    if (b.compiler == compiler && b.native == static_cast<bool>(ARTICULA_BENCH_NATIVE)) return &b;
  return nullptr;
#endif
}

/// The quoted figure of `call` on `model` in µs, NaN when the quoted build has none.
inline double pinocchio_us(PinocchioCall call, const std::string& model) {
  const PinocchioBuild* b = pinocchio_build();
  if (b == nullptr) return kPinocchioNone;
  for (std::size_t m = 0; m < kPinocchioModelCount; ++m)
    if (model == kPinocchioModels[m]) {
      const double x = b->figures[static_cast<std::size_t>(call)][m];
      return b->in_ns ? x / 1000.0 : x;
    }
  return kPinocchioNone;
}

/// The quoted figure in µs with PEERS.md's digits (ns figures: 3 decimals; µs figures: 3
/// significant digits), or "—".
inline std::string pinocchio_cell(PinocchioCall call, const std::string& model) {
  const double us = pinocchio_us(call, model);
  if (std::isnan(us)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, pinocchio_build()->in_ns ? "%.3f" : (us < 10 ? "%.2f" : "%.1f"), us);
  return buf;
}

/// A column header naming the quoted build, e.g. "Pinocchio 3.7 constraintDynamics g++ 12 -O3
/// -DNDEBUG -march=native (PEERS.md, quoted, µs)"; `call` may be null.
inline std::string pinocchio_header(const char* call = nullptr) {
  const PinocchioBuild* b = pinocchio_build();
  std::string h = "Pinocchio 3.7";
  if (call != nullptr) h += std::string(" ") + call;
  return h + (b != nullptr ? std::string(" ") + b->label + " (PEERS.md, quoted, µs)"
                           : std::string(" (PEERS.md quotes no build with this compiler)"));
}

/// The summary's note on the quoted figures of `what` (e.g. "Pinocchio impulseDynamics"; one line
/// with its "\n"): where they come from and what is missing from this build's quote.
inline std::string pinocchio_note(const char* what = "Pinocchio") {
  const PinocchioBuild* b = pinocchio_build();
  if (b == nullptr)
    return std::string("- ") + what +
           ": PEERS.md quotes only clang 14 and g++ 12 builds; none is this program's compiler, so no figure is "
           "quoted.\n";
  std::string s = std::string("- ") + what + ": not measured here; figures of Pinocchio 3.7 " + b->label +
                  " quoted from shared/PEERS.md (" +
                  (b->native ? "section \"Pinocchio 3.7 with `-O3 -DNDEBUG -march=native`\""
                             : "its first Pinocchio table, built without -march=native") +
                  "), the same compiler and -march=native setting as this build";
#if defined(__clang__)
  if (__clang_major__ != 14) s += " (compiler version differs: clang " + std::to_string(__clang_major__) + ")";
#elif defined(__GNUC__)
  if (__GNUC__ != 12) s += " (compiler version differs: g++ " + std::to_string(__GNUC__) + ")";
#endif
  s += ".";
  if (b->compiler == PinocchioCompiler::Gcc && !b->native)
    s += " PEERS.md has only ABA for this build: RNEA, CRBA, constraintDynamics and impulseDynamics are \"—\" (its "
         "clang 14 figures are another compiler's build, not quoted).";
  return s + "\n";
}

/// Pinocchio's own published figures (its README, i7 2.4 GHz, flags not given; cited in
/// PEERS.md): another machine and build, for orientation only (one line with its "\n").
inline const char* pinocchio_readme_note() {
  return "- Pinocchio's README (i7 2.4 GHz, build flags not given; cited in PEERS.md): ABA 1.28 µs (7-dof arm), "
         "5.15 µs (Atlas), 8.53 µs (TALOS) — another machine and build, not a comparison.\n";
}
