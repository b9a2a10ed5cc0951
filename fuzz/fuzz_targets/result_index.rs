#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| memdir::internals::fuzz::result_index(data));
