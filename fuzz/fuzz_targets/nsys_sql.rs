#![no_main]
//! Fuzz target: see `rooftrace_fuzz::entry::nsys_sql`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rooftrace_fuzz::entry::nsys_sql(data);
});
