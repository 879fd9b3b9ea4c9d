// KeepFreedMemory tells the allocator to keep what a batch frees for the next batch instead of
// handing it back to the kernel. sinkd's memory use is a sawtooth of identical batches (decode
// buffers, row groups, Parts); returning each batch's pages and faulting them back in on the
// next one cost 15-20% of the encode on the VMs we measure on (page faults are expensive there).
// Peak memory is unchanged; resident memory stays at the high-water mark between batches.
// Call once, early in main, before threads start.
#pragma once

namespace sinkd {

void KeepFreedMemory();

}  // namespace sinkd
