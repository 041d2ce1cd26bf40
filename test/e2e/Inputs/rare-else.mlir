// A branch whose condition takes two matmuls and a reduction, with a cheap
// then side (an add) and an expensive else side (three matmuls, a tanh
// after the first):
// test/e2e/profile-use.test, test/jit, bench/fdo. Without a profile the
// scheduler speculates it on two CPUs (the else side beside the
// condition); measured "then always", waiting for the condition is faster.
#scalar = affine_map<() -> ()>
func.func @main(%a: tensor<160x160xf32>, %w1: tensor<160x160xf32>, %w2: tensor<160x160xf32>,
                %x: tensor<160x160xf32>, %we: tensor<160x160xf32>,
                %thr: tensor<f32>) -> tensor<160x160xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<160x160xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<160x160xf32>) -> tensor<160x160xf32>
  %m1 = linalg.matmul ins(%a, %w1 : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
  %s0 = tensor.empty() : tensor<f32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %m2 = linalg.matmul ins(%m1, %w2 : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
  %sum = linalg.reduce ins(%m2 : tensor<160x160xf32>) outs(%sf : tensor<f32>) dimensions = [0, 1]
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
  %r = scf.if %p -> tensor<160x160xf32> {
    %t = arith.addf %x, %x : tensor<160x160xf32>
    scf.yield %t : tensor<160x160xf32>
  } else {
    %u = linalg.matmul ins(%x, %we : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
    %h = math.tanh %u : tensor<160x160xf32>
    %v = linalg.matmul ins(%h, %we : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
    %w = linalg.matmul ins(%v, %we : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
    scf.yield %w : tensor<160x160xf32>
  }
  return %r : tensor<160x160xf32>
}
