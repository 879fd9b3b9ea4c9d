// WriteTextfile puts Prometheus text where node_exporter's textfile collector reads it
// (--collector.textfile.directory; Debian: /var/lib/prometheus/node-exporter): a process that
// ends between scrapes, like the compaction timer's one-shot pass, reports through it.
// Why a temporary file and a rename: the collector reads the directory at any moment; it must
// find the old file whole or the new one whole, never one half written. The temporary name
// (".<name>.<pid>.tmp") does not end in .prom, so the collector never reads it.
// Threads: one writer per path at a time.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd::metrics {

// Writes `text` to `path` atomically (a temporary file in the same directory, fsync, rename,
// mode 0644 so that the collector's user can read it). Refuse naming the path and the error.
Status WriteTextfile(const std::filesystem::path& path, std::string_view text);

// The file's text; "" when it does not exist (or cannot be read: the figures then start again).
std::string ReadTextfile(const std::filesystem::path& path);

}  // namespace sinkd::metrics
