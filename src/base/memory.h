// KeepFreedMemory tells the allocator to keep what a batch frees for the next batch instead of
// handing it back to the kernel, and to hand memory one thread freed to the next thread that asks.
// sinkd's memory use is a sawtooth of identical batches (decode buffers, row groups, Parts);
// returning each batch's pages and faulting them back in on the next one cost 15-20% of the encode
// on the VMs we measure on (page faults are expensive there). The batches are built, encoded and
// placed on different threads (a decode pool, the encode pool, the settler, libnats' reader), and
// glibc gives each thread an arena of its own by default: memory freed in one arena was never
// reused by another, so each arena grew to its own high-water mark; one arena for every thread
// lowered an import's peak RSS and page faults (figures: BENCHMARKS.md, "Issue 10, eighth pass").
// Peak memory does not grow; resident memory stays at the high-water mark between batches.
// Call once, early in main, before threads start (an arena made before the call stays in use).
// The sinkd binary links tcmalloc (CMakeLists.txt), whose mallopt ignores these settings: its
// threads' caches draw on one heap they all share, which is what the one arena was for, without
// the arena's one lock (two compaction lanes serialised on it). This still sets glibc's malloc
// where it is the allocator (the sanitizer builds, the tests). Measured with tcmalloc: the drain's
// CPU per event and peak RSS as on glibc with this setting, the import's peak RSS ~25 MiB higher
// (BENCHMARKS.md, "Issue 28: merge lanes").
#pragma once

namespace sinkd {

void KeepFreedMemory();

}  // namespace sinkd
