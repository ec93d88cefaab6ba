//! A warning carried as data: what it is about, as a kind each module
//! defines (so code decides on the kind, never on the words), and one
//! sentence for people. Timelines, gap reports and step budgets carry
//! `Diagnostic<their kind>`; the roofline report has its own, with counts
//! and examples (`roofline::model::Diagnostic`).
//!
//! Serialised as the sentence alone: the JSON of `rooftrace gaps` and
//! `rooftrace budget` keeps its array of strings (`diagnostics: [string]`),
//! so no schema changed; the kinds are for the code that reads a report.

use serde::{Serialize, Serializer};
use std::fmt;

/// A warning: its kind and its sentence (which says the fix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic<K> {
    /// What it is about, with the figures code decides on.
    pub kind: K,
    /// One sentence for people, with the fix.
    pub message: String,
}

impl<K> Diagnostic<K> {
    /// A diagnostic of `kind` saying `message`.
    pub fn new(kind: K, message: impl Into<String>) -> Diagnostic<K> {
        Diagnostic {
            kind,
            message: message.into(),
        }
    }

    /// The same sentence under a wider kind (a timeline's diagnostic in a
    /// gap report, a gap report's in a budget).
    pub fn wrap<L>(self, f: impl FnOnce(K) -> L) -> Diagnostic<L> {
        Diagnostic {
            kind: f(self.kind),
            message: self.message,
        }
    }
}

impl<K> fmt::Display for Diagnostic<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<K> Serialize for Diagnostic<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Inner {
        Skipped(u64),
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Outer {
        Inner(Inner),
    }

    #[test]
    fn serialised_as_its_sentence_and_wrapped_with_its_kind() {
        let d = Diagnostic::new(Inner::Skipped(3), "T: skipped 3 rows");
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"T: skipped 3 rows\"");
        assert_eq!(d.to_string(), "T: skipped 3 rows");
        let w = d.wrap(Outer::Inner);
        assert_eq!(w.kind, Outer::Inner(Inner::Skipped(3)));
        assert_eq!(w.message, "T: skipped 3 rows");
    }
}
