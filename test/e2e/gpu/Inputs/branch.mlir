// A branch on a condition computed from the data (its sum against a
// threshold input), for a GPU-only topology: a GPU task does not branch, so
// the scheduler speculates it (both sides as GPU tasks, a commit keeping one:
// design/0019). Emulated by gpu/programs-emulated.test and
// amd/programs-emulated.test for both condition values.
#scalar = affine_map<() -> ()>
func.func @main(%x: tensor<64x32xf32>, %thr: tensor<f32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<f32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%x : tensor<64x32xf32>) outs(%sf : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %c0 = tensor.empty() : tensor<i1>
  %c = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
      ins(%sum, %thr : tensor<f32>, tensor<f32>) outs(%c0 : tensor<i1>) {
  ^bb0(%v: f32, %limit: f32, %o: i1):
    %p = arith.cmpf ogt, %v, %limit : f32
    linalg.yield %p : i1
  } -> tensor<i1>
  %p = tensor.extract %c[] : tensor<i1>
  %r = scf.if %p -> tensor<64x32xf32> {
    %e = math.exp %x : tensor<64x32xf32>
    scf.yield %e : tensor<64x32xf32>
  } else {
    %one = arith.constant dense<1.0> : tensor<64x32xf32>
    %m = arith.mulf %x, %x : tensor<64x32xf32>
    %a = arith.addf %m, %one : tensor<64x32xf32>
    scf.yield %a : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}
