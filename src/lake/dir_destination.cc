#include "lake/dir_destination.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/random_token.h"

namespace sinkd::lake {

namespace {

std::string Errno(int err) { return std::strerror(err); }

// A file's StoredObject::version: its mtime in nanoseconds. A file written again, or a key
// removed and created anew, gets another (a rename into place keeps the mtime of the write).
std::string VersionOf(const struct stat& st) {
  return std::to_string(int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec);
}

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

// Directories fsync'd by this process: their entry in their parent is durable (or was made
// durable by the fsync of that parent, which is recorded too).
std::mutex& SyncedMutex() {
  static std::mutex mutex;
  return mutex;
}
std::set<std::filesystem::path>& SyncedDirs() {
  static std::set<std::filesystem::path> dirs;
  return dirs;
}
void MarkSynced(const std::filesystem::path& dir) {
  std::lock_guard<std::mutex> lock(SyncedMutex());
  SyncedDirs().insert(dir);
}

// Keys come from table::PartKey or from a List; one that could leave the root is a bug.
Status CheckKey(const std::string& key) {
  if (key.empty() || key.front() == '/') return Status::Internal("lake: bad key \"" + key + "\"");
  for (const auto& part : std::filesystem::path(key)) {
    if (part == "..") return Status::Internal("lake: bad key \"" + key + "\"");
  }
  return Status::OK();
}

// Byte for byte: the only honest "same" on a local disk, and a Part is read back only when a
// key was already taken, which a healthy lake sees once per redelivered batch at most.
Result<bool> SameContents(const std::filesystem::path& a, const std::filesystem::path& b) {
  int fa = ::open(a.c_str(), O_RDONLY | O_CLOEXEC);
  if (fa < 0) return Status::Redeliver("open " + a.string() + ": " + Errno(errno));
  int fb = ::open(b.c_str(), O_RDONLY | O_CLOEXEC);
  if (fb < 0) {
    int err = errno;
    ::close(fa);
    return Status::Redeliver("open " + b.string() + ": " + Errno(err));
  }
  Result<bool> same = true;
  struct stat sa, sb;
  if (::fstat(fa, &sa) != 0 || ::fstat(fb, &sb) != 0) {
    same = Status::Redeliver("stat " + b.string() + ": " + Errno(errno));
  } else if (sa.st_size != sb.st_size) {
    same = false;
  } else {
    std::vector<char> ba(1 << 20), bb(1 << 20);
    while (true) {
      ssize_t na = ::read(fa, ba.data(), ba.size());
      ssize_t nb = na > 0 ? ::read(fb, bb.data(), static_cast<size_t>(na)) : 0;
      if (na < 0 || nb < 0) {
        if (errno == EINTR) continue;
        same = Status::Redeliver("read " + b.string() + ": " + Errno(errno));
        break;
      }
      if (na == 0) break;
      if (nb != na || std::memcmp(ba.data(), bb.data(), static_cast<size_t>(na)) != 0) {
        same = false;
        break;
      }
    }
  }
  ::close(fa);
  ::close(fb);
  return same;
}

}  // namespace

std::string TemporaryName(std::string_view name, std::string_view token) {
  std::string temp(name);
  temp.append(".").append(token).append(kIncompleteSuffix);
  return temp;
}

bool IsTemporaryName(std::string_view filename) {
  constexpr std::string_view kSuffix = kIncompleteSuffix, kLegacy = ".parquet.incomplete";
  if (filename.size() > kLegacy.size() && filename.ends_with(kLegacy)) return true;
  if (filename.size() <= kSuffix.size() + kTemporaryTokenDigits + 1) return false;
  if (!filename.ends_with(kSuffix)) return false;
  const std::string_view stem = filename.substr(0, filename.size() - kSuffix.size());
  const std::string_view token = stem.substr(stem.size() - kTemporaryTokenDigits);
  if (stem[stem.size() - kTemporaryTokenDigits - 1] != '.') return false;
  return std::all_of(token.begin(), token.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool DirectorySyncedInThisProcess(const std::filesystem::path& dir) {
  std::lock_guard<std::mutex> lock(SyncedMutex());
  return SyncedDirs().count(dir) > 0;
}

// One Part on its way to disk: buffered writes into its own temporary file, then fsync + rename.
class DirUpload final : public PartUpload {
 public:
  DirUpload(DirDestination* owner, std::string key, std::filesystem::path final_path,
            std::filesystem::path temp_path, int fd)
      : owner_(owner),
        key_(std::move(key)),
        final_(std::move(final_path)),
        temp_(std::move(temp_path)),
        fd_(fd) {
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

  Result<Placed> Commit() override {
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
    Result<Placed> placed = status_.ok() ? MoveIntoPlace() : Result<Placed>(status_);
    if (!placed.ok()) {
      status_ = placed.status();
      Abort();
      return status_;
    }
    if (*placed == Placed::kNew) {
      committed_ = true;
    } else {
      Abort();  // our copy goes; the one in place stays
    }
    // kSame too: the entry we rely on may be another writer's, not yet fsync'd by it.
    if (*placed != Placed::kTaken) owner_->dirty_dirs_.insert(final_.parent_path());
    return placed;
  }

  // Commit's twin for Destination::Replace: the same fsync'd temporary file, moved over the key
  // with rename(2), which replaces atomically.
  Status CommitReplacing() {
    if (status_.ok()) status_ = Drain();
    if (status_.ok() && ::fsync(fd_) != 0) {
      status_ = Status::Redeliver("replace " + key_ + ": fsync: " + Errno(errno));
    }
    if (status_.ok() && ::close(std::exchange(fd_, -1)) != 0) {
      status_ = Status::Redeliver("replace " + key_ + ": close: " + Errno(errno));
    }
    if (status_.ok() && ::rename(temp_.c_str(), final_.c_str()) != 0) {
      status_ = Status::Redeliver("replace " + key_ + ": rename: " + Errno(errno));
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
      ::unlink(temp_.c_str());
      removed_ = true;
    }
  }

 private:
  static constexpr size_t kBufferBytes = 1 << 20;

  // Never replaces: a plain rename(2) would silently put our bytes over a Part whose rows
  // may already be acknowledged.
  Result<Placed> MoveIntoPlace() {
    const std::filesystem::path& temp = temp_;
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, final_.c_str(), RENAME_NOREPLACE) == 0) {
      return Placed::kNew;
    }
    int err = errno;
    if (err == EINVAL || err == ENOSYS || err == ENOTSUP) {
      // A filesystem without RENAME_NOREPLACE: link(2) refuses an existing name just as well.
      if (::link(temp.c_str(), final_.c_str()) == 0) {
        ::unlink(temp.c_str());
        return Placed::kNew;
      }
      err = errno;
    }
    if (err != EEXIST) return Status::Redeliver("place " + key_ + ": rename: " + Errno(err));
    Result<bool> same = SameContents(temp, final_);
    if (!same.ok()) {
      return same.status().WithContext("place " + key_ + ": comparing with the Part in place");
    }
    return *same ? Placed::kSame : Placed::kTaken;
  }

  Status Drain() {
    Status s = WriteAll(fd_, buffer_.data(), buffer_.size()).WithContext("place " + key_);
    buffer_.clear();
    return s;
  }

  DirDestination* owner_;
  std::string key_;
  std::filesystem::path final_;
  std::filesystem::path temp_;  // ours alone: created with O_EXCL under a random name
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
  SINKD_RETURN_IF_ERROR(CheckKey(key));
  const std::filesystem::path final_path = root_ / key;
  SINKD_RETURN_IF_ERROR(MakeParents(final_path.parent_path()));
  // A name of our own, created exclusively: another writer of this key (a second compactor doing
  // the same merge) has its own, so neither truncates nor writes into the other's file. A taken
  // name (64 random bits: practically never) is drawn again.
  constexpr int kAttempts = 8;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::filesystem::path temp =
        final_path.parent_path() /
        TemporaryName(final_path.filename().string(), RandomToken(kTemporaryTokenDigits));
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      return std::unique_ptr<PartUpload>(new DirUpload(this, key, final_path, std::move(temp), fd));
    }
    if (errno != EEXIST) return Status::Redeliver("place " + key + ": open: " + Errno(errno));
  }
  return Status::Redeliver("place " + key + ": " + std::to_string(kAttempts) +
                           " temporary names in a row were taken");
}

