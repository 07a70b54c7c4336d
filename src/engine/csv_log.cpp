// CSV sink: rows formatted with std::to_chars into one reserved std::string and written with
// POSIX ::write() in whole lines only — when the buffer passes 64 KiB, when flush_period of wall
// time has passed, and on flush()/finish() — so a killed process leaves only complete lines.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "articula/engine/telemetry.hpp"

namespace articula {
namespace {

constexpr std::size_t kFlushBytes = 64 * 1024;
constexpr std::size_t kMaxNumberChars = 32;  // the longest double, "-2.2250738585072014e-308", is 24

std::runtime_error file_error(const char* what, const std::string& path, int err) {
  return std::runtime_error(std::string("CSV log: cannot ") + what + " '" + path + "': " + std::strerror(err));
}

// Owns a file descriptor opened for writing (created or truncated).
class File {
 public:
  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() { close(); }
  void open(const std::string& path) {
    close();
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw file_error("open", path, errno);
    path_ = path;
  }
  // Writes all of `data`, retrying short writes and EINTR.
  void write(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw file_error("write", path_, errno);
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

// Shortest text that reads back to the same double (at most 17 significant digits); NaN as `nan`.
std::size_t put_number(char* out, double x) {
  if (std::isnan(x)) {
    std::memcpy(out, "nan", 3);
    return 3;
  }
  return static_cast<std::size_t>(std::to_chars(out, out + kMaxNumberChars, x).ptr - out);
}

void append_number(std::string& s, double x) {
  char text[kMaxNumberChars];
  s.append(text, put_number(text, x));
}

// RFC 4180 field: quoted, with quotes doubled, when it holds a comma, a quote or a line break.
void append_field(std::string& s, const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) {
    s += field;
    return;
  }
  s += '"';
  for (char c : field) s.append(c == '"' ? 2 : 1, c);
  s += '"';
}

// YAML double-quoted scalar, control characters escaped.
std::string yaml_quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      out += {'\\', static_cast<char>(c)};
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else
      out += static_cast<char>(c);
  }
  return out + '"';
}

std::string yaml_number(double x) {
  if (std::isnan(x)) return ".nan";
  if (std::isinf(x)) return x > 0 ? ".inf" : "-.inf";
  std::string s;
  append_number(s, x);
  return s;
}

class CsvLog final : public LogSink {
 public:
  CsvLog(std::string path, double flush_period) : path_(std::move(path)), timer_(flush_period) {
    // dir/run.csv → dir/run.events.csv, dir/run.status.yaml
    const bool has_ext = path_.size() > 4 && path_.ends_with(".csv");
    const std::string stem = has_ext ? path_.substr(0, path_.size() - 4) : path_;
    events_path_ = stem + ".events.csv";
    status_path_ = stem + ".status.yaml";
  }

  // An unfinished log keeps its rows and says it was aborted; nothing is thrown.
  ~CsvLog() override {
    if (state_ != State::Open) return;
    try {
      flush();
    } catch (...) {
    }
    try {
      write_status({.status = "aborted", .message = "log closed before the run finished", .t_end = last_t_}, true);
    } catch (...) {
    }
  }

  void begin(const std::vector<std::string>& columns) override {
    if (state_ != State::New) throw std::logic_error("CSV log '" + path_ + "': begin() called twice");
    check_log_columns(columns, "CSV log begin");
    main_.open(path_);
    events_.open(events_path_);
    write_status({}, false);
    ncols_ = columns.size();
    for (std::size_t i = 0; i < ncols_; ++i)
      if (columns[i] == "t") t_index_ = i;
    // The buffer is written once it passes kFlushBytes, so it never holds more than one more row.
    buffer_.reserve(kFlushBytes + ncols_ * (kMaxNumberChars + 1) + 1);
    for (std::size_t i = 0; i < ncols_; ++i) {
      if (i > 0) buffer_ += ',';
      append_field(buffer_, columns[i]);
    }
    buffer_ += '\n';
    events_.write("time,name,actions,kinetic_before,kinetic_after,potential,momentum_residual,constraint_residual\n");
    state_ = State::Open;
    flush();
  }

  void append(std::span<const double> row) override {
    require_open("append");
    if (row.size() != ncols_)
      throw std::invalid_argument("CSV log '" + path_ + "': append: row of " + std::to_string(row.size()) +
                                  " values, expected " + std::to_string(ncols_));
    for (std::size_t i = 0; i < ncols_; ++i) {
      if (i > 0) buffer_ += ',';
      append_number(buffer_, row[i]);
    }
    buffer_ += '\n';
    ++rows_;
    if (t_index_ < ncols_) last_t_ = row[t_index_];
    if (buffer_.size() >= kFlushBytes || timer_.due()) flush();
  }

  void event(const EventLogRow& e) override {
    require_open("event");
    std::string line;  // events are rare: a fresh string is fine
    append_number(line, e.time);
    line += ',';
    append_field(line, e.name);
    line += ',';
    append_field(line, e.actions);
    for (double x : {e.kinetic_before, e.kinetic_after, e.potential, e.momentum_residual, e.constraint_residual}) {
      line += ',';
      append_number(line, x);
    }
    line += '\n';
    flush();  // the rows up to the event first
    events_.write(line);
  }

  void flush() override {
    if (state_ != State::Open) return;
    main_.write(buffer_);
    buffer_.clear();  // keeps the capacity
    timer_.restart();
  }

  void finish(const LogStatus& status) override {
    require_open("finish");
    flush();
    state_ = State::Finished;
    write_status(status, true);
    main_.close();
    events_.close();
  }

  const std::string& path() const override { return path_; }

 private:
  enum class State { New, Open, Finished };

  void require_open(const char* function) const {
    if (state_ == State::Open) return;
    throw std::logic_error("CSV log '" + path_ + "': " + function +
                           (state_ == State::New ? "() before begin()" : "() after finish()"));
  }

  // Written to a temporary file, then renamed to the status path: a reader sees a whole version
  // (or, for the instant between unlink and rename, none).
  void write_status(const LogStatus& s, bool final) const {
    const bool plain = !s.status.empty() &&
                       s.status.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                           std::string::npos;
    std::string text = "status: " + (plain ? s.status : yaml_quoted(s.status)) + "\n";
    text += "message: " + yaml_quoted(s.message) + "\n";
    if (final) {
      text += "t_end: " + yaml_number(s.t_end) + "\n";
      text += "steps: " + std::to_string(s.steps) + "\n";
      text += "rows: " + std::to_string(rows_) + "\n";
    }
    const std::string tmp = status_path_ + ".tmp";
    {
      File file;
      file.open(tmp);
      file.write(text);
    }
    // The old file is unlinked first: renaming over an existing file makes ext4 (auto_da_alloc)
    // write the new one to disk synchronously, which cost ~5 % of a short logged run.
    ::unlink(status_path_.c_str());
    if (std::rename(tmp.c_str(), status_path_.c_str()) != 0) throw file_error("replace", status_path_, errno);
  }

  std::string path_, events_path_, status_path_;
  detail::FlushTimer timer_;
  State state_ = State::New;
  File main_, events_;
  std::string buffer_;
  std::size_t ncols_ = 0, t_index_ = static_cast<std::size_t>(-1);
  long rows_ = 0;
  double last_t_ = 0.0;
};

}  // namespace

std::unique_ptr<LogSink> make_csv_log(const std::string& path, double flush_period) {
  return std::make_unique<CsvLog>(path, flush_period);
}

}  // namespace articula
