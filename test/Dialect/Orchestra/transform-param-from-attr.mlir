// RUN: orchestra-opt %s --split-input-file --transform-interpreter --verify-diagnostics

// The integer attribute of each payload op, in order, as a parameter.
module attributes {transform.with_named_sequence} {
  func.func @f() {
    // expected-remark @below {{rows 104 : i64, 8 : i64}}
    %a = arith.constant {orchestra.tile_rows = 104 : i64, tagged} 1 : index
    %b = arith.constant {orchestra.tile_rows = 8 : i64, tagged} 2 : index
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    %rows = transform.orchestra.param_from_attr %ops["orchestra.tile_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    %first = transform.structured.match ops{["arith.constant"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %a, %b = transform.split_handle %first
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.debug.emit_param_as_remark %rows, "rows" at %a
        : !transform.param<i64>, !transform.any_op
    transform.yield
  }
}

// -----

// A payload op without the attribute is a (silenceable) failure that names
// the op.
module attributes {transform.with_named_sequence} {
  func.func @f() {
    // expected-note @below {{payload op}}
    %a = arith.constant {tagged} 1 : index
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{payload op 'arith.constant' has no integer attribute 'orchestra.tile_rows'}}
    %rows = transform.orchestra.param_from_attr %ops["orchestra.tile_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield
  }
}