Status DirDestination::Sync() {
  // Every directory from a changed one up to the root, each once per process: whoever created
  // it, its entry in its parent must be durable before a Part inside it is acked.
  std::set<std::filesystem::path> ancestors;
  for (const std::filesystem::path& dir : dirty_dirs_) {
    std::filesystem::path up = dir;
    while (up != root_) {
      const std::filesystem::path rel = up.lexically_relative(root_);
      if (rel.empty() || *rel.begin() == "..") break;  // not under the root
      up = up.parent_path();
      if (!DirectorySyncedInThisProcess(up)) ancestors.insert(up);
    }
  }
  for (auto it = dirty_dirs_.begin(); it != dirty_dirs_.end();) {
    SINKD_RETURN_IF_ERROR(FsyncPath(*it));
    MarkSynced(*it);
    it = dirty_dirs_.erase(it);
  }
  for (const std::filesystem::path& dir : ancestors) {
    if (DirectorySyncedInThisProcess(dir)) continue;
    SINKD_RETURN_IF_ERROR(FsyncPath(dir));
    MarkSynced(dir);
  }
  return Status::OK();
}

Status DirDestination::Delete(const std::string& key) {
  SINKD_RETURN_IF_ERROR(CheckKey(key));
  const std::filesystem::path path = root_ / key;
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Status::Redeliver("delete " + key + ": " + Errno(errno));
  }
  dirty_dirs_.insert(path.parent_path());
  return Status::OK();
}

