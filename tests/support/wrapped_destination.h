// WrappedDestination forwards every call to another Destination, so that a test's lake can change
// one step (hold an upload at a gate, fail some keys, note the heap at each Part) and keep every
// other step real. Subclasses override what they change and call the inner lake for the rest.
// Ownership: borrows the inner Destination, which must outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lake/destination.h"

namespace sinkd::testing {

class WrappedDestination : public lake::Destination {
 public:
  explicit WrappedDestination(lake::Destination& inner) : inner_(inner) {}

  Status Ensure() override { return inner_.Ensure(); }
  std::string Describe() const override { return inner_.Describe(); }
  std::string Uri() const override { return inner_.Uri(); }
  Result<std::unique_ptr<lake::PartUpload>> Begin(const std::string& key) override {
    return inner_.Begin(key);
  }
  Status Sync() override { return inner_.Sync(); }
  Status Delete(const std::string& key) override { return inner_.Delete(key); }
  Status Replace(const std::string& key, std::string_view bytes) override {
    return inner_.Replace(key, bytes);
  }
  Result<bool> DeleteIfUnchanged(const lake::StoredObject& expected) override {
    return inner_.DeleteIfUnchanged(expected);
  }
  Result<std::vector<lake::StoredObject>> List(const std::string& prefix) override {
    return inner_.List(prefix);
  }
  Result<std::string> Read(const std::string& key, uint64_t offset, uint64_t length) override {
    return inner_.Read(key, offset, length);
  }
  Status CheckExclusiveCreates(const std::string& prefix) override {
    return inner_.CheckExclusiveCreates(prefix);
  }

 private:
  lake::Destination& inner_;
};

}  // namespace sinkd::testing
