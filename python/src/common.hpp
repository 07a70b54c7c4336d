#pragma once
// Shared helpers of the Python bindings: NumPy conversions with shape checks (ValueError naming
// the argument and the expected shape), the Data wrapper that remembers its model, Python
// callables wrapped for C++ (GIL taken for the call, Python errors with their traceback), and the
// exception types (module.cpp registers them).
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "articula/articula.hpp"

namespace articula::python {
namespace py = pybind11;

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// A null array handle (no NumPy allocation), for the keep-alive slots of vector_arg().
inline Array null_array() { return py::reinterpret_steal<Array>(py::handle()); }

/// The articula.Error hierarchy (created in module.cpp).
struct Errors {
  py::handle error, argument, model, scenario, solve, log, compile;
};
Errors& errors();
/// Raises articula.<kind> with the message (throws py::error_already_set).
[[noreturn]] void raise(py::handle kind, const std::string& message);
/// ArgumentError for a wrong shape: "argument 'q' has shape (3,), expected (7,)".
[[noreturn]] void raise_shape(const char* name, const py::array& a, const std::string& expected);

/// Any array-like as a float64 C-contiguous array (no copy when it already is one).
Array as_array(const py::handle& obj, const char* name);
/// A vector of size n (n < 0: any size); a 1-D array-like.
Eigen::Map<const VectorX> vector_arg(const py::handle& obj, const char* name, Eigen::Index n, Array& keep);
/// A matrix rows × cols (negative: any); copied into column-major storage.
MatrixX matrix_arg(const py::handle& obj, const char* name, Eigen::Index rows, Eigen::Index cols);
Vector3 vec3_arg(const py::handle& obj, const char* name);
Matrix3 mat3_arg(const py::handle& obj, const char* name);
/// Per-body external forces from None or an (njoints, 6) array [force; moment] in body frames.
std::vector<Force> forces_arg(const py::handle& obj, const Model& model);

/// New arrays holding a copy.
py::array_t<double> vector_array(const Eigen::Ref<const VectorX>& x);
py::array_t<double> matrix_array(const Eigen::Ref<const MatrixX>& x);
/// A copy of any vector (1-D array) or matrix (2-D array) expression.
template <typename Derived>
py::array_t<double> to_array(const Eigen::MatrixBase<Derived>& x) {
  if constexpr (Derived::ColsAtCompileTime == 1)
    return vector_array(x);
  else
    return matrix_array(x);
}
py::array_t<double> to_array6(const Motion& m);
py::array_t<double> to_array6(const Force& f);
/// A read-only view of a vector / matrix owned by `owner` (the array keeps `owner` alive).
py::array readonly_view(const VectorX& x, py::handle owner);
py::array readonly_view(const MatrixX& x, py::handle owner);

/// A Data and the model it was made for. Views handed to callbacks (constraints) wrap the
/// library's own Data for the duration of the call: read-only, expired afterwards.
struct PyData {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Data> owned;
  const Data* view = nullptr;  // a callback's view, or owned.get()
  bool readonly = false;
  const Data& get() const;
  Data& mut();
};
/// The Data of `pd`, checked against `model` (ModelError for a Data of another model).
Data& data_for(const Model& model, PyData& pd);
const Data& cdata_for(const Model& model, const PyData& pd);

/// A non-owning shared_ptr (for models and data the library owns, handed to callbacks).
template <typename T>
std::shared_ptr<T> borrow(const T& x) {
  return std::shared_ptr<T>(const_cast<T*>(&x), [](T*) {});
}

/// A Python callable kept for C++ (copied freely without the GIL; released with it).
class PyCallable {
 public:
  PyCallable() = default;
  explicit PyCallable(py::object f);
  explicit operator bool() const { return static_cast<bool>(f_); }
  /// Calls with the GIL held; a Python exception becomes std::runtime_error carrying
  /// "<what>: <traceback>" (what names the callback).
  template <typename... Args>
  py::object call(const std::string& what, Args&&... args) const {
    py::gil_scoped_acquire gil;
    try {
      return (*f_)(std::forward<Args>(args)...);
    } catch (py::error_already_set& e) {
      throw_with_traceback(what, e);
    }
  }
  const py::object& object() const { return *f_; }

 private:
  [[noreturn]] static void throw_with_traceback(const std::string& what, py::error_already_set& e);
  std::shared_ptr<py::object> f_;
};

/// Runs `body` (which calls sim.run or run_scenario) with the GIL released and SIGINT / SIGTERM
/// turned into sim.request_stop() (main thread only); a run ended by Ctrl-C raises
/// KeyboardInterrupt afterwards (its logs already finished), the RunResult in its `result`.
RunResult run_interruptible(Simulator& sim, const std::function<RunResult()>& body);

// Parts of the module, one per source file.
void init_model(py::module_& m);
void init_dynamics(py::module_& m);
void init_constraints(py::module_& m);
void init_solvers(py::module_& m);
void init_engine(py::module_& m);
void init_scenario(py::module_& m);
void init_study(py::module_& m);
void init_logs(py::module_& m);
void init_compiled(py::module_& m);  // after init_engine (adds Simulator.use_compiled)

}  // namespace articula::python
