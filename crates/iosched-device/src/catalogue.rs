//! What device models exist: each kind of spec, its form, its built-in presets and the keys it takes, from the
//! same constants the spec reader checks against (`iosched devices`).

use crate::hdd::params::Refinements;
use serde::Serialize;

/// One kind of device spec.
#[derive(Clone, Debug, Serialize)]
pub struct Kind {
    pub kind: &'static str,
    /// How a spec of this kind is written.
    pub form: &'static str,
    pub summary: &'static str,
    /// Built-in presets (`KIND:PRESET`); empty where the kind takes a file or none.
    pub presets: Vec<&'static str>,
    /// `key=value` settings after the name, with what each means.
    pub keys: Vec<(&'static str, &'static str)>,
}

/// Every kind of device spec.
pub fn kinds() -> Vec<Kind> {
    let hdd_keys = || {
        let mut keys = vec![
            ("queue_depth", "most requests queued at the drive"),
            ("write_cache", "on (a write completes once its data is in the buffer) or off (once it is on the media)"),
            ("conform", "disksim (DiskSim 4.0's rules) or refined (every refinement on, the default)"),
        ];
        keys.extend(Refinements::KEYS.iter().map(|(k, v)| (*k, *v)));
        keys
    };
    vec![
        Kind {
            kind: "simple",
            form: "simple[,key=value...]",
            summary: "a fixed cost per request plus a shared transfer channel; no seeks, no cache",
            presets: Vec::new(),
            keys: crate::spec::SIMPLE_KEYS.to_vec(),
        },
        Kind {
            kind: "hdd",
            form: "hdd:PRESET[,key=value...] or hdd:FILE.toml",
            summary: "a hard disk: zoned geometry, seek curve, rotation, segmented cache, command queue",
            presets: crate::hdd::preset::BUILT_IN.iter().map(|(name, _)| *name).collect(),
            keys: hdd_keys(),
        },
        Kind {
            kind: "disksim",
            form: "disksim:FILE.parv[,key=value...]",
            summary: "any drive DiskSim 4.0 describes, read from its .parv (and the .diskspecs, .model, .seek files); \
                      a disksim_simpledisk (fixed access time) takes queue_depth only",
            presets: Vec::new(),
            keys: hdd_keys(),
        },
        Kind {
            kind: "ssd",
            form: "ssd:PRESET[,key=value...]",
            summary: "a flash drive: channels, dies, planes, a page-mapped FTL with garbage collection, write cache",
            presets: crate::ssd::params::PRESETS.to_vec(),
            keys: crate::ssd::params::SSD_KEYS.to_vec(),
        },
        Kind {
            kind: "mqsim",
            form: "mqsim:FILE.xml[,Tag=value...]",
            summary: "a flash drive as MQSim's device file describes it; any of its tags can be set after the name",
            presets: Vec::new(),
            keys: Vec::new(),
        },
        Kind {
            kind: "volume",
            form: "volume:N:SPEC",
            summary: "N drives of SPEC joined end to end, each with its own instance of the policy",
            presets: Vec::new(),
            keys: Vec::new(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_and_key_listed_builds() {
        for kind in kinds() {
            for preset in &kind.presets {
                let spec = format!("{}:{preset}", kind.kind);
                crate::spec::parse_spec(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            }
        }
        let hdd = kinds().into_iter().find(|k| k.kind == "hdd").unwrap();
        for (key, _) in &hdd.keys {
            let value = match *key {
                "queue_depth" => "4",
                "conform" => "disksim",
                _ => "off",
            };
            crate::spec::parse_spec(&format!("hdd:sata7200,{key}={value}")).unwrap_or_else(|e| panic!("{key}: {e}"));
        }
    }
}
