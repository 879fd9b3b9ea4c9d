// The bridge from sinkd's Schema (schema.h) to Parquet's schema: validation of what the writer
// can encode, and the flattened SchemaElement list of the footer (root first, then the leaves).
// Threads: free functions, no state.
#pragma once

#include <vector>

#include "base/status.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"

namespace sinkd::parquet {

// OK when the writer can encode `schema`; otherwise Refuse naming the offending field:
// empty schema, empty or duplicate names, an annotation on the wrong physical type, a Bloom
// filter on a BOOLEAN column (the format defines no hash for a bit).
Status ValidateSchema(const Schema& schema);

// The Parquet type of a physical type.
Type ParquetType(PhysicalType physical);

// Root element ("schema", num_children = leaves, no repetition) then one REQUIRED leaf per field
// with its converted type, logical type and field id. REQUIRES: ValidateSchema(schema).ok().
std::vector<SchemaElement> SchemaElements(const Schema& schema);

}  // namespace sinkd::parquet
