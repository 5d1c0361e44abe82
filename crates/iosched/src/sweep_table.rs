//! A sweep's results as one table: a row per point, job and direction, written as Parquet (by `iosched sweep
//! --parquet`, by each `--shard` and by the Python package, which takes the same rows as Arrow IPC), and the
//! summary printed under a sweep, which groups the rows of a policy, its settings, a device and a job file over
//! the seeds. Each row carries its latency distribution (`lat_hist`: the HdrHistogram in the encoding of
//! HdrHistogram's interval logs, base64 of the V2 deflate serialisation), so that percentiles over seeds, jobs
//! or shards are computed from merged distributions, never averaged.
//!
//! Columns, in order: `point` (the point's index in the sweep's enumeration), `jobfile`, `device`, `policy`,
//! `settings` ("KEY=VALUE ..." of the grid's keys the policy has), one `set.KEY` per grid key (null where the
//! policy does not have it), `seed`, `job`, `direction` (read, write; trim where the job trims), `ios`, `bytes`,
//! `errors`, `runtime_s`, `iops`, `mb_per_s` (10^6 bytes), `lat_mean_us`, `lat_min_us`, `lat_max_us`,
//! `lat_p50_us`, `lat_p90_us`, `lat_p99_us`, `lat_p99_9_us` (completion latency: queue wait plus service),
//! `lat_hist`.

use arrow_array::builder::{Float64Builder, StringBuilder, UInt64Builder};
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use iosched_core::results::RunResult;
use std::path::Path;
use std::sync::Arc;

/// The percentiles the table has a column for, with the column's name.
pub const PERCENTILES: [(f64, &str); 4] =
    [(50.0, "lat_p50_us"), (90.0, "lat_p90_us"), (99.0, "lat_p99_us"), (99.9, "lat_p99_9_us")];

const DIRECTIONS: [&str; 3] = ["read", "write", "trim"];

/// One point of a sweep: a job file on a device under a policy with some settings, with one seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub index: u64,
    pub jobfile: String,
    pub device: String,
    pub policy: String,
    pub settings: Vec<(String, String)>,
    pub seed: u64,
}

impl Point {
    /// The settings as "KEY=VALUE KEY=VALUE".
    pub fn settings_text(&self) -> String {
        self.settings.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
    }
}

/// One row: one direction of one job of one point.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub point: u64,
    pub jobfile: String,
    pub device: String,
    pub policy: String,
    pub settings: String,
    /// The value of each grid key, in the sweep's order of keys.
    pub grid: Vec<Option<String>>,
    pub seed: u64,
    pub job: String,
    pub direction: String,
    pub ios: u64,
    pub bytes: u64,
    pub errors: u64,
    pub runtime_s: f64,
    pub iops: f64,
    pub mb_per_s: f64,
    pub lat_mean_us: f64,
    pub lat_min_us: f64,
    pub lat_max_us: f64,
    /// At [`PERCENTILES`].
    pub lat_percentiles_us: [f64; 4],
    pub lat_hist: String,
}

/// A latency histogram in the interval log's encoding.
pub fn encode_histogram(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new().serialize(histogram, &mut bytes).expect("serialising into memory cannot fail");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The histogram of [`encode_histogram`]'s text.
pub fn decode_histogram(text: &str) -> Result<Histogram<u64>, String> {
    let bytes =
        base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| format!("lat_hist is not base64: {e}"))?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| format!("lat_hist is not an HdrHistogram serialisation: {e:?}"))
}

