//! The flash back end of the timed SSD: what a die does next when it is free (a translation-page read, a read,
//! a garbage-collection step, a translation-page program, or a program of buffered pages, in that order), the
//! channel transfers around each operation, and the programs queued for a die (at their plane's write
//! frontier). The rules are listed in the parent module's header.

use super::*;

impl Ssd {
    /// With planes: the plane `lpn` lives on, and the page of `stream`'s block there the next write of the
    /// stream takes (which then moves on).
    pub(super) fn advance_plane_frontier(&mut self, lpn: u64, stream: u16) -> (u16, u32) {
        if self.p.plane_groups == 0 {
            return (0, 0);
        }
        let die = self.die_of_lpn(lpn) as u64;
        let planes = self.p.plane_groups as u64 * self.p.program_pages as u64;
        // The plane of the pool the page belongs to (by `lpn` in the default allocation).
        let plane = self.p.plane_of_stripe((self.ftl.pool_of_lpn(lpn) / self.p.dies()) as u64) as u16;
        let streams = self.ftl.write_streams() as u64;
        let at = ((die * planes + plane as u64) * streams + stream as u64) as usize;
        let frontier = &mut self.plane_frontiers[at];
        let page = *frontier;
        *frontier = (*frontier + 1) % self.p.pages_per_block;
        (plane, page)
    }

    /// The page of its block that physical page `ppn` is.
    fn page_in_block(&self, ppn: Ppn) -> u32 {
        (ppn % self.ftl.geometry().pages_per_block as u64) as u32
    }

    /// A buffered page ready for its die: queue its program (with planes, at its plane's write frontier).
    pub(super) fn queue_program(&mut self, now_ns: u64, mut pp: PendingProgram) {
        let die = self.die_of_lpn(pp.lpn);
        (pp.plane, pp.page_in_block) = self.advance_plane_frontier(pp.lpn, pp.stream);
        pp.queued_ns = now_ns;
        // MQSim gives a write its page when it dispatches it, unless the plane's writes are stopped.
        let pool = self.ftl.pool_of_lpn(pp.lpn);
        if self.p.mqsim_cleaning.is_some() && !self.pool_writes_stopped(pool) {
            let opened = self.ftl.blocks_opened(pool);
            self.ftl.write_in_stream(pp.lpn, pp.stream);
            pp.placed = true;
            self.pool_opened_blocks(pool, opened);
        }
        self.cache_entry(now_ns, pp.lpn, true);
        self.dies[die as usize].programs.push_back(pp.class, pp);
        self.kick(now_ns, die);
    }

    /// If a pool of `die` (the die, or one of its planes) is under its free-block threshold, take a victim
    /// there now (the FTL moves its pages at once) and queue on the die the copies and the erase it then spends
    /// its time on; whether it did. Of the die's planes, the one with the fewest free blocks cleans first.
    /// (iosched's rule; with `mqsim_cleaning` cleaning starts only as [`Ssd::pool_opened_blocks`] says.)
    pub(super) fn clean_if_short(&mut self, die: u32) -> bool {
        if self.p.mqsim_cleaning.is_some() {
            return false;
        }
        let dies = self.p.dies();
        let pool = (0..self.p.pools_per_die())
            .map(|k| die + k * dies)
            .filter(|&pool| self.ftl.needs_gc(pool))
            .min_by_key(|&pool| (self.ftl.free_blocks(pool), pool));
        let Some(pool) = pool else { return false };
        if !self.ftl.collect_into(pool, &mut self.gc_work) {
            return false;
        }
        self.queue_cleaning(die);
        true
    }

    /// Queue on `die` the copies and the erase of the victim in `gc_work`.
    fn queue_cleaning(&mut self, die: u32) {
        let d = &mut self.dies[die as usize];
        d.gc_copies.extend(self.gc_work.copies.iter().copied());
        d.gc_erases.push_back(self.gc_work.erased);
    }

    /// The plane (of its die) physical page `ppn` is on, numbered group by group as [`SsdParams::plane_of`]
    /// numbers them: its pool is a plane when cleaning is per plane (pool `die + dies x k` holds the pages whose
    /// `lpn / dies` is `k` modulo the planes); 0 otherwise.
    fn plane_of_ppn(&self, ppn: Ppn) -> u32 {
        if !self.p.cleaning_per_plane {
            return 0;
        }
        self.p.plane_of_stripe((self.ftl.pool_of_ppn(ppn) / self.p.dies()) as u64)
    }

