//! The policies by name. Registering a policy here is all it takes for the command line to offer it and for the
//! property tests (crates/iosched-sim/tests/policy_properties.rs) to check it.

use crate::policies;
use crate::policy::Policy;
use crate::tunable::TunableError;
use thiserror::Error;

/// One registered policy.
pub struct PolicyInfo {
    pub name: &'static str,
    /// One line: what it does.
    pub summary: &'static str,
    /// Where the algorithm comes from.
    pub source: &'static str,
    /// A new instance with default tunables.
    pub create: fn() -> Box<dyn Policy>,
    /// Tunable settings the property tests run in addition to the defaults (for example a bounded variant of a
    /// policy whose default is unbounded).
    pub test_variants: &'static [&'static [(&'static str, &'static str)]],
}

static POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "noop",
        summary: "one FIFO: requests reach the device in arrival order",
        source: "FreeBSD GEOM default; Linux block/noop-iosched.c",
        create: || Box::new(policies::noop::Noop::new()),
        test_variants: &[],
    },
    PolicyInfo {
        name: "elevator",
        summary: "one-way elevator (C-LOOK) sorted by offset, with an optional batch limit",
        source: "FreeBSD sys/kern/subr_disk.c bioq_disksort, bioq_batchsize",
        create: || Box::new(policies::elevator::Elevator::new()),
        test_variants: &[&[("batch", "1")], &[("batch", "16")]],
    },
    PolicyInfo {
        name: "deadline",
        summary: "mq-deadline: offset-ordered batches per direction, read preference, per-request deadlines",
        source: "Linux block/mq-deadline.c",
        create: || Box::new(policies::deadline::Deadline::new()),
        test_variants: &[
            &[("fifo_batch", "1"), ("writes_starved", "0")],
            &[("async_depth", "1"), ("read_expire", "1")],
        ],
    },
    PolicyInfo {
        name: "rr",
        summary: "geom_sched round robin: per-flow queues, byte and time quanta, anticipation",
        source: "FreeBSD sys/geom/sched/gs_rr.c",
        create: || Box::new(policies::rr::RoundRobin::new()),
        test_variants: &[&[("queue_depth", "8"), ("quantum_kb", "16")], &[("w_anticipate", "0"), ("wait_ms", "1")]],
    },
    PolicyInfo {
        name: "as",
        summary: "anticipatory: deadline batches, a back-seeking elevator, and waiting for a reader's next read",
        source: "Linux 2.6 block/as-iosched.c",
        create: || Box::new(policies::anticipatory::Anticipatory::new()),
        test_variants: &[&[("antic_expire", "0")], &[("read_expire", "1"), ("write_batch_expire", "1")]],
    },
    PolicyInfo {
        name: "cam",
        summary: "Netflix CAM: read, write and trim queues, read bias, per-class limiters, read-latency steering",
        source: "FreeBSD sys/cam/cam_iosched.c",
        create: || Box::new(policies::cam::Cam::new()),
        test_variants: &[
            &[("read_bias", "100"), ("write.limiter", "queue_depth"), ("write.max", "1"), ("write.current", "1")],
            &[
                ("write.limiter", "iops"),
                ("write.current", "50"),
                ("read.limiter", "bandwidth"),
                ("read.current", "2000"),
                ("trim_goal", "4"),
                ("trim_ticks", "10"),
                ("sort_io_queue", "1"),
            ],
            &[
                ("control.type", "read_latency"),
                ("control.steer_interval", "2000"),
                ("write.limiter", "bandwidth"),
                ("write.current", "5000"),
                ("quanta", "1000"),
                ("trim_goal", "3"),
                ("read_bias", "2"),
                ("trim.limiter", "queue_depth"),
            ],
        ],
    },
    PolicyInfo {
        name: "cfq",
        summary: "CFQ: per-flow time slices scaled by level, on service trees by class and workload, with idling",
        source: "Linux block/cfq-iosched.c",
        create: || Box::new(policies::cfq::Cfq::new()),
        test_variants: &[
            &[("low_latency", "0"), ("quantum", "1"), ("slice_async_rq", "1")],
            &[("slice_sync", "1"), ("slice_async", "1"), ("fifo_expire_sync", "1"), ("target_latency", "1")],
        ],
    },
    PolicyInfo {
        name: "bfq",
        summary: "BFQ: per-flow budgets scheduled by B-WF2Q+ with weights, idling, and low-latency weight raising",
        source: "Linux block/bfq-iosched.c, bfq-wf2q.c",
        create: || Box::new(policies::bfq::Bfq::new()),
        test_variants: &[
            &[("low_latency", "0"), ("slice_idle", "0"), ("max_budget", "64")],
            &[("strict_guarantees", "1"), ("weight.1", "1000"), ("timeout_sync", "5"), ("fifo_expire_sync", "1")],
        ],
    },
    PolicyInfo {
        name: "kyber",
        summary: "Kyber: per-domain FIFOs with token-limited depths retuned every 100 ms toward latency targets",
        source: "Linux block/kyber-iosched.c",
        create: || Box::new(policies::kyber::Kyber::new()),
        test_variants: &[&[("read_lat_nsec", "1000"), ("write_lat_nsec", "1000")]],
    },
];

