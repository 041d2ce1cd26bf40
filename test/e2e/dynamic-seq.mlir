// Self-attention over a dynamic sequence length (design/0017): both
// matmuls and the softmax reduce or run over `seq`, which is also a
// reduction dimension of the second matmul. Compiled once, run at three
// lengths against numpy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: orchestra-compile %s --dim seq=1..128@64 -o %t/attn.orcx --quiet
// RUN: %python %S/Inputs/e2e.py gen %t/s1 x:f32:1x64
// RUN: orchestra-run %t/attn.orcx --input %t/s1/x.npy --output-dir %t/o1 --quiet
// RUN: %python %S/Inputs/e2e.py check dynamic_attention %t/s1 %t/o1
// RUN: %python %S/Inputs/e2e.py gen %t/s37 x:f32:37x64
// RUN: orchestra-run %t/attn.orcx --input %t/s37/x.npy --output-dir %t/o37 --quiet
// RUN: %python %S/Inputs/e2e.py check dynamic_attention %t/s37 %t/o37
// RUN: %python %S/Inputs/e2e.py gen %t/s128 x:f32:128x64
// RUN: orchestra-run %t/attn.orcx --input %t/s128/x.npy --output-dir %t/o128 --quiet
// RUN: %python %S/Inputs/e2e.py check dynamic_attention %t/s128 %t/o128

func.func @main(%x: tensor<?x64xf32> {orchestra.dim_names = ["seq", ""]}) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %s = tensor.dim %x, %c0 : tensor<?x64xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %et = tensor.empty(%s) : tensor<64x?xf32>
  %xt = linalg.transpose ins(%x : tensor<?x64xf32>) outs(%et : tensor<64x?xf32>) permutation = [1, 0]
  %e = tensor.empty(%s, %s) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sc = linalg.matmul ins(%x, %xt : tensor<?x64xf32>, tensor<64x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %em = tensor.empty(%s) : tensor<?xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%em : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(a,b)->(a,b)>, affine_map<(a,b)->(a)>], iterator_types = ["parallel","reduction"]}
     ins(%sc : tensor<?x?xf32>) outs(%fm : tensor<?xf32>) {
     ^bb0(%in: f32, %out: f32):
       %m = arith.maximumf %in, %out : f32
       linalg.yield %m : f32
  } -> tensor<?xf32>
  %e2 = tensor.empty(%s, %s) : tensor<?x?xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(a,b)->(a,b)>, affine_map<(a,b)->(a)>, affine_map<(a,b)->(a,b)>], iterator_types = ["parallel","parallel"]}
     ins(%sc, %mx : tensor<?x?xf32>, tensor<?xf32>) outs(%e2 : tensor<?x?xf32>) {
     ^bb0(%in: f32, %m: f32, %out: f32):
       %d = arith.subf %in, %m : f32
       %x1 = math.exp %d : f32
       linalg.yield %x1 : f32
  } -> tensor<?x?xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%em : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(a,b)->(a,b)>, affine_map<(a,b)->(a)>], iterator_types = ["parallel","reduction"]}
     ins(%ex : tensor<?x?xf32>) outs(%fs : tensor<?xf32>) {
     ^bb0(%in: f32, %out: f32):
       %a = arith.addf %in, %out : f32
       linalg.yield %a : f32
  } -> tensor<?xf32>
  %e3 = tensor.empty(%s, %s) : tensor<?x?xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(a,b)->(a,b)>, affine_map<(a,b)->(a)>, affine_map<(a,b)->(a,b)>], iterator_types = ["parallel","parallel"]}
     ins(%ex, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%e3 : tensor<?x?xf32>) {
     ^bb0(%in: f32, %t: f32, %out: f32):
       %d = arith.divf %in, %t : f32
       linalg.yield %d : f32
  } -> tensor<?x?xf32>
  %eo = tensor.empty(%s) : tensor<?x64xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<?x64xf32>) -> tensor<?x64xf32>
  %o = linalg.matmul ins(%p, %x : tensor<?x?xf32>, tensor<?x64xf32>) outs(%fo : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %o : tensor<?x64xf32>
}
