//! The proxy's configuration loader (`Config::from_toml`) on any text: never panics; every
//! error names a key (or a byte position) and a problem; a configuration it accepts renders
//! (`to_toml`, what `/config` serves) to text that loads back equal.
#![no_main]

use dubbo_proxy::config::Config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::from_toml(text) {
        Ok(config) => {
            let again = Config::from_toml(&config.to_toml()).expect("rendered config loads");
            assert_eq!(again, config);
        }
        Err(e) => {
            assert!(!e.problems.is_empty());
            for (key, problem) in &e.problems {
                assert!(
                    !key.is_empty() && !problem.is_empty(),
                    "{key:?}: {problem:?}"
                );
            }
        }
    }
});
