//! Running an experiment: every (policy, case) pair is one simulation; they run on worker threads, and the
//! outcomes come back in the description's order whatever the threads did, so the results are deterministic.

use super::description::{Experiment, Measure};
use super::measure::{measure, RunMeasures};
use crate::{simulate, SimConfig, Workload};

/// One run's outcome.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub policy: String,
    pub case: String,
    pub measures: RunMeasures,
}

/// Every run's outcome, in the order policies then cases.
#[derive(Clone, Debug)]
pub struct ExperimentOutcome {
    pub runs: Vec<RunOutcome>,
}

/// The pairs to run: every selected policy on every case, except that bfq-startup's idle case runs once, under
/// the first selected policy (with nothing beside the application, the policy has no choice to make).
pub fn plan(exp: &Experiment, policies: &[usize]) -> Vec<(usize, usize)> {
    let idle = match &exp.description.measure {
        Measure::BfqStartup { idle_case, .. } => Some(idle_case.as_str()),
        _ => None,
    };
    let mut pairs = Vec::new();
    for (n, &p) in policies.iter().enumerate() {
        for (c, case) in exp.cases.iter().enumerate() {
            if Some(case.entry.name.as_str()) == idle && n > 0 {
                continue;
            }
            pairs.push((p, c));
        }
    }
    pairs
}

/// Run `pairs` (from [`plan`]) on `threads` threads; `progress` hears of each run as it ends (in any order).
pub fn run(
    exp: &Experiment,
    pairs: &[(usize, usize)],
    threads: usize,
    progress: &(dyn Fn(&RunOutcome) + Sync),
) -> Result<ExperimentOutcome, String> {
    let runs = crate::parallel::map_in_order(pairs, threads, &|&(p, c)| run_one(exp, p, c), progress)?;
    Ok(ExperimentOutcome { runs })
}

fn run_one(exp: &Experiment, p: usize, c: usize) -> Result<RunOutcome, String> {
    let entry = &exp.description.policies[p];
    let case = &exp.cases[c];
    let context = |e: String| format!("{} / {} / {}: {e}", exp.name, entry.label, case.entry.name);
    let policy = iosched_core::registry::create_with(entry.policy_name(), entry.settings())
        .map_err(|e| context(e.to_string()))?;
    let (device, _warnings) = iosched_device::load_spec(&exp.description.device).map_err(|e| context(e.to_string()))?;
    let workload = Workload::from_jobs(&case.jobs);
    let config = SimConfig { seed: exp.description.seed, record_log: true };
    let out = simulate(&workload, policy, device, Vec::new(), &config).map_err(|e| context(e.to_string()))?;
    Ok(RunOutcome {
        policy: entry.label.clone(),
        case: case.entry.name.clone(),
        measures: measure(&exp.description.measure, &workload, &out),
    })
}
