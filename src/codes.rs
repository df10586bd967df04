//! Rule codes, a stable contract: configs, `# noqa` comments and CI scripts name them.
//!
//! The table of rules is written once, here, one line per rule (`CODE: family::module`, the
//! module under `rules/` holding its `RULE` and `check`), in code order. This module makes the
//! [`Code`] enum of it; `rules` makes the registry of the same lines. So the core types
//! (diagnostics, fixes, settings, suppressions) name codes without depending on the rules.

use std::fmt;
use std::str::FromStr;

/// Hands the rule table to the macro `$then`, expanded where it is called.
macro_rules! rule_table {
    ($then:ident) => {
        $then! {
            DL101: fork::cuda_in_forked_worker,
            DL102: fork::cuda_before_fork,
            DL103: fork::implicit_start_method,
            DL104: fork::spawn_without_main_guard,
            DL105: fork::unpicklable_worker_callable,
            DL106: fork::pin_memory_cuda_data,
            DL107: fork::interactive_main_under_spawn,
            DL201: resources::num_workers_exceeds_cpus,
            DL202: resources::pin_memory_without_shm_check,
            DL203: resources::small_shared_memory,
            DL204: resources::file_system_sharing_strategy,
            DL205: resources::cpu_count_workers,
            DL206: resources::python_objects_in_dataset,
            DL301: args::prefetch_factor_without_workers,
            DL302: args::persistent_workers_without_workers,
            DL303: args::timeout_without_workers,
            DL304: args::negative_num_workers,
            DL305: args::context_without_workers,
            DL306: args::sampler_option_conflict,
            DL307: args::invalid_start_method,
        }
    };
}
pub(crate) use rule_table;

/// The [`Code`] enum and its strings, from the table.
macro_rules! declare_codes {
    ($($code:ident: $($module:ident)::+,)+) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($code,)+
        }

        impl Code {
            /// Every code, in order.
            pub const ALL: &[Code] = &[$(Code::$code,)+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code),)+
                }
            }
        }
    };
}

rule_table!(declare_codes);

impl Code {
    pub fn all() -> impl Iterator<Item = Code> {
        Code::ALL.iter().copied()
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Code {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Code::all()
            .find(|c| c.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown rule code `{s}`"))
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_back_from_their_strings() {
        for (i, code) in Code::all().enumerate() {
            assert_eq!(code as usize, i);
            assert_eq!(code.as_str().parse::<Code>(), Ok(code));
            assert_eq!(code.as_str().to_ascii_lowercase().parse::<Code>(), Ok(code));
        }
        assert!("DL999".parse::<Code>().is_err());
    }
}
