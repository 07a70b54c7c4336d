#pragma once
/// Spatial algebra on generator scalars (codegen/emitter.hpp), with the conventions of
/// spatial/*.hpp: [linear; angular] order, X = (R, p) maps child to parent coordinates
/// (RBDA §2.8, eqs. 2.24–2.26; motion and force cross products eqs. 2.31–2.32).
#include <array>

#include "articula/spatial/inertia.hpp"
#include "codegen/emitter.hpp"

namespace articula::codegen {

using V3 = std::array<Sym, 3>;
using M3 = std::array<V3, 3>;  // M3[r][c]
using V6 = std::array<Sym, 6>;
using M6 = std::array<V6, 6>;  // M6[r][c]

struct SMotion {
  V3 v, w;
};
struct SForce {
  V3 f, n;
};
struct STransform {
  M3 R;
  V3 p;
};
/// Spatial inertia about the frame origin (mass, first moment, rotational inertia; Io symmetric).
struct SInertia {
  Sym m;
  V3 h;
  M3 Io;
};

class Spatial {
 public:
  explicit Spatial(Emitter& e) : e(e) {}
  Emitter& e;

  V3 num(const Vector3& x) const { return {Emitter::number(x[0]), Emitter::number(x[1]), Emitter::number(x[2])}; }
  M3 num(const Matrix3& x) const { return {num(Vector3(x.row(0))), num(Vector3(x.row(1))), num(Vector3(x.row(2)))}; }
  V3 zero3() const { return num(Vector3(Vector3::Zero())); }
  M3 identity3() const { return num(Matrix3(Matrix3::Identity())); }
  SMotion zero_motion() const { return {zero3(), zero3()}; }
  SInertia num(const Inertia& I) const { return {Emitter::number(I.m), num(I.h), num(I.Io)}; }
  STransform num(const Transform& X) const { return {num(X.R), num(X.p)}; }

  Sym dot(const V3& a, const V3& b) { return e.add(e.add(e.mul(a[0], b[0]), e.mul(a[1], b[1])), e.mul(a[2], b[2])); }
  V3 add(const V3& a, const V3& b) { return {e.add(a[0], b[0]), e.add(a[1], b[1]), e.add(a[2], b[2])}; }
  V3 sub(const V3& a, const V3& b) { return {e.sub(a[0], b[0]), e.sub(a[1], b[1]), e.sub(a[2], b[2])}; }
  V3 scale(Sym s, const V3& a) { return {e.mul(s, a[0]), e.mul(s, a[1]), e.mul(s, a[2])}; }
  V3 cross(const V3& a, const V3& b) {
    return {e.sub(e.mul(a[1], b[2]), e.mul(a[2], b[1])), e.sub(e.mul(a[2], b[0]), e.mul(a[0], b[2])),
            e.sub(e.mul(a[0], b[1]), e.mul(a[1], b[0]))};
  }
  V3 mul(const M3& R, const V3& x) { return {dot(R[0], x), dot(R[1], x), dot(R[2], x)}; }
  V3 tmul(const M3& R, const V3& x) {  // Rᵀ x
    V3 out;
    for (int c = 0; c < 3; ++c) out[c] = dot(V3{R[0][c], R[1][c], R[2][c]}, x);
    return out;
  }
  M3 mul(const M3& A, const M3& B) {
    M3 out;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) out[r][c] = dot(A[r], V3{B[0][c], B[1][c], B[2][c]});
    return out;
  }

