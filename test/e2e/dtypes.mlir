// Integer, boolean and f16 tensors through the whole path.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in a:i32:16x16 b:i32:16x16 c:i32:8x32 h:f16:64
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/a.npy --input %t/in/b.npy --input %t/in/c.npy --input %t/in/h.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check dtypes %t/in %t/opt
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/a.npy --input %t/in/b.npy --input %t/in/c.npy --input %t/in/h.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> (i)>
func.func @main(%a: tensor<16x16xi32>, %b: tensor<16x16xi32>, %c: tensor<8x32xi32>, %h: tensor<64xf16>)
    -> (tensor<16x16xi32>, tensor<16x16xi1>, tensor<8xi64>, tensor<64xf16>) {
  %three = arith.constant dense<3> : tensor<16x16xi32>
  %zero = arith.constant dense<0> : tensor<16x16xi32>
  %m = arith.muli %b, %three : tensor<16x16xi32>
  %s = arith.addi %a, %m : tensor<16x16xi32>
  %gt = arith.cmpi sgt, %s, %zero : tensor<16x16xi32>
  %neg = arith.subi %zero, %s : tensor<16x16xi32>
  %picked = arith.select %gt, %s, %neg : tensor<16x16xi1>, tensor<16x16xi32>
  %z64 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<8xi64>
  %init = linalg.fill ins(%z64 : i64) outs(%e : tensor<8xi64>) -> tensor<8xi64>
  %wide = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<8x32xi32>) outs(%init : tensor<8xi64>) {
  ^bb0(%v: i32, %acc: i64):
    %x = arith.extsi %v : i32 to i64
    %r = arith.addi %x, %acc : i64
    linalg.yield %r : i64
  } -> tensor<8xi64>
  %two = arith.constant dense<2.0> : tensor<64xf16>
  %one = arith.constant dense<1.0> : tensor<64xf16>
  %h2 = arith.mulf %h, %two : tensor<64xf16>
  %h3 = arith.addf %h2, %one : tensor<64xf16>
  return %picked, %gt, %wide, %h3 : tensor<16x16xi32>, tensor<16x16xi1>, tensor<8xi64>, tensor<64xf16>
}
