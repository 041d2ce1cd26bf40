// orchestra-amdgpu-emulate's refusals: a barrier that not every work-item
// of the workgroup reaches, an access past the end of a buffer (the guard
// page after it), a kernel that is not there, and the wrong number of
// parameters. The kernel below stores its work-item id at [tid + offset]
// and, where tid < %limit, waits at a barrier.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy; numpy.zeros(64, numpy.int32).tofile('%t/buf.bin')"
// RUN: orchestra-amdgpu-emulate %s --kernel k --grid 1 --block 64 --arg buffer:%t/buf.bin --arg imm4:0 --arg imm4:64
// RUN: %python -c "import numpy; print(numpy.fromfile('%t/buf.bin', numpy.int32)[[0, 1, 63]])" | FileCheck %s --check-prefix=OK
// OK: [ 0  1 63]
// RUN: not orchestra-amdgpu-emulate %s --kernel k --grid 1 --block 64 --arg buffer:%t/buf.bin --arg imm4:0 --arg imm4:1 2>&1 | FileCheck %s --check-prefix=BARRIER
// BARRIER: error: workgroup (0, 0, 0): a barrier is reached by 1 of the 64 threads of the workgroup (63 exited without it)
// RUN: not orchestra-amdgpu-emulate %s --kernel k --grid 1 --block 64 --arg buffer:%t/buf.bin --arg imm4:1024 --arg imm4:64 2>&1 | FileCheck %s --check-prefix=OOB
// OOB: error: the kernel accessed memory outside its buffers
// RUN: not orchestra-amdgpu-emulate %s --kernel nope --grid 1 --block 64 --arg buffer:%t/buf.bin --arg imm4:0 --arg imm4:64 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL: error: '{{.*}}errors.mlir' has no kernel named 'nope'
// RUN: not orchestra-amdgpu-emulate %s --kernel k --grid 1 --block 64 --arg buffer:%t/buf.bin 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: error: kernel 'k' takes 3 parameters, got 1 --arg
// REQUIRES: numpy
gpu.module @m {
  llvm.func @k(%buf: !llvm.ptr<1>, %offset: i32, %limit: i32) attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %at = llvm.add %tid, %offset : i32
    %p = llvm.getelementptr %buf[%at] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %tid, %p : i32, !llvm.ptr<1>
    %wait = llvm.icmp "ult" %tid, %limit : i32
    llvm.cond_br %wait, ^bb1, ^bb2
  ^bb1:
    rocdl.barrier
    llvm.br ^bb2
  ^bb2:
    llvm.return
  }
}
