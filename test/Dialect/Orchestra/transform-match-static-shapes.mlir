// RUN: orchestra-opt %s --split-input-file --transform-interpreter --verify-diagnostics

// In a foreach_match, the matcher selects the ops whose shaped operands and
// results are all static.
module attributes {transform.with_named_sequence} {
  func.func @f(%s: tensor<4x8xf32>, %d: tensor<?x8xf32>) -> (tensor<4x8xf32>, tensor<?x8xf32>) {
    // expected-remark @below {{static}}
    %a = linalg.copy ins(%s : tensor<4x8xf32>) outs(%s : tensor<4x8xf32>) -> tensor<4x8xf32>
    %b = linalg.copy ins(%d : tensor<?x8xf32>) outs(%d : tensor<?x8xf32>) -> tensor<?x8xf32>
    return %a, %b : tensor<4x8xf32>, tensor<?x8xf32>
  }
  transform.named_sequence @match_static(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.copy"] : !transform.any_op
    transform.orchestra.match.static_shapes %op : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @remark(%op: !transform.any_op {transform.readonly}) {
    transform.debug.emit_remark_at %op, "static" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %func @match_static -> @remark
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Outside a matcher, a dynamically shaped payload op is a (silenceable)
// failure that names it.
module attributes {transform.with_named_sequence} {
  func.func @f(%d: tensor<?x8xf32>) -> tensor<?x8xf32> {
    // expected-note @below {{payload op}}
    %b = linalg.copy ins(%d : tensor<?x8xf32>) outs(%d : tensor<?x8xf32>) -> tensor<?x8xf32>
    return %b : tensor<?x8xf32>
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.copy"]} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{payload op 'linalg.copy' has a dynamically shaped operand or result}}
    transform.orchestra.match.static_shapes %ops : !transform.any_op
    transform.yield
  }
}
