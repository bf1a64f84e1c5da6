//! Printed names of variables and buffers.
//!
//! As in TVM's printer, a name must be unique among the names in scope: a
//! nested loop whose variable is also called `i` prints as `i_1`, while two
//! sibling loops may both print `i`. Names that are not Python identifiers
//! (`threadIdx.x`) have their invalid characters replaced by `_`.

use crate::ir::identity::{BufferMap, IdentityState, VarMap};
use crate::ir::{Buffer, Var};
use std::borrow::Cow;
use std::collections::HashSet;
use std::rc::Rc;

/// The names defined so far, by scope. A name is stored once and shared by
/// the tables that refer to it: the printer defines a name per loop and block
/// iterator, and printing after every schedule step does that thousands of times.
pub struct Names {
    /// Names are short, so the identity hasher's byte-wise fallback is cheaper than SipHash.
    live: HashSet<Rc<str>, IdentityState>,
    vars: VarMap<Rc<str>>,
    buffers: BufferMap<Rc<str>>,
    /// What the open scopes defined, innermost last, undone when its scope
    /// closes. One stack for all scopes: a scope per loop and block body
    /// would otherwise allocate its own lists.
    defined: Vec<Definition>,
    /// Where each open scope's definitions start in `defined`.
    scope_starts: Vec<usize>,
}

/// One definition a scope made: a name taken, or a variable or buffer
/// named, with the printed name it shadowed.
enum Definition {
    Name(Rc<str>),
    Var(Var, Option<Rc<str>>),
    Buffer(Buffer, Option<Rc<str>>),
}

/// A name hint made into a Python identifier.
pub fn sanitize(name: &str) -> String {
    sanitized(name).into_owned()
}

/// [`sanitize`], borrowing a hint that is already an identifier.
pub(crate) fn sanitized(name: &str) -> Cow<'_, str> {
    // Bytes first: hints are nearly always ASCII, and decoding characters costs more.
    let valid_char = |c: char| c.is_alphanumeric() || c == '_';
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && (name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            || name.chars().all(valid_char));
    if valid {
        return Cow::Borrowed(name);
    }
    let mut out: String = name
        .chars()
        .map(|c| if valid_char(c) { c } else { '_' })
        .collect();
    if out.is_empty() {
        out.push('v');
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    Cow::Owned(out)
}

// `Default` is `new`: a table always has its outermost scope open.
impl Default for Names {
    fn default() -> Names {
        Names::new()
    }
}

impl Names {
    /// An empty name table with one open scope.
    pub fn new() -> Names {
        // Sized for a typical function, so printing one does not rehash the tables as it grows.
        const TYPICAL_NAMES: usize = 64;
        Names {
            live: HashSet::with_capacity_and_hasher(TYPICAL_NAMES, IdentityState::default()),
            vars: VarMap::with_capacity_and_hasher(TYPICAL_NAMES, IdentityState::default()),
            buffers: BufferMap::with_capacity_and_hasher(TYPICAL_NAMES, IdentityState::default()),
            defined: Vec::with_capacity(3 * TYPICAL_NAMES),
            scope_starts: vec![0],
        }
    }

    /// Opens a nested scope.
    pub fn enter(&mut self) {
        self.scope_starts.push(self.defined.len());
    }

    /// Closes the innermost scope; its names become free for reuse and its
    /// variables and buffers undefined, so the tables stay as small as the scope.
    pub fn exit(&mut self) {
        let Some(start) = self.scope_starts.pop() else {
            return;
        };
        // In reverse, so a variable defined twice in the scope gets back its outer name.
        for definition in self.defined.drain(start..).rev() {
            match definition {
                Definition::Name(name) => {
                    self.live.remove(&name);
                }
                Definition::Var(var, Some(shadowed)) => {
                    self.vars.insert(var, shadowed);
                }
                Definition::Var(var, None) => {
                    self.vars.remove(&var);
                }
                Definition::Buffer(buffer, Some(shadowed)) => {
                    self.buffers.insert(buffer, shadowed);
                }
                Definition::Buffer(buffer, None) => {
                    self.buffers.remove(&buffer);
                }
            }
        }
    }