/// The rows of one point's result: read and write of every job, and trim where the job trimmed.
pub fn rows(point: &Point, grid_keys: &[String], result: &RunResult) -> Vec<Row> {
    let grid: Vec<Option<String>> =
        grid_keys.iter().map(|k| point.settings.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone())).collect();
    let us = |ns: f64| ns / 1e3;
    let mut out = Vec::new();
    for job in &result.jobs {
        for (dir, name) in DIRECTIONS.iter().enumerate() {
            let d = &job.directions[dir];
            if dir == 2 && d.ios == 0 && d.errors == 0 {
                continue;
            }
            let lat = &d.total;
            out.push(Row {
                point: point.index,
                jobfile: point.jobfile.clone(),
                device: point.device.clone(),
                policy: point.policy.clone(),
                settings: point.settings_text(),
                grid: grid.clone(),
                seed: point.seed,
                job: job.name.clone(),
                direction: name.to_string(),
                ios: d.ios,
                bytes: d.bytes,
                errors: d.errors,
                runtime_s: job.runtime_ns as f64 / 1e9,
                iops: job.iops(dir),
                mb_per_s: job.bw_bytes_per_s(dir) / 1e6,
                lat_mean_us: us(lat.mean_ns),
                lat_min_us: us(lat.min_ns as f64),
                lat_max_us: us(lat.max_ns as f64),
                lat_percentiles_us: PERCENTILES.map(|(p, _)| us(lat.at(p).unwrap_or(0) as f64)),
                lat_hist: encode_histogram(&lat.histogram),
            });
        }
    }
    out
}

/// The table's schema for these grid keys.
pub fn schema(grid_keys: &[String]) -> Arc<Schema> {
    let text = |name: &str| Field::new(name, DataType::Utf8, false);
    let count = |name: &str| Field::new(name, DataType::UInt64, false);
    let real = |name: &str| Field::new(name, DataType::Float64, false);
    let mut fields = vec![count("point"), text("jobfile"), text("device"), text("policy"), text("settings")];
    fields.extend(grid_keys.iter().map(|k| Field::new(format!("set.{k}"), DataType::Utf8, true)));
    fields.extend([count("seed"), text("job"), text("direction"), count("ios"), count("bytes"), count("errors")]);
    fields.extend(["runtime_s", "iops", "mb_per_s", "lat_mean_us", "lat_min_us", "lat_max_us"].map(real));
    fields.extend(PERCENTILES.map(|(_, name)| real(name)));
    fields.push(text("lat_hist"));
    Arc::new(Schema::new(fields))
}

/// Rows as one Arrow record batch.
pub fn to_batch(grid_keys: &[String], rows: &[Row]) -> RecordBatch {
    let texts = |f: &dyn Fn(&Row) -> &str| -> ArrayRef {
        let mut b = StringBuilder::new();
        rows.iter().for_each(|r| b.append_value(f(r)));
        Arc::new(b.finish())
    };
    let counts = |f: &dyn Fn(&Row) -> u64| -> ArrayRef {
        let mut b = UInt64Builder::new();
        rows.iter().for_each(|r| b.append_value(f(r)));
        Arc::new(b.finish())
    };
    let reals = |f: &dyn Fn(&Row) -> f64| -> ArrayRef {
        let mut b = Float64Builder::new();
        rows.iter().for_each(|r| b.append_value(f(r)));
        Arc::new(b.finish())
    };
    let mut columns = vec![
        counts(&|r| r.point),
        texts(&|r| &r.jobfile),
        texts(&|r| &r.device),
        texts(&|r| &r.policy),
        texts(&|r| &r.settings),
    ];
    for i in 0..grid_keys.len() {
        let mut b = StringBuilder::new();
        rows.iter().for_each(|r| b.append_option(r.grid[i].as_deref()));
        columns.push(Arc::new(b.finish()));
    }
    columns.extend([
        counts(&|r| r.seed),
        texts(&|r| &r.job),
        texts(&|r| &r.direction),
        counts(&|r| r.ios),
        counts(&|r| r.bytes),
        counts(&|r| r.errors),
        reals(&|r| r.runtime_s),
        reals(&|r| r.iops),
        reals(&|r| r.mb_per_s),
        reals(&|r| r.lat_mean_us),
        reals(&|r| r.lat_min_us),
        reals(&|r| r.lat_max_us),
    ]);
    for i in 0..PERCENTILES.len() {
        columns.push(reals(&|r| r.lat_percentiles_us[i]));
    }
    columns.push(texts(&|r| &r.lat_hist));
    RecordBatch::try_new(schema(grid_keys), columns).expect("the columns match the schema")
}

/// The rows of a record batch of this table, and its grid keys.
pub fn from_batch(batch: &RecordBatch) -> Result<(Vec<String>, Vec<Row>), String> {
    let found = batch.schema();
    let grid_keys: Vec<String> =
        found.fields().iter().filter_map(|f| f.name().strip_prefix("set.").map(str::to_string)).collect();
    if found.fields() != schema(&grid_keys).fields() {
        return Err("its columns are not those of an iosched sweep table".to_string());
    }
    let column = |name: &str| batch.column_by_name(name).expect("the schema was checked");
    let texts = |name: &str| column(name).as_any().downcast_ref::<StringArray>().expect("checked").clone();
    let counts = |name: &str| column(name).as_any().downcast_ref::<UInt64Array>().expect("checked").clone();
    let reals = |name: &str| column(name).as_any().downcast_ref::<Float64Array>().expect("checked").clone();
    let (point, jobfile, device, policy, settings) =
        (counts("point"), texts("jobfile"), texts("device"), texts("policy"), texts("settings"));
    let grid: Vec<StringArray> = grid_keys.iter().map(|k| texts(&format!("set.{k}"))).collect();
    let (seed, job, direction) = (counts("seed"), texts("job"), texts("direction"));
    let (ios, bytes, errors) = (counts("ios"), counts("bytes"), counts("errors"));
    let (runtime_s, iops, mb_per_s) = (reals("runtime_s"), reals("iops"), reals("mb_per_s"));
    let (mean, min, max) = (reals("lat_mean_us"), reals("lat_min_us"), reals("lat_max_us"));
    let percentiles: Vec<Float64Array> = PERCENTILES.iter().map(|(_, name)| reals(name)).collect();
    let hist = texts("lat_hist");
    let rows = (0..batch.num_rows())
        .map(|i| Row {
            point: point.value(i),
            jobfile: jobfile.value(i).to_string(),
            device: device.value(i).to_string(),
            policy: policy.value(i).to_string(),
            settings: settings.value(i).to_string(),
            grid: grid.iter().map(|g| (!g.is_null(i)).then(|| g.value(i).to_string())).collect(),
            seed: seed.value(i),
            job: job.value(i).to_string(),
            direction: direction.value(i).to_string(),
            ios: ios.value(i),
            bytes: bytes.value(i),
            errors: errors.value(i),
            runtime_s: runtime_s.value(i),
            iops: iops.value(i),
            mb_per_s: mb_per_s.value(i),
            lat_mean_us: mean.value(i),
            lat_min_us: min.value(i),
            lat_max_us: max.value(i),
            lat_percentiles_us: std::array::from_fn(|p| percentiles[p].value(i)),
            lat_hist: hist.value(i).to_string(),
        })
        .collect();
    Ok((grid_keys, rows))
}

/// Rows as an Arrow IPC stream (what the Python package reads with `pyarrow.ipc.open_stream`).
pub fn to_ipc(grid_keys: &[String], rows: &[Row]) -> Vec<u8> {
    let batch = to_batch(grid_keys, rows);
    let mut bytes = Vec::new();
    let mut writer =
        arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &batch.schema()).expect("writing into memory");
    writer.write(&batch).expect("writing into memory");
    writer.finish().expect("writing into memory");
    drop(writer);
    bytes
}

/// Write rows as a Parquet file (to a temporary name first, renamed into place once complete, so that an
/// interrupted write never leaves half a file under the name).
pub fn write_parquet(path: &Path, grid_keys: &[String], rows: &[Row]) -> Result<(), String> {
    let batch = to_batch(grid_keys, rows);
    let partial = path.with_extension("parquet.partial");
    let file = std::fs::File::create(&partial).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    // Snappy, as pyarrow writes by default: the files the Python package and the command line write are alike.
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(properties))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    writer.write(&batch).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    writer.close().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::fs::rename(&partial, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The rows of a Parquet file of this table, and its grid keys.
pub fn read_parquet(path: &Path) -> Result<(Vec<String>, Vec<Row>), String> {
    let context = |e: String| format!("{}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(|e| context(format!("cannot read: {e}")))?;
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| context(format!("not a Parquet file: {e}")))?;
    let mut keys: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| context(format!("cannot read: {e}")))?;
        let (grid_keys, more) = from_batch(&batch).map_err(context)?;
        keys = Some(grid_keys);
        rows.extend(more);
    }
    Ok((keys.unwrap_or_default(), rows))
}

/// One line of the summary: a job file on a device under a policy with settings, over every seed.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    pub jobfile: String,
    pub device: String,
    pub policy: String,
    pub settings: String,
    pub seeds: u64,
    /// Summed over the jobs, averaged over the seeds: read, write.
    pub mb_per_s: [f64; 2],
    /// Of every request of the direction, every job and every seed (their histograms merged): read, write.
    pub p99_ms: [f64; 2],
}

/// The summary of rows, in the order of their first point.
pub fn summarise(rows: &[Row]) -> Result<Vec<SummaryRow>, String> {
    struct Group {
        key: (String, String, String, String),
        seeds: Vec<u64>,
        bytes_per_s: [f64; 2],
        histograms: [Histogram<u64>; 2],
        max_ns: [u64; 2],
    }
    let mut groups: Vec<Group> = Vec::new();
    for r in rows {
        let key = (r.jobfile.clone(), r.device.clone(), r.policy.clone(), r.settings.clone());
        let at = match groups.iter().position(|g| g.key == key) {
            Some(i) => i,
            None => {
                let empty = || Histogram::new(3).expect("3 significant digits is valid");
                groups.push(Group {
                    key,
                    seeds: Vec::new(),
                    bytes_per_s: [0.0; 2],
                    histograms: [empty(), empty()],
                    max_ns: [0; 2],
                });
                groups.len() - 1
            }
        };
        let g = &mut groups[at];
        if !g.seeds.contains(&r.seed) {
            g.seeds.push(r.seed);
        }
        let Some(dir) = ["read", "write"].iter().position(|d| *d == r.direction) else { continue };
        g.bytes_per_s[dir] += r.mb_per_s;
        let h = decode_histogram(&r.lat_hist).map_err(|e| format!("point {} job {}: {e}", r.point, r.job))?;
        g.histograms[dir].add(&h).map_err(|e| format!("point {}: cannot merge histograms: {e:?}", r.point))?;
        g.max_ns[dir] = g.max_ns[dir].max((r.lat_max_us * 1e3).round() as u64);
    }
    Ok(groups
        .into_iter()
        .map(|g| {
            let seeds = g.seeds.len() as u64;
            let p99 = |dir: usize| {
                let h = &g.histograms[dir];
                if h.is_empty() {
                    0.0
                } else {
                    h.value_at_quantile(0.99).min(g.max_ns[dir]) as f64 / 1e6
                }
            };
            SummaryRow {
                jobfile: g.key.0,
                device: g.key.1,
                policy: g.key.2,
                settings: g.key.3,
                seeds,
                mb_per_s: g.bytes_per_s.map(|b| b / seeds as f64),
                p99_ms: [p99(0), p99(1)],
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_survive_the_interval_log_encoding() {
        let mut h = Histogram::<u64>::new(3).unwrap();
        for v in [120, 5_000, 5_001, 1_000_000, 73_000_000] {
            h.record(v).unwrap();
        }
        let back = decode_histogram(&encode_histogram(&h)).unwrap();
        assert_eq!(back, h);
        assert!(decode_histogram("not base64!").is_err());
        assert!(decode_histogram("AAAA").is_err());
    }
}