    /// Take from the die's `queue` its head and, up to a multi-plane command's `program_pages` in all, later
    /// entries on other planes of the head's plane group at the same page of their blocks (`page_of` gives the
    /// physical page an entry is about), as MQSim's issue_command_to_chip gathers one command's transactions.
    /// Without planes per pool, the head alone.
    fn take_multi_plane<T: Copy>(
        &mut self,
        die: u32,
        queue: impl Fn(&mut Die) -> &mut VecDeque<T>,
        page_of: impl Fn(&T) -> Ppn,
        taken: &mut Vec<T>,
    ) {
        taken.clear();
        let Some(head) = queue(&mut self.dies[die as usize]).pop_front() else { return };
        taken.push(head);
        if !self.p.cleaning_per_plane {
            return;
        }
        let ppb = self.p.pages_per_block as u64;
        let per_group = self.p.program_pages;
        let head_plane = self.plane_of_ppn(page_of(&head));
        let (group, page) = (head_plane / per_group, page_of(&head) % ppb);
        let mut planes = 1u64 << head_plane;
        let place = |ssd: &Self, e: &T| Some((ssd.plane_of_ppn(page_of(e)), page_of(e) % ppb));
        self.gather_same_page(die, queue, place, (group, page), &mut planes, per_group as usize, taken);
    }

    /// From the die's `queue`, in order, the entries that go in one multi-plane command with what `taken` and
    /// `planes` hold: on plane group `group`, on a plane not taken yet, at page `page` of their blocks (`place`
    /// gives an entry's plane and page, None when it may not go now); each moved to `taken` until it holds
    /// `until`. MQSim's issue_command_to_chip gathers a command so, from either of its source queues.
    #[allow(clippy::too_many_arguments)]
    fn gather_same_page<T: Copy>(
        &mut self,
        die: u32,
        queue: impl Fn(&mut Die) -> &mut VecDeque<T>,
        place: impl Fn(&Self, &T) -> Option<(u32, u64)>,
        (group, page): (u32, u64),
        planes: &mut u64,
        until: usize,
        taken: &mut Vec<T>,
    ) {
        let per_group = self.p.program_pages;
        let mut i = 0;
        while taken.len() < until {
            let Some(&entry) = queue(&mut self.dies[die as usize]).get(i) else { break };
            match place(self, &entry) {
                Some((plane, at)) if plane / per_group == group && *planes & (1 << plane) == 0 && at == page => {
                    *planes |= 1 << plane;
                    taken.push(entry);
                    queue(&mut self.dies[die as usize]).remove(i);
                }
                _ => i += 1,
            }
        }
    }

    /// Whether user commands join the die's cleaning commands, as MQSim's always-urgent cleaning lets them: its
    /// issue_command_to_chip fills the planes a cleaning command leaves free with user transactions of the
    /// same die at the same page (the TSU's second source queue).
    fn user_io_joins_cleaning(&self) -> bool {
        self.p.mqsim_cleaning.is_some() && self.p.cleaning_before_reads && self.p.cleaning_per_plane
    }

    /// The group (MQSim die) of the cleaning command on physical `pages`, the page of their blocks and the
    /// planes it takes.
    fn cleaning_command_shape(&self, pages: &[Ppn]) -> (u32, u64, u64) {
        let ppb = self.p.pages_per_block as u64;
        let planes = pages.iter().fold(0u64, |m, &ppn| m | 1 << self.plane_of_ppn(ppn));
        (self.plane_of_ppn(pages[0]) / self.p.program_pages, pages[0] % ppb, planes)
    }

    /// A cleaning read of `pages` (one command) is about to start on `die`: with MQSim's urgent cleaning, the
    /// user reads of the class whose turn it is (a look at the read classes, which MQSim takes for its second
    /// source queue) that fall on the command's group, on planes it leaves free and at the same page join it,
    /// as `user_reading`. Returns the bytes they add to the command's transfer.
    fn join_reads_to_cleaning(&mut self, die: u32, pages: &[Ppn]) -> u64 {
        if !self.user_io_joins_cleaning() || pages.is_empty() {
            return 0;
        }
        let Some(class) = self.dies[die as usize].reads.look(|_| true) else { return 0 };
        if pages.len() >= self.p.program_pages as usize {
            return 0;
        }
        let (group, page, mut planes) = self.cleaning_command_shape(pages);
        let ppb = self.p.pages_per_block as u64;
        let mut joined = std::mem::take(&mut self.dies[die as usize].user_reading);
        joined.clear();
        let until = self.p.program_pages as usize - pages.len();
        let place = |ssd: &Self, r: &(u32, Ppn, u32, u64)| Some((ssd.plane_of_ppn(r.1), r.1 % ppb));
        self.gather_same_page(die, |d| d.reads.queue_mut(class), place, (group, page), &mut planes, until, &mut joined);
        let bytes = joined.iter().map(|r| r.2 as u64).sum();
        self.dies[die as usize].user_reading = joined;
        bytes
    }

