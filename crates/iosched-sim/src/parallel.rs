//! Independent simulations on worker threads, results in input order whatever the threads did, so that a
//! batch of runs is as deterministic as each run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` of every item on up to `threads` threads; `done` hears of each success as it ends. The first error stops
/// new work from starting and is returned (the lowest-numbered one if several happen).
pub fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: &(dyn Fn(&T) -> Result<R, String> + Sync),
    done: &(dyn Fn(&R) + Sync),
) -> Result<Vec<R>, String> {
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Result<R, String>>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let outcome = f(item);
                if let Ok(r) = &outcome {
                    done(r);
                }
                let failed = outcome.is_err();
                slots.lock().expect("no worker panics while holding the lock")[i] = Some(outcome);
                if failed {
                    next.store(items.len(), Ordering::Relaxed);
                    break;
                }
            });
        }
    });
    let mut results = Vec::with_capacity(items.len());
    for slot in slots.into_inner().expect("the workers are done").into_iter().flatten() {
        results.push(slot?);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_and_the_first_error_wins() {
        let items: Vec<u64> = (0..100).collect();
        let squares = map_in_order(&items, 4, &|&x| Ok(x * x), &|_| {}).unwrap();
        assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        let failing = map_in_order(&items, 1, &|&x| if x >= 10 { Err(format!("item {x}")) } else { Ok(x) }, &|_| {});
        assert_eq!(failing.unwrap_err(), "item 10");
    }
}
