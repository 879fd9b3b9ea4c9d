// DeliveryPlan decides how many events the next delivery to one event sink holds, and keeps the
// count of lone failures that leads to a poison verdict. It is pure bookkeeping: no I/O, no clock.
//
// Bisection, pass by pass (one delivery per pass, the cursor saved after every success):
//   a delivery of n > 1 events fails  → the first n events after the cursor are *suspect*; the
//                                        next delivery is their first half, ceil(n/2);
//   a delivery inside the suspect run succeeds → the cursor moved; the rest of the run is
//                                        delivered next, whole (it may go through: the failure
//                                        could have been transient or about the batch's size);
//   a delivery of 1 event fails       → a lone failure of the event after the cursor; it is
//                                        retried alone (after a back-off, decided by the caller);
//   once the suspect run is cleared    → the size doubles after each success, up to the maximum.
// For a poison event e5 in e0…e7 this gives: e0–e7 ✗, e0–e3 ✓, e4–e7 ✗, e4–e5 ✗, e4 ✓, e5 ✗.
// After kProbeAfter lone failures of one event (and after every one after that) a neighbour probe
// is due: the caller delivers the next event alone to tell "this event" from "this sink".
// Threads: one thread at a time.
#pragma once

#include <algorithm>

#include "base/backoff.h"
#include "outbox/clock.h"

namespace sinkd::outbox {

inline constexpr int kProbeAfter = 5;

// A sink's waits after consecutive failed deliveries: 1, 2, 4, …, 256, 300, 300 s.
inline constexpr Backoff kDeliveryBackoff{std::chrono::seconds(1), std::chrono::minutes(5)};

class DeliveryPlan {
 public:
  // REQUIRES: max_size >= 1.
  explicit DeliveryPlan(int max_size) : max_size_(max_size), size_(max_size) {}

  // Events to hand to the next delivery (1 … max_size).
  int NextSize() const { return size_; }
  int max_size() const { return max_size_; }
  // Events after the cursor known to contain a failure (0: none known).
  int suspect() const { return suspect_; }
  // Lone failures of the event right after the cursor.
  int attempts() const { return attempts_; }
  // The next step must be the neighbour probe.
  bool probe_due() const { return probe_due_; }

  // `n` events were delivered (or dead-lettered) and the cursor moved past them.
  void Delivered(int n) {
    attempts_ = 0;
    probe_due_ = false;
    if (suspect_ > n) {
      suspect_ -= n;
      size_ = suspect_;
      return;
    }
    suspect_ = 0;
    size_ = std::min(max_size_, std::max(size_, 1) * 2);
  }

  // A delivery of `n` events failed (n == 1: a lone failure).
  void Failed(int n) {
    if (n > 1) {
      suspect_ = n;
      size_ = (n + 1) / 2;
      return;
    }
    suspect_ = 1;
    size_ = 1;
    ++attempts_;
    probe_due_ = attempts_ >= kProbeAfter;
  }

  // Only `available` events exist after the cursor (all of them, up to suspect(), were read). A
  // suspect run restored from a holder that died is sized by what it *meant* to deliver; the
  // batch it actually held cannot have been longer than what exists now, so the run shrinks to
  // that and the next delivery is its first half, as if that batch had failed here.
  void Clamp(int available) {
    if (available <= 0 || suspect_ <= available) return;
    suspect_ = available;
    size_ = std::min(size_, std::max(1, (available + 1) / 2));
  }

  // The probe was made (or found no neighbour yet): the next step retries the lone event.
  void Probed() { probe_due_ = false; }

  // State saved by an earlier holder at the same cursor.
  void Restore(int suspect, int attempts, int next_size) {
    suspect_ = std::max(0, suspect);
    attempts_ = std::max(0, attempts);
    size_ = std::clamp(next_size, 1, max_size_);
    if (suspect_ > 0) size_ = std::min(size_, suspect_);
    probe_due_ = suspect_ == 1 && attempts_ >= kProbeAfter;
  }

 private:
  int max_size_;
  int size_;
  int suspect_ = 0;
  int attempts_ = 0;
  bool probe_due_ = false;
};

}  // namespace sinkd::outbox
