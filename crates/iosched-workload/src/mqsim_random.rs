//! MQSim's synthetic flows' draws, so that a synthetic flow of an MQSim workload file issues the very requests
//! MQSim's flow issues (same directions, addresses and sizes, in the same order), and the two simulators can be
//! compared request by request rather than as two draws of the same distribution.
//!
//! Source: host/IO_Flow_Synthetic.cpp (which generator draws what), with MQSim's generator
//! ([`iosched_core::mqsim_rng::MqsimRandom`]).

pub use iosched_core::mqsim_rng::MqsimRandom;

/// What a synthetic flow of MQSim's draws for each request, as its IO_Flow_Synthetic does: the direction from
/// one generator (read when a uniform draw is at most the read share), the address from another (uniform over
/// the flow's sectors, back to the first when the request would run past the last, then aligned down), a fixed
/// size or, for NORMAL sizes, one drawn from a generator of its own. Streaming flows start at a random address and continue from there; hot/cold flows draw the region
/// and then the address from two more generators; a BANDWIDTH flow draws the time to its next request from
/// one more (iosched-sim's job source asks for it).
#[derive(Clone, Debug)]
pub struct MqsimFlowDraws {
    spec: MqsimDraws,
    direction: MqsimRandom,
    address: MqsimRandom,
    next_streaming_sector: u64,
    /// RANDOM_HOTCOLD: the generators of the address and of the region, and the hot region's last sector.
    hot_cold: Option<(MqsimRandom, MqsimRandom, u64)>,
    /// NORMAL sizes: their generator and standard deviation in sectors.
    size: Option<(MqsimRandom, f64)>,
    /// BANDWIDTH: the generator of the times between requests.
    interval: Option<MqsimRandom>,
}

/// A synthetic flow's settings that MQSim's draws depend on (sectors of 512 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MqsimDraws {
    /// The flow's Seed: the direction generator takes it, the address generator the next number.
    pub seed: u32,
    pub read_share: f64,
    /// The flow's first and last sector on the device, the last as MQSim computes it (its logical space
    /// partitioned over the flows, times the working set).
    pub first_sector: u64,
    pub last_sector: u64,
    pub size_sectors: u64,
    /// Alignment of addresses (Generated_Aligned_Addresses and Address_Alignment_Unit), if aligned.
    pub align_sectors: Option<u64>,
    pub streaming: bool,
    /// RANDOM_HOTCOLD: the hot region's share of the range (Percentage_of_Hot_Region / 100).
    pub hot_share: Option<f64>,
    /// NORMAL request sizes: their standard deviation in sectors (MQSim's Variance_Request_Size, which its
    /// generator takes as the standard deviation); `size_sectors` is their mean.
    pub normal_size_sd_sectors: Option<u64>,
    /// A BANDWIDTH generator's mean time between requests (MQSim's Average_inter_arrival_time_nano_sec).
    pub mean_interarrival_ns: Option<u64>,
}

/// One request as MQSim draws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MqsimRequest {
    pub read: bool,
    pub sector: u64,
    pub sectors: u64,
}

impl MqsimFlowDraws {
    pub fn new(spec: MqsimDraws) -> MqsimFlowDraws {
        let direction = MqsimRandom::new(spec.seed as i32);
        let mut address = MqsimRandom::new(spec.seed.wrapping_add(1) as i32);
        let mut next_streaming_sector = 0;
        if spec.streaming {
            next_streaming_sector = address.uniform_u64(spec.first_sector, spec.last_sector);
            if let Some(align) = spec.align_sectors.filter(|&a| a > 0) {
                next_streaming_sector -= next_streaming_sector % align;
            }
        }
        // MQSim seeds the hot/cold generators with the next two numbers after the flow's two.
        let hot_cold = spec.hot_share.map(|share| {
            let hot_end = spec.first_sector + ((spec.last_sector - spec.first_sector) as f64 * share) as u64;
            (
                MqsimRandom::new(spec.seed.wrapping_add(2) as i32),
                MqsimRandom::new(spec.seed.wrapping_add(3) as i32),
                hot_end,
            )
        });
        // Then a seed for NORMAL sizes, then one for a BANDWIDTH flow's times (IO_Flow_Synthetic's constructor).
        let size_seed = spec.seed.wrapping_add(2 + 2 * hot_cold.is_some() as u32);
        let size = spec.normal_size_sd_sectors.map(|sd| (MqsimRandom::new(size_seed as i32), sd as f64));
        let interval_seed = size_seed.wrapping_add(size.is_some() as u32);
        let interval = spec.mean_interarrival_ns.map(|_| MqsimRandom::new(interval_seed as i32));
        MqsimFlowDraws { spec, direction, address, next_streaming_sector, hot_cold, size, interval }
    }

