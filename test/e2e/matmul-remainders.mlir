// The x86_64 strategy's remainder handling against the plain loop lowering
// on random inputs: matmuls and a batch_matmul whose dimensions are not
// multiples of the register tile (8x32) or the cache blocks (64 columns x
// 128 of K). Whole tiles are peeled off and vectorized as usual; the
// partial ones run as 8-column masked vectors. One-row matmuls (GEMV, here
// with a fused bias and ReLU) stream rows of B: 512-column parallel tiles,
// 64 columns x 8 rows of K per step. Matmuls with at least 1024 columns and
// 1024 of K take the 128x512-block, 4x64-register-tile path (here with
// partial tiles in every dimension). Matmuls of at least 1024 rows get
// 128-row parallel tiles (here 1030 rows: a partial one). Matmuls of few rows
// and a large B are tiled by columns (here 20 rows by 1100 columns: two
// column tiles of 576 and 524).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in a:f32:50x37 b:f32:37x45 bias:f32:45 x:f32:3x50x37 y:f32:3x37x45 p:f32:130x200 q:f32:200x100 v:f32:1x300 w:f32:300x70 g:f32:1x96 h:f32:96x1100 hb:f32:1100 l:f32:20x1030 rr:f32:1030x1100 ta:f32:1030x50 tb:f32:50x40
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/a.npy --input %t/in/b.npy --input %t/in/bias.npy --input %t/in/x.npy --input %t/in/y.npy --input %t/in/p.npy --input %t/in/q.npy --input %t/in/v.npy --input %t/in/w.npy --input %t/in/g.npy --input %t/in/h.npy --input %t/in/hb.npy --input %t/in/l.npy --input %t/in/rr.npy --input %t/in/ta.npy --input %t/in/tb.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/a.npy --input %t/in/b.npy --input %t/in/bias.npy --input %t/in/x.npy --input %t/in/y.npy --input %t/in/p.npy --input %t/in/q.npy --input %t/in/v.npy --input %t/in/w.npy --input %t/in/g.npy --input %t/in/h.npy --input %t/in/hb.npy --input %t/in/l.npy --input %t/in/rr.npy --input %t/in/ta.npy --input %t/in/tb.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain
// The partial tiles are vectorized (masked), not left as scalar loops.
// RUN: orchestra-opt %S/Inputs/matmul-remainder-kernel.mlir --orchestra-cpu-select-tiles --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy | FileCheck %s
// CHECK-LABEL: func.func @t0_matmul
// CHECK-NOT:     linalg.matmul
// CHECK:         vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK:         vector.create_mask {{.*}} : vector<1x8xi1>
// CHECK:         vector.transfer_read {{.*}} : tensor<{{.*}}>, vector<1x8xf32>
// CHECK-NOT:     linalg.matmul
// CHECK-LABEL: func.func @t1_gemv
// CHECK:         scf.forall {{.*}} in (3)
// CHECK:         vector.transfer_read {{.*}} : tensor<96x1100xf32>, vector<8x64xf32>
// CHECK:         vector.outerproduct {{.*}} : vector<1xf32>, vector<64xf32>
// CHECK-NOT:     linalg.matmul