Status DirDestination::Replace(const std::string& key, std::string_view bytes) {
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<PartUpload> upload, Begin(key));
  auto& file = static_cast<DirUpload&>(*upload);  // Begin makes nothing else
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  SINKD_RETURN_IF_ERROR(file.Append({data, bytes.size()}));
  return file.CommitReplacing();
}

Result<bool> DirDestination::DeleteIfUnchanged(const StoredObject& expected) {
  SINKD_RETURN_IF_ERROR(CheckKey(expected.key));
  const std::filesystem::path path = root_ / expected.key;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return true;
    return Status::Redeliver("delete " + expected.key + ": " + Errno(errno));
  }
  if (expected.version.empty() || static_cast<uint64_t>(st.st_size) != expected.size ||
      VersionOf(st) != expected.version) {
    return false;
  }
  SINKD_RETURN_IF_ERROR(Delete(expected.key));
  return true;
}

Result<std::vector<StoredObject>> DirDestination::List(const std::string& prefix) {
  std::vector<StoredObject> objects;
  if (!prefix.empty()) SINKD_RETURN_IF_ERROR(CheckKey(prefix));
  // Walk only the deepest directory the prefix names whole.
  const size_t slash = prefix.rfind('/');
  const std::filesystem::path start =
      slash == std::string::npos ? root_ : root_ / prefix.substr(0, slash);
  std::error_code ec;
  if (!std::filesystem::is_directory(start, ec)) return objects;
  auto it = std::filesystem::recursive_directory_iterator(start, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string key = it->path().lexically_relative(root_).generic_string();
    if (key.rfind(prefix, 0) != 0) continue;
    if (key.size() >= sizeof kIncompleteSuffix - 1 &&
        key.compare(key.size() - (sizeof kIncompleteSuffix - 1), std::string::npos,
                    kIncompleteSuffix) == 0) {
      continue;
    }
    struct stat st;
    if (::stat(it->path().c_str(), &st) != 0) continue;  // removed while we listed
    const int64_t modified_ms = int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1'000'000;
    objects.push_back(
        StoredObject{key, static_cast<uint64_t>(st.st_size), modified_ms, VersionOf(st)});
  }
  if (ec) return Status::Redeliver("list " + (root_ / prefix).string() + ": " + ec.message());
  std::sort(objects.begin(), objects.end(),
            [](const StoredObject& a, const StoredObject& b) { return a.key < b.key; });
  return objects;
}

Result<std::string> DirDestination::Read(const std::string& key, uint64_t offset, uint64_t length) {
  SINKD_RETURN_IF_ERROR(CheckKey(key));
  const std::filesystem::path path = root_ / key;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound("read " + key + ": no such Part");
    return Status::Redeliver("read " + key + ": " + Errno(errno));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status::Redeliver("read " + key + ": " + Errno(err));
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  std::string out(offset >= size ? 0 : std::min(length, size - offset), '\0');
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n =
        ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      ::close(fd);
      return Status::Redeliver("read " + key + ": " + Errno(err));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return out;
}

}  // namespace sinkd::lake
