; ModuleID = 'tirc'
source_filename = "tirc"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nounwind
define i32 @main(float* noalias %A, float* noalias %B) #0 {
entry:
  %acc = alloca [1 x float], align 64
  br label %body

body:                                             ; preds = %entry
  %0 = bitcast [1 x float]* %acc to float*
  br label %for.i

for.i:                                            ; preds = %for.end2, %body
  %i = phi i32 [ 0, %body ], [ %7, %for.end2 ]
  %1 = icmp slt i32 %i, 16
  br i1 %1, label %for.body, label %for.end

for.body:                                         ; preds = %for.i
  %2 = getelementptr inbounds float, float* %0, i32 0
  store float 0.000000e+00, float* %2, align 4
  br label %for.k_outer

for.end:                                          ; preds = %for.i
  ret i32 0

for.k_outer:                                      ; preds = %for.end4, %for.body
  %k_outer = phi i32 [ 0, %for.body ], [ %26, %for.end4 ]
  %3 = icmp slt i32 %k_outer, 16
  br i1 %3, label %for.body1, label %for.end2

for.body1:                                        ; preds = %for.k_outer
  br label %for.k_inner

for.end2:                                         ; preds = %for.k_outer
  %4 = getelementptr inbounds float, float* %0, i32 0
  %5 = load float, float* %4, align 4
  %6 = getelementptr inbounds float, float* %B, i32 %i
  store float %5, float* %6, align 4
  %7 = add nsw i32 %i, 1
  br label %for.i

for.k_inner:                                      ; preds = %for.body3, %for.body1
  %k_inner = phi i32 [ 0, %for.body1 ], [ %25, %for.body3 ]
  %8 = icmp slt i32 %k_inner, 4
  br i1 %8, label %for.body3, label %for.end4

for.body3:                                        ; preds = %for.k_inner
  %9 = getelementptr inbounds float, float* %0, i32 0
  %10 = load float, float* %9, align 4
  %11 = mul nsw i32 %i, 64
  %12 = mul nsw i32 %k_outer, 4
  %13 = add nsw i32 %12, %k_inner
  %14 = ashr i32 %13, 6
  %15 = mul nsw i32 %14, 64
  %16 = add nsw i32 %11, %15
  %17 = mul nsw i32 %k_outer, 4
  %18 = add nsw i32 %17, %k_inner
  %19 = and i32 %18, 63
  %20 = add nsw i32 %16, %19
  %21 = getelementptr inbounds float, float* %A, i32 %20
  %22 = load float, float* %21, align 4
  %23 = fadd float %10, %22
  %24 = getelementptr inbounds float, float* %0, i32 0
  store float %23, float* %24, align 4
  %25 = add nsw i32 %k_inner, 1
  br label %for.k_inner, !llvm.loop !0

for.end4:                                         ; preds = %for.k_inner
  %26 = add nsw i32 %k_outer, 1
  br label %for.k_outer
}

attributes #0 = { nounwind "target-cpu"="x86-64" }

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.unroll.full"}
