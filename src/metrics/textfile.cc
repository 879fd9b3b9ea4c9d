#include "metrics/textfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace sinkd::metrics {

Status WriteTextfile(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path temporary =
      path.parent_path() / fmt::format(".{}.{}.tmp", path.filename().string(), ::getpid());
  auto failed = [&](const char* step) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return Status::Refuse(fmt::format("metrics textfile {}: {}: {}", path.string(), step,
                                      std::strerror(error)));
  };
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return failed("create");
  // The umask (the units' 0027) must not hide the figures from node_exporter's user.
  if (::fchmod(fd, 0644) != 0) {
    ::close(fd);
    return failed("chmod");
  }
  for (size_t written = 0; written < text.size();) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return failed("write");
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return failed("fsync");
  }
  if (::close(fd) != 0) return failed("close");
  if (::rename(temporary.c_str(), path.c_str()) != 0) return failed("rename");
  return Status::OK();
}

std::string ReadTextfile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace sinkd::metrics
