//! The few LLVM operations reached through the C API directly: opcode-generic
//! arithmetic, casts and comparisons (one call serves scalars and vectors,
//! where inkwell has one method per value kind), typed GEPs and loads that
//! read the same on every LLVM version, self-referential loop metadata,
//! which inkwell cannot build, the use list of a function, and LLVM's
//! process-wide command-line options.

use super::llvm_sys::core::{
    LLVMBuildBinOp, LLVMBuildCast, LLVMBuildFCmp, LLVMBuildICmp, LLVMBuildInBoundsGEP2,
    LLVMBuildLoad2, LLVMBuildNSWAdd, LLVMBuildNSWMul, LLVMBuildNSWSub, LLVMGetBasicBlockParent,
    LLVMGetCalledValue, LLVMGetFirstUse, LLVMGetInstructionParent, LLVMGetMDKindIDInContext,
    LLVMGetNextUse, LLVMGetUser, LLVMGetValueName2, LLVMIsACallInst, LLVMMDNodeInContext2,
    LLVMMDStringInContext2, LLVMMetadataAsValue, LLVMSetMetadata, LLVMValueAsMetadata,
};
use super::llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use super::llvm_sys::prelude::{LLVMMetadataRef, LLVMValueRef};
use super::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::types::{AsTypeRef, BasicTypeEnum};
use inkwell::values::{
    AsValueRef, BasicValueEnum, FunctionValue, InstructionValue, IntValue, PointerValue,
};

pub use super::llvm_sys::LLVMRealPredicate as FloatPredicate;
pub use super::llvm_sys::{LLVMIntPredicate as IntPredicate, LLVMOpcode as Opcode};

/// An empty value name, for instructions LLVM may number itself.
const NO_NAME: &[u8] = b"\0";

fn wrap<'ctx>(value: LLVMValueRef) -> BasicValueEnum<'ctx> {
    // SAFETY: every caller passes a value just built by LLVM in the context
    // of `'ctx`, of a first-class (basic) type.
    unsafe { BasicValueEnum::new(value) }
}

/// `lhs <opcode> rhs` for scalars or vectors of matching type.
pub fn binary<'ctx>(
    builder: &Builder<'ctx>,
    opcode: LLVMOpcode,
    lhs: BasicValueEnum<'ctx>,
    rhs: BasicValueEnum<'ctx>,
) -> BasicValueEnum<'ctx> {
    // SAFETY: both operands come from the same context; LLVM checks types
    // when the module is verified.
    wrap(unsafe {
        LLVMBuildBinOp(
            builder.as_mut_ptr(),
            opcode,
            lhs.as_value_ref(),
            rhs.as_value_ref(),
            NO_NAME.as_ptr().cast(),
        )
    })
}

/// Like [`binary`], marking the operation `nsw` (no signed wrap), as TVM
/// does for signed integer arithmetic of 32 bits and more: index
/// expressions then sign-extend for free and loops vectorize.
pub fn binary_no_signed_wrap<'ctx>(
    builder: &Builder<'ctx>,
    opcode: LLVMOpcode,
    lhs: BasicValueEnum<'ctx>,
    rhs: BasicValueEnum<'ctx>,
) -> BasicValueEnum<'ctx> {
    let build = match opcode {
        LLVMOpcode::LLVMAdd => LLVMBuildNSWAdd,
        LLVMOpcode::LLVMSub => LLVMBuildNSWSub,
        LLVMOpcode::LLVMMul => LLVMBuildNSWMul,
        _ => return binary(builder, opcode, lhs, rhs),
    };
    // SAFETY: both operands come from the same context.
    wrap(unsafe {
        build(
            builder.as_mut_ptr(),
            lhs.as_value_ref(),
            rhs.as_value_ref(),
            NO_NAME.as_ptr().cast(),
        )
    })
}

/// A conversion of `value` to `target` by `opcode` (`SExt`, `FPToSI`, ...).
pub fn cast<'ctx>(
    builder: &Builder<'ctx>,
    opcode: LLVMOpcode,
    value: BasicValueEnum<'ctx>,
    target: BasicTypeEnum<'ctx>,
) -> BasicValueEnum<'ctx> {
    // SAFETY: value and type come from the same context.
    wrap(unsafe {
        LLVMBuildCast(
            builder.as_mut_ptr(),
            opcode,
            value.as_value_ref(),
            target.as_type_ref(),
            NO_NAME.as_ptr().cast(),
        )
    })
}

/// An integer comparison of scalars or vectors.
pub fn int_compare<'ctx>(
    builder: &Builder<'ctx>,
    predicate: LLVMIntPredicate,
    lhs: BasicValueEnum<'ctx>,
    rhs: BasicValueEnum<'ctx>,
) -> BasicValueEnum<'ctx> {
    // SAFETY: operands from the same context.
    wrap(unsafe {
        LLVMBuildICmp(
            builder.as_mut_ptr(),
            predicate,
            lhs.as_value_ref(),
            rhs.as_value_ref(),
            NO_NAME.as_ptr().cast(),
        )
    })
}

/// A float comparison of scalars or vectors.
pub fn float_compare<'ctx>(
    builder: &Builder<'ctx>,
    predicate: LLVMRealPredicate,
    lhs: BasicValueEnum<'ctx>,
    rhs: BasicValueEnum<'ctx>,
) -> BasicValueEnum<'ctx> {
    // SAFETY: operands from the same context.
    wrap(unsafe {
        LLVMBuildFCmp(
            builder.as_mut_ptr(),
            predicate,
            lhs.as_value_ref(),
            rhs.as_value_ref(),
            NO_NAME.as_ptr().cast(),
        )
    })
}