    /// A cleaning program of `pages` (one command) is about to start on `die`: with MQSim's urgent cleaning, the
    /// user programs of the class whose turn it is (a look at the write classes, MQSim's second source queue)
    /// that can go, on the command's group, on planes it leaves free and at the same page join it, as
    /// `programming` (given their pages now if they had none). Returns the bytes they add to the transfer.
    fn join_programs_to_cleaning(&mut self, die: u32, pages: &[Ppn]) -> u64 {
        self.dies[die as usize].programming.clear();
        if !self.user_io_joins_cleaning() || pages.is_empty() {
            return 0;
        }
        let (ftl, p) = (&self.ftl, &self.p);
        let Some(class) = self.dies[die as usize].programs.look(|pp| Self::program_can_go(ftl, p, pp)) else {
            return 0;
        };
        if pages.len() >= self.p.program_pages as usize {
            return 0;
        }
        let (group, page, mut planes) = self.cleaning_command_shape(pages);
        let mut joined = std::mem::take(&mut self.dies[die as usize].programming);
        let until = self.p.program_pages as usize - pages.len();
        let shape = (group, page);
        self.gather_same_page(
            die,
            |d| d.programs.queue_mut(class),
            Self::program_place,
            shape,
            &mut planes,
            until,
            &mut joined,
        );
        self.place_programs(&joined);
        self.stats.multi_page_programs += (!joined.is_empty()) as u64;
        let bytes = joined.iter().map(|pp| if pp.bytes == 0 { self.p.page_bytes } else { pp.bytes as u64 }).sum();
        self.dies[die as usize].programming = joined;
        bytes
    }

    /// Programs about to start: those not placed yet get their pages from the FTL now, and with MQSim's
    /// cleaning each block that opens is one of its checks.
    fn place_programs(&mut self, programs: &[PendingProgram]) {
        let mut opened: smallvec::SmallVec<[(u32, u64); 8]> = smallvec::SmallVec::new();
        for pp in programs.iter().filter(|pp| !pp.placed) {
            let pool = self.ftl.pool_of_lpn(pp.lpn);
            if !opened.iter().any(|&(q, _)| q == pool) {
                opened.push((pool, self.ftl.blocks_opened(pool)));
            }
            self.ftl.write_in_stream(pp.lpn, pp.stream);
        }
        if self.p.mqsim_cleaning.is_some() {
            for (pool, before) in opened {
                self.pool_opened_blocks(pool, before);
            }
        }
    }

    /// `mqsim_cleaning`: whether user writes to `pool` wait: it has fewer free blocks than victims allowed under
    /// way (MQSim's Stop_servicing_writes) and an erase to come there (without one, they would wait for ever).
    fn pool_writes_stopped(&self, pool: u32) -> bool {
        Self::writes_stopped(&self.ftl, &self.p, pool)
    }

    /// Whether a queued program can go now: placed already, or its plane's writes are not stopped (from the FTL
    /// and parameters alone, while a die is borrowed).
    fn program_can_go(ftl: &Ftl, p: &SsdParams, pp: &PendingProgram) -> bool {
        pp.placed || !Self::writes_stopped(ftl, p, ftl.pool_of_lpn(pp.lpn))
    }

    /// A queued program's plane and page of its block, when it can go now ([`Ssd::gather_same_page`]).
    fn program_place(&self, pp: &PendingProgram) -> Option<(u32, u64)> {
        Self::program_can_go(&self.ftl, &self.p, pp).then_some((pp.plane as u32, pp.page_in_block as u64))
    }

    /// [`Ssd::pool_writes_stopped`] from the FTL and parameters alone (while a die is borrowed).
    fn writes_stopped(ftl: &Ftl, p: &SsdParams, pool: u32) -> bool {
        p.mqsim_cleaning.is_some_and(|m| ftl.free_blocks(pool) < m.victims_under_way && ftl.erasing(pool) > 0)
    }

    /// `mqsim_cleaning`: `pool` had opened `opened_before` blocks before its latest writes. Each block opened
    /// since is one of MQSim's checks (Check_gc_required on a new write frontier).
    pub(super) fn pool_opened_blocks(&mut self, pool: u32, opened_before: u64) {
        let checks = self.ftl.blocks_opened(pool) - opened_before;
        self.check_cleaning(pool, checks);
    }

    /// `mqsim_cleaning`: a cleaning copy `(from, to)` has its page, as MQSim gives it one when the copy's read is
    /// done (over the channel the FTL places it only now, [`Ftl::place_copy`]). When it is the last page of a
    /// block, MQSim takes its next cleaning write frontier and checks the pool then.
    fn copy_placed(&mut self, (_, to): (Ppn, Ppn)) {
        let ppb = self.p.pages_per_block as u64;
        if self.p.mqsim_cleaning.is_some() && to % ppb == ppb - 1 {
            self.check_cleaning(self.ftl.pool_of_ppn(to), 1);
        }
    }

