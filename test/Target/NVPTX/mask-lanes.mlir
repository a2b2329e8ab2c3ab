// RUN: kiln-translate %s --emit=llvm --split-input-file | FileCheck %s
// RUN: kiln-translate %s --emit=ptx --split-input-file | FileCheck %s --check-prefix=PTX

// A thread's mask, an i1 vector (rows below n, and'ed with a splat of
// tid < m), read one lane per predicated access as a masked vector load
// reads it: each lane read becomes scalar comparisons and an and, and the
// vector operations die. NVPTX would otherwise pack the lanes into 16-bit
// registers and shift each back out.
// CHECK-LABEL: define ptx_kernel void @lanes_of_a_mask(
// CHECK-NOT: <16 x i1>
// CHECK-DAG: icmp slt i32 %{{.*}}, %1
// CHECK-DAG: icmp {{s|u}}lt i32 %{{.*}}, %2
// CHECK: ret void
// PTX-LABEL: .entry lanes_of_a_mask(
// PTX-NOT: .b16
// PTX: ret;
llvm.func @lanes_of_a_mask(%out: !llvm.ptr<1>, %n: i32, %m: i32) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %poison = llvm.mlir.poison : vector<16xi32>
  %poison1 = llvm.mlir.poison : vector<16xi1>
  %steps = llvm.mlir.constant(dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xi32>) : vector<16xi32>
  %c16 = llvm.mlir.constant(16 : i32) : i32
  %first = llvm.mul %tid, %c16 : i32
  %one = llvm.insertelement %first, %poison[%c0 : i32] : vector<16xi32>
  %splat = llvm.shufflevector %one, %poison [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xi32>
  %rows = llvm.add %splat, %steps : vector<16xi32>
  %n1 = llvm.insertelement %n, %poison[%c0 : i32] : vector<16xi32>
  %ns = llvm.shufflevector %n1, %poison [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xi32>
  %in_rows = llvm.icmp "slt" %rows, %ns : vector<16xi32>
  %in_m = llvm.icmp "slt" %tid, %m : i32
  %m1 = llvm.insertelement %in_m, %poison1[%c0 : i32] : vector<16xi1>
  %ms = llvm.shufflevector %m1, %poison1 [0, -1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1, -1, -1, -1] : vector<16xi1>
  %mask = llvm.and %in_rows, %ms : vector<16xi1>
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %lane0 = llvm.extractelement %mask[%c0 : i32] : vector<16xi1>
  %lane8 = llvm.extractelement %mask[%c8 : i32] : vector<16xi1>
  %f0 = llvm.mlir.constant(0.0 : f32) : f32
  %f1 = llvm.mlir.constant(1.0 : f32) : f32
  %v0 = llvm.select %lane0, %f1, %f0 : i1, f32
  %v8 = llvm.select %lane8, %f1, %f0 : i1, f32
  %p0 = llvm.getelementptr %out[%first] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v0, %p0 : f32, !llvm.ptr<1>
  %p8 = llvm.getelementptr %p0[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
  llvm.store %v8, %p8 : f32, !llvm.ptr<1>
  llvm.return
}

// -----

// Lanes of a mask carried through a loop (a PHI) are read from the PHI;
// a lane picked at run time, and a lane past the vector's end (poison),
// are left as they are; a lane of a select of masks is a scalar select.
// CHECK-LABEL: define ptx_kernel void @lanes_it_leaves(
// CHECK: phi <4 x i1>
// CHECK: %[[LANE:[0-9]+]] = extractelement <4 x i1> %{{.*}}, i64 1
// CHECK: select i1 %[[LANE]], i1
// CHECK: extractelement <4 x i1> %{{.*}}, i32 %2
// CHECK: ret void
llvm.func @lanes_it_leaves(%out: !llvm.ptr<1>, %n: i32, %which: i32) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c7 = llvm.mlir.constant(7 : i32) : i32
  %poison = llvm.mlir.poison : vector<4xi32>
  %steps = llvm.mlir.constant(dense<[0, 1, 2, 3]> : vector<4xi32>) : vector<4xi32>
  %t1 = llvm.insertelement %tid, %poison[%c0 : i32] : vector<4xi32>
  %ts = llvm.shufflevector %t1, %poison [0, 0, 0, 0] : vector<4xi32>
  %start = llvm.icmp "slt" %ts, %steps : vector<4xi32>
  llvm.br ^loop(%c0, %start : i32, vector<4xi1>)
^loop(%i: i32, %mask: vector<4xi1>):
  %flipped = llvm.icmp "sgt" %ts, %steps : vector<4xi32>
  %next = llvm.select %mask, %flipped, %start : vector<4xi1>, vector<4xi1>
  %i1 = llvm.add %i, %c1 : i32
  %more = llvm.icmp "slt" %i1, %n : i32
  llvm.cond_br %more, ^loop(%i1, %next : i32, vector<4xi1>), ^done
^done:
  %a = llvm.extractelement %mask[%c1 : i32] : vector<4xi1>
  %b = llvm.extractelement %next[%which : i32] : vector<4xi1>
  %c = llvm.extractelement %next[%c7 : i32] : vector<4xi1>
  %d = llvm.extractelement %next[%c1 : i32] : vector<4xi1>
  %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
  %va = llvm.zext %a : i1 to i8
  llvm.store %va, %p : i8, !llvm.ptr<1>
  %pb = llvm.getelementptr %p[1024] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
  %vb = llvm.zext %b : i1 to i8
  llvm.store %vb, %pb : i8, !llvm.ptr<1>
  %pc = llvm.getelementptr %p[2048] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
  %vc = llvm.zext %c : i1 to i8
  llvm.store %vc, %pc : i8, !llvm.ptr<1>
  %pd = llvm.getelementptr %p[3072] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
  %vd = llvm.zext %d : i1 to i8
  llvm.store %vd, %pd : i8, !llvm.ptr<1>
  llvm.return
}
