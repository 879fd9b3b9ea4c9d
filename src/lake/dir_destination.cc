#include "lake/dir_destination.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace sinkd::lake {

namespace {

std::string Errno(int err) { return std::strerror(err); }

Status WriteAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Redeliver("write: " + Errno(errno));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::OK();
}

Status FsyncPath(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::Redeliver("open " + dir.string() + ": " + Errno(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Status::Redeliver("fsync " + dir.string() + ": " + Errno(err));
  return Status::OK();
}

}  // namespace

// One Part on its way to disk: buffered writes into `<final>.incomplete`, then fsync + rename.
class DirUpload final : public PartUpload {
 public:
  DirUpload(DirDestination* owner, std::string key, std::filesystem::path final_path, int fd)
      : owner_(owner), key_(std::move(key)), final_(std::move(final_path)), fd_(fd) {
    buffer_.reserve(kBufferBytes);
  }
  ~DirUpload() override { Abort(); }

  Status Append(std::span<const uint8_t> bytes) override {
    if (!status_.ok()) return status_;
    if (buffer_.size() + bytes.size() > kBufferBytes) {
      status_ = Drain();
      if (!status_.ok()) return status_;
      if (bytes.size() >= kBufferBytes) {
        status_ = WriteAll(fd_, bytes.data(), bytes.size()).WithContext("place " + key_);
        return status_;
      }
    }
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
    return Status::OK();
  }

  Status Commit() override {
    if (!status_.ok()) return status_;
    status_ = Drain();
    // Without this fsync a rename that survives a power cut could point at bytes that did not,
    // and their messages would already be acked.
    if (status_.ok() && ::fsync(fd_) != 0) {
      status_ = Status::Redeliver("place " + key_ + ": fsync: " + Errno(errno));
    }
    if (status_.ok() && ::close(std::exchange(fd_, -1)) != 0) {
      status_ = Status::Redeliver("place " + key_ + ": close: " + Errno(errno));
    }
    if (status_.ok() && ::rename(TempPath().c_str(), final_.c_str()) != 0) {
      status_ = Status::Redeliver("place " + key_ + ": rename: " + Errno(errno));
    }
    if (!status_.ok()) {
      Abort();
      return status_;
    }
    committed_ = true;
    owner_->dirty_dirs_.insert(final_.parent_path());
    return Status::OK();
  }

  void Abort() override {
    if (committed_) return;
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
    if (!removed_) {
      ::unlink(TempPath().c_str());
      removed_ = true;
    }
  }

 private:
  static constexpr size_t kBufferBytes = 1 << 20;

  std::filesystem::path TempPath() const { return final_.string() + kIncompleteSuffix; }

  Status Drain() {
    Status s = WriteAll(fd_, buffer_.data(), buffer_.size()).WithContext("place " + key_);
    buffer_.clear();
    return s;
  }

  DirDestination* owner_;
  std::string key_;
  std::filesystem::path final_;
  int fd_;
  std::vector<uint8_t> buffer_;
  Status status_;
  bool committed_ = false;
  bool removed_ = false;
};

Result<std::unique_ptr<DirDestination>> DirDestination::Make(const std::string& root) {
  if (root.empty()) return Status::Refuse("lake: --lake-dir needs a path");
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(root, ec);
  if (ec) return Status::Refuse("lake dir " + root + ": " + ec.message());
  return std::unique_ptr<DirDestination>(new DirDestination(absolute.lexically_normal()));
}

Status DirDestination::Ensure() {
  std::error_code ec;
  std::filesystem::create_directories(root_, ec);
  if (ec) return Status::Refuse("lake dir " + root_.string() + ": " + ec.message());
  if (!std::filesystem::is_directory(root_, ec)) {
    return Status::Refuse("lake dir " + root_.string() + ": not a directory");
  }
  if (::access(root_.c_str(), W_OK | X_OK) != 0) {
    return Status::Refuse("lake dir " + root_.string() + ": not writable: " + Errno(errno));
  }
  return Status::OK();
}

std::string DirDestination::Describe() const { return "dir " + root_.string(); }

Status DirDestination::MakeParents(const std::filesystem::path& dir) {
  // Walk down from the root so every directory we create is recorded: its parent's entry for it
  // must be fsync'd too, or a power cut can lose the whole subtree with acked Parts inside.
  std::filesystem::path current = root_;
  for (const auto& part : dir.lexically_relative(root_)) {
    current /= part;
    if (::mkdir(current.c_str(), 0755) == 0) {
      dirty_dirs_.insert(current.parent_path());
    } else if (errno != EEXIST) {
      return Status::Redeliver("lake dir " + current.string() + ": " + Errno(errno));
    } else {
      struct stat st;
      if (::stat(current.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return Status::Redeliver("lake dir " + current.string() + ": not a directory");
      }
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<PartUpload>> DirDestination::Begin(const std::string& key) {
  const std::filesystem::path final_path = root_ / key;
  SINKD_RETURN_IF_ERROR(MakeParents(final_path.parent_path()));
  const std::string temp = final_path.string() + kIncompleteSuffix;
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Redeliver("place " + key + ": open: " + Errno(errno));
  return std::unique_ptr<PartUpload>(new DirUpload(this, key, final_path, fd));
}

Status DirDestination::Sync() {
  for (auto it = dirty_dirs_.begin(); it != dirty_dirs_.end();) {
    SINKD_RETURN_IF_ERROR(FsyncPath(*it));
    it = dirty_dirs_.erase(it);
  }
  return Status::OK();
}

}  // namespace sinkd::lake
