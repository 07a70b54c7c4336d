#pragma once
// The three constrained-dynamics methods, called by solve_constrained() after it has
// computed M (crba) and ws.b = τ − h + Σ Jᵀ f_ext. Each writes data.ddq and ws.lambda.
#include "articula/solvers/constrained_dynamics.hpp"
#include "dense_solve.hpp"

namespace articula::detail {

using RowsRef = const Eigen::Ref<const MatrixX>&;

SolveReport solve_kkt(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma);
SolveReport solve_range_space(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma);
SolveReport solve_null_space(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma);

/// Solves the symmetric positive semi-definite system S x = r (m × m) into x: unpivoted LDLᵀ
/// (into L, m × m scratch) when S is well conditioned, else LDLᵀ with pivoting, else the
/// eigen-decomposition pseudo-inverse (minimum-norm x). Returns the numerical rank.
int solve_psd(Eigen::Ref<MatrixX> S, VectorRef r, Eigen::Ref<VectorX> x, Eigen::Ref<MatrixX> L,
              Eigen::LDLT<MatrixX>& ldlt);

}  // namespace articula::detail