  SMotion add(const SMotion& a, const SMotion& b) { return {add(a.v, b.v), add(a.w, b.w)}; }
  SForce add(const SForce& a, const SForce& b) { return {add(a.f, b.f), add(a.n, b.n)}; }
  SForce sub(const SForce& a, const SForce& b) { return {sub(a.f, b.f), sub(a.n, b.n)}; }
  /// X⁻¹ m: parent coordinates to child.
  SMotion act_inv(const STransform& X, const SMotion& m) {
    return {tmul(X.R, sub(m.v, cross(X.p, m.w))), tmul(X.R, m.w)};
  }
  /// X m: child coordinates to parent.
  SMotion act(const STransform& X, const SMotion& m) {
    const V3 w = mul(X.R, m.w);
    return {add(mul(X.R, m.v), cross(X.p, w)), w};
  }
  /// X₁ X₂.
  STransform compose(const STransform& A, const STransform& B) { return {mul(A.R, B.R), add(mul(A.R, B.p), A.p)}; }
  /// X* f: child coordinates to parent.
  SForce act(const STransform& X, const SForce& f) {
    const V3 ff = mul(X.R, f.f);
    return {ff, add(mul(X.R, f.n), cross(X.p, ff))};
  }
  SMotion cross(const SMotion& a, const SMotion& b) { return {add(cross(a.w, b.v), cross(a.v, b.w)), cross(a.w, b.w)}; }
  SForce cross(const SMotion& a, const SForce& f) { return {cross(a.w, f.f), add(cross(a.w, f.n), cross(a.v, f.f))}; }
  /// I m = [m v − h × w; I_o w + h × v].
  SForce mul(const SInertia& I, const SMotion& x) {
    return {sub(scale(I.m, x.v), cross(I.h, x.w)), add(mul(I.Io, x.w), cross(I.h, x.v))};
  }
  SInertia add(const SInertia& a, const SInertia& b) {
    SInertia out{e.add(a.m, b.m), add(a.h, b.h), {}};
    for (int r = 0; r < 3; ++r) out.Io[r] = add(a.Io[r], b.Io[r]);
    return out;
  }
  /// The inertia in parent coordinates (as Inertia::transformed, RBDA eq. 2.66).
  SInertia transformed(const STransform& X, const SInertia& I) {
    const V3 r = mul(X.R, I.h);
    const V3 g = add(r, scale(e.mul(Emitter::number(0.5), I.m), X.p));
    const M3 T = mul(X.R, I.Io);
    const Sym tr = e.mul(Emitter::number(2.0), dot(X.p, g));
    SInertia out{I.m, add(r, scale(I.m, X.p)), {}};
    for (int c = 0; c < 3; ++c)
      for (int r2 = c; r2 < 3; ++r2) {
        Sym v = e.sub(e.sub(dot(T[r2], X.R[c]), e.mul(g[r2], X.p[c])), e.mul(X.p[r2], g[c]));
        if (r2 == c) v = e.add(v, tr);
        out.Io[r2][c] = v;
        out.Io[c][r2] = v;
      }
    return out;
  }
  V6 vec(const SMotion& m) const { return {m.v[0], m.v[1], m.v[2], m.w[0], m.w[1], m.w[2]}; }
  V6 vec(const SForce& f) const { return {f.f[0], f.f[1], f.f[2], f.n[0], f.n[1], f.n[2]}; }
  SMotion motion(const V6& x) const { return {{x[0], x[1], x[2]}, {x[3], x[4], x[5]}}; }
  SForce force(const V6& x) const { return {{x[0], x[1], x[2]}, {x[3], x[4], x[5]}}; }
  Sym dot(const V6& a, const V6& b) {
    Sym s = Emitter::number(0.0);
    for (int k = 0; k < 6; ++k) s = e.add(s, e.mul(a[k], b[k]));
    return s;
  }
  V6 add6(const V6& a, const V6& b) {
    V6 out;
    for (int r = 0; r < 6; ++r) out[r] = e.add(a[r], b[r]);
    return out;
  }
  V6 mul(const M6& A, const V6& x) {
    V6 out;
    for (int r = 0; r < 6; ++r) out[r] = dot(A[r], x);
    return out;
  }
  /// The 6 × 6 matrix of Inertia::matrix(): [[m 1, −ĥ]; [ĥ, I_o]].
  M6 matrix(const SInertia& I) {
    const Sym z = Emitter::number(0.0);
    M6 M;
    for (auto& row : M) row.fill(z);
    for (int k = 0; k < 3; ++k) M[k][k] = I.m;
    M[0][4] = I.h[2];
    M[0][5] = e.neg(I.h[1]);
    M[1][3] = e.neg(I.h[2]);
    M[1][5] = I.h[0];
    M[2][3] = I.h[1];
    M[2][4] = e.neg(I.h[0]);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        M[3 + c][r] = M[r][3 + c];
        M[3 + r][3 + c] = I.Io[r][c];
      }
    return M;
  }
};

}  // namespace articula::codegen
