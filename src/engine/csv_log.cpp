// CSV sink. append() copies the row's numbers into a preallocated block; full blocks (about
// 2048 numbers, 16 KiB), blocks due by flush_period of wall time, and every block on flush() /
// event() / finish() go to a writer thread that formats them with std::to_chars (the costly
// part: ~50 ns a number) and writes them with POSIX ::write() in whole lines only, so a killed
// process leaves only complete lines. The simulation fills a block while the writer formats
// earlier ones (a ring of eight), and waits only when the writer is behind by all of them.
// An event line goes into the queue behind the rows before it (the writer appends it to the
// events file after them). flush() returns when every row and event so far is in the files.
// The simulation's share of the wall time is kept short: an old log of the same name is renamed
// out of the way and deleted by the writer (freeing a large file's blocks takes ext4 ~1 ms); the
// writer waits for the next block a little while awake before it sleeps (waking a sleeping
// thread costs the submitting one ~10 µs); finish() hands over the last block and joins at once.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "articula/engine/telemetry.hpp"

namespace articula {
namespace {

constexpr std::size_t kBlockValues = 2048;   // numbers per block handed to the writer (16 KiB)
constexpr std::size_t kMaxNumberChars = 32;  // the longest double, "-2.2250738585072014e-308", is 24

std::runtime_error file_error(const char* what, const std::string& path, int err) {
  return std::runtime_error(std::string("CSV log: cannot ") + what + " '" + path + "': " + std::strerror(err));
}

// Owns a file descriptor opened for writing (created or truncated). Every write() is of whole
// lines, and the file only ever ends with a whole line: when a write fails part-way (disk full,
// file size limit) the file is cut back to the last complete line of it (ftruncate) before the
// error is thrown. size() and lines() are what the file holds.
class File {
 public:
  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    close();
    remove_stale();
  }
  // With `later`, an old regular file at `path` is renamed to PATH.old~PID and deleted by
  // remove_stale() (the writer thread's first act, or close of this object), not here; a crash
  // in between leaves that hidden file. Otherwise it is deleted now (detail::remove_old_log).
  void open(const std::string& path, bool later = false) {
    close();
    struct stat st {};
    if (later && ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      stale_ = path + ".old~" + std::to_string(::getpid());
      if (::rename(path.c_str(), stale_.c_str()) != 0) stale_.clear();
    }
    detail::remove_old_log(path);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw file_error("open", path, errno);
    path_ = path;
    size_ = 0;
    lines_ = 0;
  }
  // Writes all of `data` (whole lines), retrying short writes and EINTR.
  void write(std::string_view data) {
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int err = n < 0 ? errno : EIO;
        keep_whole_lines(data.substr(0, done));
        throw file_error("write", path_, err);
      }
      done += static_cast<std::size_t>(n);
    }
    size_ += data.size();
    lines_ += static_cast<long>(std::count(data.begin(), data.end(), '\n'));
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void remove_stale() {
    if (!stale_.empty()) ::unlink(stale_.c_str());
    stale_.clear();
  }
  long lines() const { return lines_; }

 private:
  // After a failed write of which `written` reached the file: keep its whole lines, cut the rest.
  void keep_whole_lines(std::string_view written) {
    const auto last = written.rfind('\n');
    const std::size_t keep = last == std::string_view::npos ? 0 : last + 1;
    lines_ += static_cast<long>(std::count(written.begin(), written.begin() + static_cast<long>(keep), '\n'));
    size_ += keep;
    if (keep < written.size()) {
      // Best effort: a device such as /dev/full cannot be cut (and holds nothing).
      if (::ftruncate(fd_, static_cast<off_t>(size_)) == 0) ::lseek(fd_, static_cast<off_t>(size_), SEEK_SET);
    }
  }