    /// `mqsim_cleaning`: a victim is erased and its block free. A plane still short of the free blocks user
    /// writes need checks again (MQSim's handle_transaction_serviced_signal_from_PHY after an erase).
    fn victim_erased(&mut self, first_ppn: Ppn) {
        let Some(m) = self.p.mqsim_cleaning else { return };
        self.ftl.erased(first_ppn);
        let pool = self.ftl.pool_of_ppn(first_ppn);
        if self.ftl.take_static_wear_leveling(pool, &mut self.gc_work) {
            self.queue_cleaning(pool % self.p.dies());
        }
        if self.ftl.free_blocks(pool) < m.victims_under_way {
            self.check_cleaning(pool, 1);
        }
    }

    /// `checks` of MQSim's Check_gc_required on `pool`: each, while the pool is under its threshold with fewer
    /// victims under way than allowed, takes one victim and queues its work on the die. A block its copies
    /// open is checked when that copy is given its page ([`Ssd::copy_placed`]).
    fn check_cleaning(&mut self, pool: u32, mut checks: u64) {
        let Some(m) = self.p.mqsim_cleaning else { return };
        while checks > 0 {
            checks -= 1;
            if !self.ftl.needs_gc(pool) || self.ftl.erasing(pool) >= m.victims_under_way {
                continue;
            }
            if self.ftl.take_victim(pool, &mut self.gc_work) {
                self.queue_cleaning(pool % self.p.dies());
            }
        }
    }

    /// MQSim's flash interface (`channel_commands`, conform=mqsim): a chip gets a command only
    /// while its channel is idle, every data-out waiting on the channel going first (NVM_PHY_ONFI_NVDDR2 serves
    /// them before it signals the channel idle), and at each idle moment the transaction scheduler offers the
    /// channel to its chips round robin from where it last stopped, until one command takes the channel
    /// (TSU_Base::handle_channel_idle_signal). Whether `die` must wait: it then joins its channel's waiters and a
    /// check is due when the channel's transfers end (`channel_idle`). A die with work waits too while others
    /// wait for an idle channel, so that the round robin decides among them all.
    fn held_for_busy_channel(&mut self, now_ns: u64, die: u32) -> bool {
        let ch = self.channel_of(die);
        // Others waiting for the channel: the next idle moment decides among them all, round robin.
        if !self.channel_busy(now_ns, ch) && self.channel_waiters[ch] == 0 {
            return false;
        }
        let d = &mut self.dies[die as usize];
        if !d.waiting_for_channel {
            d.waiting_for_channel = true;
            self.channel_waiters[ch] += 1;
        }
        self.check_channel_when_free(now_ns, ch);
        true
    }

    /// Whether the channel moves data now or has data waiting to go out.
    fn channel_busy(&self, now_ns: u64, ch: usize) -> bool {
        self.channel_free_ns[ch] > now_ns || !self.mapping_data_out[ch].is_empty() || !self.user_data_out[ch].is_empty()
    }

    /// Look at the channel again when its transfer in progress ends (now, if none is).
    fn check_channel_when_free(&mut self, now_ns: u64, ch: usize) {
        let free_ns = self.channel_free_ns[ch].max(now_ns);
        if self.channel_check_ns[ch].is_none_or(|t| t > free_ns) {
            self.channel_check_ns[ch] = Some(free_ns);
            self.schedule(free_ns, Event::ChannelIdle(ch as u32));
        }
    }

    /// Move a sensed page's data over the channel from now: the die is done when it is out.
    fn start_data_out(&mut self, now_ns: u64, die: u32) {
        let ch = self.channel_of(die);
        let bytes = self.dies[die as usize].sensed_bytes;
        let start = now_ns.max(self.channel_free_ns[ch]);
        self.channel_free_ns[ch] = start + units::transfer_ns(bytes, self.p.channel_bytes_per_s);
        let end = self.channel_free_ns[ch];
        self.dies[die as usize].op_end_ns = end;
        self.schedule(end, Event::DieDone(die));
    }

    /// A channel's check is due. Data waiting to go out goes first, translation pages' before user data's
    /// (NVM_PHY_ONFI_NVDDR2 serves WaitingMappingRead_TX before WaitingReadTX); with none waiting the channel is
    /// idle and its waiting dies get their commands round robin, from the die after the one served last, until
    /// a command takes the channel; the rest wait for its next idle moment.
    pub(super) fn channel_idle(&mut self, now_ns: u64, ch: u32) {
        let c = ch as usize;
        if self.channel_check_ns[c] != Some(now_ns) {
            return; // superseded by an earlier check
        }
        self.channel_check_ns[c] = None;
        if self.channel_free_ns[c] > now_ns {
            self.check_channel_when_free(now_ns, c);
            return;
        }
        let out = self.mapping_data_out[c].pop_front().or_else(|| self.user_data_out[c].pop_front());
        if let Some(die) = out {
            self.start_data_out(now_ns, die);
            // Look again when it is out only if someone waits (a command, or more data).
            if self.channel_waiters[c] > 0 || !self.mapping_data_out[c].is_empty() || !self.user_data_out[c].is_empty()
            {
                self.check_channel_when_free(now_ns, c);
            }
            return;
        }
        let per_channel = self.p.dies_per_channel;
        for _ in 0..per_channel {
            if self.channel_free_ns[c] > now_ns || self.channel_waiters[c] == 0 {
                break;
            }
            let turn = self.channel_turn[c];
            self.channel_turn[c] = (turn + 1) % per_channel;
            let die = ch + turn * self.p.channels;
            if self.dies[die as usize].waiting_for_channel {
                self.dies[die as usize].waiting_for_channel = false;
                self.channel_waiters[c] -= 1;
                self.start_op(now_ns, die); // a waiting die is idle
            }
        }
        if self.channel_waiters[c] > 0 && self.channel_free_ns[c] > now_ns {
            self.check_channel_when_free(now_ns, c);
        }
    }

