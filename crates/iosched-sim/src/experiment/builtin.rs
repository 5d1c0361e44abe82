//! The experiments of the seed documents, built into the binary from the repository's `experiments/` folder
//! (the same files a user copies and edits), so `iosched experiment NAME` works from anywhere.

/// A built-in experiment: its name and its files (name, text).
pub struct BuiltIn {
    pub name: &'static str,
    pub files: &'static [(&'static str, &'static str)],
}

macro_rules! files {
    ($dir:literal: $($file:literal),+ $(,)?) => {
        &[$(($file, include_str!(concat!("../../../../experiments/", $dir, "/", $file)))),+]
    };
}

pub const BUILT_IN: &[BuiltIn] = &[
    BuiltIn {
        name: "geom-sched",
        files: files!("geom-sched": "experiment.toml", "dd-read.fio", "dd-write.fio", "cvs.fio"),
    },
    BuiltIn {
        name: "netflix-fill",
        files: files!("netflix-fill": "experiment.toml", "reads.fio", "fill.fio", "bulk-fill.fio", "expire.fio"),
    },
    BuiltIn {
        name: "bfq-startup",
        files: files!(
            "bfq-startup": "experiment.toml",
            "app.fio",
            "seq-readers.fio",
            "seq-writers.fio",
            "random-mix.fio"
        ),
    },
    BuiltIn { name: "dbload", files: files!("dbload": "experiment.toml", "import.fio") },
];

/// The built-in experiment of this name.
pub fn find(name: &str) -> Option<&'static BuiltIn> {
    BUILT_IN.iter().find(|b| b.name == name)
}

/// The names of the built-in experiments.
pub fn names() -> Vec<&'static str> {
    BUILT_IN.iter().map(|b| b.name).collect()
}