#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown policy '{name}'{hint} (known: {known})")]
pub struct UnknownPolicy {
    pub name: String,
    pub known: String,
    /// "; did you mean 'X'?" when a known name is near.
    pub hint: String,
}

/// Every registered policy, in a stable order.
pub fn policies() -> &'static [PolicyInfo] {
    POLICIES
}

/// The registry entry for `name`.
pub fn info(name: &str) -> Result<&'static PolicyInfo, UnknownPolicy> {
    POLICIES.iter().find(|p| p.name == name).ok_or_else(|| UnknownPolicy {
        name: name.to_string(),
        known: POLICIES.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
        hint: crate::suggest::did_you_mean(name, POLICIES.iter().map(|p| p.name)),
    })
}

/// A new instance of the policy called `name`, with default tunables.
pub fn create(name: &str) -> Result<Box<dyn Policy>, UnknownPolicy> {
    info(name).map(|p| (p.create)())
}

/// Why a policy could not be made as asked.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PolicyConfigError {
    #[error(transparent)]
    Unknown(#[from] UnknownPolicy),
    #[error(transparent)]
    Tunable(#[from] TunableError),
}

/// A new instance of the policy called `name` with `(tunable, value)` settings applied in order: what the command
/// line's `--policy NAME --set k=v`, experiments and tests all build.
pub fn create_with<'a>(
    name: &str,
    settings: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Box<dyn Policy>, PolicyConfigError> {
    let mut policy = create(name)?;
    for (key, value) in settings {
        policy.set_tunable(key, value)?;
    }
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_instances_and_defaults_read_back() {
        for info in policies() {
            let policy = (info.create)();
            assert_eq!(policy.name(), info.name);
            for spec in policy.tunables() {
                assert_eq!(policy.tunable(spec.name).unwrap(), spec.default, "{}.{}", info.name, spec.name);
                assert!(!spec.description.is_empty());
            }
        }
    }

    #[test]
    fn create_with_applies_settings_in_order_and_names_what_is_wrong() {
        let p = create_with("cam", [("write.max", "1"), ("write.current", "1")]).unwrap();
        assert_eq!(p.tunable("write.current").unwrap(), "1");
        let err = create_with("cam", [("write.curent", "1")]).err().unwrap().to_string();
        assert!(err.contains("'write.curent'"), "{err}");
        assert!(matches!(create_with("cfqq", []), Err(PolicyConfigError::Unknown(_))));
    }

    #[test]
    fn unknown_policy_names_the_known_ones() {
        let err = create("cfqq").err().unwrap().to_string();
        assert!(err.contains("'cfqq'") && err.contains("noop"), "{err}");
    }
}
