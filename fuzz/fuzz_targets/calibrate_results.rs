#![no_main]
//! Fuzz target: see `rooftrace_fuzz::entry::calibrate_results`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    rooftrace_fuzz::entry::calibrate_results(data);
});
