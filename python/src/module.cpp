// The extension module articula._core: exceptions, NumPy helpers (common.hpp) and the parts.
#include <bit>
#include <cstring>
#include <sstream>

#include "common.hpp"

namespace articula::python {

Errors& errors() {
  static Errors e;
  return e;
}

void raise(py::handle kind, const std::string& message) {
  PyErr_SetString(kind.ptr(), message.c_str());
  throw py::error_already_set();
}

namespace {
std::string dim_text(Eigen::Index n) { return n < 0 ? "n" : std::to_string(n); }
}  // namespace

void raise_shape(const char* name, const py::array& a, const std::string& expected) {
  std::string shape = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (i) shape += ", ";
    shape += std::to_string(a.shape(i));
  }
  shape += a.ndim() == 1 ? ",)" : ")";
  raise(errors().argument, std::string("argument '") + name + "' has shape " + shape + ", expected " + expected);
}

namespace {
/// A C-contiguous, aligned float64 NumPy array: usable as it is. Read from the array's header
/// through NumPy's C API (no dtype object built per call, unlike py::isinstance<Array>).
bool is_ready_float64(PyObject* obj) {
  const auto& api = py::detail::npy_api::get();
  if (!api.PyArray_Check_(obj)) return false;
  const auto* a = py::detail::array_proxy(obj);
  constexpr int ready = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  const auto* d = py::detail::array_descriptor_proxy(a->descr);
  const char native = std::endian::native == std::endian::little ? '<' : '>';  // '=' also means native
  return d->type_num == py::detail::npy_api::NPY_DOUBLE_ && (d->byteorder == '=' || d->byteorder == native) &&
         (a->flags & ready) == ready;
}
}  // namespace

