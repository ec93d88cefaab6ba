//! Timeline -> gap report.
