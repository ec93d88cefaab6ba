#![no_main]
//! Fuzz target: see `rooftrace_fuzz::entry::ncu_csv`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rooftrace_fuzz::entry::ncu_csv(data);
});
