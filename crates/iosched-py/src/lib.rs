//! `iosched._native`: the command line's commands for the Python package (python/iosched), run in this process
//! with the GIL released, so that Python threads run simulations in parallel. Python builds the arguments; the
//! results are what the command line prints (its JSON), or a sweep's table as Arrow IPC.

use iosched::error::CliError;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Bad input as ValueError (the command line's exit status 2), a failed run as RuntimeError (status 1).
fn to_python(e: CliError) -> PyErr {
    match e {
        CliError::BadInput(m) => PyValueError::new_err(m),
        CliError::Failed(m) => PyRuntimeError::new_err(m),
        CliError::Interrupted(m) => PyKeyboardInterrupt::new_err(m),
    }
}

/// Run `iosched ARGS...` (sim, experiment, validate, policies, sweep, fio-options) and return its standard
/// output.
#[pyfunction]
fn run(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    py.detach(|| iosched::run_captured(&args)).map_err(to_python)
}

/// A sweep given as `iosched sweep`'s arguments: with no indices, its plan as JSON (grid keys and points);
/// else the table rows of those points as an Arrow IPC stream, simulated on `threads` threads.
#[pyfunction]
#[pyo3(signature = (args, indices, threads = 1))]
fn sweep<'py>(py: Python<'py>, args: Vec<String>, indices: Vec<u64>, threads: usize) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py.detach(|| iosched::commands::sweep::embedded(&args, &indices, threads.max(1))).map_err(to_python)?;
    Ok(PyBytes::new(py, &bytes))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
