// A schema shaped like an Iceberg manifest entry (field-id on every field, element-id, a map with
// int keys as an array of key/value records, timestamp and date logical types, optional unions)
// plus the Avro types Iceberg does not use, and records that fill it. Shared by the avro tests.
#pragma once

#include <string>

#include "avro/value.h"

namespace sinkd::avro {

inline const std::string kSampleSchema = R"({"type":"record","name":"entry","fields":[
{"name":"status","type":"int","field-id":0},
{"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},
{"name":"data","type":{"type":"record","name":"r2","fields":[
  {"name":"path","type":"string","field-id":100},
  {"name":"day","type":{"type":"int","logicalType":"date"},"field-id":1000},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true},
   "field-id":2},
  {"name":"sizes","type":["null",{"type":"array","logicalType":"map","items":{"type":"record",
   "name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},
   {"name":"value","type":"long","field-id":118}]}}],"default":null,"field-id":108},
  {"name":"bounds","type":["null",{"type":"array","logicalType":"map","items":{"type":"record",
   "name":"k126_v127","fields":[{"name":"key","type":"int","field-id":126},
   {"name":"value","type":"bytes","field-id":127}]}}],"default":null,"field-id":125},
  {"name":"offsets","type":["null",{"type":"array","items":"long","element-id":133}],
   "default":null,"field-id":132}
]},"field-id":2},
{"name":"flag","type":"boolean"},
{"name":"ratio","type":"double"},
{"name":"small","type":"float"},
{"name":"props","type":{"type":"map","values":"string"}},
{"name":"kind","type":{"type":"enum","name":"kind","symbols":["DATA","DELETES"]}},
{"name":"digest","type":{"type":"fixed","name":"md5","size":4}},
{"name":"again","type":["null","r2"],"default":null}
]})";

inline Value SampleRecord(int i) {
  Array sizes, bounds, offsets;
  for (int c = 1; c <= i % 4; ++c) {
    sizes.items.push_back(Record{{{"key", c}, {"value", int64_t{1000} * c + i}}});
    bounds.items.push_back(Record{{{"key", c},
                                   {"value", std::string("\x00\xff"
                                                         "b",
                                                         3)}}});
    offsets.items.push_back(int64_t{4} << (c * 8));
  }
  // Appended, not `"literal" + std::to_string(i)`: gcc 12 warns falsely (-Wrestrict) on that.
  std::string path = "file:///lake/ledger/p-";
  path.append(std::to_string(i)).append(".parquet");
  std::string key = "k";
  key.append(std::to_string(i));
  Record data{{{"path", path},
               {"day", 20'000 + i},
               {"ts", int64_t{1'700'000'000'000'000} + i},
               {"sizes", i % 3 == 0 ? Value() : Value(sizes)},
               {"bounds", bounds},
               {"offsets", i % 2 == 0 ? Value(offsets) : Value()}}};
  return Record{{{"status", i % 3},
                 {"snapshot_id", i % 2 == 0 ? Value() : Value(int64_t{-(int64_t{1} << 62) + i})},
                 {"data", data},
                 {"flag", i % 2 == 0},
                 {"ratio", 0.5 * i - 3},
                 {"small", 1.25},
                 {"props", Map{{{key, "v\xc3\xa9"}, {"z", ""}}}},
                 {"kind", i % 2 == 0 ? "DATA" : "DELETES"},
                 {"digest", "abcd"},
                 {"again", i % 5 == 0 ? Value(data) : Value()}}};
}

}  // namespace sinkd::avro
