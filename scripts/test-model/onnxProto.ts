/**
 * The subset of ONNX's protobuf schema (onnx/onnx.proto, IR version 8) that a BERT-shaped
 * graph needs, declared for protobufjs. Field numbers are the ones of the official schema, so
 * ONNX Runtime reads what we write.
 */
import protobuf from 'protobufjs';

const SCHEMA = `
syntax = "proto3";
package onnx;
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message ValueInfoProto { string name = 1; TypeProto type = 2; string doc_string = 3; }
message TensorProto {
  repeated int64 dims = 1;
  int32 data_type = 2;
  repeated float float_data = 4;
  repeated int64 int64_data = 7;
  string name = 8;
  bytes raw_data = 9;
}
message AttributeProto {
  string name = 1;
  float f = 2;
  int64 i = 3;
  bytes s = 4;
  TensorProto t = 5;
  repeated float floats = 7;
  repeated int64 ints = 8;
  int32 type = 20;
}
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  string name = 3;
  string op_type = 4;
  repeated AttributeProto attribute = 5;
  string domain = 7;
}
message GraphProto {
  repeated NodeProto node = 1;
  string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}
message ModelProto {
  int64 ir_version = 1;
  string producer_name = 2;
  string producer_version = 3;
  GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}
`;

export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7 } as const;
export const AttrType = { FLOAT: 1, INT: 2, INTS: 7 } as const;

let modelType: protobuf.Type | undefined;
export function onnxModelType(): protobuf.Type {
  modelType ??= protobuf.parse(SCHEMA, { keepCase: true }).root.lookupType('onnx.ModelProto');
  return modelType;
}
