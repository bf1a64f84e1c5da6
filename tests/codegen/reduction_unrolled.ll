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
  %i = phi i32 [ 0, %body ], [ %8, %for.end2 ]
  %1 = icmp slt i32 %i, 16
  br i1 %1, label %for.body, label %for.end

for.body:                                         ; preds = %for.i
  %2 = getelementptr inbounds float, float* %0, i64 0
  store float 0.000000e+00, float* %2, align 4
  br label %for.k_outer

for.end:                                          ; preds = %for.i
  ret i32 0

for.k_outer:                                      ; preds = %for.end4, %for.body
  %k_outer = phi i32 [ 0, %for.body ], [ %30, %for.end4 ]
  %3 = icmp slt i32 %k_outer, 16
  br i1 %3, label %for.body1, label %for.end2

for.body1:                                        ; preds = %for.k_outer
  br label %for.k_inner

for.end2:                                         ; preds = %for.k_outer
  %4 = getelementptr inbounds float, float* %0, i64 0
  %5 = load float, float* %4, align 4
  %6 = sext i32 %i to i64
  %7 = getelementptr inbounds float, float* %B, i64 %6
  store float %5, float* %7, align 4
  %8 = add nsw i32 %i, 1
  br label %for.i

for.k_inner:                                      ; preds = %for.body3, %for.body1
  %k_inner = phi i32 [ 0, %for.body1 ], [ %29, %for.body3 ]
  %9 = icmp slt i32 %k_inner, 4
  br i1 %9, label %for.body3, label %for.end4

for.body3:                                        ; preds = %for.k_inner
  %10 = getelementptr inbounds float, float* %0, i64 0
  %11 = load float, float* %10, align 4
  %12 = sext i32 %i to i64
  %13 = mul nsw i64 %12, 64
  %14 = mul nsw i32 %k_outer, 4
  %15 = add nsw i32 %14, %k_inner
  %16 = ashr i32 %15, 6
  %17 = sext i32 %16 to i64
  %18 = mul nsw i64 %17, 64
  %19 = add nsw i64 %13, %18
  %20 = mul nsw i32 %k_outer, 4
  %21 = add nsw i32 %20, %k_inner
  %22 = and i32 %21, 63
  %23 = sext i32 %22 to i64
  %24 = add nsw i64 %19, %23
  %25 = getelementptr inbounds float, float* %A, i64 %24
  %26 = load float, float* %25, align 4
  %27 = fadd float %11, %26
  %28 = getelementptr inbounds float, float* %0, i64 0
  store float %27, float* %28, align 4
  %29 = add nsw i32 %k_inner, 1
  br label %for.k_inner, !llvm.loop !0

for.end4:                                         ; preds = %for.k_inner
  %30 = add nsw i32 %k_outer, 1
  br label %for.k_outer
}

attributes #0 = { nounwind "target-cpu"="x86-64" }

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.unroll.full"}