/// `&pointer[index]` for a pointer to `element` values, `inbounds` as TVM
/// emits it (buffers are never indexed outside their storage).
pub fn element_address<'ctx>(
    builder: &Builder<'ctx>,
    element: BasicTypeEnum<'ctx>,
    pointer: PointerValue<'ctx>,
    index: IntValue<'ctx>,
) -> PointerValue<'ctx> {
    let mut indices = [index.as_value_ref()];
    // SAFETY: the pointer points to `element` values (callers cast it first).
    unsafe {
        PointerValue::new(LLVMBuildInBoundsGEP2(
            builder.as_mut_ptr(),
            element.as_type_ref(),
            pointer.as_value_ref(),
            indices.as_mut_ptr(),
            1,
            NO_NAME.as_ptr().cast(),
        ))
    }
}

/// A load of one `element` from `pointer` with the given alignment.
pub fn load<'ctx>(
    builder: &Builder<'ctx>,
    element: BasicTypeEnum<'ctx>,
    pointer: PointerValue<'ctx>,
    alignment: u32,
) -> BasicValueEnum<'ctx> {
    // SAFETY: the pointer points to `element` values.
    let value = unsafe {
        LLVMBuildLoad2(
            builder.as_mut_ptr(),
            element.as_type_ref(),
            pointer.as_value_ref(),
            NO_NAME.as_ptr().cast(),
        )
    };
    // SAFETY: a load instruction takes an alignment.
    unsafe { super::llvm_sys::core::LLVMSetAlignment(value, alignment) };
    wrap(value)
}

/// Attaches `!llvm.loop` metadata to the branch that closes a loop: the
/// node names itself first (as LLVM requires of loop ids), then one
/// `!{!"key"}` or `!{!"key", i32 value}` per property.
pub fn set_loop_metadata<'ctx>(
    context: &'ctx Context,
    latch_branch: InstructionValue<'ctx>,
    properties: &[(&str, Option<u32>)],
) {
    let raw_context = context.raw();
    // SAFETY: all metadata is created in `context`; the temporary node is
    // replaced (and freed by LLVM) before anything else can see it.
    unsafe {
        let mut empty: [LLVMMetadataRef; 0] = [];
        let placeholder = LLVMTemporaryMDNode(raw_context, empty.as_mut_ptr(), 0);
        let mut operands: Vec<LLVMMetadataRef> = vec![placeholder];
        for (key, value) in properties {
            let name = LLVMMDStringInContext2(raw_context, key.as_ptr().cast(), key.len());
            let mut property = vec![name];
            if let Some(value) = value {
                let constant = context.i32_type().const_int(u64::from(*value), false);
                property.push(LLVMValueAsMetadata(constant.as_value_ref()));
            }
            operands.push(LLVMMDNodeInContext2(
                raw_context,
                property.as_mut_ptr(),
                property.len(),
            ));
        }
        let loop_id = LLVMMDNodeInContext2(raw_context, operands.as_mut_ptr(), operands.len());
        LLVMMetadataReplaceAllUsesWith(placeholder, loop_id);
        let kind = LLVMGetMDKindIDInContext(raw_context, b"llvm.loop".as_ptr().cast(), 9);
        LLVMSetMetadata(
            latch_branch.as_value_ref(),
            kind,
            LLVMMetadataAsValue(raw_context, loop_id),
        );
    }
}

/// How a function is used: the functions that call it directly, by name,
/// and whether anything else refers to it (a pointer passed or stored).
pub struct FunctionUses {
    /// The names of the functions with a direct call to it.
    pub callers: Vec<String>,
    /// True when some use is not a direct call.
    pub address_taken: bool,
}

/// The uses of `function` in its module.
pub fn function_uses(function: FunctionValue<'_>) -> FunctionUses {
    let value = function.as_value_ref();
    let mut uses = FunctionUses {
        callers: Vec::new(),
        address_taken: false,
    };
    // SAFETY: walks the use list of a live function; users are live values
    // of the same module, and a call in a function has a parent block.
    unsafe {
        let mut current = LLVMGetFirstUse(value);
        while !current.is_null() {
            let call = LLVMIsACallInst(LLVMGetUser(current));
            let block = if call.is_null() || LLVMGetCalledValue(call) != value {
                std::ptr::null_mut()
            } else {
                LLVMGetInstructionParent(call)
            };
            if block.is_null() {
                uses.address_taken = true;
            } else {
                let caller = LLVMGetBasicBlockParent(block);
                let mut length = 0;
                let name = LLVMGetValueName2(caller, &mut length);
                let name = std::slice::from_raw_parts(name.cast::<u8>(), length);
                uses.callers
                    .push(String::from_utf8_lossy(name).into_owned());
            }
            current = LLVMGetNextUse(current);
        }
    }
    uses
}

/// Sets LLVM's process-wide command-line options (`-name=value`), as `opt`
/// and `llc` read them. Call once, before any pass runs.
pub fn set_llvm_options(options: &[&str]) {
    let arguments: Vec<std::ffi::CString> = std::iter::once("tirc")
        .chain(options.iter().copied())
        .map(|option| std::ffi::CString::new(option).expect("an option without NUL bytes"))
        .collect();
    let pointers: Vec<*const std::os::raw::c_char> =
        arguments.iter().map(|argument| argument.as_ptr()).collect();
    // SAFETY: `pointers` holds `arguments.len()` NUL-terminated strings that
    // outlive the call; LLVM copies what it keeps.
    unsafe {
        super::llvm_sys::support::LLVMParseCommandLineOptions(
            pointers.len() as i32,
            pointers.as_ptr(),
            c"tirc".as_ptr(),
        );
    }
}
