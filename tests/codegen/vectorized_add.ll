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
  %i = phi i32 [ 0, %body ], [ %16, %for.body ]
  %0 = icmp slt i32 %i, 8
  br i1 %0, label %for.body, label %for.end

for.body:                                         ; preds = %for.i
  %1 = sext i32 %i to i64
  %2 = mul nsw i64 %1, 8
  %3 = getelementptr inbounds float, float* %B, i64 %2
  %4 = bitcast float* %3 to <8 x float>*
  %5 = load <8 x float>, <8 x float>* %4, align 32
  %6 = sext i32 %i to i64
  %7 = mul nsw i64 %6, 8
  %8 = getelementptr inbounds float, float* %A, i64 %7
  %9 = bitcast float* %8 to <8 x float>*
  %10 = load <8 x float>, <8 x float>* %9, align 32
  %11 = call <8 x float> @llvm.fmuladd.v8f32(<8 x float> %5, <8 x float> <float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00, float 2.000000e+00>, <8 x float> %10)
  %12 = sext i32 %i to i64
  %13 = mul nsw i64 %12, 8
  %14 = getelementptr inbounds float, float* %C, i64 %13
  %15 = bitcast float* %14 to <8 x float>*
  store <8 x float> %11, <8 x float>* %15, align 32
  %16 = add nsw i32 %i, 1
  br label %for.i

for.end:                                          ; preds = %for.i
  ret i32 0
}

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare <8 x float> @llvm.fmuladd.v8f32(<8 x float>, <8 x float>, <8 x float>) #1

attributes #0 = { nounwind "target-cpu"="x86-64" }
attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }
