// Loops on a GPU (design/0019): a loop whose trip count is data (scf.while
// on tensors: x doubled while the counter i is below n, the counter's
// increment and the condition scalars of 0-d tensors) and a counted loop
// (scf.for, 4 trips of acc = 0.5 acc + x). The host side of the kernel
// runs the loops, launching each iteration's kernels and reading the
// condition back; each iteration writes its values into the other of two
// buffers. Emulated by gpu/loops-emulated.test, for n = 3 and n = 0.
#id = affine_map<(d0) -> (d0)>
func.func @main(%n: tensor<i64>, %x: tensor<256xf32>)
    -> (tensor<256xf32>, tensor<i64>, tensor<256xf32>) {
  %zero = arith.constant dense<0> : tensor<i64>
  %r:2 = scf.while (%i = %zero, %v = %x)
      : (tensor<i64>, tensor<256xf32>) -> (tensor<i64>, tensor<256xf32>) {
    %ie = tensor.extract %i[] : tensor<i64>
    %ne = tensor.extract %n[] : tensor<i64>
    %more = arith.cmpi slt, %ie, %ne : i64
    scf.condition(%more) %i, %v : tensor<i64>, tensor<256xf32>
  } do {
  ^bb0(%i: tensor<i64>, %v: tensor<256xf32>):
    %e = tensor.empty() : tensor<256xf32>
    %d = linalg.add ins(%v, %v : tensor<256xf32>, tensor<256xf32>)
        outs(%e : tensor<256xf32>) -> tensor<256xf32>
    %ie = tensor.extract %i[] : tensor<i64>
    %one = arith.constant 1 : i64
    %next = arith.addi %ie, %one : i64
    %nt = tensor.from_elements %next : tensor<i64>
    scf.yield %nt, %d : tensor<i64>, tensor<256xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f32
  %f = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<256xf32> {
    %e = tensor.empty() : tensor<256xf32>
    %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%acc, %x : tensor<256xf32>, tensor<256xf32>) outs(%e : tensor<256xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.mulf %a, %half : f32
      %t = arith.addf %s, %b : f32
      linalg.yield %t : f32
    } -> tensor<256xf32>
    scf.yield %h : tensor<256xf32>
  }
  return %r#1, %r#0, %f : tensor<256xf32>, tensor<i64>, tensor<256xf32>
}
