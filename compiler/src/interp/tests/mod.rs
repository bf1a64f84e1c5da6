//! Tests of the interpreter on hand-built IR.