    /// Whether the die has anything to do.
    fn has_work(d: &Die) -> bool {
        !(d.mapping_reads.is_empty()
            && d.reads.is_empty()
            && d.gc_copies.is_empty()
            && d.gc_writes.is_empty()
            && d.gc_erases.is_empty()
            && d.mapping_programs == 0
            && d.programs.is_empty())
    }

    /// Start the die's next operation if it is idle.
    /// Run `queue` (which queues work on dies) and only then start the dies it gave work, so that each sees all
    /// of it at once (MQSim dispatches a request's transactions together); nested calls start them at the end of
    /// the outermost.
    pub(super) fn holding_kicks(&mut self, now_ns: u64, queue: impl FnOnce(&mut Self)) {
        if self.holding_kicks {
            return queue(self);
        }
        self.holding_kicks = true;
        queue(self);
        self.holding_kicks = false;
        // The list is kept between commands, so holding costs no allocation on the read path.
        let held = std::mem::take(&mut self.held_kicks);
        for &die in &held {
            self.kick(now_ns, die);
        }
        if self.p.flash_classes == FlashClasses::WeightedRoundRobin && !held.is_empty() {
            self.look_at_busy_dies(now_ns);
        }
        self.held_kicks = held;
        self.held_kicks.clear();
    }

    pub(super) fn kick(&mut self, now_ns: u64, die: u32) {
        if self.holding_kicks {
            if !self.held_kicks.contains(&die) {
                self.held_kicks.push(die);
            }
            return;
        }
        let d = &self.dies[die as usize];
        if d.op != DieOp::Idle {
            return;
        }
        if self.p.channel_commands.is_some() && Self::has_work(d) && self.held_for_busy_channel(now_ns, die) {
            return;
        }
        self.start_op(now_ns, die);
    }

    /// Start an idle die's next operation, its turn on the channel (if it must wait for one) already given.
    /// Where the scheduler's look at the user queues passed over every class with work and the die found
    /// nothing else to do, it looks again ([`priority_classes`]: MQSim's chip would wait for its next visit),
    /// this time without the extra look at the writes that MQSim's service_read_transaction takes. (With it,
    /// LOW programs alone on a die would be found by that extra look and passed over by the one that serves, at
    /// every visit: MQSim's chip would never program them. Here they go.)
    fn start_op(&mut self, now_ns: u64, die: u32) {
        self.start_op_once(now_ns, die, false);
        let d = &self.dies[die as usize];
        if d.op == DieOp::Idle && (!d.reads.is_empty() || self.has_program_that_can_go(die)) {
            self.start_op_once(now_ns, die, true);
        }
    }

    /// With priority classes: after a command's transactions are queued, MQSim's scheduler (TSU_Priority_OutOfOrder::
    /// Schedule) visits the chips of every channel whose bus is idle, and a visit looks at the chip's queues
    /// before it checks whether the chip is free: a look at the reads, one at the writes if no read class was
    /// found (service_read_transaction), and one at the writes (service_write_transaction). So the turns of a
    /// busy die's round robin move on while it works, and which class it serves when it is free depends on how
    /// often it was visited meanwhile. Here every busy die of such a channel takes those looks. (MQSim's
    /// visits on a channel stop at the first chip that starts a command; dies started by this command's
    /// transactions were started just before.)
    fn look_at_busy_dies(&mut self, now_ns: u64) {
        for die in 0..self.p.dies() {
            let d = &self.dies[die as usize];
            if d.op == DieOp::Idle || (d.reads.settled() && d.programs.settled()) {
                continue;
            }
            if self.channel_busy(now_ns, self.channel_of(die)) {
                continue;
            }
            let (ftl, p) = (&self.ftl, &self.p);
            let can_go = |pp: &PendingProgram| Self::program_can_go(ftl, p, pp);
            let d = &mut self.dies[die as usize];
            if d.reads.look(|_| true).is_none() {
                d.programs.look(can_go);
            }
            d.programs.look(can_go);
        }
    }

