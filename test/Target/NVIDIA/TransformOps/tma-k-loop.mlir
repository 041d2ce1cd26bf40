// RUN: orchestra-opt %s --split-input-file --transform-interpreter --verify-diagnostics

// The op refuses what it cannot stage with TMA, naming the loop, and leaves
// it alone: a loop outside a block-level forall...
module attributes {transform.with_named_sequence} {
  func.func @not_in_a_block(%a: memref<64x64xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %s = memref.alloc() : memref<2x64x32xf16, #gpu.address_space<workgroup>>
    // expected-note @below {{K loop}}
    scf.for %k = %c0 to %c64 step %c32 {
      %src = memref.subview %a[0, %k] [64, 32] [1, 1] : memref<64x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
      %dst = memref.subview %s[0, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, strided<[32, 1]>, #gpu.address_space<workgroup>>
      linalg.copy ins(%src : memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%dst : memref<64x32xf16, strided<[32, 1]>, #gpu.address_space<workgroup>>)
      gpu.barrier
    } {tagged}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot stage the K loop with TMA: it is not inside a block-level scf.forall}}
    transform.orchestra.nvidia_tma_k_loop %loop : !transform.any_op
    transform.yield
  }
}

// -----

// ... a copy into a buffer that is not a stage of a shared allocation ...
module attributes {transform.with_named_sequence} {
  func.func @not_a_stage(%a: memref<64x64xf16>, %out: memref<64x32xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    scf.forall (%i) in (1) {
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c64 step %c32 {
        %src = memref.subview %a[0, %k] [64, 32] [1, 1] : memref<64x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
        linalg.copy ins(%src : memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%out : memref<64x32xf16>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot stage the K loop with TMA: a copy's target is not a stage of a multibuffered shared-memory allocation}}
    transform.orchestra.nvidia_tma_k_loop %loop : !transform.any_op
    transform.yield
  }
}

// -----

// ... a tile whose rows are not a multiple of 16 bytes (TMA boxes) ...
module attributes {transform.with_named_sequence} {
  func.func @narrow_rows(%a: memref<64x64xf16>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %s = memref.alloc() : memref<2x64x4xf16, #gpu.address_space<workgroup>>
    scf.forall (%i) in (1) {
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c64 step %c4 {
        %stage = affine.apply affine_map<(d0) -> ((d0 floordiv 4) mod 2)>(%k)
        %src = memref.subview %a[0, %k] [64, 4] [1, 1] : memref<64x64xf16> to memref<64x4xf16, strided<[64, 1], offset: ?>>
        %dst = memref.subview %s[%stage, 0, 0] [1, 64, 4] [1, 1, 1] : memref<2x64x4xf16, #gpu.address_space<workgroup>> to memref<64x4xf16, strided<[4, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%src : memref<64x4xf16, strided<[64, 1], offset: ?>>) outs(%dst : memref<64x4xf16, strided<[4, 1], offset: ?>, #gpu.address_space<workgroup>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot stage the K loop with TMA: a tile does not fit a TMA box (at most 256 elements per dimension, rows a multiple of 16 bytes)}}
    transform.orchestra.nvidia_tma_k_loop %loop : !transform.any_op
    transform.yield
  }
}

// -----

// ... a body that does not end with a block barrier (the copies a depth
// ahead would overwrite a stage still being read) ...
module attributes {transform.with_named_sequence} {
  func.func @no_closing_barrier(%a: memref<64x64xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %s = memref.alloc() : memref<2x64x32xf16, #gpu.address_space<workgroup>>
    scf.forall (%i) in (1) {
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c64 step %c32 {
        %stage = affine.apply affine_map<(d0) -> ((d0 floordiv 32) mod 2)>(%k)
        %src = memref.subview %a[0, %k] [64, 32] [1, 1] : memref<64x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
        %dst = memref.subview %s[%stage, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%src : memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%dst : memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>)
      } {tagged}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot stage the K loop with TMA: its body does not end with a block barrier}}
    transform.orchestra.nvidia_tma_k_loop %loop : !transform.any_op
    transform.yield
  }
}

// -----

// ... and stages that do not follow the step index (the barrier phases
// would not match them).
module attributes {transform.with_named_sequence} {
  func.func @stage_not_step_index(%a: memref<64x64xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %s = memref.alloc() : memref<2x64x32xf16, #gpu.address_space<workgroup>>
    scf.forall (%i) in (1) {
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c64 step %c32 {
        %stage = affine.apply affine_map<(d0) -> ((d0 floordiv 32 + 1) mod 2)>(%k)
        %src = memref.subview %a[0, %k] [64, 32] [1, 1] : memref<64x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
        %dst = memref.subview %s[%stage, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%src : memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%dst : memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot stage the K loop with TMA: the stage of a step is not its index modulo the number of stages}}
    transform.orchestra.nvidia_tma_k_loop %loop : !transform.any_op
    transform.yield
  }
}