    fn fresh(&mut self, hint: &str) -> Rc<str> {
        let base = sanitized(hint);
        // Inserting is the test: a name almost always is free, and is then hashed once.
        let mut name: Rc<str> = Rc::from(base.as_ref());
        let mut counter = 1;
        while !self.live.insert(name.clone()) {
            name = format!("{base}_{counter}").into();
            counter += 1;
        }
        self.defined.push(Definition::Name(name.clone()));
        name
    }

    /// Defines a variable in the innermost scope and returns its printed name.
    pub fn define_var(&mut self, var: &Var) -> Rc<str> {
        let name = self.fresh(var.name());
        let printed = name.clone();
        let shadowed = self.vars.insert(var.clone(), name);
        self.defined.push(Definition::Var(var.clone(), shadowed));
        printed
    }

    /// Defines a buffer in the innermost scope and returns its printed name.
    pub fn define_buffer(&mut self, buffer: &Buffer) -> Rc<str> {
        let name = self.fresh(buffer.name());
        let printed = name.clone();
        let shadowed = self.buffers.insert(buffer.clone(), name);
        self.defined
            .push(Definition::Buffer(buffer.clone(), shadowed));
        printed
    }

    /// Gives a variable a printed form without reserving a name (`A.data`),
    /// until the innermost scope closes: a kernel split from a host function
    /// shares the host's data variables, and must not print the host's names.
    pub fn alias_var(&mut self, var: &Var, text: impl Into<Rc<str>>) {
        let shadowed = self.vars.insert(var.clone(), text.into());
        self.defined.push(Definition::Var(var.clone(), shadowed));
    }

    /// The printed name of a defined variable.
    pub fn var(&self, var: &Var) -> Option<&str> {
        self.vars.get(var).map(|name| &**name)
    }

    /// The printed name of a defined buffer.
    pub fn buffer(&self, buffer: &Buffer) -> Option<&str> {
        self.buffers.get(buffer).map(|name| &**name)
    }

    /// True when the variable has a printed name.
    pub fn is_defined(&self, var: &Var) -> bool {
        self.vars.contains_key(var)
    }

    /// True when the buffer has a printed name.
    pub fn is_buffer_defined(&self, buffer: &Buffer) -> bool {
        self.buffers.contains_key(buffer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::DataType;
    use crate::source::Span;

    #[test]
    fn nested_clash_gets_suffix_and_siblings_reuse() {
        let mut names = Names::new();
        let (a, b, c) = (
            Var::new("i", DataType::int32(), Span::NONE),
            Var::new("i", DataType::int32(), Span::NONE),
            Var::new("i", DataType::int32(), Span::NONE),
        );
        names.enter();
        assert_eq!(&*names.define_var(&a), "i");
        names.enter();
        assert_eq!(&*names.define_var(&b), "i_1");
        names.exit();
        names.exit();
        names.enter();
        assert_eq!(&*names.define_var(&c), "i");
    }

    #[test]
    fn closing_a_scope_forgets_its_definitions_and_restores_shadowed_names() {
        let mut names = Names::new();
        let (outer, inner) = (
            Var::new("i", DataType::int32(), Span::NONE),
            Var::new("j", DataType::int32(), Span::NONE),
        );
        names.enter();
        names.define_var(&outer);
        names.enter();
        names.define_var(&inner);
        // The same variable defined again inside: it gets a fresh name there.
        assert_eq!(&*names.define_var(&outer), "i_1");
        names.exit();
        assert_eq!(names.var(&outer), Some("i"));
        assert_eq!(names.var(&inner), None);
        names.exit();
        assert_eq!(names.var(&outer), None);
    }

    #[test]
    fn invalid_characters_become_underscores() {
        assert_eq!(sanitize("threadIdx.x"), "threadIdx_x");
        assert_eq!(sanitize("0a"), "_0a");
    }
}
