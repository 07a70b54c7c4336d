#pragma once
/// The tree-sparse factorization M = Lᵀ D L and its triangular sweeps (RBDA §6.5, Table 6.3),
/// written once, generic over the scalar S (ADR 0003): the runtime's mass_factor.cpp
/// instantiates them on double (Data::Lfact, Dfact, Dinv_fact), the code generator's constrained
/// kernels on Sym (codegen/constrained.cpp). L_kj ≠ 0 (j < k) only for the ancestors j of dof k,
/// so row k of L is stored packed along k's ancestor list, nearest first:
/// L(k, model.ancestors_of(k)[t]) = L[model.ancestor_offset[k] + t], t < model.ancestor_count(k).
#include <type_traits>

#include "articula/model/model.hpp"

namespace articula {

struct PackedRow {
  const int* anc;
  int n;
  int offset;
};
ARTICULA_ALWAYS_INLINE PackedRow packed_row(const Model& model, int k) {
  return {model.ancestors_of(k), model.ancestor_count(k), model.ancestor_offset[k]};
}

/// M = Lᵀ D L: for k = n−1 … 0, eliminate dof k into its ancestors, H_ij −= (H_ki / H_kk) H_kj
/// for the ancestors i of k and the ancestors-or-self j of i. With the rows packed along the
/// ancestor lists, the ancestors of k's t-th ancestor i are exactly the entries of k's list after
/// t, so row i is updated by one contiguous loop over row k's tail, and H_ii by one product.
/// `entry(k, j)` is M_kj for j = k or an ancestor of k (M's other entries are not read).
/// Returns −1, or the dof whose pivot was found not positive (elimination runs from the last
/// dof to the first; on double only: a generated kernel's pivots are not tested here).
template <typename S, typename Entry>
ARTICULA_ALWAYS_INLINE int ltdl_factor(const Model& model, const Entry& entry, S* L, S* D, S* Dinv) {
  for (int k = 0; k < model.nv; ++k) {
    D[k] = entry(k, k);
    const PackedRow r = packed_row(model, k);
    for (int t = 0; t < r.n; ++t) L[r.offset + t] = entry(k, r.anc[t]);
  }
  for (int k = model.nv - 1; k >= 0; --k) {
    const S d = D[k];
    if constexpr (std::is_same_v<S, double>)
      if (!(d > 0.0)) return k;
    const S dinv = S(1.0) / d;
    Dinv[k] = dinv;
    const PackedRow r = packed_row(model, k);
    S* lk = L + r.offset;
    for (int t = 0; t < r.n; ++t) {
      const int i = r.anc[t];
      const S a = lk[t] * dinv;
      D[i] -= a * lk[t];
      // Row i precedes row k in L (i < k), so the two ranges never overlap.
      S* __restrict li = L + model.ancestor_offset[i];
      const S* __restrict tail = lk + t + 1;
      const int len = r.n - t - 1;
      for (int s = 0; s < len; ++s) li[s] -= a * tail[s];
      lk[t] = a;
    }
  }
  return -1;
}

/// x ← L⁻ᵀ x: for i = n−1 … 0, x_j −= L_ij x_i for the ancestors j of i.
template <typename S>
ARTICULA_ALWAYS_INLINE void ltdl_solve_lt(const Model& model, const S* L, S* x) {
  for (int i = model.nv - 1; i >= 0; --i) {
    const PackedRow r = packed_row(model, i);
    const S xi = x[i];
    for (int t = 0; t < r.n; ++t) x[r.anc[t]] -= L[r.offset + t] * xi;
  }
}

/// x ← L⁻¹ x: for i = 0 … n−1, x_i −= L_ij x_j for the ancestors j of i.
template <typename S>
ARTICULA_ALWAYS_INLINE void ltdl_solve_l(const Model& model, const S* L, S* x) {
  for (int i = 0; i < model.nv; ++i) {
    const PackedRow r = packed_row(model, i);
    S acc = x[i];
    for (int t = 0; t < r.n; ++t) acc -= L[r.offset + t] * x[r.anc[t]];
    x[i] = acc;
  }
}

}  // namespace articula