#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @main(%a: tensor<50x37xf32>, %b: tensor<37x45xf32>, %bias: tensor<45xf32>,
                %x: tensor<3x50x37xf32>, %y: tensor<3x37x45xf32>,
                %p: tensor<130x200xf32>, %q: tensor<200x100xf32>,
                %v: tensor<1x300xf32>, %w: tensor<300x70xf32>,
                %g: tensor<1x96xf32>, %h: tensor<96x1100xf32>, %hb: tensor<1100xf32>,
                %l: tensor<20x1030xf32>, %rr: tensor<1030x1100xf32>,
                %ta: tensor<1030x50xf32>, %tb: tensor<50x40xf32>)
    -> (tensor<50x45xf32>, tensor<3x50x45xf32>, tensor<130x100xf32>, tensor<1x70xf32>,
        tensor<1x1100xf32>, tensor<20x1100xf32>, tensor<1030x40xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<50x45xf32>) -> tensor<50x45xf32>
  %m = linalg.matmul ins(%a, %b : tensor<50x37xf32>, tensor<37x45xf32>) outs(%f : tensor<50x45xf32>) -> tensor<50x45xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<50x45xf32>, tensor<45xf32>) outs(%e : tensor<50x45xf32>) {
  ^bb0(%s: f32, %t: f32, %o: f32):
    %u = arith.addf %s, %t : f32
    %z = arith.maximumf %u, %zero : f32
    linalg.yield %z : f32
  } -> tensor<50x45xf32>
  %be = tensor.empty() : tensor<3x50x45xf32>
  %bf = linalg.fill ins(%zero : f32) outs(%be : tensor<3x50x45xf32>) -> tensor<3x50x45xf32>
  %bm = linalg.batch_matmul ins(%x, %y : tensor<3x50x37xf32>, tensor<3x37x45xf32>) outs(%bf : tensor<3x50x45xf32>) -> tensor<3x50x45xf32>
  %we = tensor.empty() : tensor<130x100xf32>
  %wf = linalg.fill ins(%zero : f32) outs(%we : tensor<130x100xf32>) -> tensor<130x100xf32>
  %wm = linalg.matmul ins(%p, %q : tensor<130x200xf32>, tensor<200x100xf32>) outs(%wf : tensor<130x100xf32>) -> tensor<130x100xf32>
  %ve = tensor.empty() : tensor<1x70xf32>
  %vf = linalg.fill ins(%zero : f32) outs(%ve : tensor<1x70xf32>) -> tensor<1x70xf32>
  %vm = linalg.matmul ins(%v, %w : tensor<1x300xf32>, tensor<300x70xf32>) outs(%vf : tensor<1x70xf32>) -> tensor<1x70xf32>
  %ge = tensor.empty() : tensor<1x1100xf32>
  %gf = linalg.fill ins(%zero : f32) outs(%ge : tensor<1x1100xf32>) -> tensor<1x1100xf32>
  %gm = linalg.matmul ins(%g, %h : tensor<1x96xf32>, tensor<96x1100xf32>) outs(%gf : tensor<1x1100xf32>) -> tensor<1x1100xf32>
  %gr = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gm, %hb : tensor<1x1100xf32>, tensor<1100xf32>) outs(%ge : tensor<1x1100xf32>) {
  ^bb0(%s: f32, %t: f32, %o: f32):
    %u = arith.addf %s, %t : f32
    %z = arith.maximumf %u, %zero : f32
    linalg.yield %z : f32
  } -> tensor<1x1100xf32>
  %le = tensor.empty() : tensor<20x1100xf32>
  %lf = linalg.fill ins(%zero : f32) outs(%le : tensor<20x1100xf32>) -> tensor<20x1100xf32>
  %lm = linalg.matmul ins(%l, %rr : tensor<20x1030xf32>, tensor<1030x1100xf32>) outs(%lf : tensor<20x1100xf32>) -> tensor<20x1100xf32>
  %te = tensor.empty() : tensor<1030x40xf32>
  %tf = linalg.fill ins(%zero : f32) outs(%te : tensor<1030x40xf32>) -> tensor<1030x40xf32>
  %tm = linalg.matmul ins(%ta, %tb : tensor<1030x50xf32>, tensor<50x40xf32>) outs(%tf : tensor<1030x40xf32>) -> tensor<1030x40xf32>
  return %r, %bm, %wm, %vm, %gr, %lm, %tm : tensor<50x45xf32>, tensor<3x50x45xf32>, tensor<130x100xf32>, tensor<1x70xf32>, tensor<1x1100xf32>, tensor<20x1100xf32>, tensor<1030x40xf32>
}
