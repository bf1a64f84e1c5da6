; ModuleID = 'tirc'
source_filename = "tirc"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nounwind
define i32 @main(float* noalias %A, float* noalias %B, float* noalias %C) #0 {
entry:
  br label %body

body:                                             ; preds = %entry
  br label %for.i

for.i:                                            ; preds = %for.body, %body
  %i = phi i32 [ 0, %body ], [ %13, %for.body ]
  %0 = icmp slt i32 %i, 8
  br i1 %0, label %for.body, label %for.end

for.body:                                         ; preds = %for.i
  %1 = mul nsw i32 %i, 8
  %2 = getelementptr inbounds float, float* %B, i32 %1
  %3 = bitcast float* %2 to <8 x float>*
  %4 = load <8 x float>, <8 x float>* %3, align 32
  %5 = mul nsw i32 %i, 8
  %6 = getelementptr inbounds float, float* %A, i32 %5
  %7 = bitcast float* %6 to <8 x float>*
  %8 = load <8 x float>, <8 x float>* %7, align 32
  %9 = call <8 x float> @llvm.fmuladd.v8f32(<8 x float> %4, <8 x float> <float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00>, <8 x float> %8)
  %10 = mul nsw i32 %i, 8
  %11 = getelementptr inbounds float, float* %C, i32 %10
  %12 = bitcast float* %11 to <8 x float>*
  store <8 x float> %9, <8 x float>* %12, align 32
  %13 = add nsw i32 %i, 1
  br label %for.i

for.end:                                          ; preds = %for.i
  ret i32 0
}

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare <8 x float> @llvm.fmuladd.v8f32(<8 x float>, <8 x float>, <8 x float>) #1

attributes #0 = { nounwind "target-cpu"="x86-64" }
attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }
