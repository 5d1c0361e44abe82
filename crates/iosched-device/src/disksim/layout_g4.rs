//! A `dm_layout_g4` block (DiskSim's diskmodel/layout_g4_load.c: `TP`, `IDX`, `Slips`, `Remaps`) read into the
//! track-by-track layout of hdd/track_table.rs. Every value is checked where it is written: an error names the
//! file, the line and what was expected.

use super::params::{Block, Loc, ParamError, Spanned, Value};
use crate::hdd::layout::{Layout, Pbn};
use crate::hdd::track_table::{Child, IndexEntry, Remap, TrackPattern, TrackTable};

const LAYOUT_G4_KEYS: &[&str] = &["TP", "IDX", "Slips", "Remaps"];

fn err(loc: &Loc, message: String) -> ParamError {
    ParamError::new(loc.clone(), message)
}

/// The integer `item` holds, within `min..=max`.
fn int(item: &Spanned, what: &str, min: i64, max: i64) -> Result<i64, ParamError> {
    match &item.value {
        Value::Number(n) if n.fract() == 0.0 && *n >= min as f64 && *n <= max as f64 => Ok(*n as i64),
        other => {
            Err(err(&item.loc, format!("{what}: expected an integer from {min} to {max}, found {}", other.describe())))
        }
    }
}

fn number(item: &Spanned, what: &str) -> Result<f64, ParamError> {
    match &item.value {
        Value::Number(n) => Ok(*n),
        other => Err(err(&item.loc, format!("{what}: expected a number, found {}", other.describe()))),
    }
}

/// `items` in rows of `width`, the last row whole.
fn rows<'a>(
    items: &'a [Spanned],
    width: usize,
    key: &str,
    row: &str,
) -> Result<std::slice::Chunks<'a, Spanned>, ParamError> {
    if let Some(last) = items.last().filter(|_| items.len() % width != 0) {
        let found = items.len();
        return Err(err(&last.loc, format!("{key}: expected rows of {width} values ({row}), found {found} values")));
    }
    Ok(items.chunks(width))
}

const I32: i64 = i32::MAX as i64;

/// The layout a `dm_layout_g4` block describes, for a drive of `blocks` LBNs ("Block count").
pub fn layout(
    lay: &Block,
    surfaces: u32,
    cylinders: u32,
    blocks: u64,
    warnings: &mut Vec<String>,
) -> Result<Layout, ParamError> {
    for (key, loc) in lay.unknown_keys(LAYOUT_G4_KEYS) {
        warnings.push(format!("{loc}: unknown key '{key}' in {}; ignored", lay.display_name()));
    }
    let mut patterns = Vec::new();
    for row in rows(lay.list("TP")?, 3, "TP", "first sector, last sector, sectors per track")? {
        let spt = int(&row[2], "TP sectors per track", 1, 1 << 20)? as u32;
        patterns.push(TrackPattern {
            low: int(&row[0], "TP first sector", 0, I32)? as u32,
            high: int(&row[1], "TP last sector", 0, I32)? as u32,
            spt,
        });
    }
    let mut nodes = Vec::new();
    for node in lay.list("IDX")? {
        let Value::List(items) = &node.value else {
            return Err(err(
                &node.loc,
                format!("IDX: expected a list per index node, found {}", node.value.describe()),
            ));
        };
        let mut entries = Vec::new();
        let mut i = 0;
        while i < items.len() {
            // lbn, cyl, off, len, cyllen, alen, runlen, cylrunlen, TRACK|IDX, child[, head]
            if items.len() - i < 10 {
                return Err(err(
                    &items[i].loc,
                    "IDX entry: expected lbn, cyl, off, len, cyllen, alen, runlen, cylrunlen, TRACK or IDX, child \
                     (and a head after TRACK)"
                        .into(),
                ));
            }
            let e = &items[i..];
            let kind = match &e[8].value {
                Value::Word(w) if w == "TRACK" || w == "IDX" => w.clone(),
                other => {
                    return Err(err(&e[8].loc, format!("IDX entry: expected TRACK or IDX, found {}", other.describe())))
                }
            };
            let child_no = int(&e[9], "IDX entry child", 0, I32)? as usize;
            let child = if kind == "TRACK" {
                let head_item = e
                    .get(10)
                    .ok_or_else(|| err(&e[9].loc, "IDX entry: expected a head after the TRACK child".into()))?;
                let head = int(head_item, "IDX entry head", 0, surfaces.saturating_sub(1) as i64)? as u32;
                i += 11;
                Child::Track { pattern: child_no, head }
            } else {
                i += 10;
                Child::Index(child_no)
            };
            entries.push(IndexEntry {
                lbn: int(&e[0], "IDX entry lbn", 0, I32)? as u64,
                cyl: int(&e[1], "IDX entry cyl", -I32, I32)?,
                off_turns: number(&e[2], "IDX entry off")?,
                len: int(&e[3], "IDX entry len", 1, I32)? as u64,
                cyllen: int(&e[4], "IDX entry cyllen", -I32, I32)?,
                alen_turns: number(&e[5], "IDX entry alen")?,
                runlen: int(&e[6], "IDX entry runlen", 1, I32)? as u64,
                cylrunlen: int(&e[7], "IDX entry cylrunlen", -I32, I32)?,
                child,
            });
        }
        nodes.push(entries);
    }
    let mut slips = Vec::new();
    for row in rows(lay.list("Slips")?, 2, "Slips", "physical LBN, sectors slipped")? {
        slips.push((int(&row[0], "Slips LBN", 0, I32)? as u64, int(&row[1], "Slips count", 0, I32)? as u64));
    }
    let mut remaps = Vec::new();
    if lay.get("Remaps").is_some() {
        for row in rows(lay.list("Remaps")?, 6, "Remaps", "LBN, count, cylinder, head, sector, sectors per track")? {
            remaps.push(Remap {
                lbn: int(&row[0], "Remaps LBN", 0, I32)? as u64,
                count: int(&row[1], "Remaps count", 1, I32)? as u64,
                dest: Pbn {
                    cylinder: int(&row[2], "Remaps cylinder", 0, I32)? as u32,
                    head: int(&row[3], "Remaps head", 0, surfaces.saturating_sub(1) as i64)? as u32,
                    sector: int(&row[4], "Remaps sector", 0, I32)? as u32,
                },
                spt: int(&row[5], "Remaps sectors per track", 1, 1 << 20)? as u32,
            });
        }
    }
    let table = TrackTable::new(blocks, &patterns, &nodes, &slips, remaps).map_err(|m| err(&lay.loc, m))?;
    let reached = table.cylinders();
    if reached > cylinders {
        warnings.push(format!(
            "{}: the layout's tracks reach cylinder {} but 'Number of cylinders' = {cylinders}; the layout's {reached} \
             cylinders are used, as DiskSim does",
            lay.loc,
            reached - 1
        ));
    }
    Ok(Layout::from_tracks(surfaces, cylinders.max(reached), table))
}