    /// Whether one of the die's queued programs can go now (none waits for its plane's writes to resume).
    fn has_program_that_can_go(&self, die: u32) -> bool {
        let (ftl, p) = (&self.ftl, &self.p);
        self.dies[die as usize].programs.iter().any(|pp| Self::program_can_go(ftl, p, pp))
    }

    /// [`Ssd::start_op`]'s one look at what the die does next (`again`: its second).
    fn start_op_once(&mut self, now_ns: u64, die: u32, again: bool) {
        // Cleaning reads come after translation-page reads, before anything else: as many as one multi-plane
        // read takes, their data then going out over the channel.
        let d = &self.dies[die as usize];
        let gc_read_bytes = if d.mapping_reads.is_empty() && self.p.gc_copies_over_channel && !d.gc_copies.is_empty() {
            let mut taken = std::mem::take(&mut self.dies[die as usize].gc_moving);
            self.take_multi_plane(die, |d| &mut d.gc_copies, |&(from, _)| from, &mut taken);
            let mut bytes = taken.len() as u64 * self.p.page_bytes;
            let pages: smallvec::SmallVec<[Ppn; 4]> = taken.iter().map(|&(from, _)| from).collect();
            self.dies[die as usize].gc_moving = taken;
            bytes += self.join_reads_to_cleaning(die, &pages);
            Some(bytes)
        } else {
            None
        };
        // Reads: tR, then (event Sensed) the data waits for the channel, which is taken when it is free then,
        // so a channel idle while dies sense serves whoever needs it meanwhile. Each read's sensing time is by
        // the type of the page read (a multi-plane read's first page, as MQSim times it), translation pages' the
        // mean.
        let d = &self.dies[die as usize];
        let cleaning_first = self.p.cleaning_before_reads
            && (!d.gc_copies.is_empty() || !d.gc_writes.is_empty() || !d.gc_erases.is_empty());
        let mut passed_reads = false;
        let read = if let Some(&translation_page) = d.mapping_reads.front() {
            Some((DieOp::MappingRead { translation_page }, self.p.mapping_read_bytes, self.p.read_ns))
        } else if let Some(bytes) = gc_read_bytes {
            let from = d.gc_moving.first().map_or(0, |&(from, _)| from);
            Some((DieOp::GcRead, bytes, self.p.read_ns_at(self.page_in_block(from))))
        } else if cleaning_first {
            None
        } else if let Some(class) = self.dies[die as usize].reads.look(|_| true) {
            // The first read of the class whose turn it is, with the reads of the same class at the same page of
            // the group's other planes.
            let mut taken = std::mem::take(&mut self.dies[die as usize].user_reading);
            self.take_multi_plane(die, |d| d.reads.queue_mut(class), |r| r.1, &mut taken);
            let bytes: u64 = taken.iter().map(|r| r.2 as u64).sum();
            let sense_ns = self.p.read_ns_at(self.page_in_block(taken[0].1));
            self.dies[die as usize].user_reading = taken;
            Some((DieOp::Read, bytes, sense_ns))
        } else {
            // No user read this look: MQSim's service_read_transaction then looks at the writes once before its
            // service_write_transaction looks again and serves them.
            passed_reads = true;
            None
        };
        let p = &self.p;
        let ch = self.channel_of(die);
        // The command's own cycles on the channel (none unless commands wait for the channel).
        let commands = p.channel_commands.unwrap_or_default();
        if let Some((op, bytes, sense_ns)) = read {
            let cmd_ns = commands.read;
            if cmd_ns > 0 {
                self.channel_free_ns[ch] = now_ns + cmd_ns;
            }
            match op {
                DieOp::MappingRead { .. } => self.stats.mapping_reads += 1,
                _ => self.stats.flash_page_reads += self.dies[die as usize].user_reading.len() as u64,
            }
            let d = &mut self.dies[die as usize];
            d.op = op;
            d.op_started_ns = now_ns;
            d.op_end_ns = now_ns + cmd_ns + sense_ns;
            d.sensed_bytes = bytes;
            let at = d.op_end_ns;
            self.schedule(at, Event::Sensed(die));
            return;
        }
        let d = &self.dies[die as usize];
        let (op, end_ns) = if !d.gc_writes.is_empty() {
            // Cleaning writes, as many as one multi-plane program takes: their data in over the channel, tPROG.
            let mut taken = std::mem::take(&mut self.dies[die as usize].gc_moving);
            self.take_multi_plane(die, |d| &mut d.gc_writes, |&(_, to)| to, &mut taken);
            let program_ns = self.p.program_ns_at(self.page_in_block(taken.first().map_or(0, |&(_, to)| to)));
            let pages: smallvec::SmallVec<[Ppn; 4]> = taken.iter().map(|&(_, to)| to).collect();
            let gc_pages = taken.len() as u64;
            self.dies[die as usize].gc_moving = taken;
            let user_bytes = self.join_programs_to_cleaning(die, &pages);
            let planes = gc_pages + self.dies[die as usize].programming.len() as u64;
            let start =
                now_ns.max(self.channel_free_ns[ch]) + commands.program + (planes - 1) * commands.program_extra_plane;
            self.channel_free_ns[ch] =
                start + self.page_transfer_ns(gc_pages) + units::transfer_ns(user_bytes, self.p.channel_bytes_per_s);
            (DieOp::GcWrite, self.channel_free_ns[ch] + program_ns)
        } else if !d.gc_copies.is_empty() && !p.gc_copies_over_channel {
            let k = d.gc_copies.len().min(p.program_pages as usize);
            let (mut reads_ns, mut program_ns) = (0, 0);
            for i in 0..k {
                let (from, to) = self.dies[die as usize].gc_copies.pop_front().expect("a copy");
                self.copy_placed((from, to));
                reads_ns += self.p.read_ns_at(self.page_in_block(from));
                if i == 0 {
                    program_ns = self.p.program_ns_at(self.page_in_block(to));
                }
            }
            (DieOp::GcCopy, now_ns + reads_ns + program_ns)
        } else if !d.gc_erases.is_empty() {
            // With MQSim's cleaning, one multi-plane erase takes victims of the same group's other planes too.
            let mut taken = std::mem::take(&mut self.dies[die as usize].erasing);
            if self.p.gc_copies_over_channel {
                self.take_multi_plane(die, |d| &mut d.gc_erases, |_| 0, &mut taken);
            } else {
                taken.clear();
                taken.extend(self.dies[die as usize].gc_erases.pop_front());
            }
            self.dies[die as usize].erasing = taken;
            let cmd_ns = commands.erase;
            if cmd_ns > 0 {
                self.channel_free_ns[ch] = now_ns + cmd_ns;
            }
            (DieOp::Erase, now_ns + cmd_ns + self.p.erase_ns)
        } else if d.mapping_programs > 0 {
            self.dies[die as usize].mapping_programs -= 1;
            self.stats.mapping_programs += 1;
            let start = now_ns.max(self.channel_free_ns[ch]) + commands.program;
            self.channel_free_ns[ch] = start + self.page_transfer_ns(1);
            (DieOp::MappingProgram, self.channel_free_ns[ch] + p.program_ns)
        } else if !d.programs.is_empty() {
            // Clean one victim before programming more: its copies and erase come first.
            if self.clean_if_short(die) {
                return self.start_op_once(now_ns, die, again);
            }
            // With mqsim_cleaning, programs for a plane whose writes are stopped wait (the first other one goes).
            // The class whose turn it is among those with a program that can go.
            let (ftl, p) = (&self.ftl, &self.p);
            let can_go = |pp: &PendingProgram| Self::program_can_go(ftl, p, pp);
            if passed_reads && !again {
                self.dies[die as usize].programs.look(can_go);
            }
            let Some(class) = self.dies[die as usize].programs.look(can_go) else {
                return;
            };
            let programs = self.dies[die as usize].programs.queue_mut(class);
            let head_at = programs.iter().position(can_go).expect("a program that can go");
            let mut taken = std::mem::take(&mut self.dies[die as usize].programming);
            taken.clear();
            let per_group = self.p.program_pages;
            if self.p.plane_groups > 0 {
                // The head's page, and pages of the same die's other planes at the same page of their blocks.
                let head = self.dies[die as usize].programs.queue_mut(class).remove(head_at).expect("a program");
                let (group, page) = (head.plane as u32 / per_group, head.page_in_block as u64);
                let mut planes = 1u64 << head.plane;
                taken.push(head);
                let until = per_group as usize;
                let shape = (group, page);
                let place = Self::program_place;
                self.gather_same_page(
                    die,
                    |d| d.programs.queue_mut(class),
                    place,
                    shape,
                    &mut planes,
                    until,
                    &mut taken,
                );
            } else {
                let programs = self.dies[die as usize].programs.queue_mut(class);
                let k = programs.len().min(per_group as usize);
                taken.extend(programs.drain(..k));
            }
            self.place_programs(&taken);
            // tPROG by the type of the first page (where the FTL put it), as MQSim times a multi-plane program.
            let program_ns = match (&self.p.page_types, taken.first().and_then(|pp| self.ftl.lookup(pp.lpn))) {
                (Some(_), Some(ppn)) => self.p.program_ns_at(self.page_in_block(ppn)),
                _ => self.p.program_ns,
            };
            self.stats.multi_page_programs += (taken.len() > 1) as u64;
            // What the writes put in the pages goes over the channel (a whole page when it is unknown).
            let page_bytes = self.p.page_bytes;
            let bytes: u64 = taken.iter().map(|pp| if pp.bytes == 0 { page_bytes } else { pp.bytes as u64 }).sum();
            self.dies[die as usize].programming = taken;
            let planes = self.dies[die as usize].programming.len() as u64;
            let cmd_ns = commands.program + (planes - 1) * commands.program_extra_plane;
            let start = now_ns.max(self.channel_free_ns[ch]) + cmd_ns;
            self.channel_free_ns[ch] = start + units::transfer_ns(bytes, self.p.channel_bytes_per_s);
            let end_ns = self.channel_free_ns[ch] + program_ns;
            (DieOp::Program, end_ns)
        } else {
            return;
        };
        let d = &mut self.dies[die as usize];
        d.op = op;
        d.op_started_ns = now_ns;
        d.op_end_ns = end_ns;
        self.schedule(end_ns, Event::DieDone(die));
    }

