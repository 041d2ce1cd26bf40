orchestra.memory_space @trn0_hbm kind = "hbm" arch = "aws_trainium2" device_id = 0

func.func @main(%a: tensor<128x512xf32>, %b: tensor<128x512xf32>) -> tensor<128x512xf32> {
  %r = orchestra.schedule -> (tensor<128x512xf32>) {
    %sum = orchestra.task "add" args(%x = %a : tensor<128x512xf32>, %y = %b : tensor<128x512xf32>) -> (tensor<128x512xf32>)
        target = {arch = "aws_trainium2", device_id = 0}
        attributes {nki_source = "import nki\nimport nki.language as nl\n\n@nki.jit\ndef add_kernel(a, b):\n    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n    nl.store(out, nl.load(a) + nl.load(b))\n    return out\n"} {
      %e = tensor.empty() : tensor<128x512xf32>
      %s = linalg.add ins(%x, %y : tensor<128x512xf32>, tensor<128x512xf32>) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
      orchestra.yield %s : tensor<128x512xf32>
    }
    orchestra.yield %sum : tensor<128x512xf32>
  }
  return %r : tensor<128x512xf32>
}