Array as_array(const py::handle& obj, const char* name) {
  if (is_ready_float64(obj.ptr())) return py::reinterpret_borrow<Array>(obj);  // the common case, no conversion
  Array a = py::reinterpret_steal<Array>(py::handle());                        // null
  if (!obj.is_none() && !py::isinstance<py::str>(obj) && !py::isinstance<py::dict>(obj)) a = Array::ensure(obj);
  if (!a.ptr()) {
    raise(PyExc_TypeError, std::string("argument '") + name + "': expected an array of numbers (float64), got " +
                               std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  return a;
}

Eigen::Map<const VectorX> vector_arg(const py::handle& obj, const char* name, Eigen::Index n, Array& keep) {
  keep = as_array(obj, name);
  if (keep.ndim() != 1 || (n >= 0 && keep.shape(0) != n)) raise_shape(name, keep, "(" + dim_text(n) + ",)");
  return {keep.data(), static_cast<Eigen::Index>(keep.shape(0))};
}

MatrixX matrix_arg(const py::handle& obj, const char* name, Eigen::Index rows, Eigen::Index cols) {
  Array a = as_array(obj, name);
  if (a.ndim() != 2 || (rows >= 0 && a.shape(0) != rows) || (cols >= 0 && a.shape(1) != cols))
    raise_shape(name, a, "(" + dim_text(rows) + ", " + dim_text(cols) + ")");
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(a.data(), a.shape(0), a.shape(1));
}

Vector3 vec3_arg(const py::handle& obj, const char* name) {
  Array keep = null_array();
  return vector_arg(obj, name, 3, keep);
}

Matrix3 mat3_arg(const py::handle& obj, const char* name) { return matrix_arg(obj, name, 3, 3); }

std::vector<Force> forces_arg(const py::handle& obj, const Model& model) {
  std::vector<Force> f;
  if (obj.is_none()) return f;
  const MatrixX x = matrix_arg(obj, "f_ext", model.njoints, 6);
  f.resize(static_cast<std::size_t>(model.njoints));
  for (int i = 0; i < model.njoints; ++i) f[i] = Force{x.row(i).head<3>().transpose(), x.row(i).tail<3>().transpose()};
  return f;
}

namespace {
/// A new, uninitialized float64 array of `nd` dimensions (1 or 2), C order for 1-D, Fortran
/// (column-major, Eigen's) for 2-D, made by NumPy's C API directly: the per-call path of every
/// result (pybind11's array_t constructor builds shape and stride vectors on the heap).
py::array_t<double> new_array(int nd, const Eigen::Index* dims) {
  const auto& api = py::detail::npy_api::get();
  Py_intptr_t shape[2] = {dims[0], nd > 1 ? dims[1] : 0};
  PyObject* descr = api.PyArray_DescrFromType_(py::detail::npy_api::NPY_DOUBLE_);
  PyObject* a = api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, nd, shape, nullptr, nullptr,
                                          nd > 1 ? py::detail::npy_api::NPY_ARRAY_F_CONTIGUOUS_ : 0, nullptr);
  if (!a) throw py::error_already_set();
  return py::reinterpret_steal<py::array_t<double>>(a);
}
}  // namespace

py::array_t<double> vector_array(const Eigen::Ref<const VectorX>& x) {
  const Eigen::Index n = x.size();
  py::array_t<double> a = new_array(1, &n);
  if (n) std::memcpy(a.mutable_data(), x.data(), sizeof(double) * static_cast<std::size_t>(n));
  return a;
}

py::array_t<double> matrix_array(const Eigen::Ref<const MatrixX>& x) {
  // Column-major like Eigen (Fortran order): a copy by columns; NumPy indexes it as any 2-D array.
  const Eigen::Index dims[2] = {x.rows(), x.cols()};
  py::array_t<double> a = new_array(2, dims);
  double* out = a.mutable_data();
  if (x.outerStride() == x.rows()) {
    if (x.size()) std::memcpy(out, x.data(), sizeof(double) * static_cast<std::size_t>(x.size()));
  } else {
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      std::memcpy(out + j * x.rows(), x.col(j).data(), sizeof(double) * static_cast<std::size_t>(x.rows()));
  }
  return a;
}

py::array_t<double> to_array6(const Motion& m) { return to_array(VectorX(m.vector())); }
py::array_t<double> to_array6(const Force& f) { return to_array(VectorX(f.vector())); }

py::array readonly_view(const VectorX& x, py::handle owner) {
  py::array a(py::dtype::of<double>(), {x.size()}, {static_cast<py::ssize_t>(sizeof(double))}, x.data(), owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

py::array readonly_view(const MatrixX& x, py::handle owner) {
  const auto s = static_cast<py::ssize_t>(sizeof(double));
  py::array a(py::dtype::of<double>(), {x.rows(), x.cols()}, {s, s * x.rows()}, x.data(), owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

const Data& PyData::get() const {
  if (!view) raise(errors().error, "this Data was handed to a callback and is no longer valid after it returned");
  return *view;
}

Data& PyData::mut() {
  const Data& d = get();
  if (readonly) raise(errors().argument, "the Data handed to a callback is read-only: make your own Data(model)");
  return const_cast<Data&>(d);
}

namespace {
void check_model(const Model& model, const PyData& pd) {
  if (pd.model.get() == &model) return;
  const Model& other = *pd.model;
  if (other.name == model.name && other.nq == model.nq && other.nv == model.nv && other.njoints == model.njoints &&
      other.frames.size() == model.frames.size() && other.joint_names == model.joint_names)
    return;
  raise(errors().model, "data was made for model '" + other.name + "' (nq " + std::to_string(other.nq) + ", nv " +
                            std::to_string(other.nv) + "), not for model '" + model.name + "' (nq " +
                            std::to_string(model.nq) + ", nv " + std::to_string(model.nv) + "): use Data(model)");
}
}  // namespace

Data& data_for(const Model& model, PyData& pd) {
  check_model(model, pd);
  Data& d = pd.mut();
  if (d.oMf.size() != model.frames.size())
    raise(errors().model,
          "data was made before a frame was added to model '" + model.name + "': make a new Data(model)");
  return d;
}

const Data& cdata_for(const Model& model, const PyData& pd) {
  check_model(model, pd);
  return pd.get();
}

PyCallable::PyCallable(py::object f)
    : f_(new py::object(std::move(f)), [](py::object* p) {
        py::gil_scoped_acquire gil;
        delete p;
      }) {
  if (!PyCallable_Check(f_->ptr())) raise(PyExc_TypeError, "expected a callable");
}

void PyCallable::throw_with_traceback(const std::string& what, py::error_already_set& e) {
  std::string text;
  try {
    py::module_ tb = py::module_::import("traceback");
    py::list lines = tb.attr("format_exception")(e.type(), e.value(), e.trace());
    for (auto line : lines) text += py::str(line).cast<std::string>();
  } catch (py::error_already_set&) {
    text = e.what();
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  throw std::runtime_error(what + " raised a Python exception:\n" + text);
}

}  // namespace articula::python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  namespace ap = articula::python;
  m.doc() = "articula: rigid-body dynamics with constraints that switch on and off (C++ core).";
  static py::exception<std::runtime_error> error(m, "Error", PyExc_Exception);
  auto make = [&](const char* name, py::handle base, const char* doc) {
    py::object cls = py::reinterpret_steal<py::object>(
        PyErr_NewExceptionWithDoc((std::string("articula.") + name).c_str(), doc, base.ptr(), nullptr));
    m.attr(name) = cls;
    return cls.release();
  };
  error.doc() = "Base class of every articula error; the message is the C++ library's.";
  ap::Errors& e = ap::errors();
  e.error = error;
  py::tuple arg_bases = py::make_tuple(error, py::handle(PyExc_ValueError));
  e.argument = make("ArgumentError", arg_bases,
                    "Bad argument: wrong shape or size, unknown name, invalid value (also a ValueError).");
  e.model = make("ModelError", py::make_tuple(error, py::handle(PyExc_ValueError)),
                 "A model that cannot be loaded or built, or a Data used with another model (also a ValueError).");
  e.scenario = make("ScenarioError", error,
                    "A mistake in a scenario file: 'FILE:LINE:COL: key 'KEY': WHAT' (attributes file, line, "
                    "column, key).");
  e.solve = make("SolveError", error, "A numerical failure: a singular mass matrix, a failed solve or jump.");
  e.log = make("LogError", error, "A log that cannot be written or read.");
  e.compile = make("CompileError", error,
                   "compile(): no C++ compiler, or it failed (the message names it and what it printed).");
  py::register_exception_translator([](std::exception_ptr p) {
    ap::Errors& e = ap::errors();
    try {
      if (p) std::rethrow_exception(p);
    } catch (const articula::ScenarioError& x) {
      py::object exc = py::handle(e.scenario)(x.what());
      exc.attr("file") = x.file();
      exc.attr("line") = x.line();
      exc.attr("column") = x.column();
      exc.attr("key") = x.key();
      PyErr_SetObject(e.scenario.ptr(), exc.ptr());
    } catch (const articula::CompileError& x) {
      PyErr_SetString(e.compile.ptr(), x.what());
    } catch (const std::invalid_argument& x) {
      PyErr_SetString(e.argument.ptr(), x.what());
    } catch (const std::out_of_range& x) {
      PyErr_SetString(e.argument.ptr(), x.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "out of memory");
    } catch (const std::exception& x) {
      PyErr_SetString(e.error.ptr(), x.what());
    }
  });
  ap::init_model(m);
  ap::init_dynamics(m);
  ap::init_constraints(m);
  ap::init_solvers(m);
  ap::init_engine(m);
  ap::init_scenario(m);
  ap::init_study(m);
  ap::init_logs(m);
  ap::init_compiled(m);
}