    /// A read has sensed its page: move its data when the channel is free.
    pub(super) fn sensed(&mut self, now_ns: u64, die: u32) {
        let ch = self.channel_of(die);
        if self.p.channel_commands.is_none() || !self.channel_busy(now_ns, ch) {
            return self.start_data_out(now_ns, die);
        }
        // The channel is busy: the data waits its turn (channel_idle).
        match self.dies[die as usize].op {
            DieOp::MappingRead { .. } => self.mapping_data_out[ch].push_back(die),
            _ => self.user_data_out[ch].push_back(die),
        }
        self.check_channel_when_free(now_ns, ch);
    }

    /// The user reads of the die's command (`user_reading`) have their data.
    fn reads_done(&mut self, now_ns: u64, die: u32) {
        let mut reading = std::mem::take(&mut self.dies[die as usize].user_reading);
        for &(slot, _, _, queued_ns) in &reading {
            self.stats.read_transactions += 1;
            self.stats.read_turnaround_ns += now_ns - queued_ns;
            self.read_page_done(now_ns, slot);
        }
        reading.clear();
        self.dies[die as usize].user_reading = reading;
    }

    /// The user programs of the die's command (`programming`) are on the flash.
    fn programs_done(&mut self, now_ns: u64, die: u32) {
        let mut taken = std::mem::take(&mut self.dies[die as usize].programming);
        if taken.is_empty() {
            self.dies[die as usize].programming = taken;
            return;
        }
        self.stats.program_transactions += taken.len() as u64;
        self.stats.program_turnaround_ns += taken.iter().map(|pp| now_ns - pp.queued_ns).sum::<u64>();
        for pp in &taken {
            match pp.slot {
                Some(slot) => {
                    let c = self.slots[slot as usize].as_mut().expect("write in flight");
                    c.outstanding -= 1;
                    if c.outstanding == 0 {
                        self.complete(slot);
                    }
                }
                None => {
                    if self.cache.is_empty() {
                        self.buffer_used_bytes -= pp.bytes as u64;
                    } else {
                        self.cache_for(pp.lpn).written_back(pp.lpn, pp.bytes);
                    }
                    self.unprogrammed_pages -= 1;
                }
            }
        }
        taken.clear();
        self.dies[die as usize].programming = taken;
        self.buffer_drained(now_ns);
    }

