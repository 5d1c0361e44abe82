//! Issue 4, done-when 1: uniform random 4 KiB overwrites at steady state give the write amplification of the
//! Lambert-W formula within 10 % at over-provisioning 0.07, 0.28 and 1.0, for greedy cleaning. Greedy with
//! finite blocks lands a little under the formula; the test prints where.

use iosched_device::ssd::ftl::{lambert_w_write_amplification, Ftl, FtlGeometry, GcPolicy};

fn steady_state_wa(op: f64, policy: GcPolicy) -> f64 {
    let (pools, blocks_per_pool, pages_per_block) = (4u32, 1024u32, 64u32);
    let physical = (pools * blocks_per_pool * pages_per_block) as f64;
    let g = FtlGeometry {
        pools,
        blocks_per_pool,
        pages_per_block,
        logical_pages: (physical / (1.0 + op)).round() as u64,
        gc_free_blocks: 2,
        gc_policy: policy,
    };
    let mut ftl = Ftl::new(g).unwrap();
    ftl.fill_sequential();
    // Three drive-writes of random overwrites reach steady state; measure over the next two.
    ftl.random_overwrites(3 * g.logical_pages, 1);
    ftl.reset_counters();
    ftl.random_overwrites(2 * g.logical_pages, 2);
    ftl.counters().write_amplification()
}

#[test]
fn greedy_write_amplification_follows_the_lambert_w_formula() {
    // (op, the WA reached, its noise): the regression bound is the figure reached plus twice its noise, measured
    // as the spread (max - min) of the WA over the overwrites' seeds 1-8 (7.232-7.246, 2.4204-2.4236,
    // 1.2405-1.2428). The requirement is the formula within 10 %.
    for (op, reached, noise) in [(0.07, 7.2446, 0.0145), (0.28, 2.4233, 0.0033), (1.0, 1.2421, 0.0023)] {
        let formula = lambert_w_write_amplification(op);
        let got = steady_state_wa(op, GcPolicy::Greedy);
        let ratio = got / formula;
        eprintln!("op {op}: WA {got:.3}, formula {formula:.3}, ratio {ratio:.3}");
        assert!((ratio - 1.0).abs() <= 0.10, "op {op}: WA {got:.3} vs formula {formula:.3}");
        assert!((got - reached).abs() <= 2.0 * noise, "op {op}: WA {got:.4}, {reached} was reached");
    }
}

#[test]
fn cost_benefit_cleaning_also_runs_at_steady_state() {
    // Under uniform random writes cost-benefit has nothing to exploit; it must still work and stay near greedy.
    let greedy = steady_state_wa(0.28, GcPolicy::Greedy);
    let cb = steady_state_wa(0.28, GcPolicy::CostBenefit);
    eprintln!("op 0.28: greedy {greedy:.3}, cost-benefit {cb:.3}");
    assert!(cb >= greedy * 0.95 && cb <= greedy * 1.5, "cost-benefit {cb} vs greedy {greedy}");
}