    /// A BANDWIDTH flow's time to its next request, as MQSim draws it (Exponential(mean), whole nanoseconds):
    /// the first from the flow's start, each further one from the time the request before was due. None for
    /// a QUEUE_DEPTH flow.
    pub fn next_interval_ns(&mut self) -> Option<u64> {
        let mean_ns = self.spec.mean_interarrival_ns? as f64;
        let interval = self.interval.as_mut()?;
        Some((0.0 - mean_ns * interval.next_f64().ln()) as u64)
    }

    /// The next request (IO_Flow_Synthetic::Generate_next_request).
    pub fn next_request(&mut self) -> MqsimRequest {
        let s = self.spec;
        let read = self.direction.uniform(0.0, 1.0) <= s.read_share;
        // NORMAL: MQSim's ceil of the draw as an unsigned int, 1 where that is 0. A draw at or under -1 has no
        // defined conversion in C++ (on x86-64 it wraps to about 4 billion sectors); iosched issues 1 sector too.
        let count = match &mut self.size {
            Some((normal, sd)) => normal.normal(s.size_sectors as f64, *sd).ceil().max(1.0) as u64,
            None => s.size_sectors,
        };
        let mut sector = if let Some((hot_address, region, hot_end)) = &mut self.hot_cold {
            // As IO_Flow_Synthetic: a draw under the hot share goes above the hot region's end, the others into
            // it (MQSim moves a request running past the range's end back only in a branch it never takes).
            if region.uniform(0.0, 1.0) < s.hot_share.unwrap_or(0.0) {
                hot_address.uniform_u64(*hot_end + 1, s.last_sector)
            } else {
                hot_address.uniform_u64(s.first_sector, *hot_end)
            }
        } else if s.streaming {
            let mut start = self.next_streaming_sector;
            if start + count > s.last_sector {
                start = s.first_sector;
            }
            let mut next = self.next_streaming_sector + count;
            if next > s.last_sector {
                next = s.first_sector;
            }
            if let Some(align) = s.align_sectors.filter(|&a| a > 0 && next % a != 0) {
                next += align - next % align;
            }
            self.next_streaming_sector = next;
            start
        } else {
            let start = self.address.uniform_u64(s.first_sector, s.last_sector);
            if start + count > s.last_sector {
                s.first_sector
            } else {
                start
            }
        };
        if let Some(align) = s.align_sectors.filter(|&a| a > 0) {
            sector -= sector % align;
        }
        MqsimRequest { read, sector, sectors: count }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first requests of MQSim 2.0 (built from ../shared/peers) on a flow with Seed 798, 128 KiB writes
    /// aligned to 16 sectors, over its drive of 256 blocks a plane at 12 % over-provisioning (sectors 0 to
    /// 118,111,487), as a print of each request's start added to a local build gave them.
    #[test]
    fn a_flow_draws_the_addresses_mqsim_draws() {
        let mut draws = MqsimFlowDraws::new(MqsimDraws {
            seed: 798,
            read_share: 0.0,
            first_sector: 0,
            last_sector: 118_111_487,
            size_sectors: 256,
            align_sectors: Some(16),
            streaming: false,
            hot_share: None,
            normal_size_sd_sectors: None,
            mean_interarrival_ns: None,
        });
        let first: Vec<u64> = (0..3).map(|_| draws.next_request().sector).collect();
        assert_eq!(first, [59_380_208, 97_419_056, 74_144_768]);
    }

    /// MQSim's first sixteen requests (its queue depth, issued at once) of the shipped workload's first flow made
    /// RANDOM_HOTCOLD with a hot region of 20 %: 4 KiB writes, Seed 798, over the first half (the working set) of
    /// its range on the shipped drive, sectors 0 to 249,644,927 (the same local print as above). Most fall in the
    /// hot fifth, the rest above it.
    #[test]
    fn a_hot_cold_flow_draws_the_addresses_mqsim_draws() {
        let mut draws = MqsimFlowDraws::new(MqsimDraws {
            seed: 798,
            read_share: 0.0,
            first_sector: 0,
            last_sector: 249_644_927,
            size_sectors: 8,
            align_sectors: Some(16),
            streaming: false,
            hot_share: Some(0.2),
            normal_size_sd_sectors: None,
            mean_interarrival_ns: None,
        });
        let mut first: Vec<u64> = (0..16).map(|_| draws.next_request().sector).collect();
        first.sort();
        assert_eq!(
            first,
            [
                5_233_712,
                6_288_720,
                6_467_984,
                12_985_440,
                14_431_888,
                17_068_112,
                24_410_224,
                25_514_960,
                29_188_960,
                30_830_704,
                32_417_248,
                33_584_000,
                46_573_104,
                117_806_048,
                118_516_768,
                182_404_608
            ]
        );
    }

    /// MQSim's first requests of the shipped workload's first flow made a BANDWIDTH flow of 10 MB/s with 30 %
    /// reads (the same local print): when each arrived, where, and which were reads.
    #[test]
    fn a_bandwidth_flow_draws_the_times_mqsim_draws() {
        let mut draws = MqsimFlowDraws::new(MqsimDraws {
            seed: 798,
            read_share: 0.3,
            first_sector: 0,
            last_sector: 249_644_927,
            size_sectors: 8,
            align_sectors: Some(16),
            streaming: false,
            hot_share: None,
            normal_size_sd_sectors: None,
            mean_interarrival_ns: Some(1_000_000_000 / (10_000_000 / 512 / 8)),
        });
        let mut at_ns = 0;
        let first: Vec<(u64, u64, bool)> = (0..4)
            .map(|_| {
                at_ns += draws.next_interval_ns().unwrap();
                let r = draws.next_request();
                (at_ns, r.sector, r.read)
            })
            .collect();
        assert_eq!(
            first,
            [
                (923_997, 125_508_272, true),
                (1_761_250, 205_908_608, false),
                (2_199_095, 156_715_216, true),
                (2_361_549, 53_466_080, false)
            ]
        );
    }

    /// MQSim's first twelve requests of the shipped workload's first flow alone on the shipped drive, made a
    /// NORMAL-size flow (mean 10 sectors, Variance_Request_Size 3) of half reads at queue depth 1, as a local
    /// build printing each request's start and size gave them: the sizes come from a generator of their own,
    /// drawn before the address, which the size then bounds.
    #[test]
    fn a_normal_size_flow_draws_the_sizes_and_addresses_mqsim_draws() {
        let mut draws = MqsimFlowDraws::new(MqsimDraws {
            seed: 798,
            read_share: 0.5,
            first_sector: 0,
            last_sector: 499_289_919,
            size_sectors: 10,
            align_sectors: Some(16),
            streaming: false,
            hot_share: None,
            normal_size_sd_sectors: Some(3),
            mean_interarrival_ns: None,
        });
        let first: Vec<(u64, u64)> = (0..12)
            .map(|_| {
                let r = draws.next_request();
                (r.sector, r.sectors)
            })
            .collect();
        assert_eq!(
            first,
            [
                (251_016_576, 7),
                (411_817_280, 14),
                (313_430_464, 5),
                (106_932_176, 13),
                (47_970_960, 10),
                (370_267_088, 5),
                (302_509_472, 15),
                (71_850_240, 14),
                (315_128_560, 12),
                (52_332_944, 10),
                (325_237_824, 11),
                (92_404_096, 7)
            ]
        );
    }

    /// A draw under 1 sector is issued as 1 sector (MQSim: ceil, then 1 where that is 0).
    #[test]
    fn a_normal_size_never_falls_under_one_sector() {
        let mut draws = MqsimFlowDraws::new(MqsimDraws {
            seed: 1,
            read_share: 0.0,
            first_sector: 0,
            last_sector: 1 << 20,
            size_sectors: 1,
            align_sectors: None,
            streaming: false,
            hot_share: None,
            normal_size_sd_sectors: Some(50),
            mean_interarrival_ns: None,
        });
        let sizes: Vec<u64> = (0..1000).map(|_| draws.next_request().sectors).collect();
        assert!(sizes.iter().all(|&s| s >= 1));
        assert!(sizes.iter().filter(|&&s| s == 1).count() > 400, "about half the draws are under 1");
        assert!(sizes.iter().any(|&s| s > 50));
    }

    #[test]
    fn draws_are_in_the_unit_interval_and_deterministic() {
        let (mut a, mut b) = (MqsimRandom::new(12345), MqsimRandom::new(12345));
        for _ in 0..10_000 {
            let x = a.next_f64();
            assert!(x > 0.0 && x < 1.0);
            assert_eq!(x, b.next_f64());
        }
    }
}
