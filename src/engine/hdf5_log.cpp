// HDF5 sink (C API): one extendible, chunked 1-D dataset of doubles per column at the root,
// rows buffered column-wise and appended (H5Dset_extent + hyperslab write) at each flush, then
// H5Fflush, so the file on disk is complete up to the last flush. Events in group /events,
// the run's status in root attributes. Every HDF5 identifier is owned by a Handle.
#include <hdf5.h>

#include <stdexcept>
#include <utility>

#include "articula/engine/telemetry.hpp"

namespace articula {
namespace {

constexpr hsize_t kChunkRows = 1024;  // rows per chunk, and per buffer between writes
constexpr hsize_t kEventChunk = 64;

// Owns an HDF5 identifier and closes it with the function of its kind.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  ~Handle() { reset(); }
  void reset() {
    if (id_ >= 0) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }
  operator hid_t() const { return id_; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// The innermost description on HDF5's error stack, e.g. "unable to open file: name = …, errno = 2,
// error message = 'No such file or directory'"; clears the stack.
std::string hdf5_message() {
  std::string message;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
        if (e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &message);
  H5Eclear2(H5E_DEFAULT);
  // A system error: its text alone ("File too large"), not the call's buffers and offsets.
  const std::string key = "error message = '";
  if (const auto at = message.find(key); at != std::string::npos) {
    const auto end = message.find('\'', at + key.size());
    if (end != std::string::npos) return message.substr(at + key.size(), end - at - key.size());
  }
  return message;
}

struct EventText {
  const char* name;
  std::string EventLogRow::*field;
};
struct EventNumber {
  const char* name;
  double EventLogRow::*field;
};
constexpr EventText kEventText[] = {{"name", &EventLogRow::name}, {"actions", &EventLogRow::actions}};
constexpr EventNumber kEventNumbers[] = {{"time", &EventLogRow::time},
                                         {"kinetic_before", &EventLogRow::kinetic_before},
                                         {"kinetic_after", &EventLogRow::kinetic_after},
                                         {"potential", &EventLogRow::potential},
                                         {"momentum_residual", &EventLogRow::momentum_residual},
                                         {"constraint_residual", &EventLogRow::constraint_residual}};

class Hdf5Log final : public LogSink {
 public:
  Hdf5Log(std::string path, double flush_period) : path_(std::move(path)), timer_(flush_period) {}

  // An unfinished log keeps its rows and says it was aborted; nothing is thrown.
  ~Hdf5Log() override {
    if (state_ != State::Open) return;
    try {
      flush();
      write_status({.status = "aborted", .message = "log closed before the run finished", .t_end = last_t_});
      H5Fflush(file_, H5F_SCOPE_GLOBAL);
    } catch (...) {
    }
  }

  void begin(const std::vector<std::string>& columns) override {
    if (state_ != State::New) throw std::logic_error("HDF5 log '" + path_ + "': begin() called twice");
    check_log_columns(columns, "HDF5 log begin");
    for (const auto& name : columns)
      if (name.find('/') != std::string::npos || name == "." || name == "events")
        throw std::invalid_argument("HDF5 log begin: column name '" + name +
                                    "' is not a dataset name (no '/', not '.' nor 'events')");
    // No clean-up by HDF5 at process exit: every log closes its file in finish(), and a file
    // whose flush failed (disk full) would make that clean-up flush again and crash inside
    // HDF5 (H5F__close_cb). Before any other HDF5 call (it fails harmlessly if HDF5 was already in use).
    static const bool no_atexit = [] {
      H5dont_atexit();
      return true;
    }();
    (void)no_atexit;
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not prints
    detail::remove_old_log(path_);
    file_ = Handle(check(H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "create file"), H5Fclose);
    string_type_ = Handle(check(H5Tcopy(H5T_C_S1), "copy string type"), H5Tclose);
    check(H5Tset_size(string_type_, H5T_VARIABLE), "variable-length string type");
    check(H5Tset_cset(string_type_, H5T_CSET_UTF8), "UTF-8 string type");
    names_ = columns;
    for (const auto& name : names_) {
      columns_.push_back(create_dataset(file_, name, H5T_IEEE_F64LE, kChunkRows));
      buffers_.emplace_back().reserve(kChunkRows);
      if (name == "t") t_index_ = buffers_.size() - 1;
    }
    events_group_ = Handle(
        check(H5Gcreate2(file_, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group", "events"), H5Gclose);
    for (const auto& f : kEventNumbers)
      event_numbers_.push_back(create_dataset(events_group_, f.name, H5T_IEEE_F64LE, kEventChunk));
    for (const auto& f : kEventText)
      event_text_.push_back(create_dataset(events_group_, f.name, string_type_, kEventChunk));
    write_status({});
    state_ = State::Open;
    flush();
  }

  void append(std::span<const double> row) override {
    require_open("append");
    if (row.size() != buffers_.size())
      throw std::invalid_argument("HDF5 log '" + path_ + "': append: row of " + std::to_string(row.size()) +
                                  " values, expected " + std::to_string(buffers_.size()));
    for (std::size_t i = 0; i < row.size(); ++i) buffers_[i].push_back(row[i]);  // within the reserve
    if (t_index_ < row.size()) last_t_ = row[t_index_];
    if (++buffered_ == kChunkRows || timer_.due()) flush();
  }

  void event(const EventLogRow& e) override {
    require_open("event");
    events_.push_back(e);
    flush();  // events are rare: write them, and the rows up to them, at once
  }

  // Whole rows only: when a column cannot be written (disk full), every column is cut back to the
  // rows written before, and nothing more is written (the error is rethrown by later calls).
  void flush() override {
    if (state_ != State::Open) return;
    if (!write_error_.empty()) throw std::runtime_error(write_error_);
    try {
      for (std::size_t i = 0; buffered_ > 0 && i < columns_.size(); ++i)
        append_to(columns_[i], H5T_NATIVE_DOUBLE, buffers_[i].data(), buffered_, rows_, names_[i]);
      for (auto& b : buffers_) b.clear();
      rows_ += buffered_;
      buffered_ = 0;
      if (!events_.empty()) write_events();
      check(H5Fflush(file_, H5F_SCOPE_GLOBAL), "flush file");
    } catch (const std::exception& e) {
      write_error_ = e.what();
      for (std::size_t i = 0; i < columns_.size(); ++i) H5Dset_extent(columns_[i], &rows_);
      H5Eclear2(H5E_DEFAULT);
      throw;
    }
    timer_.restart();
  }

  // As the CSV sink: a write error makes the recorded status `error` with the error's text,
  // and is thrown after the status is written unless the run already ended with `error`.
  void finish(const LogStatus& status) override {
    require_open("finish");
    try {
      flush();
    } catch (const std::exception&) {
    }
    state_ = State::Finished;
    LogStatus final_status = status;
    const bool newly_failed = !write_error_.empty() && status.status != "error";
    if (newly_failed) {
      final_status.status = "error";
      final_status.message =
          write_error_ + (status.message.empty() ? std::string() : " (the run: " + status.message + ")");
    }
    try {
      write_status(final_status);
    } catch (const std::exception&) {
      if (write_error_.empty()) throw;  // the disk was fine until now: report this one
    }
    // Close everything, the file last, and report a failure to close it.
    columns_.clear();
    event_numbers_.clear();
    event_text_.clear();
    events_group_.reset();
    string_type_.reset();
    const herr_t closed = H5Fclose(file_.release());
    if (newly_failed) throw std::runtime_error(write_error_);
    check(closed, "close file");
  }

  const std::string& path() const override { return path_; }

 private:
  enum class State { New, Open, Finished };

  void require_open(const char* function) const {
    if (state_ == State::Open) return;
    throw std::logic_error("HDF5 log '" + path_ + "': " + function +
                           (state_ == State::New ? "() before begin()" : "() after finish()"));
  }

  // Returns `result`, or throws naming the file, the step and the object when it is negative.
  template <class T>
  T check(T result, const char* what, const std::string& object = {}) const {
    if (result >= 0) return result;
    throw std::runtime_error("HDF5 log '" + path_ + "': " + what + (object.empty() ? "" : " '" + object + "'") +
                             " failed: " + hdf5_message());
  }

  Handle create_dataset(hid_t loc, const std::string& name, hid_t type, hsize_t chunk) const {
    const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
    Handle space(check(H5Screate_simple(1, &zero, &unlimited), "create dataspace", name), H5Sclose);
    Handle properties(check(H5Pcreate(H5P_DATASET_CREATE), "create properties", name), H5Pclose);
    check(H5Pset_chunk(properties, 1, &chunk), "set chunk", name);
    return Handle(
        check(H5Dcreate2(loc, name.c_str(), type, space, H5P_DEFAULT, properties, H5P_DEFAULT), "create dataset", name),
        H5Dclose);
  }

  // Grows a 1-D dataset from `offset` to `offset + count` elements and writes them.
  void append_to(hid_t dataset, hid_t memory_type, const void* data, hsize_t count, hsize_t offset,
                 const std::string& name) const {
    const hsize_t size = offset + count;
    check(H5Dset_extent(dataset, &size), "extend dataset", name);
    Handle file_space(check(H5Dget_space(dataset), "get dataspace", name), H5Sclose);
    check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &offset, nullptr, &count, nullptr), "select rows", name);
    Handle memory_space(check(H5Screate_simple(1, &count, nullptr), "create dataspace", name), H5Sclose);
    check(H5Dwrite(dataset, memory_type, memory_space, file_space, H5P_DEFAULT, data), "write dataset", name);
  }

  void write_events() {
    const hsize_t n = events_.size();
    std::vector<double> numbers(n);
    for (std::size_t f = 0; f < std::size(kEventNumbers); ++f) {
      for (hsize_t k = 0; k < n; ++k) numbers[k] = events_[k].*kEventNumbers[f].field;
      append_to(event_numbers_[f], H5T_NATIVE_DOUBLE, numbers.data(), n, events_written_,
                std::string("events/") + kEventNumbers[f].name);
    }
    std::vector<const char*> text(n);
    for (std::size_t f = 0; f < std::size(kEventText); ++f) {
      for (hsize_t k = 0; k < n; ++k) text[k] = (events_[k].*kEventText[f].field).c_str();
      append_to(event_text_[f], string_type_, text.data(), n, events_written_,
                std::string("events/") + kEventText[f].name);
    }
    events_written_ += n;
    events_.clear();
  }

  // Scalar root attribute, created the first time and overwritten afterwards.
  void write_attribute(const char* name, hid_t file_type, hid_t memory_type, const void* value) const {
    const htri_t exists = check(H5Aexists(file_, name), "look up attribute", name);
    Handle space(check(H5Screate(H5S_SCALAR), "create dataspace", name), H5Sclose);
    Handle attribute(check(exists > 0 ? H5Aopen(file_, name, H5P_DEFAULT)
                                      : H5Acreate2(file_, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT),
                           "open attribute", name),
                     H5Aclose);
    check(H5Awrite(attribute, memory_type, value), "write attribute", name);
  }

  void write_status(const LogStatus& s) const {
    const char* status = s.status.c_str();
    const char* message = s.message.c_str();
    const long long steps = s.steps, rows = static_cast<long long>(rows_);
    write_attribute("status", string_type_, string_type_, &status);
    write_attribute("message", string_type_, string_type_, &message);
    write_attribute("t_end", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &s.t_end);
    write_attribute("steps", H5T_STD_I64LE, H5T_NATIVE_LLONG, &steps);
    write_attribute("rows", H5T_STD_I64LE, H5T_NATIVE_LLONG, &rows);
  }

  std::string path_;
  detail::FlushTimer timer_;
  State state_ = State::New;
  Handle file_;  // declared first: closed after every object in it
  Handle string_type_, events_group_;
  std::vector<Handle> columns_, event_numbers_, event_text_;
  std::vector<std::string> names_;
  std::vector<std::vector<double>> buffers_;  // column-wise, kChunkRows reserved each
  std::vector<EventLogRow> events_;           // not yet written
  hsize_t buffered_ = 0, rows_ = 0, events_written_ = 0;
  std::string write_error_;  // the first write error; nothing is written after it
  std::size_t t_index_ = static_cast<std::size_t>(-1);
  double last_t_ = 0.0;
};

}  // namespace

std::unique_ptr<LogSink> make_hdf5_log(const std::string& path, double flush_period) {
  return std::make_unique<Hdf5Log>(path, flush_period);
}

}  // namespace articula