    pub(super) fn die_done(&mut self, now_ns: u64, die: u32) {
        let d = &mut self.dies[die as usize];
        let op = d.op;
        d.busy_ns += now_ns - d.op_started_ns;
        d.op = DieOp::Idle;
        match op {
            DieOp::Read => self.reads_done(now_ns, die),
            DieOp::MappingRead { translation_page } => {
                d.mapping_reads.pop_front();
                // The pages waiting for this translation page are dispatched together.
                let waiters = self.mapping_waiters.remove(&translation_page).unwrap_or_default();
                self.holding_kicks(now_ns, |ssd| {
                    for waiter in waiters {
                        ssd.mapping_arrived(now_ns, waiter);
                    }
                });
            }
            DieOp::MappingProgram => {}
            DieOp::Program => self.programs_done(now_ns, die),
            DieOp::GcCopy => {}
            DieOp::GcRead => {
                // User reads that joined the command are done too.
                self.reads_done(now_ns, die);
                // MQSim gives each copy its page now, when its read is done (a page written since has nothing
                // to copy).
                let mut read = std::mem::take(&mut self.dies[die as usize].gc_moving);
                for copy in read.iter_mut() {
                    if self.ftl.places_copies_when_read() {
                        match self.ftl.place_copy(copy.0) {
                            Some(to) => copy.1 = to,
                            None => continue,
                        }
                    }
                    self.copy_placed(*copy);
                    self.dies[die as usize].gc_writes.push_back(*copy);
                }
                self.dies[die as usize].gc_moving = read;
            }
            // User programs that joined the command are done too.
            DieOp::GcWrite => self.programs_done(now_ns, die),
            DieOp::Erase => {
                let erased = std::mem::take(&mut self.dies[die as usize].erasing);
                for &first_ppn in &erased {
                    self.victim_erased(first_ppn);
                }
                self.dies[die as usize].erasing = erased;
            }
            DieOp::Idle => unreachable!("an idle die has no operation to end"),
        }
        self.kick(now_ns, die);
    }
}
