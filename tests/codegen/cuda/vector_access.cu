// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(32) main_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C) {
  int bx = ((int)blockIdx.x);
  int tx = ((int)threadIdx.x);
  __shared__ __align__(16) float S[128];
  float4 A_v = *(float4*)(A + ((bx * 128) + (tx * 4)));
  *(float4*)(S + (tx * 4)) = A_v;
  __syncthreads();
  for (int h = 0; h < 2; ++h) {
    float2 S_v = *(float2*)(S + ((tx * 4) + (h * 2)));
    *(float2*)(B + (((bx * 128) + (tx * 4)) + (h * 2))) = make_float2((S_v.x * 2.0f), (S_v.y * 2.0f));
  }
  float4 S_v_1 = *(float4*)(S + (tx * 4));
  C[((bx * 128) + (tx * 4)) + 1] = (C[((bx * 128) + (tx * 4)) + 1] + S_v_1.x);
  C[((bx * 128) + (tx * 4)) + 2] = (C[((bx * 128) + (tx * 4)) + 2] + S_v_1.y);
  C[((bx * 128) + (tx * 4)) + 3] = (C[((bx * 128) + (tx * 4)) + 3] + S_v_1.z);
  C[((bx * 128) + (tx * 4)) + 4] = (C[((bx * 128) + (tx * 4)) + 4] + S_v_1.w);
}

