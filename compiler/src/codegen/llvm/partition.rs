//! Compiling one module on several threads, as C compilers' parallel code
//! generation units do. The defined functions fall into groups that call
//! one another only inside the group (a kernel with the helpers it calls; a
//! parallel loop's lambda with its body); each thread takes some groups,
//! reads the module's bitcode into a context of its own, turns every other
//! function into a declaration, optimises and writes an object. A lambda,
//! which other groups only pass by address, becomes a hidden symbol that
//! the linker joins, so the shared library exports what it did before.

use super::context::{CodegenError, CodegenResult};
use super::emit::machine_code;
use super::optimize::optimize_module;
use super::raw;
use super::remarks::RemarkSink;
use super::target::TargetSpec;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::targets::FileType;
use inkwell::GlobalVisibility;
use std::collections::{HashMap, HashSet};

/// The fewest instructions worth a thread of their own.
pub const MIN_UNIT_INSTRUCTIONS: usize = 64;

/// How a module's functions are shared out between threads.
#[derive(Debug, PartialEq, Eq)]
pub struct Partition {
    /// The defined functions each thread compiles, by name.
    pub units: Vec<Vec<String>>,
    /// Local functions other units refer to by address: exported from the
    /// unit that defines them with hidden visibility.
    pub shared: HashSet<String>,
}

/// Splits `module`'s defined functions into at most `threads` units of
/// about the same instruction count, keeping every function with the
/// functions it calls or is called by. `None` when one unit would do:
/// one thread, one group, a unit under [`MIN_UNIT_INSTRUCTIONS`], or a
/// global variable only one object may define.
pub fn partition_module(module: &Module<'_>, threads: usize) -> Option<Partition> {
    if threads < 2 || exports_a_global(module) {
        return None;
    }
    let defined: Vec<_> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .collect();
    let index: HashMap<String, usize> = defined
        .iter()
        .enumerate()
        .map(|(i, f)| (f.get_name().to_string_lossy().into_owned(), i))
        .collect();
    let mut groups = DisjointSets::new(defined.len());
    let mut shared = HashSet::new();
    for (callee, function) in defined.iter().enumerate() {
        let uses = raw::function_uses(*function);
        for caller in &uses.callers {
            if let Some(&caller) = index.get(caller) {
                groups.join(caller, callee);
            }
        }
        if uses.address_taken && function.get_linkage() != Linkage::External {
            shared.insert(function.get_name().to_string_lossy().into_owned());
        }
    }
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for function in 0..defined.len() {
        members
            .entry(groups.root(function))
            .or_default()
            .push(function);
    }
    if members.len() < 2 {
        return None;
    }
    // The largest groups first, each to the unit with the fewest instructions so far.
    let size = |function: usize| instruction_count(defined[function]);
    let mut groups: Vec<(usize, Vec<usize>)> = members
        .into_values()
        .map(|functions| (functions.iter().map(|&f| size(f)).sum(), functions))
        .collect();
    groups.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut units: Vec<(usize, Vec<String>)> = vec![(0, Vec::new()); threads.min(groups.len())];
    for (group_size, functions) in groups {
        let lightest = units
            .iter_mut()
            .min_by_key(|(unit_size, _)| *unit_size)
            .expect("at least two units");
        lightest.0 += group_size;
        lightest.1.extend(
            functions
                .iter()
                .map(|&f| defined[f].get_name().to_string_lossy().into_owned()),
        );
    }
    // Setting a thread up (reading the module, a target machine) costs
    // about what compiling a small unit does.
    if units
        .iter()
        .any(|(unit_size, _)| *unit_size < MIN_UNIT_INSTRUCTIONS)
    {
        return None;
    }
    Some(Partition {
        units: units.into_iter().map(|(_, names)| names).collect(),
        shared,
    })
}

/// Optimises and compiles every unit of `partition` on a thread of its own;
/// the objects come back in unit order.
pub fn compile_units(
    module: &Module<'_>,
    partition: &Partition,
    target: &TargetSpec,
    remarks: &RemarkSink,
) -> CodegenResult<Vec<Vec<u8>>> {
    let bitcode = module.write_bitcode_to_memory();
    let bitcode = bitcode.as_slice();
    std::thread::scope(|scope| {
        let workers: Vec<_> = partition
            .units
            .iter()
            .map(|unit| {
                scope.spawn(move || compile_unit(bitcode, partition, unit, target, remarks))
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker.join().unwrap_or_else(|_| {
                    Err(CodegenError::internal(
                        "a code generation thread stopped unexpectedly",
                    ))
                })
            })
            .collect()
    })
}

/// One unit: the module read again, the functions of other units made
/// declarations, optimised and compiled.
fn compile_unit(
    bitcode: &[u8],
    partition: &Partition,
    unit: &[String],
    target: &TargetSpec,
    remarks: &RemarkSink,
) -> CodegenResult<Vec<u8>> {
    let context = Context::create();
    let _capture = remarks.capture(&context);
    let buffer = MemoryBuffer::create_from_memory_range(bitcode, "tirc");
    let module = Module::parse_bitcode_from_buffer(&buffer, &context).map_err(|e| {
        CodegenError::internal(format!(
            "cannot read the module back: {}",
            e.to_string_lossy()
        ))
    })?;
    let mine: HashSet<&str> = unit.iter().map(String::as_str).collect();
    // The units hold every defined function between them.
    for name in partition.units.iter().flatten() {
        let Some(function) = module.get_function(name) else {
            continue;
        };
        if !mine.contains(name.as_str()) {
            let declaration =
                module.add_function(&format!("{name}.declaration"), function.get_type(), None);
            function.replace_all_uses_with(declaration);
            // SAFETY: nothing refers to the definition any more.
            unsafe { function.delete() };
            declaration.as_global_value().set_name(name);
        }
        let function = module
            .get_function(name)
            .ok_or_else(|| CodegenError::internal(format!("function `{name}` disappeared")))?;
        if partition.shared.contains(name) {
            function.set_linkage(Linkage::External);
            function
                .as_global_value()
                .set_visibility(GlobalVisibility::Hidden);
        }
    }
    let machine = target.target_machine().map_err(CodegenError::internal)?;
    optimize_module(&module, &machine, target.opt_level)?;
    machine_code(&module, &machine, FileType::Object)
}

