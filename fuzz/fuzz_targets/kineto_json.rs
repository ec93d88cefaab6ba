#![no_main]
//! Fuzz target: see `rooftrace_fuzz::entry::kineto_json`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rooftrace_fuzz::entry::kineto_json(data);
});
