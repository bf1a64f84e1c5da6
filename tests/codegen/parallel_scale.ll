; ModuleID = 'tirc'
source_filename = "tirc"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nounwind
define i32 @main(float* noalias %A, float* noalias %B, float %alpha) #0 {
entry:
  %closure = alloca { float*, float*, float, i32, i32 }, align 8
  br label %body

body:                                             ; preds = %entry
  %0 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %closure, i32 0, i32 0
  store float* %B, float** %0, align 8
  %1 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %closure, i32 0, i32 1
  store float* %A, float** %1, align 8
  %2 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %closure, i32 0, i32 2
  store float %alpha, float* %2, align 4
  %3 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %closure, i32 0, i32 3
  store i32 0, i32* %3, align 4
  %4 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %closure, i32 0, i32 4
  store i32 128, i32* %4, align 4
  %5 = bitcast { float*, float*, float, i32, i32 }* %closure to i8*
  %6 = call i32 @tirc_parallel_launch(i32 (i32, i32, i8*)* @main_compute_1_lambda, i8* %5, i32 0)
  %7 = icmp eq i32 %6, 0
  br i1 %7, label %assert.pass, label %assert.fail

assert.fail:                                      ; preds = %body
  ret i32 %6

assert.pass:                                      ; preds = %body
  ret i32 0
}

; Function Attrs: nounwind
define internal i32 @main_compute_1(float* noalias %0, float* noalias %1, float %2, i32 %3, i32 %4) #0 {
entry:
  br label %body

body:                                             ; preds = %entry
  br label %for.i

for.i:                                            ; preds = %for.end2, %body
  %i = phi i32 [ %3, %body ], [ %20, %for.end2 ]
  %5 = icmp slt i32 %i, %4
  br i1 %5, label %for.body, label %for.end

for.body:                                         ; preds = %for.i
  br label %for.j

for.end:                                          ; preds = %for.i
  ret i32 0

for.j:                                            ; preds = %for.body1, %for.body
  %j = phi i32 [ 0, %for.body ], [ %19, %for.body1 ]
  %6 = icmp slt i32 %j, 32
  br i1 %6, label %for.body1, label %for.end2

for.body1:                                        ; preds = %for.j
  %7 = sext i32 %i to i64
  %8 = mul nsw i64 %7, 32
  %9 = sext i32 %j to i64
  %10 = add nsw i64 %8, %9
  %11 = getelementptr inbounds float, float* %1, i64 %10
  %12 = load float, float* %11, align 4
  %13 = fmul float %12, %2
  %14 = sext i32 %i to i64
  %15 = mul nsw i64 %14, 32
  %16 = sext i32 %j to i64
  %17 = add nsw i64 %15, %16
  %18 = getelementptr inbounds float, float* %0, i64 %17
  store float %13, float* %18, align 4
  %19 = add nsw i32 %j, 1
  br label %for.j

for.end2:                                         ; preds = %for.j
  %20 = add nsw i32 %i, 1
  br label %for.i
}

; Function Attrs: nounwind
define internal i32 @main_compute_1_lambda(i32 %0, i32 %1, i8* %2) #0 {
entry:
  %3 = bitcast i8* %2 to { float*, float*, float, i32, i32 }*
  %4 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %3, i32 0, i32 0
  %5 = load float*, float** %4, align 1
  %6 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %3, i32 0, i32 1
  %7 = load float*, float** %6, align 1
  %8 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %3, i32 0, i32 2
  %9 = load float, float* %8, align 1
  %10 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %3, i32 0, i32 3
  %11 = load i32, i32* %10, align 4
  %12 = getelementptr inbounds { float*, float*, float, i32, i32 }, { float*, float*, float, i32, i32 }* %3, i32 0, i32 4
  %13 = load i32, i32* %12, align 4
  %14 = sext i32 %13 to i64
  %15 = sext i32 %0 to i64
  %16 = sext i32 %1 to i64
  %17 = add nsw i64 %14, %16
  %18 = sub nsw i64 %17, 1
  %19 = sdiv i64 %18, %16
  %20 = mul nsw i64 %15, %19
  %21 = icmp slt i64 %20, %14
  %22 = select i1 %21, i64 %20, i64 %14
  %23 = add nsw i64 %22, %19
  %24 = icmp slt i64 %23, %14
  %25 = select i1 %24, i64 %23, i64 %14
  %26 = trunc i64 %22 to i32
  %27 = trunc i64 %25 to i32
  %28 = add nsw i32 %11, %26
  %29 = add nsw i32 %11, %27
  %30 = call i32 @main_compute_1(float* %5, float* %7, float %9, i32 %28, i32 %29)
  ret i32 %30
}

declare i32 @tirc_parallel_launch(i32 (i32, i32, i8*)*, i8*, i32)

attributes #0 = { nounwind "target-cpu"="x86-64" }
