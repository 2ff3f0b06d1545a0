// The thread count of each training batch. Results do not depend on it (chunks are reduced
// in a fixed order), only the speed does: on an idle machine two threads are ~1.6x faster
// than one, but when another process holds a core every barrier waits for a descheduled
// thread and two threads can be three times slower than one. So the trainer times segments
// of batches at the count in use and, now and then, one segment at the other count, and keeps
// the faster. While the choice holds, probes come at doubling intervals, so on a steady
// machine they cost well under 1 % of the time; a change of load is seen within a few seconds.
#pragma once
#include <algorithm>

namespace ncam {

class ThreadChooser {
 public:
  // Segments last at least this long, so that one segment's time per row is a usable
  // measurement on a time-shared machine (the scheduler's slices are a few ms), and no
  // longer, since a segment at the slower count is what a probe costs.
  static constexpr double kSegmentSeconds = 0.015;
  // Segments at the chosen count before the next probe, first after a switch and at most.
  static constexpr int kFirstInterval = 4;
  static constexpr int kMaxInterval = 256;
  // The other count must be this much faster per row to be taken (no flapping on noise).
  static constexpr double kSwitchGain = 0.08;

  ThreadChooser(int max_threads, bool adapt)
      : max_threads_(std::max(1, max_threads)), adapt_(adapt && max_threads_ > 1), current_(max_threads_) {}

  // The thread count of the next batch, and the count chosen so far (for work between epochs).
  int threads() const { return probing_ ? other() : current_; }
  int chosen() const { return current_; }

  // After each batch: its rows and wall-clock seconds, run at threads().
  void record(int rows, double seconds) {
    if (!adapt_) return;
    segment_rows_ += rows;
    segment_seconds_ += seconds;
    if (segment_seconds_ < kSegmentSeconds) return;
    const double per_row = segment_seconds_ / std::max(1, segment_rows_);
    segment_rows_ = 0;
    segment_seconds_ = 0.0;
    if (!probing_) {
      current_per_row_ = per_row;
      if (--until_probe_ <= 0) probing_ = true;
      return;
    }
    probing_ = false;
    ++probes_;
    if (per_row < current_per_row_ * (1.0 - kSwitchGain)) {
      current_ = other();
      ++switches_;
      interval_ = kFirstInterval;
    } else {
      interval_ = std::min(kMaxInterval, 2 * interval_);
    }
    // Measure the count in use afresh before comparing again.
    until_probe_ = interval_;
  }

  int probes() const { return probes_; }
  int switches() const { return switches_; }

 private:
  int other() const { return current_ == 1 ? max_threads_ : 1; }

  int max_threads_;
  bool adapt_;
  int current_;
  bool probing_ = false;
  int segment_rows_ = 0;
  double segment_seconds_ = 0.0, current_per_row_ = 0.0;
  int interval_ = kFirstInterval, until_probe_ = 1;
  int probes_ = 0, switches_ = 0;
};

}  // namespace ncam