  int fd_ = -1;
  std::string path_, stale_;
  std::size_t size_ = 0;
  long lines_ = 0;
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

// The writer thread of one CSV file: formats the rows of the submitted blocks, oldest first,
// and writes them. A ring of kQueuedBlocks blocks lies between the two threads, so that the
// simulation waits only when the writer is behind by all of them.
class BlockWriter {
 public:
  BlockWriter(File& file, File& events, std::size_t ncols, std::size_t block_values)
      : file_(file), events_(events), ncols_(ncols) {
    for (auto& block : queue_) block.reserve(block_values);
    work_.reserve(block_values);
    text_.reserve(block_values * (kMaxNumberChars + 1));
    thread_ = std::thread([this] { run(); });
  }
  BlockWriter(const BlockWriter&) = delete;
  BlockWriter& operator=(const BlockWriter&) = delete;
  // Writes what was submitted, then ends the thread.
  ~BlockWriter() { stop_and_join(); }
  // Queues `block` (if not empty), then ends the thread once everything is written: one hand-over
  // instead of flush() and the destructor's two. Rethrows the thread's write error, if any.
  void finish(std::vector<double>& block) {
    if (!block.empty()) submit(block);
    stop_and_join();
    if (error_) std::rethrow_exception(error_);
  }
  // Queues the rows of `block` (row-major, ncols numbers each) and, if not empty, an event
  // line for the events file, written after those rows; `block` comes back empty, with the
  // capacity of a block written before (no allocation). Waits while the ring is full;
  // rethrows the thread's write error, if any.
  void submit(std::vector<double>& block, std::string event_line = {}) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return queued_ < kQueuedBlocks; });
    if (error_) std::rethrow_exception(error_);
    const std::size_t slot = (head_ + queued_) % kQueuedBlocks;
    queue_[slot].swap(block);
    events_after_[slot] = std::move(event_line);
    block.clear();
    ++queued_;
    pending_.store(true, std::memory_order_release);
    const bool awake = spinning_;  // it sees pending_ without a wake-up
    lock.unlock();
    if (!awake) changed_.notify_all();
  }
  bool idle() {
    const std::lock_guard lock(mutex_);
    return queued_ == 0 && !writing_;
  }
  // Returns when every submitted row is in the file; rethrows the thread's write error, if any.
  void wait_written() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return queued_ == 0 && !writing_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr std::size_t kQueuedBlocks = 8;
  // How long the writer stays awake for the next block after writing one: twice the last gap
  // between two blocks when that gap is under kMaxAwake, else not at all (a talos log of every
  // step hands a block over every ~0.17 ms, and the wake-ups this saves cost it ~0.7 ms in 16;
  // a log fed more slowly pays ~10 µs a block, 1 % or less, and its writer sleeps).
  static constexpr std::chrono::microseconds kMaxAwake{300};

  void stop_and_join() {
    if (!thread_.joinable()) return;
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
      pending_.store(true, std::memory_order_release);
    }
    changed_.notify_all();
    thread_.join();
  }

  // Waits (lock held on entry and exit) for a block or the stop: awake for up to kAwake, then asleep.
  void wait_for_work(std::unique_lock<std::mutex>& lock) {
    if (queued_ == 0 && !stop_ && awake_.count() > 0) {
      spinning_ = true;
      lock.unlock();
      const auto until = std::chrono::steady_clock::now() + awake_;
      for (int k = 1; !pending_.load(std::memory_order_acquire); ++k) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (k % 64 == 0 && std::chrono::steady_clock::now() > until) break;
      }
      lock.lock();
      spinning_ = false;
    }
    changed_.wait(lock, [this] { return queued_ > 0 || stop_; });
  }

  void run() {
    file_.remove_stale();  // the old logs of the same names, renamed away by open()
    events_.remove_stale();
    std::unique_lock lock(mutex_);
    for (;;) {
      wait_for_work(lock);
      if (queued_ == 0) return;
      const auto now = std::chrono::steady_clock::now();
      const auto gap = now - last_block_;
      awake_ = gap < kMaxAwake ? std::min<std::chrono::steady_clock::duration>(2 * gap, kMaxAwake)
                               : std::chrono::steady_clock::duration::zero();
      last_block_ = now;
      work_.swap(queue_[head_]);  // the slot gets the empty buffer back
      event_line_.swap(events_after_[head_]);
      head_ = (head_ + 1) % kQueuedBlocks;
      --queued_;
      pending_.store(queued_ > 0 || stop_, std::memory_order_relaxed);
      writing_ = true;
      const bool failed = error_ != nullptr;  // after a write error nothing more is written: no gap
      lock.unlock();
      changed_.notify_all();  // a slot is free
      std::exception_ptr error;
      try {
        if (!failed) {
          format();
          file_.write(text_);
          if (!event_line_.empty()) events_.write(event_line_);
        }
      } catch (...) {
        error = std::current_exception();
      }
      work_.clear();
      event_line_.clear();
      lock.lock();
      if (error && !error_) error_ = error;
      writing_ = false;
      if (queued_ == 0) changed_.notify_all();  // all written
    }
  }
  void format() {
    text_.clear();
    for (std::size_t row = 0; row < work_.size(); row += ncols_)
      for (std::size_t i = row; i < row + ncols_; ++i) {
        char number[kMaxNumberChars];
        text_.append(number, put_number(number, work_[i]));
        text_ += i + 1 == row + ncols_ ? '\n' : ',';
      }
  }

  File& file_;
  File& events_;
  const std::size_t ncols_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::array<std::vector<double>, kQueuedBlocks> queue_;  // blocks head_ … head_ + queued_ − 1 wait
  std::array<std::string, kQueuedBlocks> events_after_;   // each block's event line, if any
  std::size_t head_ = 0, queued_ = 0;
  bool writing_ = false, stop_ = false;
  bool spinning_ = false;                               // the writer is awake, polling pending_ (under mutex_)
  std::atomic<bool> pending_{false};                    // queued_ > 0 or stop_, for the polling writer
  std::chrono::steady_clock::duration awake_{};         // writer thread only
  std::chrono::steady_clock::time_point last_block_{};  // when the writer took the last block
  std::vector<double> work_;                            // the block being written (writer thread only)
  std::string text_;                                    // its text (writer thread only)
  std::string event_line_;                              // its event line (writer thread only)
  std::exception_ptr error_;                            // the first write error, rethrown to the simulation thread
  std::thread thread_;                                  // last: started once everything above exists
};

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
    writer_.reset();
    try {
      write_status({.status = "aborted", .message = "log closed before the run finished", .t_end = last_t_}, true);
    } catch (...) {
    }
  }

  void begin(const std::vector<std::string>& columns) override {
    if (state_ != State::New) throw std::logic_error("CSV log '" + path_ + "': begin() called twice");
    check_log_columns(columns, "CSV log begin");
    main_.open(path_, true);
    events_.open(events_path_, true);
    write_status({}, false);
    ncols_ = columns.size();
    for (std::size_t i = 0; i < ncols_; ++i)
      if (columns[i] == "t") t_index_ = i;
    std::string header;
    for (std::size_t i = 0; i < ncols_; ++i) {
      if (i > 0) header += ',';
      append_field(header, columns[i]);
    }
    try {
      main_.write(header + '\n');
      events_.write("time,name,actions,kinetic_before,kinetic_after,potential,momentum_residual,constraint_residual\n");
    } catch (const std::exception& e) {
      try {
        write_status({.status = "error", .message = e.what()}, true);
      } catch (...) {
      }
      throw;
    }
    block_values_ = std::max<std::size_t>(1, kBlockValues / ncols_) * ncols_;
    block_.reserve(block_values_);
    writer_ = std::make_unique<BlockWriter>(main_, events_, ncols_, block_values_);
    timer_.restart();
    state_ = State::Open;
  }

  void append(std::span<const double> row) override {
    require_open("append");
    if (row.size() != ncols_)
      throw std::invalid_argument("CSV log '" + path_ + "': append: row of " + std::to_string(row.size()) +
                                  " values, expected " + std::to_string(ncols_));
    block_.insert(block_.end(), row.begin(), row.end());
    if (t_index_ < ncols_) last_t_ = row[t_index_];
    if (block_.size() >= block_values_) {
      writer_->submit(block_);
    } else if (timer_.due() && writer_->idle()) {  // a busy writer is writing recent rows anyway
      writer_->submit(block_);
      timer_.restart();
    }
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
    // Queued behind the rows before it, written by the writer thread: no wait here.
    writer_->submit(block_, std::move(line));
  }

  void flush() override {
    if (state_ != State::Open) return;
    if (!block_.empty()) writer_->submit(block_);
    writer_->wait_written();
    timer_.restart();
  }

  // A write error (now or earlier) makes the recorded status `error` with the error's text (the
  // run's own message kept after it); the files keep their whole rows. The error is thrown
  // after the status is written, unless the run already ended with status `error` (the same
  // error, seen by append()/flush()).
  void finish(const LogStatus& status) override {
    require_open("finish");
    std::string write_error;
    try {
      writer_->finish(block_);
    } catch (const std::exception& e) {
      write_error = e.what();
    }
    state_ = State::Finished;
    writer_.reset();
    LogStatus final_status = status;
    if (!write_error.empty() && status.status != "error") {
      final_status.status = "error";
      final_status.message =
          write_error + (status.message.empty() ? std::string() : " (the run: " + status.message + ")");
    }
    main_.close();
    events_.close();
    write_status(final_status, true);
    if (!write_error.empty() && status.status != "error") throw std::runtime_error(write_error);
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
      text += "rows: " + std::to_string(std::max(0L, main_.lines() - 1)) + "\n";  // whole rows in the file
    }
    const std::string tmp = status_path_ + ".tmp";
    try {
      File file;
      file.open(tmp);
      file.write(text);
    } catch (const std::exception& e) {
      // No stray temporary file; the status is rewritten in place instead (its blocks exist
      // already, so a full disk usually still takes it).
      ::unlink(tmp.c_str());
      if (!rewrite_in_place(status_path_, text))
        throw std::runtime_error(std::string(e.what()) + "; the status file '" + status_path_ +
                                 "' could not be rewritten in place either");
      return;
    }
    // The old file is unlinked first: renaming over an existing file makes ext4 (auto_da_alloc)
    // write the new one to disk synchronously, which cost ~5 % of a short logged run.
    ::unlink(status_path_.c_str());
    if (std::rename(tmp.c_str(), status_path_.c_str()) != 0) throw file_error("replace", status_path_, errno);
  }

  static bool rewrite_in_place(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    // Overwritten first, then cut to length: the file's blocks are never given back in between.
    bool ok = true;
    for (std::size_t done = 0; ok && done < text.size();) {
      const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      ok = n > 0;
      if (ok) done += static_cast<std::size_t>(n);
    }
    ok = ok && ::ftruncate(fd, static_cast<off_t>(text.size())) == 0;
    return ::close(fd) == 0 && ok;
  }

  std::string path_, events_path_, status_path_;
  detail::FlushTimer timer_;
  State state_ = State::New;
  File main_, events_;
  std::vector<double> block_;  // rows appended since the last submit, row-major
  std::size_t block_values_ = 0;
  std::unique_ptr<BlockWriter> writer_;  // after main_: joined before the file closes
  std::size_t ncols_ = 0, t_index_ = static_cast<std::size_t>(-1);
  double last_t_ = 0.0;
};

}  // namespace

std::unique_ptr<LogSink> make_csv_log(const std::string& path, double flush_period) {
  return std::make_unique<CsvLog>(path, flush_period);
}

}  // namespace articula
