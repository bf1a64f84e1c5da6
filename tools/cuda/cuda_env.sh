# Sourced by the GPU scripts: points tirc at NVRTC and CUDA's headers, from
# pip's wheels (cu12 or cu13 layout), else the toolkit's.
if [ -z "${TIRC_NVRTC:-}" ]; then
    TIRC_NVRTC=$(find /opt /usr/local /usr/lib -name 'libnvrtc.so.1[123]*' -not -name '*alt*' 2>/dev/null | head -1)
    [ -n "$TIRC_NVRTC" ] && export TIRC_NVRTC
fi
if [ -z "${TIRC_CUDA_INCLUDE:-}" ]; then
    header=$(find /usr/local/cuda/include /opt /usr/local -name cuda_fp16.h 2>/dev/null | head -1)
    [ -n "$header" ] && export TIRC_CUDA_INCLUDE=$(dirname "$header")
fi