/// True when the module defines a global variable other objects could see,
/// which only one object may define.
fn exports_a_global(module: &Module<'_>) -> bool {
    module.get_globals().any(|global| {
        global.get_initializer().is_some()
            && !matches!(global.get_linkage(), Linkage::Internal | Linkage::Private)
    })
}

fn instruction_count(function: inkwell::values::FunctionValue<'_>) -> usize {
    function
        .get_basic_blocks()
        .iter()
        .map(|block| block.get_instructions().count())
        .sum()
}

/// Union-find over function indices.
struct DisjointSets {
    parent: Vec<usize>,
}

impl DisjointSets {
    fn new(count: usize) -> DisjointSets {
        DisjointSets {
            parent: (0..count).collect(),
        }
    }

    fn root(&mut self, mut item: usize) -> usize {
        while self.parent[item] != item {
            self.parent[item] = self.parent[self.parent[item]];
            item = self.parent[item];
        }
        item
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.parent[a.max(b)] = a.min(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::llvm::{generate_unoptimized_module, CodegenOptions};
    use crate::source::SourceMap;

    /// Two parallel loops of a few statements each: three groups (the
    /// kernel, and each loop's lambda with its body).
    const TWO_PARALLEL_LOOPS: &str = r#"
@T.prim_func
def main(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32"), C: T.Buffer((4096,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.parallel(64):
        for j in range(16):
            B[i * 64 + j * 4] = A[i * 64 + j * 4] * T.float32(2)
            B[i * 64 + j * 4 + 1] = A[i * 64 + j * 4 + 1] * T.float32(3)
            B[i * 64 + j * 4 + 2] = A[i * 64 + j * 4 + 2] * T.float32(4)
            B[i * 64 + j * 4 + 3] = A[i * 64 + j * 4 + 3] * T.float32(5)
    for i in T.parallel(64):
        for j in range(16):
            C[i * 64 + j * 4] = B[i * 64 + j * 4] + T.float32(1)
            C[i * 64 + j * 4 + 1] = B[i * 64 + j * 4 + 1] + T.float32(2)
            C[i * 64 + j * 4 + 2] = B[i * 64 + j * 4 + 2] + T.float32(3)
            C[i * 64 + j * 4 + 3] = B[i * 64 + j * 4 + 3] + T.float32(4)
"#;

    fn with_partition(threads: usize, check: impl FnOnce(&Module<'_>, Option<Partition>)) {
        let mut sources = SourceMap::default();
        let (program, diagnostics) =
            crate::frontend::parse_program(&mut sources, "test.tir", TWO_PARALLEL_LOOPS);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let module = program.expect("the program parses").module;
        let context = Context::create();
        let generated =
            generate_unoptimized_module(&context, &module, &CodegenOptions::host()).unwrap();
        check(
            &generated.module,
            partition_module(&generated.module, threads),
        );
    }

    #[test]
    fn lambdas_stay_with_their_bodies_and_are_shared() {
        with_partition(2, |module, partition| {
            let partition = partition.expect("two units");
            assert_eq!(partition.units.len(), 2);
            let unit_of = |name: &str| {
                partition
                    .units
                    .iter()
                    .position(|unit| unit.iter().any(|n| n == name))
                    .unwrap_or_else(|| panic!("`{name}` is in no unit: {partition:?}"))
            };
            for loop_number in [1, 2] {
                let body = format!("main_compute_{loop_number}");
                assert_eq!(unit_of(&body), unit_of(&format!("{body}_lambda")));
            }
            assert_ne!(unit_of("main_compute_1"), unit_of("main_compute_2"));
            let defined = module
                .get_functions()
                .filter(|f| f.count_basic_blocks() > 0)
                .count();
            assert_eq!(partition.units.iter().map(Vec::len).sum::<usize>(), defined);
            let mut shared: Vec<_> = partition.shared.iter().cloned().collect();
            shared.sort();
            assert_eq!(shared, ["main_compute_1_lambda", "main_compute_2_lambda"]);
        });
    }

    #[test]
    fn one_thread_makes_one_unit() {
        with_partition(1, |_, partition| assert_eq!(partition, None));
    }

    #[test]
    fn each_unit_compiles_to_an_object_defining_its_functions() {
        with_partition(2, |module, partition| {
            let partition = partition.expect("two units");
            let objects = compile_units(
                module,
                &partition,
                &TargetSpec::host(),
                &RemarkSink::default(),
            )
            .unwrap();
            assert_eq!(objects.len(), 2);
            // An ELF object names the symbols it defines or refers to; the
            // kernel and the lambdas are kept (bodies may be inlined away).
            for (unit, object) in partition.units.iter().zip(&objects) {
                assert!(object.starts_with(b"\x7fELF"));
                let text = String::from_utf8_lossy(object);
                for name in unit {
                    if name == "main" || partition.shared.contains(name) {
                        assert!(text.contains(name.as_str()), "{name} is not in its object");
                    }
                }
            }
        });
    }
}
