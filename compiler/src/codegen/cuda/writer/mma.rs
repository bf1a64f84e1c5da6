//! `mma.sync` and `ldmatrix` in CUDA C (TVM's `PrintMMAAssembly`,
//! `PrintLoadMatrixAssembly` and its `mma_store`/`mma_fill` loops). After
//! `lower-warp-memory` each lane passes its own registers (a `local` array)
//! at an offset; each builtin becomes a call of a small device function
//! written as inline PTX, or, in the emulation, of the header's model of
//! the instruction (`tirc_cuda_emulation.h`), which has the same names.

use super::KernelWriter;
use crate::ir::builtin::MmaBuiltin;
use crate::ir::{Expr, ExprKind};
use crate::source::Span;

/// The device functions the calls use, as inline PTX (sm_80 and later).
const MMA_HELPERS: &str = r#"template <class T>
static __device__ __forceinline__ void tirc_ldmatrix_x4(T* local, const T* shared, int offset) {
  unsigned address = (unsigned)__cvta_generic_to_shared(shared + offset);
  unsigned* r = (unsigned*)local;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
}
template <class T>
static __device__ __forceinline__ void tirc_ldmatrix_x4_trans(T* local, const T* shared, int offset) {
  unsigned address = (unsigned)__cvta_generic_to_shared(shared + offset);
  unsigned* r = (unsigned*)local;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
}
static __device__ __forceinline__ void tirc_mma_m16n8k16(float* c, const half* a, const half* b) {
  const unsigned* ra = (const unsigned*)a;
  const unsigned* rb = (const unsigned*)b;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
}
static __device__ __forceinline__ void tirc_mma_m16n8k16(float* c, const nv_bfloat16* a, const nv_bfloat16* b) {
  const unsigned* ra = (const unsigned*)a;
  const unsigned* rb = (const unsigned*)b;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
}
static __device__ __forceinline__ void tirc_mma_m16n8k16(half* c, const half* a, const half* b) {
  const unsigned* ra = (const unsigned*)a;
  const unsigned* rb = (const unsigned*)b;
  unsigned* rc = (unsigned*)c;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
               : "+r"(rc[0]), "+r"(rc[1])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
}
template <class T>
static __device__ __forceinline__ void tirc_mma_fill(T* local, int elements) {
  for (int i = 0; i < elements; ++i) local[i] = T(0.0f);
}
// Lane l's element e of a 16x16 accumulator tile is row 8 * (e % 4 / 2) + l / 4,
// column 8 * (e / 4) + l % 4 * 2 + e % 2.
template <class T>
static __device__ __forceinline__ void tirc_mma_store_16x16(T* tile, const T* local, int stride) {
  int lane = threadIdx.x & 31;
  for (int e = 0; e < 8; ++e) {
    tile[(8 * (e % 4 / 2) + lane / 4) * stride + 8 * (e / 4) + lane % 4 * 2 + e % 2] = local[e];
  }
}
"#;

impl KernelWriter {
    /// `data + offset` for a lane's registers.
    fn registers(&mut self, data: &Expr, offset: &Expr, span: Span) -> String {
        let storage = data
            .as_var()
            .and_then(|var| self.data_names.get(var).cloned());
        let Some(storage) = storage else {
            self.unsupported(
                format!("a tensor-core operand `{data}` that is not an array of the kernel"),
                span,
            );
            return "0".to_string();
        };
        let offset = self.expr(offset);
        format!("({storage} + {})", super::strip_parens(&offset))
    }

    /// The constant string argument `i`, or `None`.
    fn string_arg(args: &[Expr], i: usize) -> Option<&str> {
        match args.get(i).map(Expr::kind) {
            Some(ExprKind::Str(text)) => Some(text.as_str()),
            _ => None,
        }
    }

    /// The C text of a tensor-core builtin call.
    pub(super) fn mma_call(&mut self, builtin: MmaBuiltin, args: &[Expr], span: Span) -> String {
        if !self.options.emulation {
            self.helpers.insert(MMA_HELPERS);
        }
        let name = builtin.tvm_name();
        if args.len() != builtin.arity() {
            self.unsupported(
                format!(
                    "`{name}` with {} arguments (it takes {})",
                    args.len(),
                    builtin.arity()
                ),
                span,
            );
            return "0".to_string();
        }
        match builtin {
            MmaBuiltin::Ldmatrix => {
                let trans = args[0].as_int();
                let shape_ok =
                    args[1].as_int() == Some(4) && Self::string_arg(args, 2) == Some(".b16");
                let Some(trans) = trans.filter(|_| shape_ok) else {
                    self.unsupported(
                        "`{name}` other than four 8x8 matrices of `.b16` with a constant transpose flag",
                        span,
                    );
                    return "0".to_string();
                };
                let local = self.registers(&args[3], &args[4], span);
                let shared = self.pointer(&args[5], span);
                let offset = self.expr(&args[6]);
                let function = if trans != 0 {
                    "tirc_ldmatrix_x4_trans"
                } else {
                    "tirc_ldmatrix_x4"
                };
                format!(
                    "{function}({local}, {shared}, {})",
                    super::strip_parens(&offset)
                )
            }
            MmaBuiltin::Mma => {
                let form: Vec<Option<&str>> = (0..6).map(|i| Self::string_arg(args, i)).collect();
                let supported =
                    MmaBuiltin::mma_form_supported(&form) && args[12].as_int() == Some(0);
                if !supported {
                    self.unsupported(
                        format!(
                            "`{name}` as {}: tirc writes {}, without saturation",
                            form.iter()
                                .map(|f| f.unwrap_or("?"))
                                .collect::<Vec<_>>()
                                .join(" "),
                            MmaBuiltin::MMA_FORMS
                        ),
                        span,
                    );
                    return "0".to_string();
                }
                let a = self.registers(&args[6], &args[7], span);
                let b = self.registers(&args[8], &args[9], span);
                let c = self.registers(&args[10], &args[11], span);
                format!("tirc_mma_m16n8k16({c}, {a}, {b})")
            }
            MmaBuiltin::Fill => {
                let local = self.registers(&args[1], &args[2], span);
                let elements = self.expr(&args[0]);
                format!("tirc_mma_fill({local}, {elements})")
            }
            MmaBuiltin::Store => {
                if args[0].as_int() != Some(16) || args[1].as_int() != Some(16) {
                    self.unsupported("`{name}` of a tile other than 16x16", span);
                    return "0".to_string();
                }
                let tile = self.pointer(&args[2], span);
                let local = self.registers(&args[3], &args[4], span);
                let stride = self.expr(&args[5]);
                format!(
                    "tirc_mma_store_16x16({tile}, {local}, {})",
                    super::strip_parens(&stride)
                )
            }
        }
    }
}
